"""The ledger's data model: what a function's compiles were, why each happened, what to do.

:class:`Ledger` holds one :class:`FunctionLedger` per function; each holds its compiles
(:class:`CompileEvent`, with the :class:`Difference` values that made it and their
:class:`Cause`), its arguments over time (:class:`ArgumentHistory`) and its :class:`Advice`.
Everything here is plain data with its JSON form; building it from compile records is
:mod:`._grouping`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ...backends.compile_records import ArgSignature
from ...dataframes import require_pandas

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ._persistent_cache import CacheVerdict


class Cause(StrEnum):
    """Why a function compiled again: one way its new compile differs from its previous one."""

    FIRST = "first"
    SHAPE = "shape"
    DTYPE = "dtype"
    WEAK_TYPE = "weak_type"
    STATIC_VALUE = "static_value"
    PYTREE = "pytree"
    SHARDING = "sharding"
    FUNCTION_RECREATED = "function_recreated"
    CACHE_CLEARED = "cache_cleared"
    CONTEXT = "context"


class AdviceKind(StrEnum):
    """What a piece of :class:`Advice` asks for."""

    BUCKET = "bucket"  # pad a dimension up to a few bucket sizes
    PAD = "pad"  # pad a dimension to one size
    SCALAR = "python_scalar"  # stop passing a Python scalar (weak type flips)
    DTYPE = "dtype"  # pass one dtype
    STATIC = "static_argument"  # a static argument / Python value that takes many values
    CONSTANT = "constant_argument"  # a TensorFlow argument XLA compiles as a constant
    PYTREE = "pytree"  # keep the argument structure the same
    SHARDING = "sharding"  # pass the same sharding / device
    HOIST = "hoist"  # create the jit / tf.function / lambda once, outside the loop
    REUSE = "reuse"  # create the jit once and share it between the places that call it
    CACHE_CLEARED = "cache_cleared"  # jax.clear_caches() between calls
    CONTEXT = "context"  # keep config and context managers the same around the calls
    INPUT_SIGNATURE = "input_signature"  # tf.function(input_signature=..., reduce_retracing=True)
    EAGER = "eager_ops"  # op-by-op compiles outside jit


@dataclass(slots=True)
class Difference:
    """One way a compile differs from the previous compile of its function."""

    cause: Cause
    path: str | None = None
    before: str | None = None
    now: str | None = None

    def text(self) -> str:
        """``x: f32[3] -> f32[4]``, ``jax_enable_x64: False -> True``, ``a new function``."""
        where = f"{self.path}: " if self.path else ""
        if self.before is None and self.now is None:
            return where.rstrip(": ") or str(self.cause)
        if self.before is None:
            return f"{where}{self.now}"
        return f"{where}{self.before} -> {self.now}"


@dataclass(slots=True)
class CompileEvent:
    """One compile of one function, its causes (every difference from the previous compile)
    and what it cost. ``index`` is its position among all compiles of the ledger, ``number``
    among its function's (1 for the first)."""

    index: int
    number: int
    kind: str
    causes: list[Cause]
    differences: list[Difference]
    arguments: list[ArgSignature]
    results: list[ArgSignature]
    statics: dict[str, str]
    call_site: str | None = None
    trace_seconds: float | None = None
    lower_seconds: float | None = None
    backend_seconds: float | None = None
    explanation: str | None = None
    module: str | None = None
    trace_id: str | None = None
    reduce_retracing: bool = False  # TensorFlow: made with reduce_retracing=True
    input_signature: bool = False  # TensorFlow: made with an input_signature
    # What JAX's persistent compilation cache did (None: not a JAX compile).
    persistent_cache: CacheVerdict | None = None

    @property
    def seconds(self) -> float | None:
        parts = (self.trace_seconds, self.lower_seconds, self.backend_seconds)
        return None if all(p is None for p in parts) else sum(p or 0.0 for p in parts)

    @property
    def signature(self) -> str:
        """``(x: f32[8,32], y: f32[]{weak}, k=3) -> f32[8,32]``."""
        parts = [f"{a.path}: {a.type_text()}" for a in self.arguments if a.role != "static"]
        parts += [f"{a.path}={a.value}" for a in self.arguments if a.role == "static"]
        parts += [f"{path}={value}" for path, value in self.statics.items()]
        text = "(" + ", ".join(parts) + ")"
        if self.results:
            outs = [r.type_text() for r in self.results]
            text += " -> " + (outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")")
        return text

    def to_dict(self) -> dict[str, Any]:
        data = {
            "index": self.index,
            "cause": [str(c) for c in self.causes],
            "signature": self.signature,
            "call_site": self.call_site,
            "seconds": _rounded(self.seconds),
        }
        if self.persistent_cache is not None:
            data["persistent_cache"] = self.persistent_cache.to_dict()
        return data


