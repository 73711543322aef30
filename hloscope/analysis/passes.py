"""What each XLA pass did to a module: the pass timeline of per-pass snapshots.

With ``--xla_dump_hlo_pass_re=.*`` (or ``hloscope.capture(f, x, passes=".*")``) XLA writes the
module after every pass that changed it, named by where it sits in the pipeline
(:class:`~hloscope.dump.passes.PassStep`): ``0013.HLO_passes_after_layout_assignment.
after_fusion.before_fusion-wrapper`` is the module right after the ``fusion`` pass. Read in
order, the snapshots are the story of the compilation; :func:`pass_timeline` tells it:

* each snapshot as a :class:`PassRow`: the pass that produced it, how many instructions,
  fusions and kernels the module has after it and how that moved since the snapshot before;
* which passes ran and changed nothing. XLA writes a snapshot only when a pass changed the
  module, and each snapshot names the pass about to run, so a named next pass whose own
  snapshot never comes changed nothing (when every pass was dumped, ``every_pass``); and a
  snapshot whose text equals the previous one changed nothing visible;
* :meth:`PassTimeline.text_diff`: the unified diff of the module before and after a pass;
* :meth:`PassTimeline.follow`: one instruction through the pipeline, with the pass where it
  was created, changed, fused (moved into a fusion computation: the fusion pass clones the
  instruction under a new name, found again by its opcode, ``op_name`` and stack), renamed or
  removed.

The snapshot that opens a pipeline (``after_pipeline-start``) shows what happened since the
last one outside any dumped pass; its row names no pass::

    timeline = pass_timeline(load_dump("dump").module("jit_small"))
    [(r.step, r.ran, r.instructions) for r in timeline.rows]
    print(timeline.text_diff("fusion"))
    timeline.follow("mul.1").first(FollowEventKind.FUSED).pass_label
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..dump.passes import PassStep
from ..hlo.errors import HloParseError
from ..hlo.model import Module
from ..json_fields import json_fields
from .cost import placements
from .errors import PassesError
from .fusions import NOT_KERNELS

if TYPE_CHECKING:  # pragma: no cover
    from ..backends.record import Capture
    from ..dump.index import DumpIndex, DumpModule
    from ..hlo.model import Instruction

__all__ = [
    "PassesError",
    "PassRow",
    "PassDiff",
    "Quiet",
    "QuietPass",
    "FollowEventKind",
    "FollowEvent",
    "Follow",
    "PassTimeline",
    "pass_timeline",
    "instruction_count",
    "kernel_count",
    "dump_module_of",
    "PIPELINE_START",
]

#: The pass name of the snapshot XLA takes when a pipeline starts.
PIPELINE_START = "pipeline-start"
_PIPELINE_END = "pipeline-end"


# ---- counts --------------------------------------------------------------------------------------


def instruction_count(module: Module) -> int:
    """Instructions in every computation of ``module`` (fused computations included)."""
    return sum(map(len, module.computations))  # counted without building unbuilt bodies


def fusion_count(module: Module) -> int:
    """``fusion`` instructions in ``module``."""
    return sum(1 for inst in module.instructions() if inst.opcode == "fusion")


def kernel_count(module: Module) -> int:
    """Kernels as the fusion report counts them: instructions that do work in the
    computations that run (entry, loop bodies, branches), not the ones that only name buffers.
    Before the fusion pass every such op is its own kernel."""
    return sum(
        1
        for placement in placements(module).values()
        for inst in placement.computation.instructions
        if inst.opcode not in NOT_KERNELS
    )


# ---- results -------------------------------------------------------------------------------------


@dataclass(slots=True)
class PassRow:
    """One snapshot of the pipeline and the module's size after it.

    ``ran`` is the pass whose changes the snapshot shows (``""`` for a pipeline's opening
    snapshot); ``changed`` whether its text differs from the previous snapshot's;
    ``d_*`` the moves since that snapshot. ``unchanged_after`` names the passes known to have
    run after this snapshot and changed nothing. ``error`` is set, and the counts are -1, when
    the snapshot's text could not be parsed.
    """

    step: int
    pipeline: str
    pass_name: str
    next_pass: str | None
    filename: str = ""
    instructions: int = -1
    computations: int = -1
    fusions: int = -1
    kernels: int = -1
    changed: bool = True
    d_instructions: int = 0
    d_fusions: int = 0
    d_kernels: int = 0
    unchanged_after: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def ran(self) -> str:
        if self.next_pass is None:  # a snapshot taken while a pass ran: the pass is the pipeline
            return self.pipeline
        return "" if self.pass_name == PIPELINE_START else self.pass_name

    @property
    def label(self) -> str:
        """``fusion (HLO_passes_after_layout_assignment)``, or the opening of a pipeline."""
        if self.next_pass is None:
            return f"{self.pipeline}: {self.pass_name}"
        if self.pass_name == PIPELINE_START:
            return f"start of {self.pipeline}"
        return f"{self.pass_name} ({self.pipeline})"

    def matches(self, name: str) -> bool:
        """Whether ``name`` names this row: its pass, ``pipeline:pass``, step or label."""
        name = name.strip()
        return name in (
            self.ran,
            self.pass_name,
            f"{self.pipeline}:{self.pass_name}",
            f"{self.step}",
            f"{self.step:04d}",
            self.label,
        ) or (self.next_pass is None and name == f"{self.pipeline}:{self.pass_name}")

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "step pipeline pass_name next_pass ran label filename instructions computations "
            "fusions kernels changed d_instructions d_fusions d_kernels unchanged_after error",
        )


@dataclass(slots=True)
class PassDiff:
    """The unified diff of the module from the snapshot before ``row`` to ``row``'s."""

    row: PassRow
    previous: PassRow | None
    diff: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.row.step,
            "label": self.row.label,
            "previous_step": self.previous.step if self.previous else None,
            "diff": self.diff,
        }


