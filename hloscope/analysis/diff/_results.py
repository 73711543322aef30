"""The result model: :class:`KernelDiff` and what it is made of, all plain data.

A diff is a list of :class:`KernelChange` (a connected group of kernels of A and of B, with a
:class:`ChangeStatus`: split, merged, changed...), a list of :class:`LineChange` (a source
line whose ops are grouped differently, with a :class:`LineStatus`), and the two
:class:`~hloscope.analysis.diff.DiffSide` it compared. :meth:`KernelDiff.regressions` checks
the totals over :data:`METRICS` and returns :class:`Regression` records. ``to_dict`` gives
plain JSON types (schema :data:`DIFF_SCHEMA`); the words are :mod:`hloscope.render.diff_text`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...json_fields import json_fields
from ..fusions import Kernel
from ._names import line_sort_key
from ._sides import DiffSide


class ChangeStatus(StrEnum):
    """What happened to a group of kernels (see :mod:`hloscope.analysis.diff`). Members equal their
    values (``ChangeStatus.SPLIT == "split"``), so JSON and string comparisons are unchanged."""

    SPLIT = "split"
    MERGED = "merged"
    REGROUPED = "regrouped"
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"
    UNCHANGED = "unchanged"


class LineStatus(StrEnum):
    """What happened to the kernels of one source line (see :class:`LineChange`)."""

    MORE_KERNELS = "more kernels"
    FEWER_KERNELS = "fewer kernels"
    REGROUPED = "regrouped"
    SEPARATED = "separated"
    JOINED = "joined"
    ADDED = "added"
    REMOVED = "removed"


#: Change classes, in the order the report lists them (the enum's definition order).
STATUSES: tuple[ChangeStatus, ...] = tuple(ChangeStatus)
#: Totals that :meth:`KernelDiff.regressions` can check.
METRICS: tuple[str, ...] = ("kernels", "bytes", "flops", "transcendentals")
#: ``schema`` of :meth:`KernelDiff.to_dict`.
DIFF_SCHEMA = "hloscope.diff/1"


@dataclass(frozen=True, slots=True)
class MemoryEdge:
    """An array one kernel writes and another reads (a value between kernels goes through
    memory)."""

    producer: str
    consumer: str
    shape: str
    bytes: int | None  # None when a dimension is unbounded (``?``): Shape.byte_size

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "producer consumer shape bytes")


def _side_total(side: str, cost_field: str) -> property:
    """A read-only total: ``cost_field`` of the kernels' costs, summed over ``side``."""

    def total(change: KernelChange) -> int:
        return sum(getattr(k.cost, cost_field) for k in getattr(change, side))

    return property(total, doc=f"{cost_field} summed over the kernels of {side.upper()}.")


