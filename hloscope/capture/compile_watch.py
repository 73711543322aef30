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

import contextlib
import logging
import re
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from ..backends.compile_records import ArgSignature, CompileRecord, Hint
from .cache_miss_text import CacheMissExplanation, parse_explanation
from .compile_hub import LogTap, _demoted, _Hub, parameter_names, short_repr, user_call_site
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
# ledger reads them without this watcher. They are named here too, as the watcher's output;
# so are the explanation's reading (cache_miss_text) and the shared tap (compile_hub).

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
    text = short_repr(value, 160)
    _LAST_CONTEXT[name] = (value, text)
    return text


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