class Quiet(StrEnum):
    """How a pass is known to have changed nothing."""

    NO_SNAPSHOT = "no snapshot"  # named as the next pass, and its snapshot never came
    SAME_TEXT = "same text"  # XLA said it changed the module; the text is the same


@dataclass(slots=True)
class QuietPass:
    """A pass that ran and changed nothing: its name, pipeline, the step it ran after (or,
    for ``SAME_TEXT``, its own step) and how that is known."""

    pass_name: str
    pipeline: str
    step: int
    reason: Quiet

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "pass=pass_name pipeline step reason")


class FollowEventKind(StrEnum):
    """What a pass did to a followed instruction."""

    PRESENT = "present"  # in the first snapshot already
    CREATED = "created"
    CHANGED = "changed"  # same name, different text (operands, shape, attributes)
    FUSED = "fused"  # now inside a fusion computation
    MOVED = "moved"  # into another computation (one fusion into another, say)
    RENAMED = "renamed"
    REMOVED = "removed"


@dataclass(slots=True)
class FollowEvent:
    """One thing that happened to the followed instruction, at one snapshot.

    ``name`` and ``computation`` are where it is after the event; ``fusion`` the fusion
    instruction whose computation holds it (``FUSED``); ``before``/``after`` its text on either
    side of the pass.
    """

    kind: FollowEventKind
    step: int
    pass_label: str
    ran: str
    name: str
    computation: str = ""
    fusion: str = ""
    before: str = ""
    after: str = ""

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "kind step pass=ran label=pass_label name computation fusion before after",
        )


@dataclass(slots=True)
class Follow:
    """The life of one instruction through the snapshots, in order."""

    instruction: str
    events: list[FollowEvent]

    def first(self, kind: FollowEventKind | str) -> FollowEvent | None:
        """The first event of ``kind`` (``None`` if it never happened)."""
        return next((e for e in self.events if e.kind == kind), None)

    def to_dict(self) -> dict[str, Any]:
        return {"instruction": self.instruction, "events": [e.to_dict() for e in self.events]}


# ---- the timeline -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Snapshot:
    step: PassStep
    text: str
    filename: str