@dataclass(slots=True)
class KernelChange:
    """A group of kernels of A and the kernels of B their ops ended up in."""

    status: ChangeStatus
    a: list[Kernel]
    b: list[Kernel]
    ops_added: dict[str, int] = field(default_factory=dict)  # opcode -> count, B minus A
    ops_removed: dict[str, int] = field(default_factory=dict)
    shape_changes: list[tuple[str, str, int]] = field(
        default_factory=list
    )  # (A shape, B shape, ops)
    # Split/regrouped: arrays between B's kernels of this group, now written and read back.
    # Merged: arrays between A's kernels that no longer leave the kernel.
    through_memory: list[MemoryEdge] = field(default_factory=list)
    # What each kernel computes ("attention", "normalization", "matmul"...), A's and B's.
    computes_a: list[str] = field(default_factory=list)
    computes_b: list[str] = field(default_factory=list)
    # True when a kernel of one side computes nothing like any kernel of the other (attention
    # against layer norm): only the ops' names and lines put them together.
    unrelated: bool = False
    # The source lines of this group's ops that only one side has: A's lines that no line of
    # B continues (replaced), and B's lines that continue no line of A (what replaced them).
    replaced_a: list[str] = field(default_factory=list)
    replaced_b: list[str] = field(default_factory=list)

    # Totals of each side (``bytes_a``, ``flops_b``...), summed over its kernels.
    bytes_a = _side_total("a", "bytes_accessed")
    bytes_b = _side_total("b", "bytes_accessed")
    flops_a = _side_total("a", "flops")
    flops_b = _side_total("b", "flops")
    transcendentals_a = _side_total("a", "transcendentals")
    transcendentals_b = _side_total("b", "transcendentals")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types; the sentence that says what happened is
        :func:`hloscope.render.diff_text.describe`'s (``diff_to_dict`` adds it as ``message``)."""
        return {
            "status": self.status.value,
            "a": [_kernel_dict(k) for k in self.a],
            "b": [_kernel_dict(k) for k in self.b],
            "kernels_delta": len(self.b) - len(self.a),
            "bytes_a": self.bytes_a,
            "bytes_b": self.bytes_b,
            "bytes_delta": self.bytes_b - self.bytes_a,
            "flops_a": self.flops_a,
            "flops_b": self.flops_b,
            "flops_delta": self.flops_b - self.flops_a,
            "transcendentals_a": self.transcendentals_a,
            "transcendentals_b": self.transcendentals_b,
            "transcendentals_delta": self.transcendentals_b - self.transcendentals_a,
            "ops_added": dict(self.ops_added),
            "ops_removed": dict(self.ops_removed),
            "shape_changes": [{"a": a, "b": b, "ops": n} for a, b, n in self.shape_changes],
            "through_memory": [e.to_dict() for e in self.through_memory],
            # Present only when they say something (the schema's older readers see no change).
            **(
                {"unrelated": True, "computes": {"a": self.computes_a, "b": self.computes_b}}
                if self.unrelated
                else {}
            ),
            **(
                {"replaced_lines": {"a": list(self.replaced_a), "b": list(self.replaced_b)}}
                if self.replaced_a and self.replaced_b
                else {}
            ),
        }


def _kernel_dict(k: Kernel) -> dict[str, Any]:
    return {
        "name": k.name,
        "computation": k.computation,
        "kind": k.kind,
        "signature": k.signature,
        "shape": k.shape,
        "n_ops": len(k.ops),
        "bytes": k.cost.bytes_accessed,
        "flops": k.cost.flops,
        "transcendentals": k.cost.transcendentals,
        "sources": [s for s, _ in k.sources],
    }


@dataclass(slots=True)
class LineChange:
    """A source line whose ops are grouped into kernels differently in B.

    ``status``: ``more kernels`` / ``fewer kernels`` (its ops spread over more or fewer
    kernels), ``separated`` (no longer shares a kernel with ``separated_from``), ``joined``
    (now shares one with ``joined_with``), ``regrouped`` (both), ``added`` (a line only B has
    ops from) or ``removed``. Lines are B's names where the line exists in B.
    """

    source_a: str
    source_b: str
    ops_a: int
    ops_b: int
    kernels_a: list[str]
    kernels_b: list[str]
    status: LineStatus
    separated_from: list[str] = field(default_factory=list)
    joined_with: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, list) else value
        out["status"] = self.status.value
        return out


@dataclass(frozen=True, slots=True)
class Regression:
    """A metric on which B is worse (larger) than A by more than ``threshold`` percent."""

    metric: str
    a: int
    b: int
    threshold: float

    @property
    def percent(self) -> float:
        """How much B grew, in percent of A (infinite when A was 0)."""
        return 100.0 * (self.b - self.a) / self.a if self.a else float("inf")


