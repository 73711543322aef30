"""A computation as a networkx graph: a node per instruction, an edge per operand use.

:func:`module_graph` is what :meth:`Module.graph() <hloscope.hlo.model.Module.graph>` returns; the
Graphviz, Model Explorer and HTML renderers draw from it, and analyses can run any networkx
algorithm on it (``networkx.ancestors``, ``topological_sort``, ``dag_longest_path``...).

Nodes
    The node id is the instruction name (unique within a computation). Node attributes:

    ==================  ==========================================================================
    ``instruction``     the :class:`~hloscope.hlo.model.Instruction` itself
    ``opcode``          ``"add"``, ``"fusion"``, ``"get-tuple-element"``...
    ``shape``           the result shape as XLA prints it (``"f32[8,128]{1,0}"``)
    ``bytes``           :attr:`Shape.byte_size <hloscope.hlo.shape.Shape.byte_size>` (``None`` when
                        a dimension is unknown)
    ``category``        :func:`~hloscope.hlo.opcodes.category_of` the opcode (graph colours)
    ``fusion_kind``     ``"kLoop"``/``"kInput"``/``"kOutput"``/``"kCustom"`` for a fusion, else None
    ``source``          ``"file.py:42"`` where the op came from (innermost frame), or ``None``
    ``function``        the Python function of that frame, or ``None``
    ``computation``     name of the computation the instruction belongs to
    ``fusion``          with expanded fusions: the id of the fusion node this one was inlined
                        from (``"fusion.3"``, or ``"fusion.3/fusion.1"`` when nested); ``None``
                        for instructions of the shown computation itself
    ==================  ==========================================================================

Edges
    An edge goes from operand to user. A :class:`networkx.DiGraph` holds at most one edge per
    ordered pair, so an instruction that uses the same operand more than once (``add(x, x)``,
    ``tuple(a, b, a)``) gets **one** edge whose ``indices`` attribute lists every operand position
    (ascending); ``index`` is the first of them. Summing ``len(indices)`` over all edges therefore
    gives the total operand count, while the edge count is the number of distinct
    (operand, user) pairs.

Expanded fusions
    With ``expand_fusions=True`` each ``fusion`` node is replaced by the instructions of its fused
    computation, with ids ``"<fusion name>/<inner name>"`` (``"fusion.3/fusion.1/add.2"`` for a
    fusion nested inside another, which is expanded too). The fused computation's parameters do
    not become nodes: parameter *k* stands for the fusion's operand *k*, so an edge goes straight
    from the outside producer to each inner consumer (``indices`` are positions in that inner
    consumer's operand list). The fused root takes the fusion's place as the producer for the
    fusion's users. ``expand_fusions`` may also be a collection of fusion names to expand only
    those (a fusion nested in an expanded one is always expanded).

Graph attributes (``graph.graph``): ``module``, ``computation`` (names), ``root`` (id of the node
that produces the computation's result) and ``expand_fusions``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

import networkx as nx

from .gc_pause import gc_paused
from .opcodes import FREE_OPCODES, category_of

if TYPE_CHECKING:  # pragma: no cover
    from .views import C_co, ComputationView, InstructionView, ModuleView

__all__ = ["module_graph", "resolve_computation", "neighbourhood", "default_center", "FUSION_SEP"]

# Separates a fusion's name from its inner instruction names in expanded node ids. HLO names
# never contain "/", so ids stay unambiguous.
FUSION_SEP = "/"

ExpandSpec = bool | Collection[str]


@gc_paused
def module_graph(
    module: ModuleView[ComputationView],
    computation: str | ComputationView | None = None,
    expand_fusions: ExpandSpec = False,
) -> nx.DiGraph:
    """The dataflow graph of one computation of ``module`` (the entry when ``computation`` is None).

    ``computation`` is a name or a :class:`~hloscope.hlo.model.Computation`. See the module
    docstring for node, edge and graph attributes and for what ``expand_fusions`` does.
    Raises :class:`KeyError` naming the computation when it does not exist.
    """
    comp = resolve_computation(module, computation)
    graph = nx.DiGraph(module=module.name, computation=comp.name, expand_fusions=expand_fusions)
    builder = _Builder(graph, expand_fusions)
    ids = builder.add_computation(comp, prefix="", fusion=None, inputs=None)
    graph.graph["root"] = ids.get(comp.root) if comp.root is not None else None
    return graph


def resolve_computation(module: ModuleView[C_co], computation: str | C_co | None) -> C_co:
    """``None`` -> the entry; a name -> that computation; a Computation -> itself."""
    if computation is None:
        if module.entry is None:
            raise KeyError(f"module {module.name} has no entry computation")
        return module.entry
    if isinstance(computation, str):
        found = module.computations_by_name.get(computation)
        if found is None:
            raise KeyError(f"module {module.name} has no computation named {computation!r}")
        return found
    return computation


class _Builder:
    """Adds the nodes and edges of a computation and of the fusions it expands."""

    __slots__ = ("graph", "expand")

    def __init__(self, graph: nx.DiGraph, expand: ExpandSpec) -> None:
        self.graph = graph
        self.expand = expand

    def _expands(self, inst: InstructionView, nested: bool) -> bool:
        if inst.opcode != "fusion" or self.expand is False:
            return False
        if self.expand is True or nested:
            return inst.fused_computation is not None
        return inst.name in self.expand and inst.fused_computation is not None

    def add_computation(
        self,
        comp: ComputationView,
        prefix: str,
        fusion: str | None,
        inputs: list[str] | None,
    ) -> dict[InstructionView, str]:
        """Add ``comp``'s instructions; return the node id that produces each instruction's value.

        ``inputs`` (for an expanded fused computation) are the node ids producing the fusion's
        operands; parameter *k* then resolves to ``inputs[k]`` instead of becoming a node.

        Fusions nest as deeply as the text does, so the expansion is a depth-first walk with
        an explicit stack of :class:`_Frame` (one per fused computation being expanded), not
        recursion. Nodes are added as each frame starts (a computation's own before those of
        the fusions it expands) and edges as it ends (an expanded fusion's before its
        caller's), the order a recursive walk would give.
        """
        top = _Frame(self, comp, prefix, fusion, inputs)
        stack = [top]
        while stack:
            frame = stack[-1]
            inst = frame.next_expansion()
            if inst is not None:
                stack.append(frame.expand(inst))
                continue
            frame.add_edges()
            stack.pop()
            if stack:
                stack[-1].expanded(frame)
        return top.produced


class _Frame:
    """One computation being added: its nodes, then its fusions one by one, then its edges.

    Holds what a recursive call would keep on the Python stack. A frame's ``prefix`` (as long
    as the nesting is deep) is let go once its last fusion is expanded, so that a chain of
    thousands of nested fusions holds one prefix at a time, not one per level.
    """

    __slots__ = (
        "builder",
        "comp",
        "prefix",
        "fusion",
        "produced",
        "owners",
        "pending",
        "waiting",
        "index",
        "current",
    )

    def __init__(
        self,
        builder: _Builder,
        comp: ComputationView,
        prefix: str,
        fusion: str | None,
        inputs: list[str] | None,
    ) -> None:
        self.builder = builder
        self.comp = comp
        self.prefix: str | None = prefix
        # The fusion id stands in for the value only when the computation has no root.
        self.fusion = fusion if comp.root is None else None
        self.produced: dict[InstructionView, str] = {}
        self.owners: list[tuple[InstructionView, str]] = []
        self.pending: list[InstructionView] = []
        self.waiting: list[InstructionView] = []
        self.index = 0
        self.current: InstructionView | None = None
        self._add_nodes(prefix, fusion, inputs)

    def _add_nodes(self, prefix: str, fusion: str | None, inputs: list[str] | None) -> None:
        add_node = self.builder.graph.add_node
        expands = self.builder._expands
        produced, owners, pending = self.produced, self.owners, self.pending
        nested = fusion is not None
        for inst in self.comp.instructions:
            if inputs is not None and inst.opcode == "parameter":
                number = inst.parameter_number
                if number is not None and 0 <= number < len(inputs):
                    produced[inst] = inputs[number]
                    continue
            if expands(inst, nested):
                pending.append(inst)
                continue
            node = prefix + inst.name
            add_node(node, **_node_attrs(inst, fusion))
            produced[inst] = node
            owners.append((inst, node))

    def next_expansion(self) -> InstructionView | None:
        """The next fusion whose operands' producers are known, or ``None`` when all are done.

        Text order is normally a topological order, so one pass over the fusions finds them
        all ready; further passes cover hand-written modules that define an operand after its
        user. A pass that expands nothing means the fusions depend on each other.
        """
        produced = self.produced
        while True:
            while self.index < len(self.pending):
                inst = self.pending[self.index]
                self.index += 1
                if any(op not in produced for op in inst.operands):
                    self.waiting.append(inst)
                    continue
                return inst
            if not self.waiting:
                return None
            if len(self.waiting) == len(self.pending):  # a cycle of fusions: not valid HLO
                raise ValueError(
                    f"computation {self.comp.name}: fusions {[i.name for i in self.waiting]} "
                    "depend on each other"
                )
            self.pending, self.waiting, self.index = self.waiting, [], 0

    def expand(self, inst: InstructionView) -> _Frame:
        """The frame of ``inst``'s fused computation (its nodes added)."""
        prefix = self.prefix
        assert prefix is not None  # let go only once nothing is left to expand
        if self.index == len(self.pending) and not self.waiting:
            self.prefix = None  # the last one: no further inner prefix is made from it
        self.current = inst
        inner_fusion = prefix + inst.name
        inputs = [self.produced[op] for op in inst.operands]
        fused = inst.fused_computation
        assert fused is not None  # _expands checked
        return _Frame(self.builder, fused, inner_fusion + FUSION_SEP, inner_fusion, inputs)

    def expanded(self, inner: _Frame) -> None:
        """``inner`` (the frame of the fusion last returned by :meth:`expand`) is done: the
        fused root takes the fusion's place as the producer for its users."""
        inst = self.current
        assert inst is not None
        root = inner.comp.root
        self.produced[inst] = inner.produced[root] if root is not None else inner.fusion or ""
        self.current = None

    def add_edges(self) -> None:
        graph = self.builder.graph
        produced = self.produced
        # networkx's own adjacency dict, read directly: has_edge plus a lookup per edge is two
        # method calls where one dict read answers, on graphs of every instruction.
        adj = graph._adj
        add_edge = graph.add_edge
        for inst, node in self.owners:
            for index, operand in enumerate(inst.operands):
                source = produced.get(operand)
                if source is None:  # an operand from another computation: not valid HLO
                    continue
                data = adj[source].get(node)
                if data is None:
                    add_edge(source, node, index=index, indices=[index])
                else:
                    data["indices"].append(index)


