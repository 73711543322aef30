"""Where each computation of a module runs: the control-flow path from the entry to it.

A computation's instructions run as kernels when the entry reaches it through ``while``
(its body and condition), ``conditional`` (a branch), ``call`` or ``async-start``.
:func:`placements` gives each such computation its :class:`Placement`: the steps on the way
(which loop, which branch), how many times it runs (the product of the loops' known trip
counts) and how deep it is nested. The cost model (:mod:`hloscope.analysis.cost`), the pass
and fusion reports, the graph and ``bench --kernel`` extraction all read it; it knows nothing
about costs, only about the module's structure, so it lives beside the model.

A while loop's trip count is the ``known_trip_count`` XLA records in its backend config, or
for a plain counted loop the count its condition and body imply (:func:`known_trip_count`);
XLA's cost analysis never multiplies by it, the placements and the cost model's ``executed``
totals do.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum, auto
from typing import TYPE_CHECKING

from .trip_count import inferred_trip_count

if TYPE_CHECKING:  # pragma: no cover
    from .model import Computation, Instruction, Module

__all__ = [
    "CONTROL_FLOW_OPCODES",
    "Placement",
    "Role",
    "Step",
    "kernel_computations",
    "known_trip_count",
    "placements",
]

#: The opcodes whose called computations run as kernels of their own (not fused, not a scalar
#: computation applied per element): the steps of a :class:`Placement`.
CONTROL_FLOW_OPCODES: frozenset[str] = frozenset({"while", "conditional", "call", "async-start"})


def known_trip_count(inst: Instruction) -> int | None:
    """A while loop's trip count: the ``known_trip_count`` XLA recorded in its backend config,
    else the count of a plain counted loop read from its condition and body
    (:func:`~hloscope.hlo.trip_count.inferred_trip_count`: XLA:TPU records none, even for a
    ``lax.scan``), else ``None``.

    XLA writes ``backend_config={"known_trip_count":{"n":"3"}}`` (a proto int64, hence the
    string); the model decodes backend configs that are JSON objects to dicts.
    """
    recorded = _recorded_trip_count(inst)
    if recorded is not None or inst.opcode != "while":
        return recorded
    return inferred_trip_count(inst)


def _recorded_trip_count(inst: Instruction) -> int | None:
    config = inst.attrs.get("backend_config")
    if not isinstance(config, dict):
        return None
    trip = config.get("known_trip_count")
    n = trip.get("n") if isinstance(trip, dict) else None
    try:
        return int(n) if n is not None else None
    except (TypeError, ValueError):  # not a count: treat the loop as unknown
        return None


class Role(StrEnum):
    """What part of a control-flow instruction a computation is."""

    ENTRY = auto()
    BODY = auto()  # a while's body
    CONDITION = auto()  # a while's condition
    BRANCH = auto()  # one branch of a conditional
    CALL = auto()  # the target of a call or async-start


@dataclass(frozen=True, slots=True)
class Step:
    """One control-flow instruction on the way from the entry to a computation.

    ``branch`` is a conditional branch's index as XLA numbers ``branch_computations``
    (``"0"``, ``"1"``...) or ``"true"``/``"false"`` for the predicate form. ``trip_count`` is
    a while's ``known_trip_count`` (``None``: XLA could not prove one).
    """

    instruction: Instruction
    role: Role
    branch: str = ""
    trip_count: int | None = None

    @property
    def in_loop(self) -> bool:
        return self.role in (Role.BODY, Role.CONDITION)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a computation's instructions run: the control-flow steps from the entry to it.

    The entry's path is empty. A computation reached from several callers keeps the first
    path found (breadth first), which is the only one in the modules XLA optimizes: its
    passes give every loop body and branch its own computation (hence ``.clone`` names).

    A placement holds only its last ``step`` and the ``parent`` placement it leads from (the
    computation that step's instruction is in), not the whole path: a path is as long as the
    nesting is deep, and ten thousand nested loops would hold fifty million steps. What is
    asked of every placement (:attr:`executions`, :attr:`trip_count`, :attr:`depth`...) is
    worked out from the parent's when the placement is made; :attr:`path` walks the parents.
    """

    computation: Computation
    # Left out of repr and comparisons, which would otherwise walk the whole path recursively.
    parent: Placement | None = field(default=None, repr=False, compare=False)
    step: Step | None = None
    depth: int = field(init=False, default=0)
    executions: int = field(init=False, default=1)
    trip_count: int | None = field(init=False, default=None)
    unknown_trip_count: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        parent, step = self.parent, self.step
        if parent is None or step is None:
            return
        # Frozen: the derived fields are set once, here, as dataclasses do for frozen fields.
        init = object.__setattr__
        init(self, "depth", parent.depth + 1)
        if step.in_loop:
            known = step.trip_count
            init(self, "executions", parent.executions * (known if known is not None else 1))
            init(self, "trip_count", known)
            init(self, "unknown_trip_count", parent.unknown_trip_count or known is None)
        else:
            init(self, "executions", parent.executions)
            init(self, "trip_count", parent.trip_count)
            init(self, "unknown_trip_count", parent.unknown_trip_count)

    @property
    def path(self) -> tuple[Step, ...]:
        """The control-flow steps from the entry to the computation, outermost first.

        ``executions`` is the product of the known trip counts of the loops on it (a loop
        without one counts once, as the cost model's ``executed`` totals count it; a
        condition runs once more than its body, but both count ``n``, as the executed totals
        do: the last test is a scalar compare). ``trip_count`` is the innermost loop's known
        trip count (``None`` when there is no loop or XLA recorded none) and
        ``unknown_trip_count`` says whether a loop on it has none.
        """
        steps: list[Step] = []
        node: Placement | None = self
        while node is not None and node.step is not None:
            steps.append(node.step)
            node = node.parent
        return tuple(reversed(steps))