class PassTimeline:
    """The snapshots of one module's pass pipeline, their counts and what changed between them.

    Build it with :func:`pass_timeline`. ``rows`` are in pipeline order; ``unchanged`` lists,
    in order, the passes that ran and changed nothing (see the module docstring).
    """

    __slots__ = ("module", "rows", "every_pass", "_texts", "_modules")

    def __init__(
        self, module: str, snapshots: Sequence[_Snapshot], every_pass: bool = True
    ) -> None:
        self.module = module
        self.every_pass = every_pass
        ordered = sorted(snapshots, key=lambda s: s.step.step)
        self._texts = [s.text for s in ordered]
        self._modules: list[Module | None] = []
        self.rows: list[PassRow] = []
        for snapshot in ordered:
            self.rows.append(self._row(snapshot))
        self._deltas()
        if every_pass:
            self._mark_unchanged()

    def _row(self, snapshot: _Snapshot) -> PassRow:
        step = snapshot.step
        row = PassRow(step.step, step.pipeline, step.pass_name, step.next_pass, snapshot.filename)
        try:
            from ..hlo.parser import parse

            module = parse(snapshot.text, path=snapshot.filename or f"<pass step {step.step}>")
        except HloParseError as error:
            row.error = error.one_line()
            self._modules.append(None)
            return row
        self._modules.append(module)
        row.instructions = instruction_count(module)
        row.computations = len(module.computations)
        row.fusions = fusion_count(module)
        row.kernels = kernel_count(module)
        return row

    def _deltas(self) -> None:
        for i, row in enumerate(self.rows[1:], 1):
            before = self.rows[i - 1]
            row.changed = self._texts[i] != self._texts[i - 1]
            if row.error or before.error:
                continue
            row.d_instructions = row.instructions - before.instructions
            row.d_fusions = row.fusions - before.fusions
            row.d_kernels = row.kernels - before.kernels

    def _mark_unchanged(self) -> None:
        """A next pass whose own snapshot does not follow ran without changing anything."""
        for i, row in enumerate(self.rows):
            upcoming = row.next_pass
            if upcoming is None or upcoming == _PIPELINE_END:
                continue
            following = self.rows[i + 1] if i + 1 < len(self.rows) else None
            if following is None or not (
                following.pipeline == row.pipeline and following.pass_name == upcoming
            ):
                row.unchanged_after.append(upcoming)

    # -- reading ----------------------------------------------------------------------------

    @property
    def unchanged(self) -> list[QuietPass]:
        """Each pass that ran and changed nothing, in pipeline order: those no snapshot
        followed (:attr:`PassRow.unchanged_after`) and those whose snapshot equals the one
        before it."""
        found = []
        for row in self.rows:
            if not row.changed and row.ran:
                found.append(QuietPass(row.ran, row.pipeline, row.step, Quiet.SAME_TEXT))
            for name in row.unchanged_after:
                found.append(QuietPass(name, row.pipeline, row.step, Quiet.NO_SNAPSHOT))
        return found

    def module_at(self, index: int) -> Module | None:
        """The parsed module of ``rows[index]`` (``None`` if its text did not parse)."""
        return self._modules[index]

    def text_at(self, index: int) -> str:
        return self._texts[index]

    def rows_for(self, pass_name: str) -> list[int]:
        """Indexes of the rows ``pass_name`` names (see :meth:`PassRow.matches`)."""
        return [i for i, row in enumerate(self.rows) if row.matches(pass_name)]

    def diffs(self, pass_name: str, *, context: int = 3) -> list[PassDiff]:
        """The diff of every snapshot ``pass_name`` produced (a pass may run many times)."""
        indexes = self.rows_for(pass_name)
        if not indexes:
            raise PassesError(self._no_pass(pass_name))
        out = []
        for i in indexes:
            row = self.rows[i]
            previous = self.rows[i - 1] if i else None
            old = self._texts[i - 1] if i else ""
            before = f"{previous.step:04d} {previous.label}" if previous else "(nothing)"
            diff = difflib.unified_diff(
                old.splitlines(keepends=True),
                self._texts[i].splitlines(keepends=True),
                fromfile=before,
                tofile=f"{row.step:04d} {row.label}",
                n=context,
            )
            out.append(PassDiff(row, previous, "".join(diff)))
        return out

    def text_diff(self, pass_name: str, *, context: int = 3) -> str:
        """The unified diff of the module before and after ``pass_name`` (every run of it, one
        after another; ``""`` when its snapshots equal their predecessors)."""
        return "".join(d.diff for d in self.diffs(pass_name, context=context))

    def _no_pass(self, name: str) -> str:
        quiet = [q.pipeline for q in self.unchanged if q.pass_name == name]
        if quiet:
            return (
                f"pass {name!r} ran {len(quiet)} time(s) in {self.module} and changed nothing "
                f"(in {', '.join(dict.fromkeys(quiet))}), so it has no diff"
            )
        known = list(dict.fromkeys(row.ran for row in self.rows if row.ran))
        shown = ", ".join(known[:12]) + (f", ... ({len(known)} in all)" if len(known) > 12 else "")
        return f"no snapshot of {self.module} comes from pass {name!r} (passes: {shown})"

    # -- following one instruction ----------------------------------------------------------------

    def follow(self, instruction: str) -> Follow:
        """Where ``instruction`` (a name in some snapshot) was created, changed, fused, renamed
        or removed, pass by pass. Raises :class:`PassesError` when no snapshot has it."""
        wanted = instruction.strip().lstrip("%")
        events: list[FollowEvent] = []
        tracked: Instruction | None = None
        previous: dict[str, Instruction] = {}
        for i, row in enumerate(self.rows):
            module = self._modules[i]
            if module is None:
                continue
            names = _names(module)
            if tracked is None:
                if wanted in names:
                    tracked = names[wanted]
                    kind = FollowEventKind.PRESENT if not events and i == 0 else None
                    events.append(
                        _event(kind or FollowEventKind.CREATED, row, tracked, after=tracked)
                    )
            else:
                tracked = self._step(tracked, previous, names, row, events)
                if tracked is None:
                    break
            previous = names
        if not events:
            raise PassesError(f"no snapshot of {self.module} has an instruction named {wanted!r}")
        return Follow(wanted, events)

    @staticmethod
    def _step(
        old: Instruction,
        previous: dict[str, Instruction],
        names: dict[str, Instruction],
        row: PassRow,
        events: list[FollowEvent],
    ) -> Instruction | None:
        """The followed instruction in the next snapshot (``None`` once removed)."""
        new = names.get(old.name)
        if new is None:
            new = _successor(old, previous, names)
            if new is None:
                events.append(_event(FollowEventKind.REMOVED, row, old, before=old))
                return None
            renamed = _placement_event(old, new) or FollowEventKind.RENAMED
            events.append(_event(renamed, row, new, before=old, after=new))
            return new
        kind = _placement_event(old, new)
        if kind is None and new.to_text() != old.to_text():
            kind = FollowEventKind.CHANGED
        if kind is not None:
            events.append(_event(kind, row, new, before=old, after=new))
        return new

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "every_pass": self.every_pass,
            "rows": [row.to_dict() for row in self.rows],
            "unchanged": [q.to_dict() for q in self.unchanged],
        }


