"""The recompile ledger: per function, how often it compiled, why each time, and what to do.

Dynamic shapes make XLA compile again, and on a TPU one compile can take minutes. The ledger
takes what was compiled -- :class:`~hloscope.capture.compile_watch.CompileRecord` objects from a
live watch (:func:`watch_compiles`), from a script run (:func:`recompiles_of_script`) or read
offline from a dump folder (:func:`ledger_of_dump`) -- and answers, per function:

* how many compiles and how long they took (tracing, lowering and XLA where known);
* for each argument, the dimensions that varied and the sizes seen, and the dtypes;
* for each compile, every way it differs from the *previous* compile of that function, as
  :class:`Cause` values (``shape``, ``dtype``, ``weak_type``, ``static_value``, ``pytree``,
  ``sharding``, ``function_recreated``, ``cache_cleared``, ``context``; ``first`` for the
  first compile). JAX's
  own explanation names one category, against the closest earlier key, so a config change
  hides a shape change; here both are named;
* a concrete fix (:class:`Advice`): the bucket sizes that would cover every size seen and the
  compiles they would save, which argument to stop passing as a Python scalar or to stop marking
  static, ``input_signature``/``reduce_retracing`` for TensorFlow, hoisting a ``jax.jit`` or a
  lambda out of a loop.

``Ledger.to_dict()`` is the JSON contract of ``hloscope recompiles --json``::

    {"functions": [{"name", "defined_at", "compiles", "compile_seconds",
                    "arguments": [{"path", "varying_dims": {"0": [4, 7, 9, 16]}, "dtypes"}],
                    "events": [{"index", "cause": [...], "signature", "call_site", "seconds"}],
                    "advice": [{"kind", "text", ...}]}]}

Offline, a dump tells less: weak types are invisible in HLO and static arguments show only as
changed results, so a compile whose parameters are the same as the previous one's but whose
results differ is put down as ``static_value`` (a JAX static argument, an eager op's shape, a
TensorFlow compile-time constant).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..capture.compile_watch import ArgSignature, CompileRecord, CompileWatcher
from ..dataframes import require_pandas

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..capture.script import ScriptCapture
    from ..dump.index import DumpIndex, DumpModule
    from ..hlo.model import Module

__all__ = [
    "Cause",
    "AdviceKind",
    "Difference",
    "CompileEvent",
    "ArgumentHistory",
    "Advice",
    "FunctionLedger",
    "Ledger",
    "CompileWatch",
    "ScriptLedger",
    "build_ledger",
    "watch_compiles",
    "recompiles_of_script",
    "ledger_of_dump",
    "ledger_of_modules",
    "ledger_of_target",
    "bucket_sizes",
]


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


# ---- the ledger ----------------------------------------------------------------------------------


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
        return {
            "index": self.index,
            "cause": [str(c) for c in self.causes],
            "signature": self.signature,
            "call_site": self.call_site,
            "seconds": _rounded(self.seconds),
        }


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
            raise KeyError(f"no compiles of {_function_name(name)!r} (functions: {known})")
        return max(matches, key=lambda f: f.compiles)

    def matching(self, name: Any) -> list[FunctionLedger]:
        wanted = _function_name(name)
        return [f for f in self.functions if f.name == wanted]

    def count(self, function: Any = None, *, include_internal: bool = False) -> int:
        """Compiles of ``function`` (every function when ``None``; JAX's eager-op compiles only
        with ``include_internal``)."""
        if function is not None:
            return sum(f.compiles for f in self.matching(function))
        return self.compiles if include_internal else self.user_compiles

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (see the module docstring)."""
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


def _function_name(function: Any) -> str:
    """The name the ledger uses for ``function``: a string as it is, else ``__name__`` of the
    object (a ``jax.jit`` or ``tf.function`` object, a plain function)."""
    if isinstance(function, str):
        return function
    inner = getattr(function, "python_function", None) or function
    return str(getattr(inner, "__name__", None) or getattr(function, "__name__", function))


# ---- grouping records into functions -------------------------------------------------------------


@dataclass(slots=True)
class _Group:
    name: str
    defined_at: str | None
    framework: str
    internal: bool
    records: list[tuple[int, CompileRecord]] = field(default_factory=list)
    traces: list[CompileRecord] = field(default_factory=list)


def _group(records: Sequence[CompileRecord]) -> list[_Group]:
    groups: dict[tuple[str, str, str | None, bool], _Group] = {}
    latest_by_name: dict[tuple[str, str], _Group] = {}
    for position, record in enumerate(records):
        family = "tensorflow" if record.framework == "tensorflow" else record.framework
        group = None
        if record.defined_at is None and not record.internal:
            group = latest_by_name.get((family, record.name))  # the function it must be
        if group is None:
            key = (family, record.name, record.defined_at, record.internal)
            group = groups.get(key)
            if group is None:
                group = groups[key] = _Group(
                    record.name, record.defined_at, family, record.internal
                )
        if record.kind == "trace":
            group.traces.append(record)
        group.records.append((position, record))
        if not record.internal:
            latest_by_name[(family, record.name)] = group
    ordered = sorted(groups.values(), key=lambda g: g.records[0][0])
    return ordered


def build_ledger(records: Sequence[CompileRecord], source: str = "watch") -> Ledger:
    """The :class:`Ledger` of ``records`` (in the order they happened)."""
    ledger = Ledger(source=source)
    groups = _group(records)
    order: list[tuple[int, _Group, CompileRecord]] = []
    for group in groups:
        has_xla = any(r.kind == "xla" for _, r in group.records)
        for position, record in group.records:
            if has_xla and record.kind == "trace":
                continue  # the XLA compiles stand for them (each is matched to its trace)
            order.append((position, group, record))
    order.sort(key=lambda item: item[0])
    index_of = {id(record): i for i, (_, _, record) in enumerate(order)}
    for group in groups:
        ledger.functions.append(_function_ledger(group, index_of))
    ledger.functions = [f for f in ledger.functions if f.events]
    return ledger


