"""Choosing what part of a big graph to draw: :func:`select_graph`.

A module's entry can hold tens of thousands of instructions; no picture of that helps anyone.
:class:`GraphOptions` say what the user asked for (a computation, a fusion opened up, the
neighbourhood of one instruction, a node budget) and :func:`select_graph` turns that into a
:class:`GraphSelection`: the networkx graph of the computation and the nodes to draw, with a
sentence saying how they were chosen. Every renderer (Graphviz, Model Explorer, HTML) draws a
selection; none of them decides what to cut.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import GraphError, GraphNameError
from .graph import FUSION_SEP, default_center, module_graph, neighbourhood, resolve_computation

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from .model import Computation, Instruction, Module

__all__ = [
    "GraphError",
    "GraphNameError",
    "GraphOptions",
    "GraphSelection",
    "select_graph",
    "find_fusion",
    "loop_body_name",
    "DEFAULT_MAX_NODES",
    "DEFAULT_AROUND_DEPTH",
    "HUB_DEGREE",
]

DEFAULT_MAX_NODES = 150
DEFAULT_AROUND_DEPTH = 3
# When a big graph is cut around its busiest op, nodes with more edges than this (shared
# constants, the root tuple) end the search instead of pulling in all their neighbours.
HUB_DEGREE = 12
# Names in GraphSelection.why are shortened to this many characters.
_MAX_WHY_NAME_CHARS = 80


@dataclass(frozen=True, slots=True)
class GraphOptions:
    """What ``hloscope graph`` draws.

    ``computation``: name (None = entry, or the computation holding ``fusion``); the name of a
    ``while`` instruction stands for its body (see :func:`loop_body_name`). ``fusion``: a
    fusion instruction (or its fused computation) to show expanded with its producers and users.
    ``around``/``depth``: draw the instructions within ``depth`` hops of ``around``.
    ``expand_fusions``: expand every fusion. ``max_nodes``: cut bigger graphs to a neighbourhood.
    """

    computation: str | None = None
    fusion: str | None = None
    around: str | None = None
    depth: int | None = None
    expand_fusions: bool = False
    max_nodes: int = DEFAULT_MAX_NODES


@dataclass(slots=True)
class GraphSelection:
    """A computation's graph and the part of it that is drawn."""

    module: Module
    computation: Computation
    graph: nx.DiGraph
    nodes: list[str]
    centers: list[str] = field(default_factory=list)
    why: str = ""  # how the nodes were chosen, for the note ("3 hops around fusion.2")
    # What the renderer drew more simply than usual so that the layout stays quick ("no
    # shapes on edges"); set when the picture is written, for the command's report.
    simplified: list[str] = field(default_factory=list)

    @property
    def hidden(self) -> int:
        return len(self.graph) - len(self.nodes)


def select_graph(module: Module, options: GraphOptions = GraphOptions()) -> GraphSelection:
    """Build the graph ``options`` ask for and choose the nodes to draw.

    Raises :class:`GraphError` (with close matches) for an unknown computation,
    fusion or instruction name.
    """
    comp_name = loop_body_name(module, options.computation)
    expand: bool | set[str] = options.expand_fusions
    fusion_inst = None
    if options.fusion is not None:
        fusion_inst = find_fusion(module, options.fusion, comp_name)
        comp_name = fusion_inst.computation.name  # type: ignore[union-attr]
        if expand is False:
            expand = {fusion_inst.name}
    try:
        comp = resolve_computation(module, comp_name)
    except KeyError:
        raise GraphNameError(
            f"no computation named {comp_name!r} in module {module.name}"
            + _suggest(comp_name or "", module.computations_by_name)
        ) from None
    graph = module_graph(module, comp, expand_fusions=expand)

    if options.around is not None:
        centers = _find_centers(graph, options.around)
        depth = options.depth if options.depth is not None else DEFAULT_AROUND_DEPTH
        nodes = neighbourhood(graph, centers, depth=depth, max_nodes=options.max_nodes)
        why = f"{depth} hops around {_short(options.around)}"
    elif fusion_inst is not None:
        centers = _find_centers(graph, fusion_inst.name)
        depth = options.depth if options.depth is not None else 1
        nodes = neighbourhood(
            graph, centers, depth=depth, max_nodes=max(options.max_nodes, len(centers))
        )
        hops = f"{depth} hop{'s' if depth != 1 else ''}"
        why = f"{_short(fusion_inst.name)} and what lies {hops} from it"
    elif len(graph) > options.max_nodes:
        center = default_center(graph)
        centers = [center] if center is not None else []
        nodes = neighbourhood(
            graph, centers, depth=options.depth, max_nodes=options.max_nodes, hub_degree=HUB_DEGREE
        )
        why = f"the {len(nodes)} nodes nearest {_short(center)} (the op moving the most bytes)"
    else:
        centers, nodes, why = [], list(graph.nodes), ""
    return GraphSelection(module, comp, graph, nodes, centers, why)


def loop_body_name(module: Module, name: str | None) -> str | None:
    """``name`` itself when it names a computation; the body of the ``while`` it names when it
    names one (``--computation while.4``: XLA's ``region_0.4.clone`` is not a name anyone
    remembers); else ``name``, for the caller to report as unknown."""
    if name is None or name in module.computations_by_name:
        return name
    for inst in module.instructions():
        if inst.name == name and inst.opcode == "while":
            body = inst.attrs.get("body")
            return str(getattr(body, "name", body) or name)
    return name


def find_fusion(module: Module, name: str, comp_name: str | None) -> Instruction:
    """The fusion instruction ``name`` names (or the caller of the fused computation ``name``),
    looked up in ``comp_name`` when given. Raises :class:`GraphError` with close matches."""
    comps = module.computations
    if comp_name is not None and comp_name in module.computations_by_name:
        comps = [module.computations_by_name[comp_name]]
    for comp in comps:
        inst = comp.get(name)
        if inst is not None:
            if inst.opcode != "fusion":
                raise GraphNameError(f"{name} is a {inst.opcode}, not a fusion")
            return inst
    fused = module.computations_by_name.get(name)
    if fused is not None:
        callers = [i for i in module.callers_of(fused) if i.opcode == "fusion"]
        if callers:
            return callers[0]
    fusions = {i.name: i for c in comps for i in c.instructions if i.opcode == "fusion"}
    raise GraphNameError(
        f"no fusion named {name!r} in module {module.name}" + _suggest(name, fusions)
    )


def _find_centers(graph: nx.DiGraph, name: str) -> list[str]:
    """Node ids for ``name``: the node itself, or every inner node of an expanded fusion."""
    if name in graph:
        return [name]
    prefix = name + FUSION_SEP
    inner = [n for n in graph if n.startswith(prefix)]
    if inner:
        return inner
    raise GraphNameError(
        f"no instruction named {name!r} in computation {graph.graph.get('computation')}"
        + _suggest(name, graph.nodes)
    )


def _short(name: str | None, limit: int = _MAX_WHY_NAME_CHARS) -> str:
    """``name`` shortened in the middle for the sentence saying what is shown (a 5,000-character
    instruction name must not become a 5,000-character note)."""
    name = str(name)
    if len(name) <= limit:
        return name
    head = limit // 2  # the ellipsis takes one character; the end gets the rest
    return name[:head] + "\u2026" + name[len(name) - (limit - 1 - head) :]


def _suggest(name: str, choices) -> str:
    close = difflib.get_close_matches(name, list(choices), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""
