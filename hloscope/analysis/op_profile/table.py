"""The op profile of a trace: XProf's per-op table, read offline.

:func:`op_profile` takes a :class:`~hloscope.profile.model.Trace` (and, when given, the module
that ran) and returns an :class:`OpProfile`:

* **Which module.** A trace may hold several modules (the program's step and the small modules
  JAX compiles for eager ops). The profile is of one: the TARGET's module, else ``module_name``,
  else the module with the most device time; the others are listed in :attr:`OpProfile.modules`.
* **Steps** (the rule, :mod:`.steps`): the steps the device's ``Steps`` line holds; else the
  steps the program marked (``jax.profiler.StepTraceAnnotation``, host events with a
  ``step_num``: the number of distinct step numbers of the most used annotation name); else
  the number of executions of the module (distinct ``run_id`` on XLA:CPU, ``XLA Modules``
  events on a TPU or GPU); else one. In a trace that holds other modules' ops too, only the
  marked steps that hold an op of the module count. :attr:`OpProfile.step_rule` says which
  rule applied; :attr:`OpProfile.step_times` gives each step's wall time against the device's
  busy time, and a chip idle most of each step puts the host question first in the notes.
* **Kernels.** One row per HLO instruction the device ran: its *self* time (nested ops taken
  out, see :func:`~hloscope.profile.build.self_times`) per step, its share of the device time,
  its occurrences (executions in the whole trace), and, joined from the module
  (:mod:`.join`), its kind, FLOPs and HBM bytes per step, its bound and roofline position on
  the chip (:mod:`.roof`) and its source line. Without a module, what the trace itself says
  (the op's HLO text on a TPU gives its opcode and fusion kind). An async start or done has
  no bound and no position: :attr:`OpProfile.overlaps` gives each pair's span, hidden and
  exposed time instead (:mod:`.overlap`). A kernel whose bytes all stay on chip and that does
  no FLOP is bound ``on-chip``. Without a chip, a TPU module's notes name the ``--device``
  the bounds need.
* **Device time per step** is the sum of the kernels' self times over the steps: the time the
  device's op line was busy, so the kernels' shares add up to one.
* **Groups**: by kind, by source line and by ``op_name`` scope (the op's name with its last
  component, the primitive, taken off: ``jit(step)/Dense_0``).
* **Devices.** The kernels are of one device (the trace's first, or the one
  :func:`~hloscope.profile.read_trace` was asked for); a trace of several adds
  every device's busy time and their spread (:mod:`.devices`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...devices import Device, for_kind
from ...hlo.model import Module
from ...hlo.tiling import module_has_tpu_layouts
from ...json_fields import json_fields
from ...profile import OpEvent, Trace, self_times
from ...units import format_duration
from ..errors import OpProfileMismatch
from ..fusions import UNKNOWN_SOURCE
from .devices import DeviceSpread, device_spread
from .join import Joined, ModuleIndex, check_match
from .overlap import (
    AsyncOverlap,
    AsyncSummary,
    async_overlaps,
    is_async,
    opcode_of_text,
    operand_of_text,
)
from .roof import position
from .steps import HOST_BOUND_IDLE, StepCount, StepTime, count_steps, step_times

__all__ = ["KernelTime", "GroupTime", "OpProfile", "op_profile", "scope_of", "KERNEL_KEYS"]

#: The keys of a kernel row in ``--json``, in order.
KERNEL_KEYS = (
    "name",
    "kind",
    "time_s",
    "share",
    "occurrences",
    "flops",
    "hbm_bytes",
    "bound",
    "source",
    "async",
)
# The TPU a TPU module's bounds are asked for first, and the registry's others it may have
# run on (its layouts do not say which).
_TPU_HINT = "tpu-v5e"
_OTHER_TPUS = ("tpu-v4", "tpu-v5p", "tpu-v6e")


def _needs_device(chip: Device | None, module: Module | None) -> bool:
    """Whether the bounds are missing for want of a chip that the module says is a TPU."""
    return chip is None and module is not None and module_has_tpu_layouts(module)


_OPCODE = re.compile(r"(?<![\w.%\-])([a-z][a-z0-9\-]*)\(")
_FUSION_KIND = re.compile(r"\bkind=(k\w+)")


@dataclass(slots=True)
class KernelTime:
    """One kernel's measured time per step, and what the module says of it.

    ``flops`` and ``hbm_bytes`` are per step (per execution times executions, over the steps),
    ``None`` when neither the module nor the trace says; ``fraction`` is the roofline
    position under ``bound``'s roof (``None`` without a chip or figures).
    """

    name: str
    kind: str
    time_s: float
    share: float
    occurrences: int
    flops: float | None
    hbm_bytes: float | None
    bound: str | None
    fraction: float | None
    source: str
    scope: str
    joined: bool = False
    text: str = ""
    #: A start, update or done of an async pair: no bound, no roofline (:mod:`.overlap`).
    asynchronous: bool = False

    def row(self) -> dict[str, Any]:
        """The ``--json`` kernel object (:data:`KERNEL_KEYS`; ``async``: an async op)."""
        out = {key: getattr(self, key) for key in KERNEL_KEYS if key != "async"}
        out["async"] = self.asynchronous
        return out


@dataclass(slots=True)
class GroupTime:
    """The kernels sharing a kind, a source line or a scope: their time per step and share."""

    key: str
    time_s: float
    share: float
    occurrences: int
    kernels: list[str]

    def row(self, label: str) -> dict[str, Any]:
        return {label: self.key, **json_fields(self, "time_s share occurrences kernels")}


@dataclass(slots=True)
class OpProfile:
    """The op profile of one module in one trace (see the module docstring)."""

    trace: str
    format: str
    device: str
    module: str
    steps: int
    step_rule: str
    runs: int
    device_time_s: float
    kernels: list[KernelTime]
    by_kind: list[GroupTime]
    by_source: list[GroupTime]
    by_scope: list[GroupTime]
    chip: str = ""
    modules: dict[str, float] = field(default_factory=dict)  # module -> device s per step
    target: str = ""  # the module joined ("" without one)
    unjoined: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    devices: DeviceSpread | None = None  # every device's busy time, in a trace of several
    overlaps: list[AsyncOverlap] = field(default_factory=list)  # async pairs, most exposed first
    #: Per step: the time any async transfer was in flight, and the part no other op covered.
    async_in_flight_s: float = 0.0
    async_exposed_s: float = 0.0
    step_times: list[StepTime] = field(default_factory=list)  # each step's wall and busy time
    #: The note a reader must see first when the chip is idle most of each step (the host is
    #: the question: :func:`host_bound_note`), also first of :attr:`notes`; ``""`` otherwise.
    host_note: str = ""
    #: The ``--device`` the bounds need when the trace names no chip and TARGET's module says
    #: which kind it ran on (a TPU module: ``tpu-v5e``, one TPU of several); ``""`` otherwise.
    needs_device: str = ""

    @property
    def kernel_time_s(self) -> float:
        return sum(k.time_s for k in self.kernels)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: device, steps, device time per step, kernels, by source; and
        in a trace of several devices, ``devices``: each one's busy time and which is shown."""
        out = {
            "device": self.device,
            "steps": self.steps,
            "device_time_s": self.device_time_s,
            "kernels": [k.row() for k in self.kernels],
            "by_source": [g.row("source") for g in self.by_source],
        }
        out["async"] = [o.row() for o in self.overlaps]
        out["step_times"] = [t.row() for t in self.step_times]
        if self.devices is not None:
            out["devices"] = self.devices.rows()
        return out


