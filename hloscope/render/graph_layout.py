"""The layout budget of a Graphviz picture: what to draw more simply so that ``dot`` lays a
selection out in seconds, not minutes (:func:`plan_layout`), and the simplest drawing of all
(:func:`simplest_plan`) for a layout that ran past its time.

The cost of a layout is estimated from the selection's shape before ``dot`` runs
(:func:`layout_cost`); :mod:`hloscope.render.graphviz` draws what the plan says.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..hlo.graph import FUSION_SEP
from .terminal import shorten_middle

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.graph_selection import GraphSelection

__all__ = [
    "LayoutPlan",
    "LAYOUT_BUDGET",
    "LAYOUT_TIMEOUT_S",
    "plan_layout",
    "simplest_plan",
    "layout_cost",
]

# A stubbed operand's name is shortened in the middle to this many characters.
_MAX_STUB_CHARS = 24
# Past this many nodes, edge labels are xlabels from the start.
_EDGE_LABEL_LIMIT = 100
# Why dot gets slow: it puts every node on a rank and orders each rank to minimise crossings,
# and an edge spanning k ranks becomes a chain of k-1 invisible "virtual" nodes that are ordered
# too. An edge label is one more node, in a rank of its own between the ranks it joins, which
# doubles every span. One parameter read by every op of a 150-op chain spans 1 + 2 + ... + 150
# ranks: 11,000 virtual nodes, minutes of dot. Each crossing-minimisation pass sweeps every rank,
# so the estimate is (real + virtual nodes) x ranks; dot's time grew about as its square on
# chains and corpus pictures, and the budget sits where a picture still takes a moment rather
# than minutes (benchmarks/RESULTS.md, "the layout budget", has the measured times).
LAYOUT_BUDGET = 250_000
#: Seconds ``dot`` may run before it is stopped and called once more on the simplest drawing.
LAYOUT_TIMEOUT_S = 30.0
# An operand with at least this many users shown may be drawn once per user instead.
_STUB_MIN_USERS = 3
# What "minimise crossings less" means to dot: fewer mincross passes, no second mincross run,
# and a cap on network-simplex iterations (which rank and position nodes).
_QUICK_LAYOUT = {"mclimit": "0.1", "remincross": "false", "nslimit": "2", "nslimit1": "2"}


@dataclass(frozen=True, slots=True)
class LayoutPlan:
    """What to draw more simply than usual so that ``dot`` lays a selection out in seconds.

    ``edge_label``: the DOT attribute that writes each operand's shape on its edge: ``"label"``
    (laid out with the graph), ``"xlabel"`` (placed after layout, cheaper) or ``None`` (the
    shape is only in the edge's tooltip). ``stubs``: nodes drawn as a small copy next to each
    user instead of one box with long edges; ``dropped``: the stubbed nodes with no operand
    shown, so that the stubs stand in for them entirely (the others keep their box, for the
    edges into it, and ``kept_edges``: their edges to users on the very next rank, which cost
    dot nothing). ``quick``: dot told to minimise crossings less. ``notes``: one phrase per
    simplification, for the picture's note and the command's report.
    """

    edge_label: str | None = "label"
    stubs: frozenset[str] = frozenset()
    dropped: frozenset[str] = frozenset()
    kept_edges: frozenset[tuple[str, str]] = frozenset()
    quick: bool = False
    notes: tuple[str, ...] = ()


def plan_layout(selection: GraphSelection, budget: int = LAYOUT_BUDGET) -> LayoutPlan:
    """The least simplification that brings the selection's estimated layout cost under
    ``budget`` (see :func:`layout_cost`), tried in this order:

    1. the operands whose long edges cost the most (a parameter read by every op) are drawn
       once per user, one operand at a time until the cost fits;
    2. edge labels are dropped (the shapes stay in the edge tooltips);
    3. dot is told to minimise crossings less.

    Past :data:`_EDGE_LABEL_LIMIT` nodes, edge labels are xlabels from the start (placed after
    layout), as they always were.
    """
    edge_label: str | None = "label" if len(selection.nodes) <= _EDGE_LABEL_LIMIT else "xlabel"
    shape = _LayoutShape.of(selection)
    stubs: list[str] = []
    cost = shape.cost(edge_label == "label", stubs)
    for node in shape.stub_candidates():
        if cost <= budget:
            break
        stubs.append(node)
        cost = shape.cost(edge_label == "label", stubs)
    notes = [_stubs_note(selection, stubs)] if stubs else []
    if cost > budget and edge_label is not None:
        edge_label = None
        cost = shape.cost(False, stubs)
        notes.append("no shapes on edges (they are in the edge tooltips)")
    quick = cost > budget
    if quick:
        notes.append("crossings minimised less than usual")
    return LayoutPlan(
        edge_label,
        frozenset(stubs),
        shape.dropped(stubs),
        shape.kept_edges(stubs),
        quick,
        tuple(notes),
    )


def simplest_plan(selection: GraphSelection, why: str = "") -> LayoutPlan:
    """The cheapest drawing: every operand with several users stubbed, no edge labels, quick
    crossing minimisation. ``why`` (if given) leads the notes."""
    shape = _LayoutShape.of(selection)
    stubs = shape.stub_candidates()
    notes = [why] if why else []
    if stubs:
        notes.append(_stubs_note(selection, stubs))
    notes += ["no shapes on edges (they are in the edge tooltips)", "crossings minimised less"]
    return LayoutPlan(
        None, frozenset(stubs), shape.dropped(stubs), shape.kept_edges(stubs), True, tuple(notes)
    )


def layout_cost(selection: GraphSelection, plan: LayoutPlan | None = None) -> int:
    """The estimated work of dot's layout for ``selection`` drawn as ``plan`` says: its real,
    virtual and label nodes times its ranks (see :data:`LAYOUT_BUDGET`)."""
    plan = LayoutPlan() if plan is None else plan
    return _LayoutShape.of(selection).cost(plan.edge_label == "label", plan.stubs)


def _stubs_note(selection: GraphSelection, stubs: list[str]) -> str:
    names = [shorten_middle(n.rsplit(FUSION_SEP, 1)[-1], _MAX_STUB_CHARS) for n in stubs[:3]]
    more = f" and {len(stubs) - 3} more" if len(stubs) > 3 else ""
    return f"{', '.join(names)}{more} drawn once per user (dotted boxes)"


@dataclass(slots=True)
class _LayoutShape:
    """The shown part of a selection as dot will rank it, for estimating layout cost.

    ``rank``: each node's rank, estimated as dot's network simplex tends to place it: longest
    path from the operands down, then every node with no operand shown moved down to just
    above its first user (dot shortens those edges the same way). ``edges``: (operand, user).
    """

    rank: dict[str, int]
    edges: list[tuple[str, str]]
    has_operands: set[str]

    @classmethod
    def of(cls, selection: GraphSelection) -> _LayoutShape:
        shown = set(selection.nodes)
        edges = [(s, t) for s, t, _ in _shown_edges(selection.graph, shown)]
        preds: dict[str, list[str]] = {n: [] for n in selection.nodes}
        succs: dict[str, list[str]] = {n: [] for n in selection.nodes}
        for s, t in edges:
            preds[t].append(s)
            succs[s].append(t)
        rank: dict[str, int] = {}
        for node in _topological(selection.nodes, preds, succs):
            rank[node] = max((rank.get(p, 0) + 1 for p in preds[node]), default=0)
        for node in selection.nodes:
            if not preds[node] and succs[node]:
                rank[node] = min(rank[t] for t in succs[node]) - 1
        return cls(rank, edges, {t for _, t in edges})

    def cost(self, labels: bool, stubs) -> int:
        """Nodes (real, virtual, label) times ranks; a stubbed operand's edges span one rank."""
        stubbed = set(stubs)
        scale = 2 if labels else 1  # a label is a node on a rank of its own: spans double
        width: Counter[int] = Counter()
        for node, r in self.rank.items():
            if node not in stubbed or node in self.has_operands:
                width[r * scale] += 1
        for s, t in self.edges:
            low = self.rank[t] * scale
            high = low - scale if s in stubbed else self.rank[s] * scale
            if s in stubbed:
                width[high] += 1  # the stub itself
            for r in range(high + 1, low):
                width[r] += 1
        return sum(width.values()) * len(width)

    def stub_candidates(self) -> list[str]:
        """Operands with several users, the ones whose edges span the most ranks first."""
        span: Counter[str] = Counter()
        users: Counter[str] = Counter()
        for s, t in self.edges:
            span[s] += self.rank[t] - self.rank[s] - 1
            users[s] += 1
        return sorted(
            (n for n in users if users[n] >= _STUB_MIN_USERS and span[n] > 0),
            key=lambda n: (-span[n], n),
        )

    def dropped(self, stubs) -> frozenset[str]:
        """The stubbed nodes with no operand shown: their stubs replace their box."""
        return frozenset(n for n in stubs if n not in self.has_operands)

    def kept_edges(self, stubs) -> frozenset[tuple[str, str]]:
        """Edges from a stubbed node that keeps its box to users on the next rank: they stay
        ordinary edges, so the box is still seen to feed the op right below it."""
        kept = set(stubs) - self.dropped(stubs)
        return frozenset(
            (s, t) for s, t in self.edges if s in kept and self.rank[t] - self.rank[s] <= 1
        )


def _topological(nodes: list[str], preds, succs) -> list[str]:
    """``nodes`` in an order where operands come first (Kahn's algorithm; HLO is acyclic, and
    a node left over by a cycle is appended so that nothing is lost)."""
    waiting = {n: len(preds[n]) for n in nodes}
    ready = [n for n in nodes if waiting[n] == 0]
    order: list[str] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for user in succs[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    if len(order) < len(nodes):
        placed = set(order)
        order += [n for n in nodes if n not in placed]
    return order


def _shown_edges(graph, shown: set[str]):
    """The edges of ``graph`` between two shown nodes, with their data."""
    return (
        (source, target, data)
        for source, target, data in graph.edges(data=True)
        if source in shown and target in shown
    )