def _names(module: Module) -> dict[str, Instruction]:
    return {inst.name: inst for comp in module.computations for inst in comp.instructions}


def _in_fusion(inst: Instruction) -> bool:
    comp = inst.computation
    return comp is not None and comp.is_fusion_computation


def _fusion_of(inst: Instruction) -> str:
    comp = inst.computation
    if comp is None or not comp.is_fusion_computation:
        return ""
    callers = comp.callers
    return callers[0].name if callers else ""


def _placement_event(old: Instruction, new: Instruction) -> FollowEventKind | None:
    if _in_fusion(new) and not _in_fusion(old):
        return FollowEventKind.FUSED
    old_comp = old.computation.name if old.computation else ""
    new_comp = new.computation.name if new.computation else ""
    if old_comp != new_comp:
        return FollowEventKind.MOVED
    return None


def _identity(inst: Instruction) -> tuple | None:
    """What survives a clone: opcode, op_name and stack (names and operands do not); for an
    op without metadata only a constant is recognisable, by its shape and value. ``None``:
    nothing to recognise it by."""
    frames = tuple((f.file, f.line, f.function) for f in inst.stack)
    op_name = inst.metadata.op_name
    if op_name or frames:
        return (inst.opcode, op_name, frames)
    if inst.opcode == "constant":
        return (inst.opcode, inst.shape.dims, inst.payload)
    return None


def _successor(
    old: Instruction, previous: dict[str, Instruction], names: dict[str, Instruction]
) -> Instruction | None:
    """The new instruction that stands for ``old`` after a pass renamed or cloned it: one that
    did not exist before, with the same identity (:func:`_identity`), the same shape first."""
    identity = _identity(old)
    if identity is None:
        return None
    candidates = [
        inst
        for name, inst in names.items()
        if name not in previous and inst.opcode == old.opcode and _identity(inst) == identity
    ]
    if not candidates:
        return None
    shape = old.shape_text
    candidates.sort(key=lambda inst: inst.shape_text != shape)
    return candidates[0]


def _event(
    kind: FollowEventKind,
    row: PassRow,
    inst: Instruction,
    *,
    before: Instruction | None = None,
    after: Instruction | None = None,
) -> FollowEvent:
    return FollowEvent(
        kind=kind,
        step=row.step,
        pass_label=row.label,
        ran=row.ran,
        name=inst.name,
        computation=inst.computation.name if inst.computation else "",
        fusion=_fusion_of(inst),
        before=before.to_text() if before is not None else "",
        after=after.to_text() if after is not None else "",
    )


# ---- inputs --------------------------------------------------------------------------------------


