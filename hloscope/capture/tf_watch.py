"""TensorFlow's retraces, and the XLA compiles its tracing count does not show.

Two layers compile in TensorFlow, and each is seen in its own way:

* **Tracing** (``tf.function`` builds a new concrete function: a new input shape or dtype, a
  new Python value, a new function object, another context). TensorFlow's Python logging says
  so for every trace: ``vlog(1, "Creating new FuncGraph for Python function %r (key: %r,
  %r)", python_function, context, function_type)`` on the ``tensorflow`` logger. The watcher
  (:data:`TF_HUB`, started by :class:`~hloscope.capture.compile_watch.CompileWatcher`) taps that
  logger the way the JAX watcher taps JAX's (:class:`~hloscope.capture.compile_hub.LogTap`:
  nothing reaches the console that would not have anyway) and records, per trace, the
  function, where it was defined, the input signature (``TensorSpec`` or ``Literal[3]`` per
  parameter, from the function type), the tracing context and the call site. The count equals
  ``f.experimental_get_tracing_count()``. The logged type is the concrete one; under
  ``reduce_retracing`` TensorFlow then traces a generalised one (``None`` for the dimensions
  that changed), which the watcher asks the function's cache for, as TensorFlow does, from the
  tracing options in the logging frame (which also tell whether the function has
  ``reduce_retracing`` or an ``input_signature``).
* **XLA** (``jit_compile=True``): one concrete function is compiled once per concrete input
  shape (``reduce_retracing`` or an ``input_signature`` with ``None`` dims keep the tracing
  count low but not the compiles), and once per *value* of an argument that tf2xla had to make a
  compile-time constant (a shape fed to ``tf.reshape``, ``tf.zeros``...). Only TensorFlow's C++
  log tells: ``TF_CPP_VMODULE=device_compilation_profiler=1,device_compiler=3`` (read when
  TensorFlow loads, so the environment of a fresh process: :data:`XLA_LOG_ENV`) prints each
  compile's arguments (``0: kind=constant type=float shape=[1] ... value=Tensor<...>``) and
  time. :func:`parse_xla_log` reads that text into records; ``hloscope recompiles SCRIPT.py``
  runs the script with that environment and reads its stderr.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from collections.abc import Mapping
from types import FrameType
from typing import Any

from ..backends.compile_records import ArgSignature, CompileRecord
from .compile_hub import LogTap, _Hub, user_call_site

__all__ = [
    "TF_HUB",
    "XLA_LOG_ENV",
    "xla_log_environment",
    "parse_xla_log",
    "concrete_function_name",
]

_TF_LOGGER = "tensorflow"
_NEW_TRACE = "Creating new FuncGraph for Python function"
#: The vlog level of TensorFlow's "Creating new FuncGraph" record.
_TRACE_LEVEL = 1

#: What a process must have in its environment before TensorFlow loads for its XLA compiles
#: to show on stderr (merged with the user's own values by :func:`xla_log_environment`).
XLA_LOG_ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "0",
    "TF_CPP_VMODULE": "device_compilation_profiler=1,device_compiler=3",
}


def xla_log_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to set so that TensorFlow logs its XLA compiles, keeping the user's own
    ``TF_CPP_VMODULE`` entries (ours win for the two modules we read)."""
    ours = XLA_LOG_ENV["TF_CPP_VMODULE"].split(",")
    mine = {entry.split("=")[0] for entry in ours}
    theirs = [
        entry
        for entry in environ.get("TF_CPP_VMODULE", "").split(",")
        if entry.strip() and entry.split("=")[0] not in mine
    ]
    return {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": ",".join([*theirs, *ours])}


# ---- in-process: traces --------------------------------------------------------------------------


class _TfHub(_Hub):
    framework = "tensorflow"

    def __init__(self) -> None:
        super().__init__()
        self._tap: LogTap | None = None
        self._clock: Any = None
        self._last: CompileRecord | None = None
        self._last_clock = 0
        self._clock_lock = threading.Lock()

    def _install(self) -> None:
        from ..backends.frameworks import require_tensorflow

        require_tensorflow()
        self._clock = _graph_building_clock()
        self._last, self._last_clock = None, self._read_clock()
        if self._tap is None:
            self._tap = LogTap(_TF_LOGGER, self._on_record, level=_TRACE_LEVEL)
        self._tap.install()
        self._installed = True

    def _uninstall(self) -> None:
        try:
            self._close_trace()
        finally:
            if self._tap is not None:
                self._tap.uninstall()

    def _read_clock(self) -> int:
        try:
            return int(self._clock.value()) if self._clock is not None else 0
        except Exception:  # noqa: BLE001
            return 0

    def _close_trace(self) -> None:
        """Give the last top-level trace its time: TensorFlow's graph-building counter grew by
        it (microseconds) since the trace began."""
        with self._clock_lock:
            now = self._read_clock()
            if self._last is not None and self._clock is not None:
                self._last.trace_seconds = max(0, now - self._last_clock) / 1e6
            self._last, self._last_clock = None, now

    def _on_record(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith(_NEW_TRACE):
            return
        if not isinstance(record.args, tuple) or len(record.args) != 3:
            return
        import tensorflow as tf

        function, context, function_type = record.args
        options = _tracing_options()
        generalised = _generalised_type(options, context, function_type)
        trace = _trace_record(function, context, generalised)
        trace.reduce_retracing = bool(getattr(options, "reduce_retracing", False))
        trace.input_signature = getattr(options, "input_signature", None) is not None
        if not tf.inside_function():  # a nested trace's time is inside its caller's
            self._close_trace()
            with self._clock_lock:
                self._last = trace
        self.publish(trace)


TF_HUB = _TfHub()

#: The TensorFlow function that logs "Creating new FuncGraph" with its tracing options at hand.
_TRACING_FRAME = "_maybe_define_function"


def _tracing_options() -> Any:
    """The ``TracingOptions`` of the trace being logged (``reduce_retracing``,
    ``input_signature``, the function cache), read from the frame that logs it; ``None``
    where this TensorFlow keeps them elsewhere."""
    try:
        frame: FrameType | None = sys._getframe(1)
    except ValueError:  # pragma: no cover
        return None
    for _ in range(24):
        if frame is None:
            return None
        if frame.f_code.co_name == _TRACING_FRAME and "tracing_options" in frame.f_locals:
            return frame.f_locals["tracing_options"]
        frame = frame.f_back
    return None


def _generalised_type(options: Any, context: Any, function_type: Any) -> Any:
    """The type TensorFlow traces for: under ``reduce_retracing`` (without an input
    signature) it generalises the logged, concrete type against earlier traces (``None``
    for the dimensions that changed), a lookup without side effects done just before
    TensorFlow does it itself."""
    if options is None or not getattr(options, "reduce_retracing", False):
        return function_type
    cache = getattr(options, "function_cache", None)
    if getattr(options, "input_signature", None) is not None or cache is None:
        return function_type
    try:
        return cache.generalize(context, function_type)
    except Exception:  # noqa: BLE001 - the concrete type is still right, only narrower
        return function_type


def _graph_building_clock() -> Any:
    """TensorFlow's own counter of graph-building microseconds (outermost traces only), or
    ``None`` where this TensorFlow has none; read only, to time each trace."""
    try:
        from tensorflow.python.eager.polymorphic_function import tracing_compilation
    except ImportError:  # pragma: no cover - depends on the TensorFlow version
        return None
    counter = getattr(tracing_compilation, "_graph_building_time_counter", None)
    try:
        return counter.get_cell() if counter is not None else None
    except Exception:  # noqa: BLE001  # pragma: no cover
        return None


def _python_function(function: Any) -> Any:
    """The user's Python function behind ``tf.function``'s wrapper, a bound method, a
    ``functools.partial`` (``__wrapped__``, ``__func__`` and ``func``, followed inwards)."""
    for _ in range(16):
        inner = (
            getattr(function, "__wrapped__", None)
            or getattr(function, "__func__", None)
            or getattr(function, "func", None)
        )
        if inner is None or inner is function or not callable(inner):
            break
        function = inner
    return function


def _trace_record(function: Any, context: Any, function_type: Any) -> CompileRecord:
    plain = _python_function(function)
    name = getattr(plain, "__name__", None) or getattr(plain, "__qualname__", None) or repr(plain)
    code = getattr(plain, "__code__", None)
    defined_at = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else None
    arguments: list[ArgSignature] = []
    parameters = getattr(function_type, "parameters", None) or {}
    names = []
    for parameter_name, parameter in parameters.items():
        names.append(str(parameter_name))
        _flatten(getattr(parameter, "type_constraint", None), str(parameter_name), arguments)
    return CompileRecord(
        framework="tensorflow",
        kind="trace",
        name=str(name),
        module=None,
        defined_at=defined_at,
        function_id=str(id(plain)),
        call_site=user_call_site(2),
        arguments=arguments,
        parameter_names=names,
        context={"tf.function context": _context_text(context)},
        time=time.time(),
        thread=threading.get_ident(),
    )


def _context_text(context: Any) -> str:
    text = repr(context)
    return text if len(text) <= 400 else text[:399] + "\u2026"


def _flatten(trace_type: Any, path: str, out: list[ArgSignature]) -> None:
    """Append the leaves of one parameter's trace type: tensors, Python values, containers."""
    if trace_type is None:
        out.append(ArgSignature(len(out), path, role="static", value="?"))
        return
    kind = type(trace_type).__name__
    if kind == "Literal" and hasattr(trace_type, "value"):
        out.append(ArgSignature(len(out), path, role="static", value=repr(trace_type.value)))
    elif kind == "Tuple" and hasattr(trace_type, "components"):
        for i, component in enumerate(trace_type.components):
            _flatten(component, f"{path}[{i}]", out)
    elif kind == "List" and hasattr(trace_type, "components_tuple"):
        for i, component in enumerate(trace_type.components_tuple.components):
            _flatten(component, f"{path}[{i}]", out)
    elif kind == "NamedTuple" and hasattr(trace_type, "attribute_names"):
        for attribute, component in zip(
            trace_type.attribute_names, trace_type.attributes.components
        ):
            _flatten(component, f"{path}.{attribute}", out)
    elif kind == "Attrs" and hasattr(trace_type, "named_attributes"):
        _flatten(trace_type.named_attributes, path, out)
    elif kind == "Dict" and hasattr(trace_type, "mapping"):
        for key in sorted(trace_type.mapping, key=repr):
            _flatten(trace_type.mapping[key], f"{path}[{key!r}]", out)
    elif hasattr(trace_type, "shape") and hasattr(trace_type, "dtype"):
        out.append(_spec_argument(len(out), path, trace_type))
    else:  # a Python object TensorFlow keys by identity or value (a layer, a weakref...)
        out.append(ArgSignature(len(out), path, role="static", value=_short(repr(trace_type))))


def _spec_argument(index: int, path: str, spec: Any) -> ArgSignature:
    shape = spec.shape
    dims = None
    try:
        listed = shape.as_list() if getattr(shape, "rank", None) is not None else None
        dims = tuple(listed) if listed is not None else None
    except ValueError:  # unknown rank
        dims = None
    dtype = getattr(spec.dtype, "name", str(spec.dtype))
    if dims is None:
        return ArgSignature(index, path, role="traced", dtype=dtype, text=f"{dtype}[*]", shape=())
    return ArgSignature(index, path, shape=dims, dtype=dtype, text=repr(spec))


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# ---- from the C++ log: XLA compiles --------------------------------------------------------------

_VLOG = re.compile(
    r"^[IWEF]\d{4} \d\d:\d\d:(?P<secs>\d+(?:\.\d+)?)\s+\d+\s+(?P<src>[\w.]+):\d+\]\s?(?P<msg>.*)$"
)
_ARG = re.compile(
    r"^(?P<i>\d+): kind=(?P<kind>\w+) type=(?P<type>\S+) shape=\[(?P<shape>[^\]]*)\](?P<rest>.*)$"
)
_VALUE = re.compile(r"value=Tensor<type: \S+ shape: \[[^\]]*\] values: (?P<values>.*)>\s*$")
_COMPILING = re.compile(
    r"^(?:Instantly compiling|Queu(?:e)?ing asynchronous compilation) for signature: (?P<sig>.+)$"
)
_COMPILED = re.compile(r"^Compiled (?P<fn>\S+) \d+ times, compile time: (?P<us>\d+) us")
_CONCRETE = re.compile(r"^_*inference_(?P<fn>.+)_(?P<uid>\d+)$")


def concrete_function_name(cluster: str) -> tuple[str, str | None]:
    """``__inference_train_step_7379`` -> ``("train_step", "7379")``: the function and its trace
    id (other cluster names, such as auto-clustering's ``cluster_0``, come back whole)."""
    found = _CONCRETE.match(cluster)
    if found is None:
        return cluster, None
    return found.group("fn"), found.group("uid")


def parse_xla_log(text: str) -> list[CompileRecord]:
    """The XLA compiles in TensorFlow's C++ log text (see :data:`XLA_LOG_ENV`), in order.

    Each ``Instantly compiling for signature: ...`` line is one compile; the argument lines of
    its request give the signature (``kind=constant`` arguments carry their value, which is
    part of what XLA compiled), the next ``Compiled NAME N times, compile time: T us`` line its
    time. Lines of other programs in the same text are ignored.
    """
    records: list[CompileRecord] = []
    arguments: list[ArgSignature] = []
    open_by_cluster: dict[str, CompileRecord] = {}
    for line in text.splitlines():
        found = _VLOG.match(line.strip())
        if found is None:
            continue
        message = found.group("msg")
        if message.startswith("DeviceCompiler::Compile"):
            arguments = []
        elif (arg := _ARG.match(message)) is not None:
            arguments.append(_xla_argument(arg))
        elif (compiling := _COMPILING.match(message)) is not None:
            record = _xla_record(compiling.group("sig"), arguments, float(found.group("secs")))
            records.append(record)
            open_by_cluster[record.module or ""] = record
            arguments = []
        elif (compiled := _COMPILED.match(message)) is not None:
            opened = open_by_cluster.pop(compiled.group("fn"), None)
            if opened is not None:
                opened.backend_seconds = int(compiled.group("us")) / 1e6
    return records


def _xla_argument(found: re.Match[str]) -> ArgSignature:
    dims = tuple(int(d) if d.strip().lstrip("-").isdigit() else None for d in _dims(found))
    kind = found.group("kind")
    value = None
    values = _VALUE.search(found.group("rest"))
    if values is not None:
        value = values.group("values").strip()
        if len(dims) > 0:
            value = f"[{value}]"
    return ArgSignature(
        index=int(found.group("i")),
        path=f"arg{found.group('i')}",
        shape=dims,
        dtype=found.group("type"),
        role="constant" if kind == "constant" else "traced",
        value=value,
        text=f"{kind} {found.group('type')}[{found.group('shape')}]",
    )


def _dims(found: re.Match[str]) -> list[str]:
    text = found.group("shape").strip()
    return [d for d in re.split(r"[,\s]+", text) if d] if text else []


def _xla_record(signature: str, arguments: list[ArgSignature], when: float) -> CompileRecord:
    cluster = re.split(r"[\[,;]", signature, maxsplit=1)[0].strip()
    name, uid = concrete_function_name(cluster)
    return CompileRecord(
        framework="tensorflow",
        kind="xla",
        name=name,
        module=cluster,
        arguments=list(arguments),
        trace_id=uid,
        time=when,
    )
