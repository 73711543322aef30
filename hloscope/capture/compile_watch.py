"""Watch what JAX compiles while code runs, through JAX's public hooks and logging records only.

Every jit compile in JAX leaves three kinds of public traces, in this order, in the calling
thread (``../shared/docs/diagnostics-notes.md``, part B, has the verified details):

1. with ``jax_explain_cache_misses`` on, a ``TRACING CACHE MISS at ...`` WARNING on the logger
   ``jax._src.interpreters.partial_eval``: where the call came from, where the function was
   defined, and how the new tracing-cache key differs from the *closest* earlier one;
2. the ``jax.monitoring`` durations ``/jax/core/compile/jaxpr_trace_duration`` (tracing),
   ``.../jaxpr_to_mlir_module_duration`` (lowering) and ``.../backend_compile_duration``
   (XLA), each with ``fun_name``; one backend event is one XLA compile;
3. between tracing and lowering, the DEBUG record ``Compiling %s with global shapes and types
   %s. Argument mapping: %s.`` on ``jax._src.interpreters.pxla``, whose ``record.args`` hold
   the module name, the abstract value of every flattened argument (shape, dtype, weak type,
   sharding) and the input shardings.

:class:`CompileWatcher` listens to all three and turns each backend compile into one
:class:`~hloscope.backends.compile_records.CompileRecord`; :mod:`hloscope.analysis.recompiles`
turns records into the ledger.
JAX's explanation names only one category of difference against the closest earlier key (a
config change hides a shape change), so the watcher also keeps the tracing context (the config
values JAX puts in the key, :func:`~hloscope.backends.trace_context_items`) and
the full argument signature of every compile, and the ledger diffs each compile against the
previous compile of the same function itself.

It also reads JAX's persistent compilation cache log (``jax._src.cache_key``,
``jax._src.compiler``, ``jax._src.compilation_cache`` at DEBUG; the first only once a cache
folder is set, as it makes JAX hash each key part twice): each record gets a
:class:`~hloscope.backends.compile_records.CacheObservation` (hit, miss, not written and
why, off; the hash of each key part and the facts behind it) and the static arguments JAX's
explanation frame holds.

What the watcher changes while it runs, and puts back exactly when it stops (also when the
watched code raised): the level, handlers, ``propagate`` and ``disabled`` flags of the loggers
it reads, JAX's ``jax_explain_cache_misses`` flag, and one ``jax.monitoring`` listener. It also
puts one object in JAX's registry of caches (``jax._src.util.register_cache``), whose
``cache_clear()`` counts the ``jax.clear_caches()`` calls, and reads the names JAX gave the
flattened arguments (``params['w']``) from the debug info of the jaxpr being lowered, in the
frame that logs ``Compiling``; where a JAX keeps either elsewhere, the ledger goes without. Records
that the user's own logging setup would have shown still reach it unchanged (the watcher's
handler passes them on to the handlers that would have had them); records that exist only
because the watcher lowered a level or turned the explanation on reach no one, so the watcher
prints nothing. It never replaces a JAX function.

Limits: code that calls ``logging.disable()`` hides the records (the ledger then has counts and
times from the monitoring events, without signatures); JAX explains only functions defined in
user files (eager op-by-op compiles such as ``jit(broadcast_in_dim)`` are marked
``internal``); ``jax_explain_cache_misses`` on makes JAX remember call sites it explained, so a
later explanation the user asks for may add "seen another function defined on the same line".
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
import re
import sys
import sysconfig
import threading
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from ..backends.compile_records import ArgSignature, CompileRecord, Hint
from .persistent_cache_watch import (
    CACHE_KEY_LOGGER,
    CacheLogReader,
    cache_dir,
    off_observation,
    static_values_of_explain,
)

__all__ = [
    "ArgSignature",
    "Hint",
    "CompileRecord",
    "CacheMissExplanation",
    "parse_explanation",
    "LogTap",
    "CompileWatcher",
    "user_call_site",
    "parameter_names",
    "JAX_LOGGERS",
]

# The records (ArgSignature, Hint, CompileRecord) are hloscope.backends.compile_records': the
# ledger reads them without this watcher. They are named here too, as the watcher's output.

# ---- JAX's explanation ---------------------------------------------------------------------------


@dataclass(slots=True)
class CacheMissExplanation:
    """What one JAX ``TRACING CACHE MISS`` text says about why JAX traced a function again:
    the call site, the function, whether JAX had never seen that function object, and the
    differences it named (:func:`parse_explanation`)."""

    text: str
    call_site: str | None = None
    name: str | None = None
    defined_at: str | None = None
    never_seen: bool = False
    function_id: str | None = None
    redefined: bool = False
    hints: list[Hint] = field(default_factory=list)


_MISS = re.compile(r"TRACING CACHE MISS at (?P<site>.+?)(?: because)?:\s*$", re.M)
_NEVER = re.compile(
    r"never seen function:\s*\n\s*(?P<name>.+?) id=(?P<id>\d+)(?: defined at (?P<where>\S+))?"
)
_FOR = re.compile(r"^\s*for (?P<name>.+?)(?: defined at (?P<where>\S+))?\s*$", re.M)
_TREE_BULLET = re.compile(
    r"^\s*\* at input path (?P<path>.*?), now (?P<now>.+?) and before (?P<before>.+?), "
    r"so (?P<why>.*)$",
    re.M,
)
_KEY_SET = re.compile(r"symmetric difference of key sets: (?P<keys>\{.*\})\s*$")
_TYPE_BULLET = re.compile(
    r"^\s*\* at (?P<name>.+?), now (?P<now>.+?) and before (?P<before>.+)$", re.M
)
_CTX_BULLET = re.compile(
    r"^\s*\* (?P<name>\S+) differs: now (?P<now>.+?) and before (?P<before>.+)$", re.M
)
_STATIC_VAL = re.compile(r"Static\(val=(?P<val>.*)\)\s*$")
_URL = re.compile(r"https?://\S+$")
_TYPE_TEXT = re.compile(r"^(?P<dtype>[^\[\s]+)\[(?P<dims>[^\]]*)\](?P<rest>.*)$")
_WEAK = re.compile(r"\{weak_type=(True|False)\}")


def parse_explanation(text: str) -> CacheMissExplanation:
    """Read one JAX cache-miss explanation into an :class:`CacheMissExplanation`.

    Parses loosely (the wording drifted between jax releases): the ``TRACING CACHE MISS at
    SITE`` head, the ``never seen function: NAME id=N defined at FILE:LINE`` and ``for NAME
    defined at FILE:LINE`` lines, and the ``* at ..., now A and before B`` bullets, each turned
    into a :class:`Hint` (``shape``, ``dtype``, ``weak_type``, ``sharding`` for types;
    ``static_value`` for ``Static(val=...)`` pytree nodes, ``pytree`` for other tree
    differences; ``context`` for config bullets).
    """
    found = CacheMissExplanation(text=text)
    head = _MISS.search(text)
    if head is not None:
        found.call_site = head.group("site").strip()
    never = _NEVER.search(text)
    if never is not None:
        found.never_seen = True
        found.name = never.group("name").strip()
        found.function_id = never.group("id")
        found.defined_at = never.group("where")
        found.redefined = "seen another function defined on the same line" in text
    else:
        named = _FOR.search(text)
        if named is not None:
            found.name = named.group("name").strip()
            found.defined_at = named.group("where")
    for line in text.splitlines():
        found.hints.extend(_line_hints(_URL.sub("", line.rstrip())))
    if "Tracing context doesn't match" in text and not any(
        h.cause == "context" for h in found.hints
    ):
        found.hints.append(Hint("context"))
    return found


def _line_hints(line: str) -> list[Hint]:
    tree = _TREE_BULLET.match(line)
    if tree is not None:
        path, now, before = tree.group("path"), tree.group("now"), tree.group("before")
        static_now, static_before = _STATIC_VAL.search(now), _STATIC_VAL.search(before)
        if static_now is not None or static_before is not None:
            return [
                Hint(
                    "static_value",
                    path,
                    static_now.group("val") if static_now else now,
                    static_before.group("val") if static_before else before,
                )
            ]
        keys = _KEY_SET.search(tree.group("why"))
        return [Hint("pytree", path, now, before, keys.group("keys") if keys else None)]
    ctx = _CTX_BULLET.match(line)
    if ctx is not None:
        return [Hint("context", ctx.group("name"), ctx.group("now"), ctx.group("before"))]
    typed = _TYPE_BULLET.match(line)
    if typed is not None:
        return _type_hints(typed.group("name"), typed.group("now"), typed.group("before"))
    return []


def _type_hints(name: str, now: str, before: str) -> list[Hint]:
    """The causes one ``* at x, now f32[4] and before f32[3]`` bullet names."""
    a, b = _TYPE_TEXT.match(now.strip()), _TYPE_TEXT.match(before.strip())
    if a is None or b is None:
        return [Hint("shape", name, now, before)]
    hints = []
    if a.group("dtype") != b.group("dtype"):
        hints.append(Hint("dtype", name, now, before))
    dims_a = [d.split("@")[0] for d in a.group("dims").split(",") if d]
    dims_b = [d.split("@")[0] for d in b.group("dims").split(",") if d]
    if dims_a != dims_b:
        hints.append(Hint("shape", name, now, before))
    weak_a, weak_b = _WEAK.search(a.group("rest")), _WEAK.search(b.group("rest"))
    if weak_a is not None and weak_b is not None and weak_a.group(1) != weak_b.group(1):
        hints.append(Hint("weak_type", name, now, before))
    rest_a, rest_b = _WEAK.sub("", a.group("rest")), _WEAK.sub("", b.group("rest"))
    ann_a = [d.partition("@")[2] for d in a.group("dims").split(",")]
    ann_b = [d.partition("@")[2] for d in b.group("dims").split(",")]
    if rest_a != rest_b or (ann_a != ann_b and dims_a == dims_b):
        hints.append(Hint("sharding", name, now, before))
    return hints or [Hint("shape", name, now, before)]


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

_PXLA = "jax._src.interpreters.pxla"
_PARTIAL_EVAL = "jax._src.interpreters.partial_eval"
_COMPILER = "jax._src.compiler"
_COMPILATION_CACHE = "jax._src.compilation_cache"
#: The loggers the JAX watcher reads (and restores).
JAX_LOGGERS = (_PXLA, _PARTIAL_EVAL, _COMPILER, _COMPILATION_CACHE, CACHE_KEY_LOGGER)

_COMPILING = "Compiling %s with global shapes and types"
_EXPLAIN = "TRACING CACHE MISS"
# WARNINGs that JAX logs only because jax_explain_cache_misses is on (else at DEBUG).
_EXPLAIN_DEPENDENT = (
    "PERSISTENT COMPILATION CACHE MISS",
    "Not writing persistent cache entry",
    "Writing %s to persistent compilation cache",
)
_EXPLAIN_FLAG = "jax_explain_cache_misses"

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
BACKEND_EVENT = "/jax/core/compile/backend_compile_duration"
_EVENTS = (TRACE_EVENT, LOWER_EVENT, BACKEND_EVENT)
_WRAPPED_NAME = re.compile(r"^\w+\((?P<name>.*)\)$")


def _bare_name(fun_name: str) -> str:
    """``jit(f)`` -> ``f`` (lowering and XLA events wrap the name, tracing events do not)."""
    found = _WRAPPED_NAME.match(fun_name)
    return found.group("name") if found else fun_name


@dataclass(slots=True)
class _Pending:
    """What one compile in progress has said so far (per thread, per function name)."""

    name: str
    explanation: CacheMissExplanation | None = None
    trace_seconds: float | None = None
    lower_seconds: float | None = None
    avals: tuple[Any, ...] | None = None
    arg_names: tuple[str, ...] | None = None
    shardings: tuple[Any, ...] | None = None
    results: tuple[Any, ...] | None = None
    module: str | None = None
    context: dict[str, str] | None = None
    call_site: str | None = None
    statics: dict[str, str] | None = None


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


class _JaxHub(_Hub):
    framework = "jax"

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()
        self._taps: list[LogTap] = []
        self._listener: Callable[..., None] | None = None
        self._explain_before: bool | None = None
        self._explain_set = False
        self._jax: ModuleType | None = None
        self._clears = _CacheClearCounter()
        self._cache = CacheLogReader()

    # -- installing ----------------------------------------------------------------------------
    def _install(self) -> None:
        jax = self._jax
        if jax is None:  # checked once: the version check costs more than the rest of a start
            from ..backends.frameworks import require_jax

            jax = self._jax = require_jax()
        self._explain_before = bool(getattr(jax.config, _EXPLAIN_FLAG))
        if not self._taps:  # made once: creating a handler takes logging's global lock
            self._taps = [
                LogTap(_PXLA, self._on_pxla, level=logging.DEBUG),
                LogTap(
                    _PARTIAL_EVAL, self._on_partial_eval, level=logging.WARNING, rewrite=self._quiet
                ),
                # The persistent cache's hits, misses and writes are DEBUG records.
                LogTap(_COMPILER, self._cache.on_record, level=logging.DEBUG, rewrite=self._quiet),
                LogTap(
                    _COMPILATION_CACHE,
                    self._cache.on_record,
                    level=logging.DEBUG,
                    rewrite=self._quiet,
                ),
                # At DEBUG JAX logs each part of a cache key (and hashes each part once more):
                # lowered only once a cache directory is set (_on_pxla), as JAX computes keys
                # without one too.
                LogTap(CACHE_KEY_LOGGER, self._cache.on_record),
            ]
        installed: list[LogTap] = []
        try:
            for tap in self._taps:
                tap.install()
                installed.append(tap)
            self._listener = self._on_duration
            jax.monitoring.register_event_duration_secs_listener(self._listener)
            self._clears.register()
            if not self._explain_before:
                jax.config.update(_EXPLAIN_FLAG, True)
                self._explain_set = True
        except BaseException:
            for tap in reversed(installed):
                tap.uninstall()
            self._remove_listener(jax)
            raise
        self._installed = True

    def _uninstall(self) -> None:
        import jax

        try:
            if self._explain_set:  # back to the value it had (a thread's own value is its own)
                self._explain_set = False
                jax.config.update(_EXPLAIN_FLAG, bool(self._explain_before))
        finally:
            self._remove_listener(jax)
            for tap in reversed(self._taps):
                tap.uninstall()

    def _remove_listener(self, jax: ModuleType) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                jax.monitoring.unregister_event_duration_listener(self._listener)
            self._listener = None

    # -- records -------------------------------------------------------------------------------
    def _quiet(self, record: logging.LogRecord) -> logging.LogRecord | None:
        """What the user would have seen of ``record`` without the watcher's explain flag."""
        if self._explain_before:
            return record
        message = str(record.msg)
        if message.startswith(_EXPLAIN):
            return None
        if record.levelno > logging.DEBUG and message.startswith(_EXPLAIN_DEPENDENT):
            return _demoted(record)
        return record

    def _pending(self) -> dict[str, _Pending]:
        pending = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = {}
        return pending

    def _on_partial_eval(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if not message.startswith(_EXPLAIN):
            return
        explanation = parse_explanation(message)
        if explanation.name:
            pending = _Pending(explanation.name, explanation)
            pending.statics = static_values_of_explain()
            self._pending()[explanation.name] = pending

    def _on_pxla(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith(_COMPILING) or not isinstance(record.args, tuple):
            return
        if len(record.args) != 3:
            return
        module, avals, shardings = record.args
        if not isinstance(avals, Iterable):
            return
        name = _bare_name(str(module))
        pending = self._pending()
        entry = pending.get(name)
        if entry is None or entry.avals is not None:
            entry = pending[name] = _Pending(name)
        entry.module = str(module)
        entry.avals = tuple(avals)
        entry.arg_names, entry.results = _lowered_jaxpr_facts(len(entry.avals))
        entry.shardings = tuple(shardings) if isinstance(shardings, Iterable) else None
        entry.context = _context_snapshot()
        entry.call_site = user_call_site(2)
        self._cache.begin()  # the cache key is computed after lowering, in this thread
        if cache_dir():
            self._taps[-1].lower_to(logging.DEBUG)

    def _on_duration(self, event: str, duration: float, **kwargs: Any) -> None:
        if event not in _EVENTS:
            return
        with contextlib.suppress(Exception):  # watching must never break the watched code
            self._duration(event, duration, str(kwargs.get("fun_name", "?")))

    def _duration(self, event: str, duration: float, fun_name: str) -> None:
        name = _bare_name(fun_name)
        pending = self._pending()
        entry = pending.get(name)
        if event == TRACE_EVENT:
            if entry is None or entry.trace_seconds is not None or entry.avals is not None:
                entry = pending[name] = _Pending(name)
            entry.trace_seconds = duration
        elif event == LOWER_EVENT:
            if entry is None:
                entry = pending[name] = _Pending(name)
            entry.lower_seconds = duration
        else:
            entry = pending.pop(name, None) or _Pending(name, module=fun_name)
            pending.clear()  # what nested traces left (explained, never compiled on their own)
            self.publish(self._record(entry, duration, fun_name))

    def _record(self, entry: _Pending, backend_seconds: float, fun_name: str) -> CompileRecord:
        explanation = entry.explanation
        arguments = [
            _jax_argument(i, aval, entry.shardings[i] if entry.shardings else None)
            for i, aval in enumerate(entry.avals or ())
        ]
        if entry.arg_names is not None:
            arguments = [replace(a, path=n) for a, n in zip(arguments, entry.arg_names)]
        defined_at = explanation.defined_at if explanation else None
        names = parameter_names(defined_at, entry.name) if defined_at else None
        internal = explanation is None and entry.trace_seconds is not None and self._explaining()
        return CompileRecord(
            framework="jax",
            kind="compile",
            name=entry.name,
            module=entry.module or fun_name,
            defined_at=defined_at,
            function_id=explanation.function_id if explanation else None,
            call_site=(explanation.call_site if explanation else None) or entry.call_site,
            arguments=arguments,
            results=[_jax_argument(i, aval, None) for i, aval in enumerate(entry.results or ())],
            parameter_names=list(names) if names is not None else None,
            context=entry.context,
            trace_seconds=entry.trace_seconds,
            lower_seconds=entry.lower_seconds,
            backend_seconds=backend_seconds,
            explanation=explanation.text if explanation else None,
            hints=list(explanation.hints) if explanation else [],
            first_sight=bool(explanation and explanation.never_seen),
            redefined_hint=bool(explanation and explanation.redefined),
            internal=internal,
            time=time.time(),
            thread=threading.get_ident(),
            cache_clears=self._clears.count,
            statics=entry.statics,
            persistent_cache=self._cache.take() or off_observation(),
        )

    def _explaining(self) -> bool:
        jax = sys.modules.get("jax")
        try:
            return bool(jax is not None and getattr(jax.config, _EXPLAIN_FLAG))
        except Exception:  # noqa: BLE001
            return False


class _CacheClearCounter:
    """Counts ``jax.clear_caches()`` calls: JAX clears every cache registered with
    ``jax._src.util.register_cache`` (a weak registry of objects with ``cache_clear()``), so
    this object registers itself there while the watcher runs. After a clear JAX says it has
    "never seen" a function object it compiled before; the count tells that apart from a
    function made anew."""

    def __init__(self) -> None:
        self.count = 0

    def register(self) -> None:
        with contextlib.suppress(Exception):  # a jax without the registry: never counted
            from jax._src import util as jax_util

            jax_util.register_cache(self, "hloscope compile watcher: counts clear_caches()")

    def cache_clear(self) -> None:
        self.count += 1

    def cache_info(self) -> str:  # asked for by JAX's cache debugging helpers
        return f"hloscope: {self.count} clears seen"

    def cache_keys(self) -> list[Any]:
        return []


#: The JAX function whose frame holds the jaxpr being lowered when pxla logs "Compiling".
_LOWERING_FRAME = "_cached_lowering_to_hlo"


def _lowered_jaxpr_facts(count: int) -> tuple[tuple[str, ...] | None, tuple[Any, ...] | None]:
    """The names JAX gave the ``count`` flattened arguments being compiled (``params['w']``,
    ``x``) and the abstract values of the results, read from the jaxpr in the frame that logged
    the ``Compiling`` record; ``None`` where this JAX keeps them elsewhere or the count differs
    (then the ledger names arguments from the source and the explanations). The results tell
    two functions of one name apart (``jit(f)`` and ``jit(grad(f))``, both ``jit(f)``)."""
    with contextlib.suppress(Exception):
        frame: types.FrameType | None = sys._getframe(1)
        for _ in range(16):
            if frame is None:
                return None, None
            if frame.f_code.co_name == _LOWERING_FRAME:
                jaxpr = frame.f_locals.get("closed_jaxpr")
                results = getattr(jaxpr, "out_avals", None)
                results = tuple(results) if results is not None else None
                inner = getattr(jaxpr, "jaxpr", None)
                names = getattr(getattr(inner, "debug_info", None), "arg_names", None)
                consts = int(frame.f_locals.get("num_const_args") or 0)
                if names is None or len(names) + consts != count:
                    return None, results
                if any(not isinstance(n, str) or not n for n in names):
                    return None, results
                return tuple(f"const{i}" for i in range(consts)) + tuple(names), results
            frame = frame.f_back
    return None, None


def _jax_argument(index: int, aval: Any, in_sharding: Any) -> ArgSignature:
    """An :class:`ArgSignature` of one abstract value from JAX's ``Compiling`` record."""
    try:
        text = aval.str_short(True)
    except Exception:  # noqa: BLE001 - an aval type without str_short
        text = str(aval)
    raw_shape = getattr(aval, "shape", None)
    shape = (
        tuple(d if isinstance(d, int) else None for d in raw_shape)
        if raw_shape is not None
        else None
    )
    dtype = text.split("[", 1)[0] if "[" in text else str(getattr(aval, "dtype", "?"))
    return ArgSignature(
        index=index,
        shape=shape,
        dtype=dtype,
        weak_type=bool(getattr(aval, "weak_type", False)),
        sharding=_sharding_text(aval, text, in_sharding),
        text=text,
    )


def _sharding_text(aval: Any, short: str, in_sharding: Any) -> str | None:
    """The sharding of one argument as text, ``None`` when it has none worth naming."""
    parts = []
    try:
        sharded = aval.str_short(True, True)
    except Exception:  # noqa: BLE001
        sharded = short
    if sharded not in (short, short + "({})"):
        parts.append(sharded)
    if in_sharding is not None and type(in_sharding).__name__ != "UnspecifiedValue":
        parts.append(str(in_sharding))
    return " ".join(parts) or None


def _context_snapshot() -> dict[str, str] | None:
    from ..backends import trace_context_items

    items = trace_context_items()
    if items is None:
        return None
    return {name: _context_text(name, value) for name, value in items}


#: name -> (value, its text) of the last snapshot: the context rarely changes between compiles,
#: and the text of an object seen last time (the same object) is not made again.
_LAST_CONTEXT: dict[str, tuple[Any, str]] = {}


def _context_text(name: str, value: Any) -> str:
    last = _LAST_CONTEXT.get(name)
    if last is not None and last[0] is value:
        return last[1]
    text = _short_repr(value)
    _LAST_CONTEXT[name] = (value, text)
    return text


def _short_repr(value: Any, limit: int = 160) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


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


# ---- the watcher ---------------------------------------------------------------------------------

_JAX_HUB = _JaxHub()


def _tf_hub() -> _Hub:
    from .tf_watch import TF_HUB

    return TF_HUB


class CompileWatcher:
    """Collect a :class:`CompileRecord` for every JAX compile (and, with ``tensorflow``, every
    ``tf.function`` trace) while started::

        watcher = CompileWatcher()
        with watcher:
            train()
        watcher.records

    Starting it again adds to the same :attr:`records`. Several watchers may be active at once
    (nested, or in different threads); each sees every compile. A framework that is not yet
    imported is watched from the moment the watched code imports it.
    """

    def __init__(self, *, jax: bool = True, tensorflow: bool = True) -> None:
        self.records: list[CompileRecord] = []
        self._hubs: list[_Hub] = []
        self._want = (jax, tensorflow)
        self._lock = threading.Lock()
        self._depth = 0

    @property
    def active(self) -> bool:
        return self._depth > 0

    def _sink(self, record: CompileRecord) -> None:
        with self._lock:
            self.records.append(record)

    def start(self) -> CompileWatcher:
        if self._depth:
            self._depth += 1
            return self
        want_jax, want_tf = self._want
        hubs = ([_JAX_HUB] if want_jax else []) + ([_tf_hub()] if want_tf else [])
        started: list[_Hub] = []
        try:
            for hub in hubs:
                hub.subscribe(self._sink)
                started.append(hub)
        except BaseException:
            for hub in reversed(started):
                hub.unsubscribe(self._sink)
            raise
        self._hubs = started
        self._depth = 1
        return self

    def stop(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth:
            return
        hubs, self._hubs = self._hubs, []
        errors = []
        for hub in reversed(hubs):
            try:
                hub.unsubscribe(self._sink)
            except Exception as error:  # noqa: BLE001 - restore the others first
                errors.append(error)
        if errors:
            raise errors[0]

    def __enter__(self) -> CompileWatcher:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
