"""What every compile watcher shares, whatever the framework: a logging tap that sees a
logger's records while the user sees what they saw before, where the user's own code is (the
call site of a compile, a function's parameter names), and the hub that installs a
framework's hooks once for all active watchers, waiting for the framework's import when the
watched code has not imported it yet.

:mod:`hloscope.capture.compile_watch` (JAX) and :mod:`hloscope.capture.tf_watch`
(TensorFlow) build on it; neither imports the other for it.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib.util
import linecache
import logging
import os
import sys
import sysconfig
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..backends.compile_records import CompileRecord

# ---- logging without changing what the user sees -------------------------------------------------


@dataclass(slots=True)
class _LoggerState:
    level: int
    propagate: bool
    handlers: list[logging.Handler]
    disabled: bool


class LogTap(logging.Handler):
    """See every record of one logger while the user sees exactly what they saw before.

    :meth:`install` lowers the logger's level to ``level`` (when given and needed), makes this
    handler its only handler and stops propagation; every record goes to ``on_record`` and is
    then handed, as Python's logging would have, to the handlers that had it before (the
    logger's own, then its ancestors' while ``propagate`` allowed, else ``logging.lastResort``)
    if it reaches the level the logger had. ``rewrite(record)`` may return a changed copy (what
    the user would have got without the watcher) or ``None`` (a record only the watcher caused).
    :meth:`uninstall` puts level, handlers (plus any added meanwhile), ``propagate`` and
    ``disabled`` back.
    """

    def __init__(
        self,
        name: str,
        on_record: Callable[[logging.LogRecord], None] | None = None,
        *,
        level: int | None = None,
        rewrite: Callable[[logging.LogRecord], logging.LogRecord | None] | None = None,
    ) -> None:
        super().__init__()
        self.logger_name = name
        self.logger = logging.getLogger(name)  # loggers live as long as the process
        self.on_record = on_record
        self.needed_level = level
        self.rewrite = rewrite
        self._saved: _LoggerState | None = None

    def install(self) -> None:
        logger = self.logger
        self._saved = _LoggerState(
            logger.level, logger.propagate, list(logger.handlers), logger.disabled
        )
        logger.handlers[:] = [self]
        logger.propagate = False
        logger.disabled = False
        if self.needed_level is not None and logger.getEffectiveLevel() > self.needed_level:
            logger.setLevel(self.needed_level)

    def lower_to(self, level: int) -> None:
        """Lower the logger's level to ``level`` while installed (put back by uninstall)."""
        if self._saved is not None and self.logger.getEffectiveLevel() > level:
            self.logger.setLevel(level)

    def uninstall(self) -> None:
        saved, self._saved = self._saved, None
        if saved is None:
            return
        logger = self.logger
        added = [h for h in logger.handlers if h is not self and h not in saved.handlers]
        logger.handlers[:] = [*saved.handlers, *added]
        logger.propagate = saved.propagate
        logger.disabled = saved.disabled
        if logger.level != saved.level:
            logger.setLevel(saved.level)

    def emit(self, record: logging.LogRecord) -> None:
        if self.on_record is not None:
            # Watching must never break the watched code.
            with contextlib.suppress(Exception):
                self.on_record(record)
        self._forward(record)

    def _forward(self, record: logging.LogRecord) -> None:
        saved = self._saved
        if saved is None or saved.disabled:
            return
        if self.rewrite is not None:
            rewritten = self.rewrite(record)
            if rewritten is None:
                return
            record = rewritten
        logger = self.logger
        threshold = saved.level
        if threshold == logging.NOTSET:
            threshold = logger.parent.getEffectiveLevel() if logger.parent else logging.WARNING
        if record.levelno < threshold:
            return
        found = 0
        for handler in saved.handlers:
            found += 1
            if record.levelno >= handler.level:
                handler.handle(record)
        node = logger.parent if saved.propagate else None
        while node is not None:
            for handler in node.handlers:
                found += 1
                if record.levelno >= handler.level:
                    handler.handle(record)
            node = node.parent if node.propagate else None
        last = logging.lastResort
        if found == 0 and last is not None and record.levelno >= last.level:
            last.handle(record)