@dataclass(slots=True)
class ArgumentHistory:
    """One argument over all compiles of a function: the sizes each dimension took (only the
    dimensions that varied), the dtypes, and the values of a static or constant argument."""

    path: str
    role: str = "traced"
    ranks: list[int] = field(default_factory=list)
    varying_dims: dict[int, list[int]] = field(default_factory=dict)
    dtypes: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    weak_types: list[bool] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "varying_dims": {str(d): sizes for d, sizes in sorted(self.varying_dims.items())},
            "dtypes": list(self.dtypes),
        }


@dataclass(slots=True)
class Advice:
    """One concrete fix. ``text`` says it in a sentence; bucketing advice also carries the
    ``sizes`` seen, the ``buckets`` that cover them and the ``compiles_saved`` (of the whole
    signature), and ``arguments``: every ``path:dim`` that shares the dimension."""

    kind: AdviceKind
    text: str
    argument: str | None = None
    dim: int | None = None
    sizes: list[int] | None = None
    buckets: list[int] | None = None
    compiles_saved: int | None = None
    values: list[str] | None = None
    arguments: list[str] | None = None  # every ``path:dim`` a shared dimension pads

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "text": self.text}
        names = ("argument", "dim", "sizes", "buckets", "compiles_saved", "values", "arguments")
        for name in names:
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


@dataclass(slots=True)
class FunctionLedger:
    """Every compile of one function (``name`` as the framework names it, ``defined_at`` its
    ``file:line`` where known). ``internal`` marks JAX's own eager-op functions; ``traces`` the
    tf.function traces of a TensorFlow function (``None`` for JAX)."""

    name: str
    defined_at: str | None
    framework: str
    events: list[CompileEvent] = field(default_factory=list)
    arguments: list[ArgumentHistory] = field(default_factory=list)
    advice: list[Advice] = field(default_factory=list)
    internal: bool = False
    traces: int | None = None
    # Of JAX's own eager-op compiles, those before the program's first jitted compile: the
    # program's setup (initialisation), run once, not recompiles (_advice.mark_setup).
    setup_compiles: int = 0

    @property
    def compiles(self) -> int:
        return len(self.events)

    @property
    def compile_seconds(self) -> float | None:
        """Seconds spent compiling (``None`` when nothing was timed, as in a dump)."""
        known = [e.seconds for e in self.events if e.seconds is not None]
        return sum(known) if known else None

    def phase_seconds(self) -> dict[str, float | None]:
        """Total ``tracing``, ``lowering`` and ``xla`` seconds (``None``: never measured)."""
        return _phases(self.events)

    def cause_counts(self) -> dict[Cause, int]:
        counts: dict[Cause, int] = {}
        for event in self.events:
            for cause in event.causes:
                counts[cause] = counts.get(cause, 0) + 1
        return counts

    def argument(self, path: str) -> ArgumentHistory:
        for argument in self.arguments:
            if argument.path == path:
                return argument
        raise KeyError(path)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "defined_at": self.defined_at,
            "compiles": self.compiles,
            "compile_seconds": _rounded(self.compile_seconds),
            "arguments": [a.to_dict() for a in self.arguments],
            "events": [e.to_dict() for e in self.events],
            "advice": [a.to_dict() for a in self.advice],
        }