# ------------------------------------------------------------------------------------------


def scope_of(op_name: str) -> str:
    """``jit(step)/Dense_0`` of ``jit(step)/Dense_0/dot_general``: the op's scope."""
    return op_name.rsplit("/", 1)[0] if "/" in op_name else op_name


def _kind_from_text(op: OpEvent) -> str:
    """The opcode (a fusion's kind) an XLA:TPU op's HLO text names, else its category."""
    if op.text and " = " in op.text:
        rest = op.text.split(" = ", 1)[1]
        found = _OPCODE.search(rest)
        if found:
            if found.group(1) == "fusion":
                kind = _FUSION_KIND.search(rest)
                return kind.group(1) if kind else "fusion"
            return found.group(1)
    return op.category


def _choose_module(
    trace: Trace, times: dict[str, float], module: Module | None, module_name: str | None
) -> str:
    """The trace's module to profile (see the module docstring)."""
    if not trace.ops:
        raise OpProfileMismatch(f"{trace.path}: the trace holds no device op")
    known = [m for m in times if m]
    if module is not None:
        if not known or module.name in times:
            return module.name if module.name in times else ""
        main = max(known, key=times.__getitem__)
        raise OpProfileMismatch(
            f"the trace holds no op of TARGET's module {module.name} (its ops ran in "
            f"{', '.join(known)}): the trace is of another module (--module NAME picks "
            f"another module of TARGET; the trace's heaviest is {main})"
        )
    if module_name:
        exact = [m for m in known if m == module_name]
        partial = [m for m in known if module_name in m]
        if exact or len(partial) == 1:
            return (exact or partial)[0]
        raise OpProfileMismatch(
            f"the trace holds no module named {module_name} (it holds {', '.join(known)})"
        )
    return max(times, key=times.__getitem__)