def _node_attrs(inst: InstructionView, fusion: str | None) -> dict:
    shape = inst.shape
    frame = inst.source
    return {
        "instruction": inst,
        "opcode": inst.opcode,
        "shape": inst.shape_text,
        "bytes": shape.byte_size,
        "category": category_of(inst.opcode),
        "fusion_kind": inst.fusion_kind,
        "source": f"{frame.file}:{frame.line}" if frame is not None else None,
        "function": (frame.function or None) if frame is not None else None,
        "computation": inst.computation.name if inst.computation is not None else None,
        "fusion": fusion,
    }


# --- neighbourhoods: cutting a big graph down to what fits in a picture ---------------------------


def default_center(graph: nx.DiGraph) -> str | None:
    """The node a picture of a too-big graph is centred on: the op that moves the most bytes.

    "Moves" = result bytes plus operand bytes, a proxy for memory traffic that needs no cost
    model. Free ops (parameters, constants, tuples, bitcasts...) are skipped: the root ``tuple``
    of a training step touches every weight but computes nothing. Falls back to the root.
    """
    best: str | None = None
    best_bytes = -1
    nodes = graph.nodes
    for node, data in nodes(data=True):
        if data.get("opcode") in FREE_OPCODES:
            continue
        moved = data.get("bytes") or 0
        for pred in graph._pred[node]:
            moved += nodes[pred].get("bytes") or 0
        if moved > best_bytes:
            best, best_bytes = node, moved
    return best if best is not None else graph.graph.get("root")


