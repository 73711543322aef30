"""What a compile watcher records of each compile, as data: the compile
(:class:`CompileRecord`), its flattened arguments and results (:class:`ArgSignature`), the
differences the framework named (:class:`Hint`) and what JAX's persistent compilation cache did
(:class:`CacheObservation`, :class:`CacheResult`, :class:`NotWritten`).

The watchers that make them hook the running frameworks (:mod:`hloscope.capture.compile_watch`,
:mod:`hloscope.capture.tf_watch`, :mod:`hloscope.capture.persistent_cache_watch`); the ledger
that reads them (:mod:`hloscope.analysis.recompiles`) runs nothing, so the records live here,
below both. ``CompileRecord.to_dict`` is what a watched script's child writes
(``recompiles.json``) and ``from_dict`` reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum, auto
from typing import Any

__all__ = [
    "ArgSignature",
    "CacheObservation",
    "CacheResult",
    "CompileRecord",
    "Hint",
    "NotWritten",
]

# ---- what a compile looked like ------------------------------------------------------------------


@dataclass(slots=True)
class ArgSignature:
    """One flattened argument (or result) of a compile, as the framework described it.

    ``index`` is its position among the flattened arguments; ``path`` its name where the
    framework gave one (TensorFlow's parameter names, the names in JAX's explanation, an HLO
    parameter's name). ``shape`` is ``None`` for a value that is not an array: a static
    argument or a Python literal (``role="static"``, its ``value`` as text). ``role`` is
    ``"traced"``, ``"static"``, ``"constant"`` (a TensorFlow argument XLA compiled as a
    constant: its ``value`` is part of the compile) or ``"result"``.
    """

    index: int
    path: str | None = None
    shape: tuple[int | None, ...] | None = None
    dtype: str | None = None
    weak_type: bool = False
    sharding: str | None = None
    value: str | None = None
    role: str = "traced"
    text: str | None = None

    def type_text(self) -> str:
        """``f32[8,32]``, ``f32[]{weak}``, ``float32[None,3]`` or ``static 3``."""
        if self.shape is None:
            return f"{self.role} {self.value}" if self.value is not None else (self.text or "?")
        dims = ",".join("None" if d is None else str(d) for d in self.shape)
        text = f"{self.dtype or '?'}[{dims}]" + ("{weak}" if self.weak_type else "")
        if self.role == "constant" and self.value is not None:
            text += f"={self.value}"
        return text


@dataclass(slots=True)
class Hint:
    """One difference the framework itself named: a cause (a value of
    :class:`hloscope.analysis.recompiles.Cause`), where, and the values now and before."""

    cause: str
    path: str | None = None
    now: str | None = None
    before: str | None = None
    keys: str | None = None  # a tree change: the keys in one tree and not the other ({'c'})


@dataclass(slots=True)
class CompileRecord:
    """One compilation (JAX) or trace (``tf.function``) the watcher saw.

    ``framework`` is ``"jax"``, ``"tensorflow"`` or ``"xla"`` (read from a dump); ``kind`` is
    ``"compile"`` (a JAX jit compile), ``"trace"`` (a ``tf.function`` trace), ``"xla"`` (an XLA
    compile of a TensorFlow function) or ``"module"`` (a dumped module). Seconds are ``None``
    where unknown. ``context`` holds the tracing-context values (config and context managers)
    by name; ``hints`` what the framework itself said was different, ``explanation`` its text.
    ``first_sight`` is true when JAX said it had never seen this function object; ``internal``
    when JAX compiled one of its own functions (an eager op outside jit). ``cache_clears``
    counts the ``jax.clear_caches()`` calls seen before this compile.
    """

    framework: str
    kind: str
    name: str
    module: str | None = None
    defined_at: str | None = None
    function_id: str | None = None
    call_site: str | None = None
    arguments: list[ArgSignature] = field(default_factory=list)
    results: list[ArgSignature] = field(default_factory=list)
    parameter_names: list[str] | None = None
    context: dict[str, str] | None = None
    trace_seconds: float | None = None
    lower_seconds: float | None = None
    backend_seconds: float | None = None
    explanation: str | None = None
    hints: list[Hint] = field(default_factory=list)
    first_sight: bool = False
    redefined_hint: bool = False
    trace_id: str | None = None
    internal: bool = False
    time: float = 0.0
    thread: int = 0
    cache_clears: int = 0
    reduce_retracing: bool = False  # a tf.function made with reduce_retracing=True
    input_signature: bool = False  # a tf.function made with an input_signature
    # The static arguments by JAX's path ([0][1], [1]['mode']), read where JAX explains a
    # tracing-cache miss; what the persistent cache's computation depends on besides arrays.
    statics: dict[str, str] | None = None
    # What JAX's persistent compilation cache did (JAX compiles; None for TensorFlow's).
    persistent_cache: CacheObservation | None = None

    @property
    def seconds(self) -> float | None:
        """Tracing + lowering + XLA compile time, of the parts that are known."""
        parts = [s for s in (self.trace_seconds, self.lower_seconds, self.backend_seconds) if s]
        known = (self.trace_seconds, self.lower_seconds, self.backend_seconds)
        if all(s is None for s in known):
            return None
        return sum(parts)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (what ``hloscope recompiles SCRIPT.py``'s child process writes)."""
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("arguments", "results"):
                value = [_dataclass_dict(a) for a in value]
            elif f.name == "hints":
                value = [_dataclass_dict(h) for h in value]
            elif f.name == "persistent_cache" and value is not None:
                value = value.to_dict()
            data[f.name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompileRecord:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["arguments"] = [_arg_from(a) for a in data.get("arguments", ())]
        values["results"] = [_arg_from(a) for a in data.get("results", ())]
        values["hints"] = [Hint(**h) for h in data.get("hints", ())]
        cache = data.get("persistent_cache")
        values["persistent_cache"] = (
            CacheObservation.from_dict(cache) if isinstance(cache, dict) else None
        )
        return cls(**values)


def _dataclass_dict(value: Any) -> dict[str, Any]:
    data = {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(data.get("shape"), tuple):
        data["shape"] = list(data["shape"])
    return data


def _arg_from(data: dict[str, Any]) -> ArgSignature:
    values = dict(data)
    if values.get("shape") is not None:
        values["shape"] = tuple(values["shape"])
    return ArgSignature(**values)


# ---- what the persistent compilation cache did ---------------------------------------------------


class CacheResult(StrEnum):
    """What the persistent cache did for one compile."""

    HIT = auto()  # read from the cache
    MISS = auto()  # compiled, and the entry written
    NOT_WRITTEN = auto()  # compiled, and JAX did not write the entry (``reason``)
    OFF = auto()  # no cache key: no cache directory, or the cache not used
    UNKNOWN = auto()  # a key was logged, no result (a jax that logs differently)


class NotWritten(StrEnum):
    """Why JAX did not write a compile's entry (its log message, classified)."""

    MIN_COMPILE_TIME = auto()
    MIN_ENTRY_SIZE = auto()
    HOST_CALLBACKS = auto()
    PROCESS_ID = auto()
    CACHE_NOT_INITIALIZED = auto()


@dataclass(slots=True)
class CacheObservation:
    """One compile as the persistent cache saw it (see the module's docstring).

    ``parts`` maps JAX's name of each key part to the SHA-256 JAX logged for it alone;
    ``xla_flags`` are the flags JAX put in the key, ``excluded_flags`` those it left out;
    ``threshold`` and ``measured`` are the two numbers of a ``not_written`` reason (the
    minimum and this compile's seconds or bytes).
    """

    result: str = CacheResult.UNKNOWN
    reason: str | None = None
    not_written: str | None = None
    threshold: float | None = None
    measured: float | None = None
    key: str | None = None
    module_name: str | None = None
    parts: dict[str, str] = field(default_factory=dict)
    xla_flags: list[str] = field(default_factory=list)
    excluded_flags: list[str] = field(default_factory=list)
    computation: str | None = None
    devices: dict[str, Any] | None = None
    compile_options: dict[str, str] | None = None
    versions: dict[str, str] | None = None
    cache_dir: str | None = None
    settings: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CacheObservation:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