def _group(
    kernels: Iterable[KernelTime], key: Callable[[KernelTime], str], total: float
) -> list[GroupTime]:
    groups: dict[str, list[KernelTime]] = defaultdict(list)
    for kernel in kernels:
        groups[key(kernel) or UNKNOWN_SOURCE].append(kernel)
    out = [
        GroupTime(
            name,
            sum(k.time_s for k in members),
            sum(k.time_s for k in members) / total if total > 0 else 0.0,
            sum(k.occurrences for k in members),
            [k.name for k in members],
        )
        for name, members in groups.items()
    ]
    out.sort(key=lambda g: (-g.time_s, g.key))
    return out


def op_profile(
    trace: Trace,
    module: Module | None = None,
    *,
    module_name: str | None = None,
    device: Device | None = None,
) -> OpProfile:
    """The op profile of ``trace`` (joined to ``module`` when given; see the module
    docstring). ``device`` is the chip for the roofline (default: the one the trace names)."""
    all_self, by_module, chosen, picked, counted = _selected(trace, module, module_name)
    steps, rule, runs = counted.steps, counted.rule, counted.runs
    totals = _OpTotals.of(picked)
    index, unjoined, opcode = _joined(module, chosen, totals)
    notes = [f"steps: {rule}", *_unjoined_notes(unjoined)]
    chip = device or (for_kind(trace.device_kind) if trace.device_kind else None)
    total_s = sum(totals.per_name.values()) * 1e-9 / steps
    kernels = _kernels(totals, index, opcode, total_s, steps, runs, chip)
    transfers = _transfers(picked, steps, opcode, index, totals)
    times = step_times(trace, all_self, counted, [op for op, _ in picked], chosen)
    others = {m: t * 1e-9 / steps for m, t in by_module.items() if m != chosen}
    notes.extend(_run_notes(trace, chosen, runs, steps, others))
    notes.extend(_roof_notes(kernels, chip, trace, module))
    notes[:0] = [idle] if (idle := host_bound_note(times)) else []
    return OpProfile(
        host_note=idle,
        trace=trace.path,
        format=trace.format,
        device=trace.device,
        module=chosen,
        steps=steps,
        step_rule=rule,
        runs=runs,
        device_time_s=total_s,
        kernels=kernels,
        by_kind=_group(kernels, lambda k: k.kind, total_s),
        by_source=_group(kernels, lambda k: k.source, total_s),
        by_scope=_group(kernels, lambda k: k.scope, total_s),
        chip=chip.name if chip is not None else "",
        modules={chosen: total_s, **others},
        target=module.name if module is not None else "",
        unjoined=unjoined,
        notes=notes,
        devices=device_spread(trace, steps if trace.steps or runs > 0 else None),
        needs_device=_TPU_HINT if _needs_device(chip, module) else "",
        overlaps=transfers.pairs,
        async_in_flight_s=transfers.in_flight_s,
        async_exposed_s=transfers.exposed_s,
        step_times=times,
    )


def _joined(
    module: Module | None, chosen: str, totals: _OpTotals
) -> tuple[ModuleIndex | None, list[str], Callable[[OpEvent], str]]:
    """The trace's ops joined to ``module``'s instructions by name: the module's index (``None``
    without a module), the op names it lacks (``check_match`` refuses a module that is not the
    trace's), and each op's opcode."""
    index = ModuleIndex(module) if module is not None else None
    unjoined = check_match(index, chosen, totals.per_name) if index is not None else []
    return index, unjoined, _opcodes(index)


def _selected(
    trace: Trace, module: Module | None, module_name: str | None
) -> tuple[list[float], dict[str, float], str, list[tuple[OpEvent, float]], StepCount]:
    """Every op's own time, each module's device time (ns), the module profiled, its ops
    with their own times, and its steps."""
    all_self = self_times(trace.ops)
    by_module: dict[str, float] = defaultdict(float)
    for op, own in zip(trace.ops, all_self):
        by_module[op.module] += own
    chosen = _choose_module(trace, by_module, module, module_name)
    picked = [(op, own) for op, own in zip(trace.ops, all_self) if op.module == chosen]
    return all_self, by_module, chosen, picked, count_steps(trace, [op for op, _ in picked], chosen)