def _snapshots(steps: Iterable[PassStep]) -> list[_Snapshot]:
    out = []
    for step in steps:
        text = getattr(step, "text", None)
        filename = getattr(step, "filename", "") or ""
        if text is None:  # a dump folder's PassDump: its text file
            file = getattr(step, "text_file", None)
            if file is None:
                continue
            text = file.path.read_text()
            filename = file.path.name
        out.append(_Snapshot(step, text, filename))
    return out


def _no_snapshots(index: DumpIndex) -> PassesError:
    return PassesError(
        f"{index.root}: no per-pass snapshots in this dump (dump with "
        "--xla_dump_hlo_pass_re=.*, or `hloscope capture SCRIPT.py --passes '.*'`)"
    )


def dump_module_of(index: DumpIndex, chosen: Module) -> DumpModule:
    """The module of ``index`` whose optimized HLO file ``chosen`` was read from (the main
    module :meth:`~hloscope.capture.target.Target.choose_module` picked), with its
    snapshots. Raises :class:`PassesError` when it has none, naming the modules that do."""
    path = chosen.source.path if chosen.source is not None else None
    found = next(
        (m for m in index.modules if m.after_file is not None and m.after_file.location == path),
        None,
    )
    if found is None:  # not read from this dump: the first of its name
        found = next((m for m in index.modules if m.name == chosen.name), None)
    if found is not None and found.passes:
        return found
    with_passes = sorted({m.name or "?" for m in index.modules if m.passes})
    if not with_passes:
        raise _no_snapshots(index)
    raise PassesError(
        f"module {chosen.name} has no per-pass snapshots in {index.root} (--module NAME picks "
        f"one that has: {', '.join(with_passes)})"
    )


def _dump_module(index: DumpIndex, module: str | None) -> DumpModule:
    """The module of a dump with pass snapshots that ``module`` names (name, id or part of a
    name), else the one with the most snapshots (of those, the largest): for a dump with no
    optimized module to choose the main module by."""
    candidates = [m for m in index.modules if m.passes]
    if not candidates:
        raise _no_snapshots(index)
    if module is not None:
        matches = (
            [m for m in candidates if m.name == module]
            or [m for m in candidates if str(m.id) == module.lstrip("#")]
            or [m for m in candidates if m.name is not None and module in m.name]
        )
        if not matches:
            # A module without a name is listed by its id, which the module option also takes.
            names = ", ".join(sorted({m.name or f"#{m.id}" for m in candidates}))
            raise PassesError(f"no module named {module!r} has pass snapshots (modules: {names})")
        candidates = matches
    return max(candidates, key=lambda m: (len(m.passes), m.size_on_disk))


def pass_timeline(
    steps: Capture | DumpModule | DumpIndex | Iterable[PassStep],
    *,
    module: str | Module | None = None,
    every_pass: bool = True,
    name: str | None = None,
) -> PassTimeline:
    """The :class:`PassTimeline` of per-pass snapshots.

    ``steps`` is a :class:`~hloscope.backends.record.Capture` made with ``passes=...``, a
    dump folder's :class:`~hloscope.dump.index.DumpModule` (or its ``DumpIndex``), or the
    snapshots themselves (:class:`~hloscope.backends.record.PassSnapshot`,
    :class:`~hloscope.dump.index.PassDump`); a TARGET (a dump folder, a capture, a path) is
    :func:`hloscope.drivers.passes.pass_timeline`'s (``hloscope.pass_timeline``). Of a bare
    ``DumpIndex``, ``module`` picks by name (or is the chosen :class:`Module`), else the module
    with the most snapshots.
    ``every_pass=False`` says that not every pass was dumped (a narrower pass regex), so a
    missing snapshot proves nothing and no pass is said to have changed nothing from that.
    """
    from ..backends.record import Capture
    from ..dump.index import DumpIndex, DumpModule

    if isinstance(steps, DumpIndex):
        steps = _dump_module(steps, module.name if isinstance(module, Module) else module)
    label: str | None
    found: list[PassStep]
    if isinstance(steps, Capture):
        label, found = steps.name, list(steps.passes)
        if not found:
            raise PassesError(
                f"capture {steps.name} has no per-pass snapshots (capture with passes='.*')"
            )
    elif isinstance(steps, DumpModule):
        label, found = steps.name, list(steps.passes)
    else:
        label, found = "", list(steps)
    snapshots = _snapshots(found)
    if not snapshots:
        raise PassesError(f"no per-pass snapshot with HLO text for {label or 'these steps'}")
    return PassTimeline(name or label or "module", snapshots, every_pass)
