"""Which kernels get a picture, and what of their neighbourhood it shows.

The page's graphs are of the kernels moving the most bytes, one per kind of kernel first (an
optimizer's forty alike updates would otherwise fill every picture), each with what lies
within :data:`GRAPH_DEPTH` hops of it (at most :data:`GRAPH_MAX_NODES` nodes, not searching
through hubs: the root tuple of a training step would pull in every other kernel). Chosen
here; :func:`hloscope.render.html.sections.kernel_graph` draws each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..hlo.graph import module_graph, neighbourhood, resolve_computation
from ..hlo.graph_selection import HUB_DEGREE, GraphSelection
from ..render.graphviz import GraphRenderError
from ..render.html import sections
from ..render.html.escape import UnsafeSvgError

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from ..analysis.fusions import FusionReport, Kernel
    from ..hlo.model import Module
    from ..render.html.sections import KernelGraph

__all__ = ["heaviest_graphs", "heaviest", "GRAPH_DEPTH", "GRAPH_MAX_NODES"]

#: Hops drawn around each heavy kernel, and the most nodes one picture may have.
GRAPH_DEPTH = 2
GRAPH_MAX_NODES = 30


def heaviest_graphs(
    module: Module,
    report: FusionReport,
    count: int,
    *,
    depth: int = GRAPH_DEPTH,
    max_nodes: int = GRAPH_MAX_NODES,
) -> tuple[list[KernelGraph], list[str]]:
    """Pictures of the ``count`` kernels moving the most bytes (:func:`heaviest`), each with
    what lies within ``depth`` hops of it (at most ``max_nodes`` nodes), and notes on what
    could not be drawn."""
    if count <= 0 or not report.kernels:
        return [], []
    if not sections.dot_installed():
        return [], [sections.NO_DOT_NOTE]
    index_of = {id(k): i for i, k in enumerate(report.kernels)}
    graphs: list[KernelGraph] = []
    notes: list[str] = []
    built: dict[str, nx.DiGraph] = {}  # one graph per computation, shared by its kernels
    for kernel in heaviest(report.kernels, count):
        try:
            selection = _selection(module, kernel, depth, max_nodes, built)
            graphs.append(sections.kernel_graph(kernel, index_of[id(kernel)], selection))
        except (GraphRenderError, UnsafeSvgError) as error:
            notes.append(f"graph of {kernel.name} left out: {error.one_line()}")
    return graphs, notes


def heaviest(kernels: Sequence[Kernel], count: int) -> list[Kernel]:
    """The ``count`` kernels moving the most bytes, one per kind of kernel (signature) first."""
    ordered = sorted(kernels, key=lambda k: -k.cost.bytes_accessed)
    chosen: list[Kernel] = []
    seen: set[str] = set()
    for k in ordered:
        if len(chosen) < count and k.signature not in seen:
            seen.add(k.signature)
            chosen.append(k)
    for k in ordered:
        if len(chosen) >= count:
            break
        if all(k is not c for c in chosen):
            chosen.append(k)
    return sorted(chosen, key=lambda k: -k.cost.bytes_accessed)


def _selection(
    module: Module, kernel: Kernel, depth: int, max_nodes: int, graphs: dict[str, nx.DiGraph]
) -> GraphSelection:
    """What lies within ``depth`` hops of ``kernel`` in its computation's graph (built once
    per computation, kept in ``graphs``)."""
    comp = resolve_computation(module, kernel.computation)
    graph = graphs.get(comp.name)
    if graph is None:
        graph = graphs[comp.name] = module_graph(module, comp)
    if kernel.name not in graph:
        raise GraphRenderError(f"{kernel.name} is not in the graph of {comp.name}")
    nodes = neighbourhood(graph, [kernel.name], depth, max_nodes, hub_degree=HUB_DEGREE)
    hops = f"{depth} hop{'s' if depth != 1 else ''}"
    why = f"{kernel.name} and what lies {hops} from it"
    return GraphSelection(module, comp, graph, nodes, [kernel.name], why)
