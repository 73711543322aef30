"""Pictures of HLO graphs with Graphviz: ``hloscope graph TARGET -o out.svg``.

The picture is drawn from :func:`hloscope.hlo.graph.module_graph`:

* one box per instruction, filled by opcode category (a legend lists the colours shown), with
  the name, the opcode and the result shape; the tooltip adds the source line;
* edges from operand to user, labelled with the operand's shape;
* a fusion is either **collapsed** (one box: kind and the ops it fuses) or **expanded** (a
  cluster holding its instructions; nested fusions nest clusters);
* what is drawn is chosen before this module sees it (a
  :class:`~hloscope.hlo.graph_selection.GraphSelection`: a graph bigger than ``max_nodes`` cut
  to the neighbourhood of one instruction, the one asked for, else the op that moves the most
  bytes); a note says how much was left out, and boxes whose neighbours were cut get a dashed
  border;
* a **layout budget** (:func:`plan_layout`) keeps ``dot`` to seconds: before calling it, the
  selection's size and shape decide whether to draw an operand read by many ops once per user
  (small dotted stubs), to drop the shapes on edges, or to let ``dot`` minimise crossings less;
  the note says what was simplified, and a ``dot`` that still runs past its time limit is
  stopped and called once more on the simplest drawing (:func:`render_selection`).

Every name and label goes through :func:`dot_escape` (plain DOT strings) or :func:`html_escape`
(HTML-like labels); DOT node ids are synthetic (``n0``, ``n1``...) so no HLO name ever reaches
DOT syntax unescaped, and every name, shape, op_name and source line is clipped to a length
``dot`` handles (the Model Explorer JSON keeps them whole). The ``dot`` binary lays the graph
out; only ``.dot`` and Model Explorer ``.json`` output work without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import graphviz

from ..hlo.graph import FUSION_SEP
from ..hlo.graph_selection import DEFAULT_MAX_NODES, GraphSelection
from ..hlo.opcodes import CATEGORIES
from ..hlo.placement import known_trip_count
from .errors import DotTimeout, GraphFormatError, GraphRenderError
from .graph_layout import (
    _MAX_STUB_CHARS,
    _QUICK_LAYOUT,
    LAYOUT_BUDGET,
    LAYOUT_TIMEOUT_S,
    LayoutPlan,
    _shown_edges,
    plan_layout,
    simplest_plan,
)
from .terminal import shorten_middle

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.explorer_choice import ExplorerChoice
    from ..hlo.model import Computation, Instruction, Module

__all__ = [
    "GraphRenderError",
    "GraphFormatError",
    "DotTimeout",
    "LayoutPlan",
    "LAYOUT_BUDGET",
    "LAYOUT_TIMEOUT_S",
    "CATEGORY_COLORS",
    "DEFAULT_MAX_NODES",
    "FORMATS",
    "dot_escape",
    "dot_tooltip",
    "html_escape",
    "to_dot",
    "render_dot",
    "render_selection",
    "plan_layout",
    "simplest_plan",
    "write_selection",
    "write_explorer",
    "format_for",
]

# Output formats: the ones ``dot`` renders, the DOT source itself, and Model Explorer's JSON.
RENDERED_FORMATS = ("svg", "png", "pdf")
FORMATS = RENDERED_FORMATS + ("dot", "json")

# Fill colours by opcode category (hloscope.hlo.opcodes.CATEGORIES). Light tints so black
# text stays readable; hues group related kinds (compute warm, movement green, sources grey).
CATEGORY_COLORS: dict[str, str] = {
    "elementwise": "#cfe8fc",
    "reduction": "#ffd8a8",
    "linear_algebra": "#ffa8a8",
    "data_movement": "#d3f9d8",
    "sort": "#e5dbff",
    "control_flow": "#fff3bf",
    "fusion": "#99e9f2",
    "collective": "#fcc2d7",
    "custom_call": "#eebefa",
    "source": "#e9ecef",
    "rng": "#ffe066",
    "io": "#ced4da",
    "async_memory": "#d0bfff",
    "misc": "#f8f9fa",
    "unknown": "#ffffff",
}
_CLUSTER_FILL = "#f3fcfd"
_NOTE_FILL = "#fff9db"
_STUB_FILL_STYLE = "rounded,filled,dotted"
# Lengths past which text is shortened in the middle (the ends tell names apart: "fusion.123").
# dot measures every label character by character and keeps whole tooltips in memory, so one
# 100 KB op_name would otherwise slow it down or make it fail.
_MAX_SHAPE_CHARS = 48
_MAX_NAME_CHARS = 60
_MAX_TITLE_CHARS = 120
_MAX_NOTE_LINE_CHARS = 160
_MAX_TOOLTIP_LINE_CHARS = 300
_MAX_TOOLTIP_CHARS = 2000


# --- escaping -------------------------------------------------------------------------------------

# Characters that must not reach DOT or SVG raw: C0 controls (XML 1.0 forbids them even as
# character references), DEL, lone surrogates (not encodable as UTF-8) and U+FFFE/U+FFFF.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _printable(text: str) -> str:
    """Line breaks normalised to ``\\n``; other unsafe characters shown as ``\\xNN`` text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "\\t")
    return _UNSAFE.sub(_visible, text)