def _function_ledger(group: _Group, index_of: dict[int, int]) -> FunctionLedger:
    has_xla = any(r.kind == "xla" for _, r in group.records)
    chosen = [r for _, r in group.records if not (has_xla and r.kind == "trace")]
    ledger = FunctionLedger(
        name=group.name,
        defined_at=group.defined_at,
        framework=group.framework,
        internal=group.internal,
        traces=len(group.traces) if group.framework == "tensorflow" else None,
    )
    # Two passes: what later explanations say (argument names, static values of the first
    # compile) is known before any event is written.
    trace_of = _match_traces(chosen, group.traces) if has_xla else {}
    if has_xla:  # XLA's arguments get the names of their trace's parameters
        index_of = dict(index_of)
        renamed = [_with_trace_names(r, trace_of.get(id(r))) for r in chosen]
        for old, new in zip(chosen, renamed):
            index_of[id(new)] = index_of.get(id(old), 0)
            if id(old) in trace_of:
                trace_of[id(new)] = trace_of[id(old)]
        chosen = renamed
    namer = _Namer()
    statics = _StaticValues()
    for record in chosen:
        namer.learn(record)
        statics.add(record)
    static_positions = statics.positions()
    previous: CompileRecord | None = None
    previous_event: CompileEvent | None = None
    timed: set[int] = set()
    for number, record in enumerate(chosen, start=1):
        arguments = namer.name(record, static_positions)
        known_statics = statics.at(number - 1)
        event = CompileEvent(
            index=index_of.get(id(record), number - 1),
            number=number,
            kind=record.kind,
            causes=[],
            differences=[],
            arguments=arguments,
            results=list(record.results),
            statics=_display_statics(known_statics, record.parameter_names),
            call_site=record.call_site,
            trace_seconds=record.trace_seconds,
            lower_seconds=record.lower_seconds,
            backend_seconds=record.backend_seconds,
            explanation=record.explanation,
            module=record.module,
            trace_id=record.trace_id,
            reduce_retracing=record.reduce_retracing,
            input_signature=record.input_signature,
        )
        if record.kind == "xla":
            trace = trace_of.get(id(record))
            if trace is not None and event.trace_seconds is None and id(trace) not in timed:
                event.trace_seconds = trace.trace_seconds  # the first compile of a trace
                timed.add(id(trace))
            if trace is not None and event.call_site is None:
                event.call_site = trace.call_site
        if previous is None or previous_event is None:
            event.causes = [Cause.FIRST]
        else:
            event.differences = _differences(
                previous, record, previous_event, event, statics, number - 1, trace_of
            )
            event.causes = _causes(event.differences)
        ledger.events.append(event)
        previous, previous_event = record, event
    ledger.arguments = _histories(ledger.events)
    ledger.advice = _advice(ledger)
    return ledger


# ---- names of flattened arguments ----------------------------------------------------------------


class _Namer:
    """Names a compile's flattened arguments: the framework's own names where it gave them,
    else what JAX's explanation bullets named earlier compiles' arguments, else the source's
    parameter names when there is one argument per parameter, else ``arg0``, ``arg1``..."""

    def __init__(self) -> None:
        self.learned: dict[int, dict[int, str]] = {}
        self.texts: list[list[str | None]] = []

    def learn(self, record: CompileRecord) -> None:
        """Take the argument names one compile's explanation gives (call in compile order)."""
        self._learn(record, self.learned.setdefault(len(record.arguments), {}))
        self.texts.append([a.text for a in record.arguments])

    def name(self, record: CompileRecord, static_positions: set[int]) -> list[ArgSignature]:
        """``record``'s arguments, each with a path; parameters at ``static_positions`` (known
        static) have no flattened argument, so the others are matched to what is left."""
        count = len(record.arguments)
        learned = self.learned.get(count, {})
        defaults = record.parameter_names
        if defaults is not None and len(defaults) != count:
            defaults = [p for i, p in enumerate(defaults) if i not in static_positions]
        named = []
        for arg in record.arguments:
            if arg.path:
                named.append(arg)
                continue
            path = learned.get(arg.index)
            if path is None and defaults is not None and len(defaults) == count:
                path = defaults[arg.index]
            named.append(replace(arg, path=path or f"arg{arg.index}"))
        return named

    def _learn(self, record: CompileRecord, learned: dict[int, str]) -> None:
        typed = [h for h in record.hints if h.cause in _TYPE_CAUSES and h.path and h.now]
        taken: set[int] = set()
        for hint in typed:
            if hint.path in learned.values():
                continue
            now, before = _bare_type(hint.now or ""), _bare_type(hint.before or "")
            candidates = [
                a.index
                for a in record.arguments
                if a.index not in taken and now in (a.text, (a.sharding or "").split(" ")[0])
            ]
            if len(candidates) > 1:  # prefer the one an earlier compile had `before` at
                earlier = [
                    i for i in candidates if any(len(t) > i and t[i] == before for t in self.texts)
                ]
                candidates = earlier or candidates
            if candidates:
                taken.add(candidates[0])
                learned.setdefault(candidates[0], hint.path)


_TYPE_CAUSES = ("shape", "dtype", "weak_type", "sharding")
_WEAK_NOTE = re.compile(r"\{weak_type=(True|False)\}")


def _bare_type(text: str) -> str:
    return _WEAK_NOTE.sub("", text).strip()


class _StaticValues:
    """The static-argument values of each compile, from JAX's explanations.

    An explanation names the *new* value of a static argument (``Static(val=4)``) and the value
    of the closest earlier key; the new value belongs to this compile, the earlier one to the
    one earlier compile that has none known at that path, when there is exactly one."""

    def __init__(self) -> None:
        self.values: list[dict[str, str]] = []

    def positions(self) -> set[int]:
        """The positional parameters known to be static (JAX's ``[0][i]`` paths)."""
        found = set()
        for values in self.values:
            for path in values:
                match = _STATIC_PATH.match(path)
                if match is not None and match.group(1) is not None:
                    found.add(int(match.group(1)))
        return found

    def add(self, record: CompileRecord) -> dict[str, str]:
        mine: dict[str, str] = {}
        for hint in record.hints:
            if hint.cause != "static_value" or hint.path is None:
                continue
            if hint.now is not None:
                mine[hint.path] = hint.now
            unknown = [v for v in self.values if hint.path not in v]
            if hint.before is not None and len(unknown) == 1:
                unknown[0][hint.path] = hint.before
        self.values.append(mine)
        return mine

    def at(self, number: int) -> dict[str, str]:
        return self.values[number] if number < len(self.values) else {}


_STATIC_PATH = re.compile(r"^\[0\]\[(\d+)\]$|^\[1\]\['?([^'\]]+)'?\]$")