@dataclass(slots=True)
class KernelDiff:
    """The kernels of B compared with those of A (see :mod:`hloscope.analysis.diff`)."""

    a: DiffSide
    b: DiffSide
    changes: list[KernelChange]
    lines: list[LineChange]
    #: Each source line of A that continues in B -> the line of B it became, one to one
    #: (``file:line (function)`` both; the memory part keys A's buffers through it).
    line_pairs: dict[str, str] = field(default_factory=dict)

    @property
    def replaced_lines(self) -> list[tuple[list[str], list[str]]]:
        """Which old lines became which new ones, where code was replaced rather than moved:
        ``(lines of A, lines of B)`` for each set of lines that only one side has, joined
        through the kernels their ops went to (a hand-written attention's lines of A and the
        one line of B that calls ``jax.nn.dot_product_attention``). Code only removed or only
        added is not here: :attr:`lines` says it (``removed``, ``added``)."""
        return replaced_line_groups(self.changes)

    @property
    def counts(self) -> dict[ChangeStatus, int]:
        """How many changes of each status (every status present, zeros included)."""
        counts = Counter(c.status for c in self.changes)
        return {s: counts.get(s, 0) for s in STATUSES}

    @property
    def no_change(self) -> bool:
        """True when every kernel of A is unchanged in B and B has no other kernel."""
        return all(c.status is ChangeStatus.UNCHANGED for c in self.changes)

    @property
    def totals(self) -> dict[str, dict[str, int]]:
        """``{"a": {...}, "b": {...}, "delta": {...}}`` over :data:`METRICS`."""
        a, b = self.a.totals, self.b.totals
        return {"a": a, "b": b, "delta": {m: b[m] - a[m] for m in METRICS}}

    def changed(self) -> list[KernelChange]:
        """The changes that are not ``unchanged``."""
        return [c for c in self.changes if c.status is not ChangeStatus.UNCHANGED]

    def regressions(
        self, metrics: Iterable[str] = ("kernels", "bytes", "flops"), threshold: float = 0.0
    ) -> list[Regression]:
        """The metrics on which B is worse (larger) than A by more than ``threshold`` percent;
        an empty list when B is no worse. A metric that was 0 in A regresses on any increase.
        (:func:`hloscope.render.diff_text.regression_lines` words them.)"""
        totals = self.totals
        out: list[Regression] = []
        for metric in metrics:
            if metric not in METRICS:
                raise ValueError(f"unknown metric {metric!r} (metrics: {', '.join(METRICS)})")
            found = Regression(metric, totals["a"][metric], totals["b"][metric], threshold)
            if found.b > found.a and found.percent > threshold:
                out.append(found)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (schema :data:`DIFF_SCHEMA`), without the words:
        :func:`hloscope.render.diff_text.diff_to_dict` adds each change's ``message``."""
        return {
            "schema": DIFF_SCHEMA,
            "a": {"label": self.a.label, "module": self.a.module, **self.a.totals},
            "b": {"label": self.b.label, "module": self.b.module, **self.b.totals},
            "delta": self.totals["delta"],
            "no_change": self.no_change,
            "counts": {s.value: n for s, n in self.counts.items()},
            "changes": [c.to_dict() for c in self.changes],
            "lines": [line.to_dict() for line in self.lines],
            **(
                {"replaced_lines": [{"a": a, "b": b} for a, b in replaced]}
                if (replaced := self.replaced_lines)
                else {}
            ),
        }


def replaced_line_groups(changes: Iterable[KernelChange]) -> list[tuple[list[str], list[str]]]:
    """:attr:`KernelDiff.replaced_lines`: the replaced lines of the changes, joined where
    one change's lines meet another's (connected components with lines on both sides, A's
    and B's lines each in file and line order)."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for change in changes:
        nodes = [("a", w) for w in change.replaced_a] + [("b", w) for w in change.replaced_b]
        for node in nodes:
            find(node)
        for node in nodes[1:]:
            ra, rb = find(nodes[0]), find(node)
            if ra != rb:
                parent[rb] = ra
    groups: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for node in parent:
        side, where = node
        groups.setdefault(find(node), ([], []))[0 if side == "a" else 1].append(where)
    out = []
    for a, b in groups.values():
        if not a or not b:
            continue
        a.sort(key=line_sort_key)
        b.sort(key=line_sort_key)
        out.append((a, b))
    out.sort(key=lambda g: line_sort_key((g[0] or g[1])[0]))
    return out
