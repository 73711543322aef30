"""What the cost model gives: :class:`Cost` per instruction or sum, :class:`ModuleCost` per
module, the ops it could only guess (:class:`FlaggedOp`), and the warning for HLO no rule can
price (:class:`CostWarning`)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...json_fields import json_fields

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction

FMA_FLOPS = 2  # a multiply-add counts as two FLOPs


@dataclass(frozen=True, slots=True)
class Cost:
    """What one instruction (or a sum of them) costs.

    ``bytes_accessed`` is ``bytes_read + bytes_written`` except for a ``conditional``, whose
    three byte counts are each the maximum over its branches, as XLA computes them.
    ``flag`` is empty when the numbers follow a known rule, else says why they are a guess.
    """

    flops: int = 0
    transcendentals: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    bytes_accessed: int = 0
    flag: str = ""

    @staticmethod
    def of(
        flops: int = 0, transcendentals: int = 0, read: int = 0, written: int = 0, flag: str = ""
    ) -> Cost:
        return Cost(flops, transcendentals, read, written, read + written, flag)

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.flops + other.flops,
            self.transcendentals + other.transcendentals,
            self.bytes_read + other.bytes_read,
            self.bytes_written + other.bytes_written,
            self.bytes_accessed + other.bytes_accessed,
            _join_flags(self.flag, other.flag),
        )

    def scaled(self, factor: int) -> Cost:
        return Cost(
            self.flops * factor,
            self.transcendentals * factor,
            self.bytes_read * factor,
            self.bytes_written * factor,
            self.bytes_accessed * factor,
            self.flag,
        )

    @property
    def arithmetic_intensity(self) -> float | None:
        """FLOPs (transcendentals included) per byte accessed; ``None`` when no bytes move."""
        if self.bytes_accessed <= 0:
            return None
        return (self.flops + self.transcendentals) / self.bytes_accessed

    def to_dict(self) -> dict:
        return json_fields(
            self,
            "flops transcendentals bytes_read bytes_written bytes_accessed arithmetic_intensity "
            "flag",
        )


ZERO = Cost()


def _join_flags(a: str, b: str) -> str:
    if not a:
        return b
    if not b or b == a:
        return a
    return a + "; " + b


def _max_cost(costs: list[Cost]) -> Cost:
    """Each quantity's maximum over ``costs`` (XLA's rule for conditional branches)."""
    flag = ""
    for c in costs:
        flag = _join_flags(flag, c.flag)
    return Cost(
        max(c.flops for c in costs),
        max(c.transcendentals for c in costs),
        max(c.bytes_read for c in costs),
        max(c.bytes_written for c in costs),
        max(c.bytes_accessed for c in costs),
        flag,
    )


@dataclass(frozen=True, slots=True)
class FlaggedOp:
    """An instruction whose cost is a guess (custom-call, unknown opcode)."""

    name: str
    opcode: str
    computation: str
    reason: str


@dataclass(slots=True)
class ModuleCost:
    """Totals for a module under XLA's rules, plus what they rest on.

    ``total`` is what XLA reports for the module (entry computation, loops counted once).
    ``computations`` holds the cost of each computation that runs kernels (the entry and the
    bodies of ``while``/``conditional``/``call``), each summed once. ``executed`` multiplies
    while bodies by their ``known_trip_count`` where XLA recorded one (loops without one count
    once and appear in ``unknown_trip_counts``).
    """

    module: str
    total: Cost
    executed: Cost
    computations: dict[str, Cost] = field(default_factory=dict)
    flagged: list[FlaggedOp] = field(default_factory=list)
    unknown_trip_counts: list[str] = field(default_factory=list)

    @property
    def flops(self) -> int:
        return self.total.flops

    @property
    def transcendentals(self) -> int:
        return self.total.transcendentals

    @property
    def bytes_accessed(self) -> int:
        return self.total.bytes_accessed

    def to_dict(self) -> dict:
        return {
            "module": self.module,
            "total": self.total.to_dict(),
            "executed": self.executed.to_dict(),
            "computations": {k: v.to_dict() for k, v in self.computations.items()},
            "flagged": [json_fields(f, "name opcode computation reason") for f in self.flagged],
            "unknown_trip_counts": list(self.unknown_trip_counts),
        }


class CostWarning(UserWarning):
    """An instruction the parser accepted but no cost rule can price: it is costed as zero.

    The message names the instruction, its computation and its line, and says what is wrong
    (``dot.3 (computation main, line 7): lhs_contracting_dims {2} but lhs has rank 2``). The
    cost is also flagged, so it appears in :attr:`ModuleCost.flagged` and the report's flags.
    """


class _Malformed(Exception):
    """Raised by a cost rule that finds an instruction breaking its op's invariants."""


def _malformed_cost(inst: Instruction, reason: str) -> Cost:
    """Warn about ``inst`` (see :class:`CostWarning`) and give the zero, flagged cost."""
    comp = inst.computation
    where = (
        f"computation {comp.name}, line {inst.line}" if comp is not None else f"line {inst.line}"
    )
    warnings.warn(f"{inst.name} ({where}): {reason}; costed as 0", CostWarning, stacklevel=2)
    return Cost(flag=f"malformed {inst.opcode}: {reason}")