def _display_statics(values: dict[str, str], parameters: list[str] | None) -> dict[str, str]:
    """Static values keyed by a readable name: JAX's ``[0][1]`` (args[1]) becomes the
    parameter's name where the source gives it, ``[1]['k']`` (kwargs) becomes ``k``."""
    shown = {}
    for path, value in values.items():
        shown[_static_name(path, parameters)] = value
    return shown


def _static_name(path: str, parameters: list[str] | None) -> str:
    found = _STATIC_PATH.match(path)
    if found is None:
        return path
    if found.group(1) is not None:
        position = int(found.group(1))
        if parameters is not None and position < len(parameters):
            return parameters[position]
        return f"args[{position}]"
    return found.group(2)


# ---- differences between two compiles ------------------------------------------------------------


def _differences(
    before: CompileRecord,
    now: CompileRecord,
    before_event: CompileEvent,
    now_event: CompileEvent,
    statics: _StaticValues,
    number: int,
    trace_of: dict[int, CompileRecord],
) -> list[Difference]:
    found: list[Difference] = []
    found += _identity_differences(before, now)
    found += _context_differences(before, now)
    found += _argument_differences(before_event.arguments, now_event.arguments)
    found = _with_tree_hints(found, now)
    found += _static_differences(statics.at(number - 1), statics.at(number), now)
    if now.kind == "xla" and before.kind == "xla":
        seen = {(d.cause, d.path) for d in found}
        found += [
            d for d in _trace_differences(before, now, trace_of) if (d.cause, d.path) not in seen
        ]
    if (
        now.kind == "module"
        and not found
        and _type_texts(before.results) != _type_texts(now.results)
    ):
        found.append(
            Difference(
                Cause.STATIC_VALUE,
                "result",
                _types_text(before.results),
                _types_text(now.results),
            )
        )
    if not found and now.kind == "module" and _module_name(before) != _module_name(now):
        # Same signature under another module name: other compile attributes or options
        # (TensorFlow puts them in the name: _XlaMustCompile, config_proto...).
        found.append(Difference(Cause.CONTEXT, "module", _module_name(before), _module_name(now)))
    if not found:
        found += _fallback_differences(before, now)
    return _unique(found)


def _with_tree_hints(found: list[Difference], now: CompileRecord) -> list[Difference]:
    """Put JAX's named keys in place of a tree change hloscope could only count (or did not
    see: leaves JAX pruned as unused change no compiled argument)."""
    hinted = [h for h in now.hints if h.cause == "pytree" and h.keys]
    if not hinted:
        return found
    named = any(d.cause is Cause.PYTREE and d.before is None for d in found)
    if named:
        return found
    kept = [d for d in found if d.cause is not Cause.PYTREE]
    return kept + [_tree_hint_difference(h, now.parameter_names) for h in hinted]


def _module_name(record: CompileRecord) -> str:
    return re.sub(r"^(?:.*/)?module_\d+\.", "", record.module or "")


def _identity_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    """A new function object: JAX said it never saw this one, or TensorFlow traced a function
    object other than the one before, defined at the same place."""
    if now.framework == "jax" and now.first_sight:
        found = []
        cleared = now.cache_clears - before.cache_clears
        if cleared > 0:
            times = "" if cleared == 1 else f" ({cleared} times)"
            found.append(
                Difference(Cause.CACHE_CLEARED, None, None, f"jax.clear_caches() ran{times}")
            )
        if not found or (now.function_id and now.function_id != before.function_id):
            what = "a function object JAX had not seen (made anew)"
            found.append(Difference(Cause.FUNCTION_RECREATED, None, None, what))
        return found
    if (
        now.kind == "trace"
        and before.kind == "trace"
        and now.function_id != before.function_id
        and now.defined_at == before.defined_at
    ):
        return [Difference(Cause.FUNCTION_RECREATED, None, None, "a new function object")]
    return []


def _context_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    if before.context is not None and now.context is not None:
        names = dict.fromkeys([*before.context, *now.context])
        return [
            Difference(Cause.CONTEXT, name, before.context.get(name), now.context.get(name))
            for name in names
            if before.context.get(name) != now.context.get(name)
        ]
    return [
        Difference(Cause.CONTEXT, h.path, h.before, h.now)
        for h in now.hints
        if h.cause == "context"
    ]


def _argument_differences(before: list[ArgSignature], now: list[ArgSignature]) -> list[Difference]:
    found: list[Difference] = []
    before_paths = [a.path for a in before]
    now_paths = [a.path for a in now]
    if len(before) != len(now) or (
        set(before_paths) != set(now_paths) and not _positional(before_paths, now_paths)
    ):
        found.append(_tree_difference(before_paths, now_paths))
        pairs = [(b, n) for b in before for n in now if b.path == n.path]
    else:
        pairs = list(zip(before, now))
    for old, new in pairs:
        found += _leaf_differences(old, new)
    return found


def _tree_difference(before: list[str | None], now: list[str | None]) -> Difference:
    """A change of the argument structure: the leaves added and removed when the arguments
    carry their names (``params['c']``), else the counts."""
    if not _positional(before, now) or len(before) == len(now):
        added = [p for p in now if p not in before]
        removed = [p for p in before if p not in now]
        parts = [f"added {_names(added)}"] if added else []
        parts += [f"removed {_names(removed)}"] if removed else []
        if parts:
            return Difference(Cause.PYTREE, None, None, "; ".join(parts))

    def counted(paths: list[str | None]) -> str:
        plural = "s" if len(paths) != 1 else ""
        return f"{len(paths)} argument{plural} ({', '.join(str(p) for p in paths[:6])})"

    return Difference(Cause.PYTREE, None, counted(before), counted(now))


def _names(paths: list[str | None], limit: int = 6) -> str:
    shown = ", ".join(str(p) for p in paths[:limit])
    return shown + (f", \u2026 ({len(paths)} in all)" if len(paths) > limit else "")


_CHILDREN = re.compile(r"with (\d+) child")


def _tree_hint_difference(hint: Any, parameters: list[str] | None) -> Difference:
    """JAX's own account of a tree change (against the closest earlier compile): the keys
    one tree has and the other lacks, added when the new tree has more children."""
    where = _static_name(hint.path, parameters) if hint.path else None
    if hint.keys is None:
        return Difference(Cause.PYTREE, where, hint.before, hint.now)
    now, before = _CHILDREN.search(hint.now or ""), _CHILDREN.search(hint.before or "")
    verb = "keys differ"
    if now is not None and before is not None and now.group(1) != before.group(1):
        verb = "keys added" if int(now.group(1)) > int(before.group(1)) else "keys removed"
    return Difference(Cause.PYTREE, where, None, f"{verb} {hint.keys}")


