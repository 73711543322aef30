"""From compile records to a :class:`~._ledger.Ledger`: records grouped by function, and each
function's compiles written as events, each diffed against the compile before it.

This is where the other modules meet: :mod:`._names` names the arguments,
:mod:`._differences` says what changed, :mod:`._histories` gathers each argument over time
and :mod:`._advice` says what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...backends.compile_records import ArgSignature, CompileRecord
from ._advice import advice_for, mark_setup
from ._differences import causes_of, differences_between, match_traces, with_trace_names
from ._histories import histories_of
from ._ledger import Cause, CompileEvent, FunctionLedger, Ledger
from ._names import Namer, StaticValues, display_statics
from ._persistent_cache import CacheVerdict, cache_notes, cache_verdicts


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


def build_ledger(
    records: Sequence[CompileRecord],
    source: str = "watch",
    *,
    previous: Sequence[CompileRecord] | None = None,
    previous_label: str | None = None,
) -> Ledger:
    """The :class:`Ledger` of ``records`` (in the order they happened). With ``previous``
    (the records of a kept run, named ``previous_label``), each persistent-cache miss names
    the part of JAX's cache key that changed since."""
    ledger = Ledger(source=source, cache_compared_with=previous_label)
    verdicts = cache_verdicts(records, previous, previous_label)
    ledger.notes.extend(cache_notes(records))
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
        ledger.functions.append(_function_ledger(group, index_of, verdicts))
    ledger.functions = [f for f in ledger.functions if f.events]
    mark_setup(ledger)
    return ledger


def _function_ledger(
    group: _Group, index_of: dict[int, int], verdicts: dict[int, CacheVerdict]
) -> FunctionLedger:
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
    trace_of: dict[int, CompileRecord] = {}
    if has_xla:
        chosen, index_of, trace_of = _with_trace_names(chosen, group, index_of)
    namer = Namer()
    statics = StaticValues()
    for record in chosen:
        namer.learn(record)
        statics.add(record)
    static_positions = statics.positions()
    previous: CompileRecord | None = None
    previous_event: CompileEvent | None = None
    timed: set[int] = set()
    for number, record in enumerate(chosen, start=1):
        arguments = namer.name(record, static_positions)
        shown = display_statics(statics.at(number - 1), record.parameter_names)
        event = _event(record, number, index_of, verdicts, arguments, shown)
        if record.kind == "xla":
            _from_trace(event, trace_of.get(id(record)), timed)
        if previous is None or previous_event is None:
            event.causes = [Cause.FIRST]
        else:
            event.differences = differences_between(
                previous, record, previous_event, event, statics, number - 1, trace_of
            )
            event.causes = causes_of(event.differences)
        ledger.events.append(event)
        previous, previous_event = record, event
    ledger.arguments = histories_of(ledger.events)
    ledger.advice = advice_for(ledger)
    return ledger


def _with_trace_names(
    chosen: list[CompileRecord], group: _Group, index_of: dict[int, int]
) -> tuple[list[CompileRecord], dict[int, int], dict[int, CompileRecord]]:
    """XLA's records with their arguments named by their trace's parameters, their indexes,
    and each one's trace (both keyed by the renamed record too)."""
    trace_of = match_traces(chosen, group.traces)
    index_of = dict(index_of)
    renamed = [with_trace_names(r, trace_of.get(id(r))) for r in chosen]
    for old, new in zip(chosen, renamed):
        index_of[id(new)] = index_of.get(id(old), 0)
        if id(old) in trace_of:
            trace_of[id(new)] = trace_of[id(old)]
    return renamed, index_of, trace_of


def _event(
    record: CompileRecord,
    number: int,
    index_of: dict[int, int],
    verdicts: dict[int, CacheVerdict],
    arguments: list[ArgSignature],
    statics: dict[str, str],
) -> CompileEvent:
    """The ledger's event for one compile, before its statics, causes and differences."""
    return CompileEvent(
        index=index_of.get(id(record), number - 1),
        number=number,
        kind=record.kind,
        causes=[],
        differences=[],
        arguments=arguments,
        results=list(record.results),
        statics=statics,
        call_site=record.call_site,
        trace_seconds=record.trace_seconds,
        lower_seconds=record.lower_seconds,
        backend_seconds=record.backend_seconds,
        explanation=record.explanation,
        module=record.module,
        trace_id=record.trace_id,
        reduce_retracing=record.reduce_retracing,
        input_signature=record.input_signature,
        persistent_cache=verdicts.get(id(record)),
    )


def _from_trace(event: CompileEvent, trace: CompileRecord | None, timed: set[int]) -> None:
    """An XLA compile's tracing time (the first compile of a trace only) and call site from
    its trace, where it has none of its own."""
    if trace is not None and event.trace_seconds is None and id(trace) not in timed:
        event.trace_seconds = trace.trace_seconds  # the first compile of a trace
        timed.add(id(trace))
    if trace is not None and event.call_site is None:
        event.call_site = trace.call_site