def dot_escape(text: str) -> str:
    """``text`` as the inside of a double-quoted DOT label (node, edge, cluster), shown verbatim.

    Backslashes are doubled, so DOT's escapes (``\\N``, ``\\G``, ``\\l``...) never fire;
    ``&`` becomes ``&amp;`` (Graphviz decodes entities in labels); quotes are escaped and line
    breaks become DOT's ``\\n``. The result is marked :func:`graphviz.nohtml`, so the graphviz
    package quotes it as a string even when it looks like an HTML label (``<...>``).
    """
    return _escstring(text, "\\\\")


def dot_tooltip(text: str) -> str:
    """``text`` for a DOT ``tooltip`` (or another attribute Graphviz unescapes twice).

    Graphviz reads backslashes in tooltips once more than in labels (it turns ``\\n`` into a
    line break and then expands ``\\N``), so each backslash is written as four.
    """
    return _escstring(text, "\\\\\\\\")


def _escstring(text: str, backslash: str) -> str:
    text = _printable(str(text)).replace("&", "&amp;")
    text = text.replace("\\", backslash).replace('"', '\\"').replace("\n", "\\n")
    return graphviz.nohtml(text)


def html_escape(text: str) -> str:
    """``text`` for the inside of a Graphviz HTML-like label: entities, ``<BR/>`` for line breaks.

    Backslashes are doubled: Graphviz expands ``\\N`` and friends inside HTML text too.
    """
    text = _printable(str(text))
    text = (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        .replace("\\", "\\\\")
    )
    return text.replace("\n", "<BR/>")


def _clip(text: str, limit: int) -> str:
    """``text`` shortened in the middle to ``limit`` characters (both ends stay readable)."""
    return shorten_middle(str(text), limit)


def _clip_lines(text: str, limit: int = _MAX_TOOLTIP_LINE_CHARS) -> str:
    """Each line of ``text`` clipped on its own, so one huge op_name cannot crowd out the rest."""
    return "\n".join(_clip(line, limit) for line in text.split("\n"))


# --- building DOT ---------------------------------------------------------------------------------


def to_dot(selection: GraphSelection, plan: LayoutPlan | None = None) -> graphviz.Digraph:
    """The DOT picture of a selection (see the module docstring for what it shows).

    ``plan`` says what to draw more simply so that ``dot`` lays the picture out in seconds;
    by default :func:`plan_layout` decides it from the selection. Its notes join the picture's
    note.
    """
    plan = plan_layout(selection) if plan is None else plan
    graph = selection.graph
    shown = set(selection.nodes)
    ids = {node: f"n{i}" for i, node in enumerate(selection.nodes)}
    module_name = _clip(selection.module.name, _MAX_TITLE_CHARS)
    comp_name = _clip(selection.computation.name, _MAX_TITLE_CHARS)
    title = module_name if module_name == comp_name else f"{module_name} \u2014 {comp_name}"

    dot = _digraph(title, plan)

    # Group nodes by the (possibly nested) expanded fusion they came from.
    tree = _ClusterTree()
    for node in selection.nodes:
        if node not in plan.dropped:
            tree.place(graph.nodes[node].get("fusion"), node)
    counter = iter(range(1 << 30))
    tree.emit(dot, selection, ids, shown, counter, set(selection.centers))
    _emit_edges(dot, selection, plan, ids, shown)

    _emit_legend_and_note(dot, selection, plan)
    return dot


