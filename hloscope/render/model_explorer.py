"""Export HLO graphs as Model Explorer graph JSON (``hloscope graph TARGET -o graph.json``).

`Model Explorer <https://github.com/google-ai-edge/model-explorer>`_ lays out and pans through
graphs of tens of thousands of nodes, far past what a static Graphviz picture can show. Its
"JSON graph" loader (``loadGraphsJson`` in the web UI) accepts a *graph collection*::

    {"label": "...", "graphs": [
        {"id": "...", "nodes": [
            {"id": "...", "label": "...", "namespace": "a/b",
             "attrs": [{"key": "...", "value": "..."}],
             "incomingEdges": [{"sourceNodeId": "...", "sourceNodeOutputId": "0",
                                "targetNodeInputId": "0"}],
             "outputsMetadata": [{"id": "0", "attrs": [{"key": "tensor_shape", "value": "..."}]}],
             "subgraphIds": ["..."]}],
         "groupNodeAttributes": {"a/b": {"key": "value"}}}]}

(field names from ``model_explorer/graph_builder.py``). How HLO maps onto it:

* one graph per computation shown: the requested one, plus every computation it reaches through
  non-fusion calls (``while`` bodies, ``call``, ``conditional`` branches, reducers...); the
  calling node links to them with ``subgraphIds``;
* fusions become **namespaces**: a fused instruction ``add.2`` of ``fusion.3`` is node
  ``fusion.3/add.2`` with namespace ``fusion.3`` (nested fusions nest namespaces), so Model
  Explorer shows each fusion as a collapsed layer that opens on click; the fused parameters are
  not nodes: edges run from the fusion's operands straight to the inner users (see
  :mod:`hloscope.hlo.graph`), and ``groupNodeAttributes`` give each layer its kind and shape;
* node label = opcode (Model Explorer's convention), the name and details in ``attrs``,
  the result shape in ``outputsMetadata`` (``tensor_shape``), operand positions in
  ``targetNodeInputId``.

:func:`write_model_explorer_json` writes the same collection to a file as it goes, one node
at a time, so that a module of 100,000 instructions never becomes one giant string in memory;
:func:`model_explorer_collection` builds it as a dict.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from ..hlo.graph import FUSION_SEP, module_graph, resolve_computation

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from ..hlo.model import Computation, Instruction, Module

__all__ = ["model_explorer_collection", "model_explorer_graph", "write_model_explorer_json"]

_MAX_ATTR_CHARS = 4000


def model_explorer_collection(
    module: Module,
    computation: str | Computation | None = None,
    *,
    keep: Collection[str] | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """A Model Explorer graph collection (a JSON-ready dict) for one computation and its callees.

    ``keep``: the nodes of the first graph to write (``None``: all), as the caller chose them
    (:func:`~hloscope.hlo.explorer_choice.choose_explorer`: ``--around``'s neighbourhood).
    Raises :class:`KeyError` for an unknown computation.
    """
    comp = resolve_computation(module, computation)
    graphs: list[dict[str, Any]] = []
    for graph, current, kept, called in _graphs(module, comp, keep):
        me_graph, callees = model_explorer_graph(graph, current, keep=kept)
        graphs.append(me_graph)
        called.extend(callees)
    return {"label": label or _label(module, comp), "graphs": graphs}


def write_model_explorer_json(
    out: TextIO,
    module: Module,
    computation: str | Computation | None = None,
    *,
    keep: Collection[str] | None = None,
    label: str | None = None,
) -> None:
    """Write :func:`model_explorer_collection`'s JSON to ``out`` as it is made, one node per
    ``write``: the text is the same as ``json.dumps(collection, ensure_ascii=False)``, but no
    more than one node's JSON (and one computation's graph) is in memory at a time.

    Raises :class:`KeyError` for an unknown computation before anything is written.
    """
    comp = resolve_computation(module, computation)
    graphs = _graphs(module, comp, keep)
    out.write(f'{{"label": {_dumps(label or _label(module, comp))}, "graphs": [')
    for i, (graph, current, kept, called) in enumerate(graphs):
        if i:
            out.write(", ")
        groups: dict[str, dict[str, str]] = {}
        out.write(f'{{"id": {_dumps(_graph_id(graph))}, "nodes": [')
        for j, node in enumerate(_node_records(graph, current, kept, groups, called)):
            out.write(", " + _dumps(node) if j else _dumps(node))
        groups[""] = _top_group(graph)
        out.write(f'], "groupNodeAttributes": {_dumps(groups)}}}')
    out.write("]}")


def _dumps(value: Any) -> str:
    # json.dumps's defaults (", " and ": " separators) and ensure_ascii=False, as the dict path
    # always wrote them: the streamed text is byte for byte what json.dumps(collection) gives.
    return json.dumps(value, ensure_ascii=False)


def _label(module: Module, comp: Computation) -> str:
    return f"{module.name} ({comp.name})"


_GraphStep = tuple["nx.DiGraph", "Computation", "set[str] | None", "list[Computation]"]


def _graphs(
    module: Module, comp: Computation, keep: Collection[str] | None
) -> Iterator[_GraphStep]:
    """The computations to export, breadth first from ``comp``: each as its expanded graph, the
    nodes to keep (``keep`` for ``comp``; ``None``, all, for the others) and an empty list
    that the consumer fills with the computations the graph's nodes call before asking for
    the next one (they are exported after the ones already waiting, each once)."""
    todo = [comp]
    done: set[str] = set()
    while todo:
        current = todo.pop(0)
        if current.name in done:
            continue
        done.add(current.name)
        graph = module_graph(module, current, expand_fusions=True)
        kept = set(keep) if keep is not None and current is comp else None
        called: list[Computation] = []
        yield graph, current, kept, called
        todo.extend(c for c in called if c.name not in done)


def model_explorer_graph(
    graph: nx.DiGraph, computation: Computation, keep: set[str] | None = None
) -> tuple[dict[str, Any], list[Computation]]:
    """One Model Explorer graph from the expanded :func:`module_graph` of ``computation``.

    Also returns the computations its nodes call (other than fused ones), for ``subgraphIds``.

    ``keep`` limits the nodes (edges from dropped nodes are dropped too).
    """
    called: list[Computation] = []
    groups: dict[str, dict[str, str]] = {}
    nodes_out = list(_node_records(graph, computation, keep, groups, called))
    groups[""] = _top_group(graph)
    return {"id": _graph_id(graph), "nodes": nodes_out, "groupNodeAttributes": groups}, called


def _graph_id(graph: nx.DiGraph) -> str:
    return str(graph.graph.get("computation"))


def _top_group(graph: nx.DiGraph) -> dict[str, str]:
    """The attributes of the graph's top level (namespace ``""``)."""
    return {
        "module": str(graph.graph.get("module")),
        "computation": str(graph.graph.get("computation")),
        "instructions": str(len(graph)),
    }