def _unjoined_notes(unjoined: list[str]) -> list[str]:
    """What to say of the trace's ops the module does not have."""
    if not unjoined:
        return []
    return [
        f"{len(unjoined)} op(s) of the trace are not in TARGET's module: " + ", ".join(unjoined[:5])
    ]


@dataclass(slots=True)
class _OpTotals:
    """The chosen module's ops summed by name: own time, count, first event, and the FLOPs
    and bytes the trace itself gives."""

    per_name: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, OpEvent] = field(default_factory=dict)
    flops: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    nbytes: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    @classmethod
    def of(cls, picked: Iterable[tuple[OpEvent, float]]) -> _OpTotals:
        totals = cls()
        for op, own in picked:
            totals.per_name[op.name] += own
            totals.counts[op.name] += 1
            totals.first.setdefault(op.name, op)
            totals.flops[op.name] += op.flops or 0.0
            totals.nbytes[op.name] += op.bytes_accessed or 0.0
        return totals


def _kernels(
    totals: _OpTotals,
    index: ModuleIndex | None,
    opcode: Callable[[OpEvent], str],
    total_s: float,
    steps: int,
    runs: int,
    chip: Device | None,
) -> list[KernelTime]:
    """One row per op name, longest first."""
    kernels = []
    for name, ns in totals.per_name.items():
        joined = index.join(name) if index is not None else None
        first = totals.first[name]
        kernels.append(
            _kernel(
                name,
                ns * 1e-9 / steps,
                total_s,
                totals.counts[name],
                steps,
                runs,
                first,
                joined,
                totals.flops[name],
                totals.nbytes[name],
                chip,
                is_async(opcode(first)),
            )
        )
    kernels.sort(key=lambda k: (-k.time_s, k.name))
    return kernels


def _transfers(
    picked: list[tuple[OpEvent, float]],
    steps: int,
    opcode: Callable[[OpEvent], str],
    index: ModuleIndex | None,
    totals: _OpTotals,
) -> AsyncSummary:
    """The async pairs of the chosen module's ops and the time transfers were in flight."""
    return async_overlaps(
        [op for op, _ in picked],
        [own for _, own in picked],
        steps,
        opcode,
        _started_by(index, set(totals.per_name)),
        _transfer_bytes(index, totals.first),
    )


def _run_notes(
    trace: Trace, chosen: str, runs: int, steps: int, others: dict[str, float]
) -> list[str]:
    """How often the program ran against the marked steps, and the trace's other modules."""
    notes = []
    if runs and trace.steps and runs != steps:
        notes.append(f"{chosen or 'the program'} ran {runs} times in {steps} marked steps")
    if others:
        notes.append(
            "other modules in the trace (device time per step): "
            + ", ".join(f"{m or '?'} {format_duration(t)}" for m, t in sorted(others.items()))
        )
    return notes


def host_bound_note(times: Sequence[StepTime]) -> str:
    """What a reader must know first when the chip is idle most of each step: the question
    is the host, not a kernel (``""`` otherwise)."""
    wall = sum(t.wall_s for t in times)
    busy = sum(t.busy_s for t in times)
    if not times or wall <= 0:
        return ""
    idle = max(0.0, 1 - busy / wall)
    if idle <= HOST_BOUND_IDLE:
        return ""
    return (
        f"the chip is idle {idle:.0%} of each step ({format_duration(busy / len(times))} busy "
        f"in {format_duration(wall / len(times))} of wall time per step): the question is the "
        "host (input pipeline, Python dispatch, host callbacks), not a kernel"
    )


def _opcodes(index: ModuleIndex | None) -> Callable[[OpEvent], str]:
    """An op's opcode: the module's, else its HLO text's in the trace, else its category
    (XLA:TPU files async ops under their opcode: ``copy-start``, ``async-done``)."""

    def opcode(op: OpEvent) -> str:
        found = index.opcode(op.name) if index is not None else ""
        return found or opcode_of_text(op.text) or op.category

    return opcode