def _digraph(title: str, plan: LayoutPlan) -> graphviz.Digraph:
    """An empty picture titled ``title``, with the house style of nodes and edges."""
    dot = graphviz.Digraph(name="hlo", comment=dot_escape(title))
    dot.attr(
        "graph",
        rankdir="TB",
        fontname="Helvetica",
        fontsize="12",
        label=dot_escape(title),
        labelloc="t",
        newrank="true",
        tooltip=dot_tooltip(title),
        **(_QUICK_LAYOUT if plan.quick else {}),
    )
    dot.attr(
        "node",
        shape="box",
        style="rounded,filled",
        fontname="Helvetica",
        fontsize="10",
        margin="0.08,0.04",
    )
    dot.attr("edge", fontname="Helvetica", fontsize="8", color="#495057", arrowsize="0.6")
    return dot


def _emit_legend_and_note(
    dot: graphviz.Digraph, selection: GraphSelection, plan: LayoutPlan
) -> None:
    """The legend of the categories shown, and the note of what the picture leaves out."""
    graph = selection.graph
    categories = [
        c for c in CATEGORIES if any(graph.nodes[n].get("category") == c for n in selection.nodes)
    ]
    if categories:
        dot.node(
            "legend", label=_legend_label(categories), shape="plaintext", style="", tooltip="legend"
        )
    note = _note_lines(selection, plan)
    if note:
        dot.node(
            "note",
            label=dot_escape("\n".join(_clip(line, _MAX_NOTE_LINE_CHARS) for line in note)),
            shape="note",
            style="filled",
            fillcolor=_NOTE_FILL,
            fontsize="10",
        )


def _emit_edges(dot, selection: GraphSelection, plan: LayoutPlan, ids, shown) -> None:
    """One edge per (operand, user) pair shown; a stubbed operand gets a stub per user."""
    graph = selection.graph
    stub_tooltips: dict[str, str] = {}
    for source, target, data in _shown_edges(graph, shown):
        shape = graph.nodes[source].get("shape") or ""
        tail = ids[source]
        if source in plan.stubs and (source, target) not in plan.kept_edges:
            if source not in stub_tooltips:
                users = sum(1 for user in graph._succ[source] if user in shown)
                stub_tooltips[source] = _stub_tooltip(graph, source, users)
            tail = f"{ids[source]}_{ids[target]}"
            _emit_stub(dot, graph, source, tail, stub_tooltips[source])
        indices = data.get("indices") or [data.get("index", 0)]
        positions = ", ".join(map(str, indices))
        ends = f"{_clip(source, _MAX_NAME_CHARS)} \u2192 {_clip(target, _MAX_NAME_CHARS)}"
        where = f"operand {_clip(positions, _MAX_SHAPE_CHARS)}"
        tooltip = f"{ends} ({where}): {_clip(shape, _MAX_TOOLTIP_LINE_CHARS)}"
        label = (
            {plan.edge_label: dot_escape(_clip(shape, _MAX_SHAPE_CHARS))} if plan.edge_label else {}
        )
        dot.edge(tail, ids[target], tooltip=dot_tooltip(tooltip), **label)


def _stub_tooltip(graph, node: str, users: int) -> str:
    text = _tooltip_text(graph.nodes[node]["instruction"], node)
    text += f"\ndrawn once per user ({users} users) so that dot lays the picture out quickly"
    return _clip(text, _MAX_TOOLTIP_CHARS)


def _emit_stub(dot, graph, node: str, stub_id: str, tooltip: str) -> None:
    """A small copy of ``node`` next to one of its users: its name only, dotted border."""
    category = graph.nodes[node].get("category") or "unknown"
    dot.node(
        stub_id,
        label=dot_escape(_clip(node.rsplit(FUSION_SEP, 1)[-1], _MAX_STUB_CHARS)),
        tooltip=dot_tooltip(tooltip),
        fillcolor=CATEGORY_COLORS.get(category, "#ffffff"),
        style=_STUB_FILL_STYLE,
        fontsize="8",
        margin="0.04,0.02",
        height="0.2",
    )


def _note_lines(selection: GraphSelection, plan: LayoutPlan) -> list[str]:
    """The note's lines: what was left out, and what was drawn more simply than usual."""
    lines = []
    if selection.hidden > 0:
        lines += [
            f"{selection.hidden} of {len(selection.graph)} nodes not shown",
            f"showing {selection.why}",
            "(--around NAME, --depth N and --max-nodes N choose what to draw)",
        ]
    if plan.notes:
        lines.append("drawn simply so that dot lays it out in seconds:")
        lines += [f"\u2022 {note}" for note in plan.notes]
    return lines