def _node_records(
    graph: nx.DiGraph,
    computation: Computation,
    keep: set[str] | None,
    groups: dict[str, dict[str, str]],
    called: list[Computation],
) -> Iterator[dict[str, Any]]:
    """The graph's nodes as Model Explorer node dicts, one at a time; adds the fusion layers met
    to ``groups`` and the computations called (other than fused ones) to ``called``."""
    pred = graph._pred
    for node, data in graph.nodes(data=True):
        if keep is not None and node not in keep:
            continue
        inst: Instruction = data["instruction"]
        subgraphs = [c for c in inst.called_computations if inst.opcode != "fusion"]
        called.extend(subgraphs)
        fusion = data.get("fusion")
        if fusion and fusion not in groups:
            _add_groups(groups, computation, fusion)
        yield {
            "id": node,
            "label": inst.opcode,
            "namespace": fusion or "",
            "subgraphIds": [c.name for c in subgraphs],
            "attrs": _attrs(inst, data),
            "incomingEdges": _incoming_edges(pred[node], keep),
            "outputsMetadata": [
                {
                    "id": "0",
                    "attrs": [
                        {"key": "tensor_shape", "value": data["shape"]},
                        {
                            "key": "bytes",
                            "value": "" if data["bytes"] is None else str(data["bytes"]),
                        },
                    ],
                }
            ],
        }


def _incoming_edges(preds: dict[str, dict], keep: set[str] | None) -> list[dict[str, str]]:
    """One edge per operand position, in operand order (``preds``: operand -> edge data)."""
    edges = [
        {"sourceNodeId": source, "sourceNodeOutputId": "0", "targetNodeInputId": str(index)}
        for source, edge in preds.items()
        if keep is None or source in keep
        for index in edge["indices"]
    ]
    edges.sort(key=lambda e: int(e["targetNodeInputId"]))
    return edges


def _attrs(inst: Instruction, data: dict) -> list[dict[str, str]]:
    pairs = [
        ("name", inst.name),
        ("opcode", inst.opcode),
        ("shape", data["shape"]),
        ("category", data["category"]),
    ]
    if data.get("fusion_kind"):
        pairs.append(("fusion_kind", data["fusion_kind"]))
    if data.get("source"):
        pairs.append(("source", data["source"]))
    if data.get("function"):
        pairs.append(("function", data["function"]))
    try:
        op_name = inst.op_name
    except Exception:  # a malformed metadata attribute must not stop the export
        op_name = ""
    if op_name:
        pairs.append(("op_name", op_name))
    if inst.payload is not None:
        pairs.append(("payload", inst.payload[:_MAX_ATTR_CHARS]))
    if inst.attr_text:
        pairs.append(("attributes", inst.attr_text[:_MAX_ATTR_CHARS]))
    pairs.append(("computation", data.get("computation") or ""))
    return [{"key": k, "value": str(v)} for k, v in pairs]


def _add_groups(
    groups: dict[str, dict[str, str]], comp: Computation | None, fusion_id: str
) -> None:
    """Attributes shown when a fusion layer (and every enclosing one) is selected."""
    parts = fusion_id.split(FUSION_SEP)
    for depth in range(1, len(parts) + 1):
        key = FUSION_SEP.join(parts[:depth])
        inst = comp.get(parts[depth - 1]) if comp is not None else None
        if key not in groups:
            info = {"name": parts[depth - 1]}
            if inst is not None:
                info.update(
                    kind=inst.fusion_kind or "",
                    shape=inst.shape_text,
                    fused_computation=inst.fused_computation.name if inst.fused_computation else "",
                )
            groups[key] = info
        comp = inst.fused_computation if inst is not None else None