def _positional(before: list[str | None], now: list[str | None]) -> bool:
    """Whether two argument lists differ only in the names hloscope guessed (``arg0``)."""
    return all(
        b == n or (b or "").startswith("arg") or (n or "").startswith("arg")
        for b, n in zip(before, now)
    )


def _leaf_differences(old: ArgSignature, new: ArgSignature) -> list[Difference]:
    path = new.path or old.path
    found = []
    if old.role == "static" or new.role == "static":
        if old.role != new.role or old.value != new.value:
            found.append(Difference(Cause.STATIC_VALUE, path, _leaf_text(old), _leaf_text(new)))
        return found
    if old.shape != new.shape:
        found.append(Difference(Cause.SHAPE, path, old.type_text(), new.type_text()))
    if old.dtype != new.dtype:
        found.append(Difference(Cause.DTYPE, path, old.dtype, new.dtype))
    if old.weak_type != new.weak_type:
        found.append(
            Difference(
                Cause.WEAK_TYPE,
                path,
                "Python scalar (weak)" if old.weak_type else "array",
                "Python scalar (weak)" if new.weak_type else "array",
            )
        )
    if old.sharding != new.sharding:
        found.append(Difference(Cause.SHARDING, path, old.sharding or "-", new.sharding or "-"))
    if (old.role == "constant" or new.role == "constant") and old.value != new.value:
        found.append(Difference(Cause.STATIC_VALUE, path, old.value, new.value))
    return found


def _leaf_text(arg: ArgSignature) -> str:
    return arg.value if arg.role == "static" and arg.value is not None else arg.type_text()


def _static_differences(
    before: dict[str, str], now: dict[str, str], record: CompileRecord
) -> list[Difference]:
    found = []
    for path, value in now.items():
        old = before.get(path)
        if old is not None and old != value:
            name = _static_name(path, record.parameter_names)
            found.append(Difference(Cause.STATIC_VALUE, name, old, value))
    return found


def _trace_differences(
    before: CompileRecord, now: CompileRecord, trace_of: dict[int, CompileRecord]
) -> list[Difference]:
    """What made TensorFlow trace again, when an XLA compile belongs to a new trace."""
    if before.trace_id == now.trace_id:
        return []
    old, new = trace_of.get(id(before)), trace_of.get(id(now))
    if old is None or new is None:
        return []
    found = _identity_differences(old, new) + _context_differences(old, new)
    found += _argument_differences(old.arguments, new.arguments)
    return found


def _with_trace_names(record: CompileRecord, trace: CompileRecord | None) -> CompileRecord:
    """An XLA compile record whose arguments carry the names (and dtype spelling) of its
    trace's tensor parameters, when there is one XLA argument per tensor parameter."""
    arguments = [replace(a, dtype=_TF_DTYPES.get(a.dtype or "", a.dtype)) for a in record.arguments]
    if trace is not None:
        tensors = [a for a in trace.arguments if a.role != "static"]
        if len(tensors) == len(arguments):
            arguments = [replace(a, path=t.path) for a, t in zip(arguments, tensors)]
    if trace is None:
        return replace(record, arguments=arguments)
    return replace(
        record,
        arguments=arguments,
        reduce_retracing=trace.reduce_retracing,
        input_signature=trace.input_signature,
    )


#: TensorFlow's C++ names of dtypes (its XLA log) -> the Python names (its traces).
_TF_DTYPES = {"float": "float32", "double": "float64", "half": "float16"}


def _fallback_differences(before: CompileRecord, now: CompileRecord) -> list[Difference]:
    """Nothing seen differs: say what the framework said, else the likeliest reason."""
    # What JAX's explanation named (against the closest earlier compile): an argument it
    # pruned from the compiled module (unused) changed, or the tree or a static value did.
    hinted = [
        _tree_hint_difference(h, now.parameter_names)
        if h.cause == "pytree"
        else Difference(Cause(h.cause), h.path, h.before, h.now)
        for h in now.hints
        if h.cause in set(Cause) - {Cause.FIRST}
    ]
    if hinted:
        return hinted
    if now.internal:
        # JAX keys an eager op's compile on its parameters too (the shape it broadcasts to,
        # the dtype it converts to), which no record shows.
        return [Difference(Cause.STATIC_VALUE, None, None, "the op's parameters (a shape)")]
    if now.framework == "jax" and now.trace_seconds is None:
        # JAX's tracing cache hit, yet it lowered and compiled again: the key below tracing
        # (devices, shardings, committed arguments) changed.
        return [Difference(Cause.SHARDING, None, None, "devices or shardings of the arguments")]
    return [Difference(Cause.FUNCTION_RECREATED, None, None, "the same signature again")]


def _causes(differences: list[Difference]) -> list[Cause]:
    return list(dict.fromkeys(d.cause for d in differences))


def _unique(differences: list[Difference]) -> list[Difference]:
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for d in differences:
        key = (d.cause, d.path, d.before, d.now)
        if key not in seen:
            seen.add(key)
            kept.append(d)
    return kept


def _type_texts(args: list[ArgSignature]) -> list[str]:
    return [a.type_text() for a in args]


def _types_text(args: list[ArgSignature]) -> str:
    texts = _type_texts(args)
    return texts[0] if len(texts) == 1 else "(" + ", ".join(texts) + ")"


def _match_traces(
    compiles: list[CompileRecord], traces: list[CompileRecord]
) -> dict[int, CompileRecord]:
    """The trace each XLA compile belongs to: compiles of one concrete function (one trace id)
    share a trace, the latest one of that function that began before its first compile."""
    by_uid: dict[str | None, CompileRecord] = {}
    used: set[int] = set()
    matched: dict[int, CompileRecord] = {}
    for record in compiles:
        if record.kind != "xla":
            continue
        trace = by_uid.get(record.trace_id)
        if trace is None:
            earlier = [t for t in traces if t.time <= record.time and id(t) not in used]
            if earlier:
                trace = earlier[-1]
                used.add(id(trace))
                by_uid[record.trace_id] = trace
        if trace is not None:
            matched[id(record)] = trace
    return matched


# ---- per-argument histories ----------------------------------------------------------------------