class _ClusterTree:
    """Nodes grouped by expanded fusion: ``fusion`` attribute ``"a/b"`` nests cluster b in a."""

    __slots__ = ("nodes", "children")

    def __init__(self) -> None:
        self.nodes: list[str] = []
        self.children: dict[str, _ClusterTree] = {}

    def place(self, fusion: str | None, node: str) -> None:
        tree = self
        if fusion:
            parts = fusion.split(FUSION_SEP)
            for depth in range(1, len(parts) + 1):
                key = FUSION_SEP.join(parts[:depth])
                tree = tree.children.setdefault(key, _ClusterTree())
        tree.nodes.append(node)

    def emit(self, dot, selection: GraphSelection, ids, shown, counter, centers) -> None:
        graph = selection.graph
        for node in self.nodes:
            _emit_node(dot, graph, node, ids[node], shown, node in centers)
        for fusion_id, child in self.children.items():
            inst = _fusion_at(selection.computation, fusion_id)
            tooltip = _tooltip_text(inst, fusion_id) if inst is not None else fusion_id
            with dot.subgraph(name=f"cluster_{next(counter)}") as sub:
                sub.attr(
                    label=_cluster_label(inst, fusion_id),
                    style="rounded,filled",
                    fillcolor=_CLUSTER_FILL,
                    color="#0c8599",
                    fontsize="10",
                    tooltip=dot_tooltip(_clip(tooltip, _MAX_TOOLTIP_CHARS)),
                )
                child.emit(sub, selection, ids, shown, counter, centers)


def _fusion_at(comp: Computation | None, fusion_id: str) -> Instruction | None:
    """The fusion instruction an expanded-fusion id (``"fusion.3/fusion.1"``) stands for."""
    inst = None
    for name in fusion_id.split(FUSION_SEP):
        if comp is None:
            return None
        inst = comp.get(name)
        if inst is None:
            return None
        comp = inst.fused_computation
    return inst


def _cluster_label(inst: Instruction | None, fusion_id: str) -> str:
    name = fusion_id.rsplit(FUSION_SEP, 1)[-1]
    kind = inst.fusion_kind if inst is not None else None
    text = f"<<B>{html_escape(_clip(name, _MAX_NAME_CHARS))}</B>"
    if kind:
        text += f" \u00b7 {html_escape(_clip(kind, _MAX_NAME_CHARS))}"
    if inst is not None:
        shape = html_escape(_clip(inst.shape_text, _MAX_SHAPE_CHARS))
        text += f'<BR/><FONT POINT-SIZE="8">{shape}</FONT>'
    return text + ">"


def _emit_node(dot, graph, node: str, dot_id: str, shown: set[str], is_center: bool) -> None:
    data = graph.nodes[node]
    inst = data["instruction"]
    hidden_in = sum(1 for p in graph._pred[node] if p not in shown)
    hidden_out = sum(1 for s in graph._succ[node] if s not in shown)
    tooltip = _tooltip_text(inst, node)
    if hidden_in or hidden_out:
        tooltip += f"\n{hidden_in} operand(s) and {hidden_out} user(s) not shown"
    style = "rounded,filled"
    if hidden_in or hidden_out:
        style += ",dashed"
    if is_center:
        style += ",bold"
    dot.node(
        dot_id,
        label=_node_label(data, inst),
        tooltip=dot_tooltip(_clip(tooltip, _MAX_TOOLTIP_CHARS)),
        fillcolor=CATEGORY_COLORS.get(data.get("category") or "unknown", "#ffffff"),
        style=style,
        penwidth="2" if is_center else "1",
    )


def _node_label(data: dict, inst: Instruction) -> str:
    name = html_escape(_clip(inst.name, _MAX_NAME_CHARS))
    opcode = html_escape(_clip(data["opcode"], _MAX_NAME_CHARS))
    lines = [f"<B>{name}</B>"]
    if inst.opcode == "fusion":
        kind = data.get("fusion_kind")
        lines.append(
            f"fusion \u00b7 {html_escape(_clip(kind, _MAX_NAME_CHARS))}" if kind else "fusion"
        )
        summary = _fused_ops_summary(inst)
        if summary:
            lines.append(f'<FONT POINT-SIZE="8">{html_escape(summary)}</FONT>')
    elif inst.opcode == "custom-call":
        target = _custom_call_target(inst)
        lines.append(f"custom-call \u00b7 {html_escape(_clip(target, 40))}" if target else opcode)
    elif inst.opcode == "while":
        # The body runs this many times per run of the computation drawn (XLA's known count).
        lines.append(f"while \u00d7{_trip_count_text(inst)}")
    elif not inst.name.startswith(inst.opcode):  # "add.3" already says add
        lines.append(opcode)
    lines.append(
        '<FONT POINT-SIZE="8">'
        + html_escape(_clip(data.get("shape") or "", _MAX_SHAPE_CHARS))
        + "</FONT>"
    )
    return "<" + "<BR/>".join(lines) + ">"