def _started_by(index: ModuleIndex | None, names: set[str]) -> Callable[[OpEvent], str]:
    """A done's start: the module's operand, else its HLO text's, else ``X-start.N`` of
    ``X-done.N`` when the trace ran such an op."""

    def started_by(op: OpEvent) -> str:
        found = index.started_by(op.name) if index is not None else ""
        found = found or operand_of_text(op.text)
        if found:
            return found
        guess = op.name.replace("-done", "-start", 1)
        return guess if guess in names else ""

    return started_by


def _transfer_bytes(
    index: ModuleIndex | None, first: dict[str, OpEvent]
) -> Callable[[str], float | None]:
    def nbytes(start: str) -> float | None:
        if index is not None:
            return index.transfer_bytes(start)
        op = first.get(start)
        return op.bytes_accessed if op is not None else None

    return nbytes


def _roof_notes(
    kernels: Sequence[KernelTime], chip: Device | None, trace: Trace, module: Module | None
) -> list[str]:
    """What a reader must know about the bounds: no chip, or kernels above a roof."""
    if chip is None:
        if _needs_device(chip, module):
            return [
                "no bounds: the trace names no chip, and TARGET's module is a TPU module "
                "(tiled T(8,128) layouts): the bounds need the TPU it ran on, --device "
                f"{_TPU_HINT} (or {', '.join(_OTHER_TPUS)})"
            ]
        if trace.device.startswith("/device:"):
            return ["the trace does not name its chip: --device NAME gives bounds"]
        return []
    above = [k for k in kernels if k.fraction is not None and k.fraction > 1]
    if not above:
        return []
    memory = [k for k in above if k.bound == "memory"]
    share = sum(k.share for k in above)
    why = (
        "their bytes are XLA's cost rules at the kernel boundary (on a TPU, on-chip S(1)/S(2) "
        "operands already left out), which can count bytes a kernel reads from on-chip "
        "memory or cache rather than from HBM: the byte figure is in doubt, not the time"
        if memory
        else "the chip's peak in the registry is below what they reached"
    )
    return [f"{len(above)} kernels ({share:.0%} of the time) are above 100% of a roof: {why}"]


def _kernel_costs(
    joined: Joined | None,
    op: OpEvent,
    occurrences: int,
    steps: int,
    runs: int,
    trace_flops: float,
    trace_bytes: float,
) -> tuple[float | None, float | None, float, tuple[str, str, str, str]]:
    """A kernel's FLOPs, HBM bytes and all bytes per step, and its kind, source, scope and
    element type: the module's when the op joined it, else the trace's own."""
    if joined is not None:
        # XLA:CPU may record one kernel of the entry as several events (a sort: two); the
        # module knows it ran once per run, so its cost counts once per run.
        executions = joined.per_run * runs if joined.per_run is not None and runs else occurrences
        flops: float | None = joined.flops * executions / steps
        nbytes: float | None = joined.hbm_bytes * executions / steps
        all_bytes = joined.all_bytes * executions / steps
        kind, source, scope, element = (
            joined.kind,
            joined.source,
            scope_of(joined.op_name),
            joined.element_type,
        )
    else:
        flops = trace_flops / steps if op.flops is not None else None
        nbytes = trace_bytes / steps if op.bytes_accessed is not None else None
        kind, source, scope, element = _kind_from_text(op), op.source, scope_of(op.op_name), ""
        all_bytes = nbytes or 0.0
    return flops, nbytes, all_bytes, (kind, source, scope, element)


def _kernel(
    name: str,
    time_s: float,
    total_s: float,
    occurrences: int,
    steps: int,
    runs: int,
    op: OpEvent,
    joined: Joined | None,
    trace_flops: float,
    trace_bytes: float,
    chip: Device | None,
    asynchronous: bool = False,
) -> KernelTime:
    flops, nbytes, all_bytes, (kind, source, scope, element) = _kernel_costs(
        joined, op, occurrences, steps, runs, trace_flops, trace_bytes
    )
    # An async op's event is its issue or its wait, not its transfer: no roofline (.overlap).
    where = (
        None
        if asynchronous
        else position(flops or 0.0, nbytes or 0.0, time_s, chip, element, all_bytes)
    )
    return KernelTime(
        name=name,
        kind=kind,
        time_s=time_s,
        share=time_s / total_s if total_s > 0 else 0.0,
        occurrences=occurrences,
        flops=flops,
        hbm_bytes=nbytes,
        bound=where.bound if where is not None else None,
        fraction=where.fraction if where is not None else None,
        source=source,
        scope=scope,
        joined=joined is not None,
        text=op.text,
        asynchronous=asynchronous,
    )
