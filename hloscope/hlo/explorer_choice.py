"""Choosing what Model Explorer's JSON of a module holds (``hloscope graph TARGET -o g.json``):
the computation it is of and, with ``--around``, the nodes of its graph kept.

Model Explorer lays out whole graphs, so nothing is cut by size; what is chosen is the
computation (``--computation``: a while's body when it names the loop; ``--fusion``: the
computation holding that fusion, whose ops are a namespace in it) and, only when ``--around``
names an instruction, its neighbourhood of ``--depth`` hops (3 by default) in that
computation's expanded graph (:func:`~hloscope.hlo.graph.module_graph`). The writer,
:mod:`hloscope.render.model_explorer`, writes what is chosen here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import GraphError
from .graph import FUSION_SEP, module_graph, neighbourhood, resolve_computation
from .graph_selection import GraphOptions, find_fusion, loop_body_name

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from .model import Module

__all__ = ["ExplorerChoice", "choose_explorer", "AROUND_DEPTH"]

#: Hops around ``--around`` kept when ``--depth`` is not given.
AROUND_DEPTH = 3


@dataclass(frozen=True, slots=True)
class ExplorerChoice:
    """The ``computation`` exported first (``None``: the entry; the computations it calls
    follow it whole) and the nodes of its expanded graph ``keep`` (``None``: all)."""

    computation: str | None = None
    keep: frozenset[str] | None = None


def choose_explorer(module: Module, options: GraphOptions | None = None) -> ExplorerChoice:
    """What ``options`` ask Model Explorer's JSON of ``module`` to hold (``None``: the entry,
    whole). Raises :class:`~hloscope.hlo.errors.GraphError` for a name the module does not
    have."""
    options = options or GraphOptions()
    name = loop_body_name(module, options.computation)
    if options.fusion is not None:
        holder = find_fusion(module, options.fusion, name).computation
        assert holder is not None  # a parsed module's instructions each sit in a computation
        name = holder.name
    if options.around is None:
        return ExplorerChoice(name)
    try:
        comp = resolve_computation(module, name)
    except KeyError as error:
        raise GraphError(str(error.args[0]) if error.args else str(error)) from None
    graph = module_graph(module, comp, expand_fusions=True)
    depth = AROUND_DEPTH if options.depth is None else options.depth
    keep = neighbourhood(graph, _centers(graph, options.around), depth=depth)
    return ExplorerChoice(name, frozenset(keep))


def _centers(graph: nx.DiGraph, name: str) -> list[str]:
    """The node ``name`` names: itself, or every op inside the fusion of that name (an
    expanded-fusion id such as ``fusion.3/add.2`` names one op)."""
    if name in graph:
        return [name]
    inner = [n for n in graph if n.startswith(name + FUSION_SEP)]
    if not inner:
        raise GraphError(
            f"no instruction named {name!r} in computation {graph.graph.get('computation')}"
        )
    return inner