@dataclass(slots=True)
class Ledger:
    """The compiles of a watch, a script run or a dump, one :class:`FunctionLedger` per
    function in order of first compile. ``source`` says where they came from (``"watch"``,
    ``"script"``, ``"dump"``); ``notes`` what could not be seen."""

    functions: list[FunctionLedger] = field(default_factory=list)
    source: str = "watch"
    notes: list[str] = field(default_factory=list)
    # The kept run the persistent cache's misses were compared with (``--vs DIR``).
    cache_compared_with: str | None = None

    @property
    def compiles(self) -> int:
        """Every compile, JAX's own eager-op compiles included."""
        return sum(f.compiles for f in self.functions)

    @property
    def user_compiles(self) -> int:
        """The compiles of the user's functions (not JAX's eager ops)."""
        return sum(f.compiles for f in self.functions if not f.internal)

    @property
    def compile_seconds(self) -> float | None:
        known = [f.compile_seconds for f in self.functions if f.compile_seconds is not None]
        return sum(known) if known else None

    def phase_seconds(self) -> dict[str, float | None]:
        return _phases([e for f in self.functions for e in f.events])

    def function(self, name: Any) -> FunctionLedger:
        """The ledger of the function ``name`` (a name, or the function object itself); of
        several with that name, the one that compiled most."""
        matches = self.matching(name)
        if not matches:
            known = ", ".join(sorted({f.name for f in self.functions})) or "none"
            raise KeyError(f"no compiles of {ledger_name(name)!r} (functions: {known})")
        return max(matches, key=lambda f: f.compiles)

    def matching(self, name: Any) -> list[FunctionLedger]:
        wanted = ledger_name(name)
        return [f for f in self.functions if f.name == wanted]

    def count(self, function: Any = None, *, include_internal: bool = False) -> int:
        """Compiles of ``function`` (every function when ``None``; JAX's eager-op compiles only
        with ``include_internal``)."""
        if function is not None:
            return sum(f.compiles for f in self.matching(function))
        return self.compiles if include_internal else self.user_compiles

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (see :mod:`hloscope.analysis.recompiles`)."""
        return {"functions": [f.to_dict() for f in self.functions]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per compile: function, where it was defined, its compile number, causes,
        signature, call site, and seconds (total, tracing, lowering, XLA)."""
        pandas = require_pandas()

        rows = []
        for f in self.functions:
            for e in f.events:
                rows.append(
                    {
                        "function": f.name,
                        "defined_at": f.defined_at,
                        "framework": f.framework,
                        "internal": f.internal,
                        "index": e.index,
                        "compile": e.number,
                        "kind": e.kind,
                        "cause": ",".join(str(c) for c in e.causes),
                        "differences": "; ".join(d.text() for d in e.differences),
                        "signature": e.signature,
                        "call_site": e.call_site,
                        "seconds": e.seconds,
                        "tracing_s": e.trace_seconds,
                        "lowering_s": e.lower_seconds,
                        "xla_s": e.backend_seconds,
                    }
                )
        columns = [
            "function",
            "defined_at",
            "framework",
            "internal",
            "index",
            "compile",
            "kind",
            "cause",
            "differences",
            "signature",
            "call_site",
            "seconds",
            "tracing_s",
            "lowering_s",
            "xla_s",
        ]
        return pandas.DataFrame(rows, columns=columns)


def _phases(events: Iterable[CompileEvent]) -> dict[str, float | None]:
    totals: dict[str, float | None] = {"tracing": None, "lowering": None, "xla": None}
    for event in events:
        for key, value in (
            ("tracing", event.trace_seconds),
            ("lowering", event.lower_seconds),
            ("xla", event.backend_seconds),
        ):
            if value is not None:
                totals[key] = (totals[key] or 0.0) + value
    return totals


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def ledger_name(function: Any) -> str:
    """The name the ledger uses for ``function``: a string as it is, else ``__name__`` of the
    object (a ``jax.jit`` or ``tf.function`` object, a plain function)."""
    if isinstance(function, str):
        return function
    inner = getattr(function, "python_function", None) or function
    return str(getattr(inner, "__name__", None) or getattr(function, "__name__", function))