def _histories(events: list[CompileEvent]) -> list[ArgumentHistory]:
    histories: dict[str, ArgumentHistory] = {}
    shapes: dict[str, list[tuple[int | None, ...]]] = {}
    for event in events:
        for arg in event.arguments:
            path = arg.path or f"arg{arg.index}"
            history = histories.get(path)
            if history is None:
                history = histories[path] = ArgumentHistory(path, role=arg.role)
            if arg.role == "static":
                _add_once(history.values, arg.value or "?")
                continue
            if arg.dtype is not None:
                _add_once(history.dtypes, arg.dtype)
            if arg.shape is not None:
                shapes.setdefault(path, []).append(arg.shape)
                if len(arg.shape) not in history.ranks:
                    history.ranks.append(len(arg.shape))
            if arg.role == "constant" and arg.value is not None:
                _add_once(history.values, arg.value)
            if arg.weak_type not in history.weak_types:
                history.weak_types.append(arg.weak_type)
        for path, value in event.statics.items():
            history = histories.get(path)
            if history is None:
                history = histories[path] = ArgumentHistory(path, role="static")
            _add_once(history.values, value)
    for path, seen in shapes.items():
        histories[path].varying_dims = _varying_dims(seen)
    return list(histories.values())


def _add_once(values: list[Any], value: Any) -> None:
    if value not in values:
        values.append(value)


def _varying_dims(shapes: list[tuple[int | None, ...]]) -> dict[int, list[int]]:
    """Dimension -> sorted sizes, for each dimension that took more than one size (shapes of
    one rank compared; of several ranks, the most common)."""
    by_rank: dict[int, list[tuple[int | None, ...]]] = {}
    for shape in shapes:
        by_rank.setdefault(len(shape), []).append(shape)
    if not by_rank:
        return {}
    rank = max(by_rank, key=lambda r: len(by_rank[r]))
    varying = {}
    for dim in range(rank):
        sizes = sorted({s[dim] for s in by_rank[rank] if s[dim] is not None})
        if len(sizes) > 1:
            varying[dim] = sizes
    return varying


# ---- advice --------------------------------------------------------------------------------------


def bucket_sizes(sizes: Iterable[int]) -> list[int]:
    """The powers of two that cover ``sizes``: each size pads up to the next one.

    >>> bucket_sizes([1, 3, 5, 9, 40])
    [1, 4, 8, 16, 64]
    """
    return sorted({1 << max(0, math.ceil(math.log2(s))) if s > 0 else 0 for s in sizes})


def _advice(ledger: FunctionLedger) -> list[Advice]:
    if ledger.compiles < 2:
        return []
    counts = ledger.cause_counts()
    found: list[Advice] = []
    if ledger.internal:
        return [_eager_advice(ledger)]
    tensorflow = ledger.framework == "tensorflow"
    for group in _shared_dimensions(ledger):
        advice = _size_advice(ledger, group)
        if advice is not None:
            found.append(advice)
    traced = any(e.kind == "trace" for e in ledger.events)
    signed = any(e.input_signature for e in ledger.events)  # TensorFlow's own error otherwise
    if tensorflow and counts.get(Cause.SHAPE) and traced and not signed:
        found.append(_signature_advice(ledger))
    for history in ledger.arguments:
        if len(history.weak_types) > 1 and not tensorflow:
            found.append(
                Advice(
                    AdviceKind.SCALAR,
                    f"stop passing {history.path} as a Python scalar in some calls and an array "
                    f"in others: pass jnp.asarray({history.path}, jnp.{_numpy_dtype(history)}) "
                    "every time (or mark it static if it takes few values)",
                    argument=history.path,
                )
            )
        if len(history.dtypes) > 1:
            found.append(
                Advice(
                    AdviceKind.DTYPE,
                    f"pass {history.path} with one dtype (seen {', '.join(history.dtypes)}): "
                    "cast it before the call",
                    argument=history.path,
                )
            )
        if len(history.values) > 1:
            found.append(_value_advice(ledger, history))
    if counts.get(Cause.PYTREE):
        found.append(
            Advice(
                AdviceKind.PYTREE,
                "keep the structure of the arguments the same between calls (the same keys, "
                "containers and positional/keyword use; fill missing entries instead of "
                "leaving them out)",
            )
        )
    if counts.get(Cause.SHARDING):
        found.append(
            Advice(
                AdviceKind.SHARDING,
                "pass the arguments with the same sharding and devices every call (put them "
                "once with jax.device_put(x, sharding) before the loop)",
            )
        )
    if counts.get(Cause.FUNCTION_RECREATED):
        found.append(_hoist_advice(ledger))
    if counts.get(Cause.CACHE_CLEARED):
        cleared = counts[Cause.CACHE_CLEARED]
        found.append(
            Advice(
                AdviceKind.CACHE_CLEARED,
                f"jax.clear_caches() ran between calls ({_plural(cleared, 'compile')} came "
                "after one): every function compiles again after it; clear the caches once, "
                "outside the loop, or not at all",
            )
        )
    if counts.get(Cause.CONTEXT):
        names = sorted(
            {
                d.path
                for e in ledger.events
                for d in e.differences
                if d.cause is Cause.CONTEXT and d.path
            }
        )
        found.append(
            Advice(
                AdviceKind.CONTEXT,
                "the calls ran under different settings"
                + (f" ({', '.join(names)})" if names else "")
                + ": keep config and context managers the same around the calls, or expect "
                "one compile per setting",
                values=names or None,
            )
        )
    return found


def _numpy_dtype(history: ArgumentHistory) -> str:
    short = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64"}
    short |= {"i32": "int32", "i64": "int64", "bool": "bool_"}
    dtype = history.dtypes[0] if history.dtypes else "f32"
    return short.get(dtype, dtype)


def _distinct_signatures(
    ledger: FunctionLedger, map_size: Callable[[str, int, int | None], int | None] | None = None
) -> int:
    keys = set()
    for event in ledger.events:
        key = []
        for arg in event.arguments:
            shape = arg.shape
            if shape is not None and map_size is not None:
                shape = tuple(map_size(arg.path or "", d, size) for d, size in enumerate(shape))
            key.append((arg.path, shape, arg.dtype, arg.weak_type, arg.sharding, arg.value))
        key.append(tuple(sorted(event.statics.items())))
        keys.add(tuple(key))
    return len(keys)