def placements(module: Module) -> dict[str, Placement]:
    """Each kernel computation (see :func:`kernel_computations`) by name, with its path from
    the entry, in the order first reached (breadth first)."""
    entry = module.entry
    if entry is None:
        return {}
    out: dict[str, Placement] = {}
    seen: set[int] = {id(entry)}
    queue: deque[Placement] = deque([Placement(entry)])
    while queue:
        placement = queue.popleft()
        out[placement.computation.name] = placement
        for inst in placement.computation.instructions:
            if inst.opcode not in CONTROL_FLOW_OPCODES:
                continue
            for called in inst.called_computations:
                if id(called) not in seen:
                    seen.add(id(called))
                    queue.append(Placement(called, placement, _step(inst, called)))
    return out


def kernel_computations(module: Module) -> list[Computation]:
    """Computations whose instructions run as kernels: the entry, and, reached from it, the
    bodies and conditions of ``while``, branches of ``conditional``, ``call`` targets and
    ``async-start`` computations (in the order first reached)."""
    return [p.computation for p in placements(module).values()]


def _step(inst: Instruction, called: Computation) -> Step:
    """The step from control-flow instruction ``inst`` into the computation ``called``."""
    op = inst.opcode
    if op == "while":
        role = Role.BODY if _called_name(inst, "body") == called.name else Role.CONDITION
        return Step(inst, role, trip_count=known_trip_count(inst))
    if op == "conditional":
        branches = inst.attrs.get("branch_computations")
        if branches:
            names = [getattr(b, "name", b) for b in branches]
            index = names.index(called.name) if called.name in names else -1
            return Step(inst, Role.BRANCH, branch=str(index))
        side = "true" if _called_name(inst, "true_computation") == called.name else "false"
        return Step(inst, Role.BRANCH, branch=side)
    return Step(inst, Role.CALL)


def _called_name(inst: Instruction, attr: str) -> str:
    # The attribute holds a name, or a Computation when the body was written inline.
    value = inst.attrs.get(attr)
    return getattr(value, "name", value) or ""