def _demoted(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of ``record`` at DEBUG: what JAX logs when ``jax_explain_cache_misses`` is off."""
    quiet = copy.copy(record)
    quiet.levelno, quiet.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
    return quiet


def short_repr(value: Any, limit: int) -> str:
    """``repr(value)`` cut to ``limit`` characters (an ellipsis at the cut), for the values a
    watcher records: a value whose ``repr`` raises is named by its type."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# ---- where the user's code is --------------------------------------------------------------------


_HLOSCOPE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = {_HLOSCOPE_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            found.add(os.path.join(os.path.abspath(paths[key]), ""))
    return tuple(sorted(found))


def _framework_prefixes() -> tuple[str, ...]:
    found = []
    for name in ("jax", "jaxlib", "tensorflow", "keras"):
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if file:
            found.append(os.path.join(os.path.dirname(os.path.abspath(file)), ""))
    return tuple(found)


def _is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    return _is_user_path(filename, _library_prefixes() + _framework_prefixes())


@functools.lru_cache(maxsize=4096)
def _is_user_path(filename: str, prefixes: tuple[str, ...]) -> bool:
    """Cached per file: the stack of every compile walks the same few dozen files (the
    prefixes are part of the key: they grow when the code imports a framework)."""
    return not os.path.abspath(filename).startswith(prefixes)


def user_call_site(skip: int = 1) -> str | None:
    """``file:line (function)`` of the innermost frame of the running stack in the user's code
    (not hloscope, jax, TensorFlow, the standard library or installed packages)."""
    frame: types.FrameType | None = sys._getframe(skip)
    prefixes = _library_prefixes() + _framework_prefixes()
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if name and not name.startswith("<") and _is_user_path(name, prefixes):
            return f"{name}:{frame.f_lineno} ({code.co_name})"
        frame = frame.f_back
    return None


@functools.lru_cache(maxsize=64)
def _parsed_source(path: str) -> ast.AST | None:
    text = "".join(linecache.getlines(path))
    if not text:
        return None
    try:
        return ast.parse(text, path)
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=1024)
def parameter_names(defined_at: str, name: str) -> tuple[str, ...] | None:
    """The parameter names of the function ``name`` defined at ``file:line``, from its source.

    JAX reports where a function was defined (its first line: the decorator's line for a
    decorated ``def``) but its records name arguments only by position; the source names them.
    ``None`` when the source cannot be read or holds no such function there.
    """
    path, _, line = defined_at.rpartition(":")
    if not path or not line.isdigit():
        return None
    tree = _parsed_source(path)
    if tree is None:
        return None
    lineno = int(line)
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            if node.lineno == lineno and name == "<lambda>":
                return _arg_names(node.args)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            lines = {node.lineno, *(d.lineno for d in node.decorator_list)}
            if lineno in lines:
                return _arg_names(node.args)
    return None


def _arg_names(args: ast.arguments) -> tuple[str, ...]:
    return tuple(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])


# ---- JAX -----------------------------------------------------------------------------------------


class _Hub:
    """Hooks installed once for every active watcher (a count of subscribers keeps them)."""

    framework = ""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._sinks: list[Callable[[CompileRecord], None]] = []
        self._installed = False
        self._import_hook: _AfterImport | None = None

    def subscribe(self, sink: Callable[[CompileRecord], None]) -> None:
        with self._lock:
            self._sinks.append(sink)
            if len(self._sinks) > 1:
                return
            if self.framework in sys.modules:
                try:
                    self._install()
                except BaseException:
                    self._sinks.remove(sink)
                    raise
            else:  # hook in when the watched code imports the framework
                self._import_hook = _AfterImport(self.framework, self._installed_late)
                sys.meta_path.insert(0, self._import_hook)

    def unsubscribe(self, sink: Callable[[CompileRecord], None]) -> None:
        with self._lock:
            with contextlib.suppress(ValueError):
                self._sinks.remove(sink)
            if self._sinks:
                return
            if self._import_hook is not None:
                with contextlib.suppress(ValueError):
                    sys.meta_path.remove(self._import_hook)
                self._import_hook = None
            if self._installed:
                self._installed = False
                self._uninstall()

    def _installed_late(self) -> None:
        with self._lock:
            self._import_hook = None
            if self._sinks and not self._installed:
                self._install()

    def _install(self) -> None:
        self._installed = True

    def _uninstall(self) -> None:  # pragma: no cover - overridden
        pass

    def publish(self, record: CompileRecord) -> None:
        for sink in list(self._sinks):
            sink(record)


# ---- hooking in when the framework is imported later ---------------------------------------------


class _AfterImport:  # a meta path finder: find_spec is all it needs
    """Run ``then()`` right after the top-level package ``name`` has been imported.

    A script run under the watcher imports jax itself (perhaps after setting ``JAX_*``
    variables), so the watcher cannot import it first; it waits for the import instead.
    """

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.name:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        then = self.then

        def exec_then_watch(module: ModuleType) -> None:
            exec_module(module)
            with contextlib.suppress(Exception):  # never break the watched code's import
                then()

        spec.loader.exec_module = exec_then_watch  # type: ignore[method-assign]
        return spec