def _custom_call_target(inst: Instruction) -> str:
    try:
        value = inst.attrs.get("custom_call_target")
    except Exception:  # a malformed attribute must not stop the picture
        return ""
    return str(value) if value else ""


def _fused_ops_summary(inst: Instruction, limit: int = 4) -> str:
    """``"dot, add, multiply×2, +3 more"``: what a collapsed fusion computes.

    Parameters and constants are left out: they say nothing about the kernel's work.
    """
    fused = inst.fused_computation
    if fused is None:
        return ""
    counts = Counter(
        i.opcode for i in fused.instructions if i.opcode not in ("parameter", "constant")
    )
    # Heavy ops first (the reason the kernel exists), then by frequency.
    heavy = {"dot", "convolution", "reduce", "reduce-window", "scatter", "gather", "sort", "fusion"}
    ordered = sorted(counts.items(), key=lambda kv: (kv[0] not in heavy, -kv[1], kv[0]))
    parts = [op if n == 1 else f"{op}\u00d7{n}" for op, n in ordered[:limit]]
    if len(ordered) > limit:
        parts.append(f"+{len(ordered) - limit} more")
    return ", ".join(parts)


def _trip_count_text(inst: Instruction) -> str:
    """A while's known trip count, ``?`` when XLA recorded none (or it cannot be read)."""
    try:
        n = known_trip_count(inst)
    except Exception:  # a malformed backend config must not stop the picture
        n = None
    return "?" if n is None else str(n)


def _control_flow_lines(inst: Instruction) -> list[str]:
    """What a while or conditional runs, by computation name (``--computation`` takes it)."""
    try:
        if inst.opcode == "while":
            return [
                f"body: {_called(inst, 'body')} (\u00d7{_trip_count_text(inst)})",
                f"condition: {_called(inst, 'condition')}",
            ]
        if inst.opcode == "conditional":
            return [f"branch {i}: {c.name}" for i, c in enumerate(inst.called_computations)]
    except Exception:  # tooltips are best effort; the picture must still come out
        pass
    return []


def _called(inst: Instruction, attr: str) -> str:
    value = inst.attrs.get(attr)
    return str(getattr(value, "name", value) or "?")


def _tooltip_text(inst: Instruction, node: str) -> str:
    """The tooltip of a box: the instruction, what it calls, its operands, op_name and source.

    Every line is clipped (:func:`_clip_lines`); the caller clips the whole."""
    lines = [f"{node} = {inst.shape_text} {inst.opcode}"]
    if inst.fusion_kind:
        lines.append(f"kind: {inst.fusion_kind}")
    lines.extend(_control_flow_lines(inst))
    if inst.operands:
        lines.append(
            "operands: "
            + ", ".join(_clip(o.name, _MAX_NAME_CHARS) for o in inst.operands[:8])
            + (" \u2026" if len(inst.operands) > 8 else "")
        )
    try:
        metadata = inst.metadata
        frame = inst.source
    except Exception:  # tooltips are best effort; the picture must still come out
        metadata, frame = None, None
    if metadata is not None and metadata.op_name:
        lines.append(f"op_name: {metadata.op_name}")
    if frame is not None:
        lines.append(f"source: {frame}")
    return _clip_lines("\n".join(lines))


def _legend_label(categories: Sequence[str]) -> str:
    rows = "".join(
        f'<TR><TD BGCOLOR="{CATEGORY_COLORS[c]}" BORDER="1">'
        f"{html_escape(c.replace('_', ' '))}</TD></TR>"
        for c in categories
    )
    return (
        '<<TABLE BORDER="0" CELLSPACING="2" CELLPADDING="3">'
        f"<TR><TD><B>op category</B></TD></TR>{rows}</TABLE>>"
    )


# --- rendering ------------------------------------------------------------------------------------