@dataclass(frozen=True, slots=True)
class _SharedDim:
    """Dimensions that took the same size in every compile (a batch's sequence length shared
    by ``x``, ``y`` and ``mask``): padding one means padding all, so they are priced once."""

    members: tuple[tuple[str, int], ...]  # (argument, dim), in argument order
    sizes: tuple[int, ...]  # the distinct sizes seen, sorted

    def covers(self, path: str, dim: int) -> bool:
        return (path, dim) in self.members

    def text(self) -> str:
        by_dim: dict[int, list[str]] = {}
        for path, dim in self.members:
            by_dim.setdefault(dim, []).append(path)
        parts = [f"dim {dim} of {', '.join(paths)}" for dim, paths in by_dim.items()]
        return "; ".join(parts)


def _shared_dimensions(ledger: FunctionLedger) -> list[_SharedDim]:
    """The varying dimensions of a function, those that always had the same size together."""
    columns: dict[tuple[int | None, ...], list[tuple[str, int]]] = {}
    for history in ledger.arguments:
        for dim in history.varying_dims:
            column = tuple(_size_in(event, history.path, dim) for event in ledger.events)
            columns.setdefault(column, []).append((history.path, dim))
    groups = []
    for column, members in columns.items():
        sizes = tuple(sorted({size for size in column if size is not None}))
        if len(sizes) > 1:
            groups.append(_SharedDim(tuple(members), sizes))
    return groups


def _size_in(event: CompileEvent, path: str, dim: int) -> int | None:
    for arg in event.arguments:
        if arg.path == path and arg.shape is not None and dim < len(arg.shape):
            return arg.shape[dim]
    return None