def neighbourhood(
    graph: nx.DiGraph,
    centers: Iterable[str],
    depth: int | None = None,
    max_nodes: int | None = None,
    hub_degree: int | None = None,
) -> list[str]:
    """Nodes within ``depth`` hops of ``centers`` (edges taken both ways), nearest first.

    A breadth-first search that stops at ``depth`` hops (``None``: no limit) or once
    ``max_nodes`` nodes are collected, whichever comes first. Within one ring, neighbours are
    visited in a stable order: producers (in operand order) before users. The centers are always
    included, even past ``max_nodes``.

    ``hub_degree``: a node (other than a center) with more edges than this is included but not
    searched through. Hubs (a scalar constant feeding a hundred fusions, the root ``tuple`` of a
    training step) are near everything, so walking through them fills a picture with unrelated
    nodes instead of following the dataflow.
    """
    order = _checked_centers(graph, centers)
    seen = set(order)
    queue = deque((center, 0) for center in order)
    center_set = set(order)
    limit = max_nodes if max_nodes is not None else len(graph)
    pred, succ = graph._pred, graph._succ
    while queue and len(order) < limit:
        node, dist = queue.popleft()
        if depth is not None and dist >= depth:
            continue
        if (
            hub_degree is not None
            and node not in center_set
            and len(pred[node]) + len(succ[node]) > hub_degree
        ):
            continue
        producers = sorted(pred[node].items(), key=lambda item: item[1]["index"])
        for neighbour in [p for p, _ in producers] + list(succ[node]):
            if neighbour in seen:
                continue
            seen.add(neighbour)
            order.append(neighbour)
            queue.append((neighbour, dist + 1))
            if len(order) >= limit:
                break
    return order


def _checked_centers(graph: nx.DiGraph, centers: Iterable[str]) -> list[str]:
    """``centers`` without repeats, in the order given; :class:`KeyError` for one not in
    ``graph``."""
    order: dict[str, None] = {}
    for center in centers:
        if center not in graph:
            raise KeyError(center)
        order[center] = None
    return list(order)