def render_dot(source: str, fmt: str = "svg", timeout: float = LAYOUT_TIMEOUT_S) -> bytes:
    """Lay out and draw DOT ``source`` with the ``dot`` binary; return the file's bytes.

    ``dot`` is stopped after ``timeout`` seconds and :class:`DotTimeout` raised.
    """
    if fmt not in RENDERED_FORMATS:
        raise GraphFormatError(f"cannot render format {fmt!r}; choose one of {', '.join(FORMATS)}")
    exe = shutil.which("dot")
    if exe is None:
        raise GraphRenderError(
            "the Graphviz 'dot' program is not installed "
            "(apt install graphviz / brew install graphviz); write .dot or .json instead"
        )
    try:
        done = subprocess.run(
            [exe, f"-T{fmt}"],
            input=source.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed dot by now
        raise DotTimeout(
            f"dot took more than {timeout:g} s; draw fewer nodes with --max-nodes or --around"
        ) from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphRenderError(
            "dot failed: " + (message[-1] if message else f"exit status {done.returncode}")
        )
    return done.stdout


def render_selection(
    selection: GraphSelection,
    fmt: str = "svg",
    timeout: float = LAYOUT_TIMEOUT_S,
    plan: LayoutPlan | None = None,
) -> tuple[bytes, LayoutPlan]:
    """Draw ``selection`` as ``plan`` says (default: :func:`plan_layout`); return the bytes and
    the plan drawn.

    The budget is an estimate, so ``dot`` also gets ``timeout`` seconds; when they run out, the
    selection is drawn once more as :func:`simplest_plan` says (a picture that says it was
    simplified beats an error). Only a second timeout raises :class:`DotTimeout`.
    """
    plan = plan_layout(selection) if plan is None else plan
    try:
        return render_dot(to_dot(selection, plan).source, fmt, timeout), plan
    except DotTimeout:
        simplest = simplest_plan(selection, f"dot ran past {timeout:g} s on the usual drawing")
        if replace(simplest, notes=()) == replace(plan, notes=()):
            raise  # already the simplest drawing: another try would time out the same way
        return render_dot(to_dot(selection, simplest).source, fmt, timeout), simplest


def format_for(path: str | Path, fmt: str | None = None) -> str:
    """The output format: ``fmt`` when given (``model-explorer`` = ``json``), else the suffix."""
    if fmt:
        fmt = fmt.lower()
        return "json" if fmt == "model-explorer" else fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix == "gv":
        return "dot"
    if suffix not in FORMATS:
        raise GraphFormatError(
            f"cannot tell the format of {str(path)!r}; end it in .svg, .png, .pdf, .dot or "
            ".json, or pass --format"
        )
    return suffix


def write_selection(
    selection: GraphSelection,
    out: str | Path,
    fmt: str | None = None,
    timeout: float = LAYOUT_TIMEOUT_S,
) -> GraphSelection:
    """Draw ``selection`` (what the caller chose to draw:
    :func:`~hloscope.hlo.graph_selection.select_graph`) and write it to ``out``; return it, its
    ``simplified`` listing what the layout budget drew more simply (see :func:`plan_layout`;
    ``timeout``: see :func:`render_selection`).

    The format comes from ``fmt`` or the suffix of ``out``: ``svg``/``png``/``pdf`` (rendered
    by ``dot``) or ``dot`` (the source); Model Explorer's JSON is :func:`write_explorer`'s.
    """
    fmt = format_for(out, fmt)
    out = Path(out)
    if fmt == "dot":
        plan = plan_layout(selection)
        out.write_text(to_dot(selection, plan).source, encoding="utf-8")
    else:
        data, plan = render_selection(selection, fmt, timeout)
        out.write_bytes(data)
    selection.simplified = list(plan.notes)
    return selection


def write_explorer(module: Module, choice: ExplorerChoice, out: str | Path) -> None:
    """Stream Model Explorer's graph JSON of what ``choice`` holds (the caller's:
    :func:`~hloscope.hlo.explorer_choice.choose_explorer`) to ``out``, fusions as namespaces
    (see :func:`write_model_explorer_json`).

    It goes to ``out.partial`` first and is renamed when complete, so a failure halfway never
    leaves a truncated file under the name asked for.
    """
    from .model_explorer import write_model_explorer_json

    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as stream:
            write_model_explorer_json(stream, module, choice.computation, keep=choice.keep)
        partial.replace(out)
    except KeyError as e:
        raise GraphRenderError(str(e.args[0]) if e.args else str(e)) from None
    finally:
        partial.unlink(missing_ok=True)