def _size_advice(ledger: FunctionLedger, group: _SharedDim) -> Advice | None:
    """Bucketing (or padding to the largest size) for one shared dimension, priced as the
    distinct signatures of the whole function once its sizes are bucketed; ``None`` when
    neither saves a compile (another argument changes every time anyway)."""
    sizes = list(group.sizes)
    buckets = bucket_sizes(sizes)

    def bucketed(arg_path: str, d: int, size: int | None) -> int | None:
        if size is None or not group.covers(arg_path, d):
            return size
        return next(b for b in buckets if b >= size)

    def padded(arg_path: str, d: int, size: int | None) -> int | None:
        return max(sizes) if size is not None and group.covers(arg_path, d) else size

    now = _distinct_signatures(ledger)
    with_buckets = _distinct_signatures(ledger, bucketed)
    with_pad = _distinct_signatures(ledger, padded)
    shown = _size_list(sizes)
    first_path, first_dim = group.members[0]
    together = " (one size: they vary together)" if len(group.members) > 1 else ""
    common = {
        "argument": first_path,
        "dim": first_dim,
        "sizes": sizes,
        "arguments": [f"{path}:{dim}" for path, dim in group.members],
    }
    if len(buckets) < len(sizes) and with_buckets < now:
        return Advice(
            AdviceKind.BUCKET,
            f"pad {group.text()}{together} up to buckets {', '.join(map(str, buckets))} "
            f"(sizes seen: {shown}): {_plural(with_buckets, 'compile')} instead of {now}, "
            f"{now - with_buckets} saved (padding to {max(sizes)} always: {with_pad})",
            buckets=buckets,
            compiles_saved=now - with_buckets,
            **common,
        )
    if with_pad >= now:
        return None
    return Advice(
        AdviceKind.PAD,
        f"pad {group.text()}{together} to {max(sizes)} (sizes seen: {shown}) and mask the "
        f"padding: {_plural(with_pad, 'compile')} instead of {now}, {now - with_pad} saved",
        buckets=[max(sizes)],
        compiles_saved=now - with_pad,
        **common,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _size_list(sizes: list[int], limit: int = 12) -> str:
    if len(sizes) <= limit:
        return ", ".join(map(str, sizes))
    head = ", ".join(map(str, sizes[:5]))
    return f"{head}, \u2026, {sizes[-1]} ({len(sizes)} sizes)"


def _value_advice(ledger: FunctionLedger, history: ArgumentHistory) -> Advice:
    values = history.values
    shown = ", ".join(values[:8]) + (", \u2026" if len(values) > 8 else "")
    if history.role == "constant":
        text = (
            f"{history.path} is a compile-time constant to XLA (it feeds a shape or another "
            "operand that must be known: tf.reshape, tf.zeros, tf.range...), so XLA compiles "
            f"once per value (seen: {shown}); compute that shape from a Python value outside "
            "the function, or bucket the values"
        )
        kind = AdviceKind.CONSTANT
    elif ledger.framework == "tensorflow":
        text = (
            f"{history.path} is a Python value, and tf.function traces once per value (seen: "
            f"{shown}): pass it as a tensor (tf.constant(...)) or give an input_signature"
        )
        kind = AdviceKind.STATIC
    else:
        text = (
            f"{history.path} is static and took {len(values)} values ({shown}): each value "
            "compiles; if it takes many values, pass it as an array instead of marking it "
            "static (static_argnums/static_argnames), unless it decides a shape"
        )
        kind = AdviceKind.STATIC
    return Advice(kind, text, argument=history.path, values=list(values))


def _signature_advice(ledger: FunctionLedger) -> Advice:
    """``input_signature`` with ``None`` for the dimensions that changed (or that a generalised
    trace left open) and the sizes that never did; ``reduce_retracing`` only to a function
    that does not have it yet."""
    specs = []
    for history in ledger.arguments:
        if history.role != "traced" or not history.ranks:
            continue
        dims = _spec_dims(ledger, history.path, history.ranks[0])
        dtype = history.dtypes[0] if history.dtypes else "float32"
        specs.append(f"tf.TensorSpec([{', '.join(dims)}], tf.{dtype})")
    signature = f"input_signature=[{', '.join(specs)}]" if specs else "an input_signature"
    if any(e.reduce_retracing for e in ledger.events):
        text = (
            f"give tf.function {signature} (None for the dimensions that vary): "
            "reduce_retracing generalises only after a second trace, a signature traces once"
        )
    else:
        text = (
            f"give tf.function {signature} (None for the dimensions that vary), or "
            "reduce_retracing=True, so one trace serves every size"
        )
    return Advice(AdviceKind.INPUT_SIGNATURE, text)


def _spec_dims(ledger: FunctionLedger, path: str, rank: int) -> list[str]:
    """Per dimension, ``None`` if it took several sizes or was left open, else its size."""
    seen: list[set[int | None]] = [set() for _ in range(rank)]
    for event in ledger.events:
        for arg in event.arguments:
            if arg.path == path and arg.shape is not None and len(arg.shape) == rank:
                for dim, size in enumerate(arg.shape):
                    seen[dim].add(size)
    return [
        str(next(iter(sizes))) if len(sizes) == 1 and None not in sizes else "None"
        for sizes in seen
    ]


def _hoist_advice(ledger: FunctionLedger) -> Advice:
    """Hoisting out of a loop when the function objects made anew come from one call site
    (the same line ran again: a loop, or a function called in one); else, sharing one."""
    recreated = [e for e in ledger.events if Cause.FUNCTION_RECREATED in e.causes]
    sites = {_site_line(e.call_site) for e in recreated if e.call_site}
    sites |= {_site_line(ledger.events[0].call_site)} if ledger.events[0].call_site else set()
    what_tf = "the tf.function"
    what = "the lambda and its jax.jit" if ledger.name == "<lambda>" else "the jax.jit"
    if ledger.framework == "tensorflow":
        what = what_tf
    if len(sites) == 1:
        [site] = sites
        if ledger.framework == "tensorflow":
            text = (
                f"create the tf.function once, outside the loop at {site}: a new tf.function "
                "(or a new Python function inside it) traces again every time"
            )
        else:
            text = (
                f"hoist {what} out of the loop at {site}: a function object made anew each "
                "time misses every cache; use functools.partial for fixed arguments"
            )
        return Advice(AdviceKind.HOIST, text)
    shown = ", ".join(sorted(s for s in sites if s)[:3])
    return Advice(
        AdviceKind.REUSE,
        f"create {what} once and call that one object from every place ({len(sites)} call "
        f"sites{': ' + shown if shown else ''}): each made its own function object, and each "
        "object compiles for itself",
    )


_SITE_FUNCTION = re.compile(r"\s+\([^)]*\)$")


def _site_line(call_site: str | None) -> str | None:
    """``file:line`` of a call site (without the ``(function)`` that follows)."""
    return _SITE_FUNCTION.sub("", call_site) if call_site else None


def _eager_advice(ledger: FunctionLedger) -> Advice:
    sites = sorted({e.call_site for e in ledger.events if e.call_site})
    where = f" ({', '.join(sites[:3])})" if sites else ""
    return Advice(
        AdviceKind.EAGER,
        f"jax.numpy ran {ledger.name} op by op outside jit {ledger.compiles} times, once per "
        f"shape{where}: create these arrays inside the jitted function, or with one fixed shape",
    )


# ---- watching ------------------------------------------------------------------------------------


class CompileWatch(contextlib.ContextDecorator):
    """What :func:`watch_compiles` returns: a context manager and a decorator.

        >>> with hloscope.watch_compiles() as w:
        ...     train(data)
        >>> w.report().to_dataframe()

    As a decorator, every call of the decorated function is watched, and the function gets a
    ``watch`` attribute holding this object. Records accumulate over every block or call.
    """

    def __init__(self, *, jax: bool = True, tensorflow: bool = True) -> None:
        self._watcher = CompileWatcher(jax=jax, tensorflow=tensorflow)

    @property
    def records(self) -> list[CompileRecord]:
        """Every compile seen so far, as the watcher recorded it."""
        return list(self._watcher.records)

    def __enter__(self) -> CompileWatch:
        self._watcher.start()
        return self

    def __exit__(self, *exc_info: object) -> bool:
        self._watcher.stop()
        return False

    def __call__(self, function: Callable[..., Any]) -> Callable[..., Any]:
        wrapper = super().__call__(function)
        wrapper.watch = self  # type: ignore[attr-defined]
        return wrapper

    def report(self) -> Ledger:
        """The :class:`Ledger` of everything seen so far."""
        return build_ledger(self._watcher.records, source="watch")


def watch_compiles(*, jax: bool = True, tensorflow: bool = True) -> CompileWatch:
    """Watch every JAX compile and ``tf.function`` trace in a block or a decorated function.

    Uses only JAX's public hooks and logging records (see
    :mod:`hloscope.capture.compile_watch`): every logger, level, handler and config flag it
    touches is back as it was when the block ends, also when it raised, and nothing is printed.
    ``w.report()`` is the :class:`Ledger`. TensorFlow's XLA-level compiles (per shape under
    ``jit_compile=True``, per value of a compile-time-constant argument) show only in TF's C++
    log: :func:`recompiles_of_script` runs a script with it on.
    """
    return CompileWatch(jax=jax, tensorflow=tensorflow)


# ---- scripts -------------------------------------------------------------------------------------


@dataclass(slots=True)
class ScriptLedger:
    """The ledger of a script run, and the run itself (its manifest, output and status)."""

    ledger: Ledger
    run: ScriptCapture
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.run.ok

    def error_line(self) -> str | None:
        return self.error


#: What ``recompiles_of_script`` writes into ``out_dir`` besides the run's own files: the
#: ledger, as ``hloscope recompiles --json`` prints it.
LEDGER_FILE = "ledger.json"
_TEMP_PREFIX = "hloscope-recompiles-"
_STDERR_POINTER = re.compile(r" \(stderr in [^)]*\)$")


def recompiles_of_script(
    script: str | os.PathLike[str],
    args: Sequence[str] = (),
    *,
    function: str | None = None,
    timeout: float | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> ScriptLedger:
    """Run ``script`` (or call its ``function`` with its example arguments) in a child process
    under the compile watcher, and return the ledger of what it compiled.

    TensorFlow's XLA compile log is switched on in the child and read from its stderr, so
    XLA compiles that add no trace (a new shape under ``reduce_retracing``, a new value of a
    compile-time constant) are counted too. The run's files (``stdout.txt``, ``stderr.txt``,
    ``manifest.json``, ``recompiles.json``) and the ledger (``ledger.json``, what ``--json``
    prints) stay in ``out_dir`` when given; otherwise they go to a temporary folder that is
    removed whatever happens (a failed run, an exception, Ctrl-C). A run that fails still gives
    the ledger of what it compiled.
    """
    keep = out_dir is not None
    folder = Path(out_dir) if keep else Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX))
    try:
        return _run_watched(script, args, folder, function, timeout, progress, keep)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def _run_watched(
    script: str | os.PathLike[str],
    args: Sequence[str],
    folder: Path,
    function: str | None,
    timeout: float | None,
    progress: bool | None,
    keep: bool,
) -> ScriptLedger:
    from ..capture.script import RECOMPILES, STDERR, capture_script
    from ..capture.tf_watch import parse_xla_log

    run = capture_script(
        script,
        args,
        folder,
        function=function,
        timeout=timeout,
        force=True,
        progress=progress,
        watch_compiles=True,
    )
    records = _read_records(folder / RECOMPILES)
    try:
        log = (folder / STDERR).read_text(errors="replace")
    except OSError:
        log = ""
    records = _merge_by_time(records, parse_xla_log(log))
    ledger = build_ledger(records, source="script")
    if not (folder / RECOMPILES).is_file() and not run.ok:
        ledger.notes.append("the run stopped before the watcher could write its records")
    error = run.error_line()
    if keep:
        (folder / LEDGER_FILE).write_text(ledger.to_json() + "\n")
    elif error is not None:  # the folder it points to is gone
        error = _STDERR_POINTER.sub(" (-o DIR keeps the script's output)", error)
    return ScriptLedger(ledger, run, error)


def _read_records(path: Path) -> list[CompileRecord]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [CompileRecord.from_dict(r) for r in data.get("records", ())]


def _merge_by_time(first: list[CompileRecord], second: list[CompileRecord]) -> list[CompileRecord]:
    if not second:
        return first
    return sorted([*first, *second], key=lambda r: r.time)  # stable: ties keep their order


# ---- offline: dumps ------------------------------------------------------------------------------


def ledger_of_dump(index: DumpIndex) -> Ledger:
    """Group a dump folder's modules by function and diff their entry signatures (parameter
    and result shapes and dtypes), compile by compile. Reads the before-optimizations text of
    each module (after-optimizations where that is all there is); a module that cannot be read
    is left out and named in :attr:`Ledger.notes`."""
    from ..dump.errors import DumpFormatError
    from ..hlo.errors import HloParseError

    records: list[CompileRecord] = []
    notes = []
    modules = sorted(index.modules, key=lambda m: m.key)
    for m in modules:
        try:
            module = m.before() or m.after()
        except (HloParseError, DumpFormatError) as error:
            notes.append(error.one_line())
            continue
        if module is None:
            continue
        records.append(_module_record(module, m.function or module.name, m))
    ledger = build_ledger(records, source="dump")
    ledger.notes.extend(notes)
    return ledger


def ledger_of_modules(modules: Sequence[Module]) -> Ledger:
    """The ledger of parsed modules (an HLO text file with several), grouped by function."""
    from ..dump.filenames import function_name

    records = [_module_record(m, function_name(m.name), None) for m in modules]
    return build_ledger(records, source="dump")


def ledger_of_target(target: Any) -> Ledger:
    """The offline ledger of a resolved :class:`~hloscope.capture.target.Target` that is a
    dump folder, a capture folder or an HLO text file (scripts: :func:`recompiles_of_script`)."""
    from ..capture.target import TargetKind

    if target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        return ledger_of_dump(target.dump())
    from ..capture.target import TargetError

    try:
        modules = target.modules("before")
    except TargetError:  # a saved capture without the unoptimized stage
        modules = target.modules("after")
    return ledger_of_modules(modules)


_TF_MODULE = re.compile(r"^a?_*inference_(?P<fn>.+?)_(?P<uid>\d+)(?:__|$)")


def _module_record(module: Module, function: str, dumped: DumpModule | None) -> CompileRecord:
    layout = module.header_attrs.get("entry_computation_layout")
    parameters = list(getattr(layout, "parameters", ()) or ())
    result = getattr(layout, "result", None)
    entry = module.entry
    params = entry.parameters if entry is not None else []
    if not parameters:
        parameters = [p.shape for p in sorted(params, key=lambda p: p.parameter_number or 0)]
    if result is None and entry is not None and entry.root is not None:
        result = entry.root.shape
    names = {p.parameter_number: p.name for p in params}
    arguments = [
        _shape_argument(i, shape, _parameter_label(names.get(i), i))
        for i, shape in enumerate(parameters)
    ]
    results = [
        _shape_argument(i, leaf, f"result{i}")
        for i, leaf in enumerate(result.leaves() if result is not None else [])
    ]
    tf_name = _TF_MODULE.match(module.name)
    internal = _jax_internal(module, function)
    where = module.name
    if dumped is not None:
        where = f"module_{dumped.id:04d}.{module.name}"
        where = f"{dumped.folder}/{where}" if dumped.folder else where
    return CompileRecord(
        framework="xla",
        kind="module",
        name=function,
        module=where,
        arguments=arguments,
        results=results,
        trace_id=tf_name.group("uid") if tf_name else None,
        internal=internal,
    )


_JAX_MODULE = re.compile(r"^(?:jit|pmap)_")
_STAR_ARG = re.compile(r"^args\[\d+\]$")


def _jax_internal(module: Module, function: str) -> bool:
    """Whether a dumped JAX module is one of JAX's own eager or staging functions
    (``jit_broadcast_in_dim``, ``jit__multi_slice``, ``jit_stage``), as live mode marks the
    functions JAX does not explain. A user's function runs its own body, so its name is among
    the module's stack frames (JAX keeps only frames in the user's files); JAX's functions
    show only their callers. Without a frame table: JAX's ``*args`` wrappers name every
    parameter ``args[N]``."""
    if not _JAX_MODULE.match(module.name):
        return False
    frames = set(module.function_names.values())
    if frames:
        bare = function.strip("_")
        return not any(
            name == function
            or name.endswith("." + function)
            or (bare == "lambda" and name == "<lambda>")
            for name in frames
        )
    entry = module.entry
    parameters = entry.parameters if entry is not None else []
    names = [p.metadata.op_name if p.metadata is not None else None for p in parameters]
    return bool(names) and all(n is not None and _STAR_ARG.match(n) for n in names)


_UNIQUE = re.compile(r"\.\d+$")


def _parameter_label(name: str | None, number: int) -> str:
    """A parameter's name without XLA's ``.1`` suffix (JAX names parameters after the
    arguments: ``x.1``)."""
    if not name:
        return f"param{number}"
    return _UNIQUE.sub("", name) or f"param{number}"


def _shape_argument(index: int, shape: Any, path: str) -> ArgSignature:
    dims = getattr(shape, "dims", None)
    dtype = str(getattr(shape, "element_type", "?"))
    if shape is not None and getattr(shape, "is_tuple", False):
        return ArgSignature(index, path, shape=None, role="traced", text=str(shape), dtype="tuple")
    return ArgSignature(
        index,
        path,
        shape=tuple(dims) if dims is not None else (),
        dtype=dtype,
        text=shape.to_text(layout=False) if shape is not None else "?",
    )
