"""Graph pictures (hloscope.render.graphviz), Model Explorer JSON and ``hloscope graph``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import graphviz
import networkx as nx
import pytest
from click.testing import CliRunner
from svg_files import SVG, needs_dot, svg_root, svg_texts, svg_tooltips  # noqa: E402
from test_graph import SMALL  # noqa: E402  (the same small module: nested fusion, repeated operands)

import hloscope
from hloscope.cli import cli
from hloscope.cli.graph import write_graph
from hloscope.hlo.explorer_choice import ExplorerChoice, choose_explorer
from hloscope.hlo.graph import FUSION_SEP, module_graph
from hloscope.hlo.graph_selection import GraphOptions, select_graph
from hloscope.render import graphviz as gv
from hloscope.render.graphviz import (
    GraphRenderError,
    dot_escape,
    dot_tooltip,
    html_escape,
    render_dot,
    to_dot,
)
from hloscope.render.model_explorer import model_explorer_collection

# Strings XLA would print C-escaped inside HLO text (instruction names cannot hold these).
NASTY_OP_NAME = 'jit(f)/"q"<lt>{br}|pipe\\back\nline &amp; \\N'
NASTY_TARGET = 'we"ird<>{}|\\x\n2'


def c_escape(text: str) -> str:
    from hloscope.hlo.escapes import c_escape as escape

    return escape(text)


NASTY_MODULE = f"""\
HloModule nasty

ENTRY main {{
  a = f32[2]{{0}} parameter(0), \
metadata={{op_name="{c_escape(NASTY_OP_NAME)}" source_file="/src/we\\"ird <dir>/m{{1}}.py" \
source_line=3}}
  c = f32[2]{{0}} custom-call(a), custom_call_target="{c_escape(NASTY_TARGET)}", \
metadata={{op_name="{c_escape(NASTY_OP_NAME)}"}}
  ROOT n = f32[2]{{0}} negate(c)
}}
"""


@pytest.fixture(scope="module")
def small() -> hloscope.Module:
    return hloscope.parse(SMALL)


# --- escaping -------------------------------------------------------------------------------------

NASTY_STRINGS = [
    '"<>{}|\\',
    "two\nlines",
    "\\N \\G \\E \\T \\H \\L \\l \\n",
    "ends with a backslash\\",
    'a\\\\b\\"q',
    "<b>looks like html</b>",
    "&amp; &#92; & ]]>",
    "{record|fields}",
    "it's \u00e9 \u65e5\u672c",
    "node",
    "edge -> graph",
    "%3 \\ %",
]
CONTROL_STRINGS = {
    "\x01ctl\x7f": "\\x01ctl\\x7f",
    "lone \ud800 surrogate": "lone \\ud800 surrogate",
    "tab\there": "tab\\there",
}


def nasty_digraph(strings: list[str]) -> graphviz.Digraph:
    dot = graphviz.Digraph()
    for i, text in enumerate(strings):
        dot.node(f"p{i}", label=dot_escape(text), tooltip=dot_tooltip(text))
        dot.node(f"h{i}", label="<" + html_escape(text) + ">", tooltip=dot_tooltip(text))
        dot.edge(f"p{i}", f"h{i}", label=dot_escape(text), tooltip=dot_tooltip(text))
        with dot.subgraph(name=f"cluster_{i}") as sub:
            sub.attr(label=dot_escape(text), tooltip=dot_tooltip(text))
            sub.node(f"c{i}", label="<" + html_escape(text) + ">")
    return dot


@needs_dot
def test_escaped_strings_render_verbatim_in_labels_html_labels_edges_and_tooltips():
    expected = NASTY_STRINGS + list(CONTROL_STRINGS.values())
    root = svg_root(render_dot(nasty_digraph(NASTY_STRINGS + list(CONTROL_STRINGS)).source, "svg"))
    seen = 0
    for group in root.iter(SVG + "g"):
        kind = group.get("class")
        if kind not in ("node", "edge", "cluster"):
            continue
        title = group.find(SVG + "title").text
        index = int(title.split("->")[0].split("_")[-1].lstrip("phc"))
        want = expected[index]
        # Graphviz writes one <text> per line of a label.
        assert "\n".join(svg_texts(group)) == want, (title, want)
        for tooltip in svg_tooltips(group):
            assert tooltip == want, (title, want)
        seen += 1
    assert seen == 5 * len(expected)  # three nodes, an edge and a cluster per string


def test_escape_functions_neutralise_dot_syntax():
    for text in NASTY_STRINGS:
        for escaped in (dot_escape(text), dot_tooltip(text)):
            assert isinstance(escaped, graphviz.quoting.NoHtml)  # never taken for an HTML label
            assert "\n" not in escaped
            # every quote is escaped: no bare " can end the DOT string early
            stripped = escaped.replace("\\\\", "")
            assert '"' not in stripped.replace('\\"', "")
        html = html_escape(text).replace("<BR/>", "")
        assert not any(ch in html for ch in "<>\"'"), html
    assert html_escape("a\nb") == "a<BR/>b"
    assert dot_escape("x\x00y") == "x\\\\x00y"


@needs_dot
def test_module_with_nasty_op_names_and_custom_call_targets_renders(tmp_path):
    module = hloscope.parse(NASTY_MODULE)
    custom = module.entry.instruction("c")
    assert custom.attrs["custom_call_target"] == NASTY_TARGET  # the parser decoded the C escapes
    assert custom.metadata.op_name == NASTY_OP_NAME

    out = tmp_path / "nasty.svg"
    write_graph(module, GraphOptions(), out)
    root = svg_root(out.read_bytes())
    texts = "\n".join(svg_texts(root))
    assert "custom-call \u00b7 " + NASTY_TARGET in texts
    tooltips = svg_tooltips(root)
    assert any(f"op_name: {NASTY_OP_NAME}" in t for t in tooltips)
    assert any('source: /src/we"ird <dir>/m{1}.py:3' in t for t in tooltips)

    # The DOT text and Model Explorer JSON of the same module.
    write_graph(module, GraphOptions(), tmp_path / "nasty.dot")
    done = subprocess.run(
        ["dot", "-Tsvg"], input=(tmp_path / "nasty.dot").read_bytes(), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    svg_root(done.stdout)
    write_graph(module, GraphOptions(), tmp_path / "nasty.json")
    collection = json.loads((tmp_path / "nasty.json").read_text(encoding="utf-8"))
    attrs = {a["key"]: a["value"] for a in collection["graphs"][0]["nodes"][1]["attrs"]}
    assert attrs["op_name"] == NASTY_OP_NAME


# --- what is drawn --------------------------------------------------------------------------------


def test_collapsed_fusion_is_one_node_with_kind_and_fused_ops(small):
    selection = select_graph(small, GraphOptions())
    assert selection.nodes == ["x", "y", "twice", "fused", "sub", "out"]
    assert selection.hidden == 0
    source = to_dot(selection).source
    assert "subgraph cluster" not in source
    assert "fusion · kOutput" in source
    assert "fusion, multiply×2" in source  # what the fusion computes, heavy ops first
    assert "legend" in source and "note" not in source


def test_expanded_fusions_are_nested_clusters(small):
    selection = select_graph(small, GraphOptions(expand_fusions=True))
    dot = to_dot(selection).source
    assert dot.count("subgraph cluster_") == 2
    # fused/f_in/neg sits in the cluster of f_in, inside the cluster of fused
    outer = dot.index("<B>fused</B>")
    inner = dot.index("<B>f_in</B>", outer)
    assert outer < inner < dot.index("<B>neg</B>", inner)
    assert "kLoop" in dot and "kOutput" in dot


def test_fusion_option_opens_one_fusion_with_its_neighbours(small):
    selection = select_graph(small, GraphOptions(fusion="fused"))
    assert set(selection.nodes) == {
        "fused/mul",
        "fused/sq",
        "fused/f_in/neg",
        "twice",
        "y",
        "sub",
        "out",
    }
    # The fused computation's name finds its fusion too.
    assert set(select_graph(small, GraphOptions(fusion="outer")).nodes) == set(selection.nodes)
    with pytest.raises(GraphRenderError, match="not a fusion"):
        select_graph(small, GraphOptions(fusion="twice"))
    with pytest.raises(GraphRenderError, match="did you mean fused"):
        select_graph(small, GraphOptions(fusion="fusd"))


def test_around_and_depth(small):
    assert select_graph(small, GraphOptions(around="sub", depth=1)).nodes == [
        "sub",
        "y",
        "fused",
        "out",
    ]
    assert select_graph(small, GraphOptions(around="sub", depth=0)).nodes == ["sub"]
    with pytest.raises(GraphRenderError, match="did you mean twice"):
        select_graph(small, GraphOptions(around="twic"))
    with pytest.raises(GraphRenderError, match="no computation named 'nope'"):
        select_graph(small, GraphOptions(computation="nope"))


@pytest.fixture(scope="module")
def mobilenet(corpus) -> hloscope.Module:
    (path,) = (corpus / "generated" / "tf_keras_mobilenet_train").glob(
        "module_*.a_inference_train_step_*__.*.cpu_after_optimizations.txt"
    )
    return hloscope.parse(path)


def test_big_graph_is_cut_to_a_neighbourhood_with_a_note(mobilenet):
    selection = select_graph(mobilenet, GraphOptions(max_nodes=80))
    total = len(mobilenet.entry.instructions)
    assert len(selection.nodes) == 80 and selection.hidden == total - 80
    center = selection.centers[0]
    assert selection.nodes[0] == center and mobilenet.entry.instruction(center).opcode == "fusion"
    source = to_dot(selection).source
    assert f"{total - 80} of {total} nodes not shown" in source
    assert "dashed" in source  # boxes whose neighbours were cut

    around = select_graph(mobilenet, GraphOptions(around=center, depth=2, max_nodes=10_000))
    undirected = selection.graph.to_undirected(as_view=True)
    distances = nx.single_source_shortest_path_length(undirected, center, cutoff=2)
    assert set(around.nodes) == set(distances)


@needs_dot
@pytest.mark.parametrize(
    "case",
    [
        "jax_mlp_train",
        "jax_control_flow",
        "jax_transformer_train",
        "flax_cnn_train",
        "jax_linalg_custom_calls",
        "tf_keras_resnet50",
        "tf_keras_mobilenet_train",
    ],
)
def test_corpus_pictures_render(corpus, case, tmp_path):
    paths = sorted((corpus / "generated" / case).glob("module_*cpu_after_optimizations.txt"))
    module = max(
        (m for p in paths for m in hloscope.parse_modules(p)),
        key=lambda m: len(list(m.instructions())),
    )
    for options, name in (
        (GraphOptions(), "collapsed"),
        (GraphOptions(expand_fusions=True), "expanded"),
    ):
        out = tmp_path / f"{name}.svg"
        selection = write_graph(module, options, out)
        root = svg_root(out.read_bytes())
        nodes = [g for g in root.iter(SVG + "g") if g.get("class") == "node"]
        # A big picture may draw a much-read operand once per user as small dotted stubs (the
        # note says so); a stub's id joins the ids of the operand and its user (n12_n34), and an
        # operand whose every user got a stub is drawn only as stubs.
        titles = [g.findtext(SVG + "title") or "" for g in nodes]
        stubs = [t for t in titles if re.fullmatch(r"n\d+_n\d+", t)]
        assert bool(stubs) == any("once per user" in line for line in selection.simplified)
        drawn = {t for t in titles if re.fullmatch(r"n\d+", t)} | {t.split("_")[0] for t in stubs}
        assert len(drawn) == len(selection.nodes)
        # The legend, and the note when something is cut or drawn more simply.
        extra = {"legend"} | ({"note"} if selection.hidden > 0 or selection.simplified else set())
        assert set(titles) - drawn - set(stubs) == extra
        if selection.hidden:
            assert any(
                f"{selection.hidden} of {len(selection.graph)} nodes not shown" in t
                for t in svg_texts(root)
            )
        # One cluster per expanded fusion with a node shown (and per fusion enclosing one).
        paths = {selection.graph.nodes[n]["fusion"] for n in selection.nodes} - {None}
        expected = {
            FUSION_SEP.join(p.split(FUSION_SEP)[:k])
            for p in paths
            for k in range(1, p.count(FUSION_SEP) + 2)
        }
        clusters = [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]
        assert len(clusters) == len(expected)
        assert bool(clusters) == options.expand_fusions


@needs_dot
def test_png_and_pdf(small, tmp_path):
    write_graph(small, GraphOptions(), tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")
    write_graph(small, GraphOptions(), tmp_path / "g.pdf")
    assert (tmp_path / "g.pdf").read_bytes().startswith(b"%PDF")


def test_missing_dot_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(gv.shutil, "which", lambda name: None)
    with pytest.raises(GraphRenderError, match="'dot' program is not installed"):
        render_dot("digraph { a }", "svg")


def test_format_from_suffix_or_option():
    assert gv.format_for("a/b.SVG") == "svg"
    assert gv.format_for("g.gv") == "dot"
    assert gv.format_for("g.txt", "model-explorer") == "json"
    with pytest.raises(GraphRenderError, match="cannot tell the format"):
        gv.format_for("g.txt")


# --- Model Explorer JSON --------------------------------------------------------------------------


def test_model_explorer_json_of_small_module(small):
    collection = model_explorer_collection(small)
    assert json.loads(json.dumps(collection)) == collection
    (graph,) = collection["graphs"]
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert set(nodes) == {
        "x",
        "y",
        "twice",
        "sub",
        "out",
        "fused/mul",
        "fused/sq",
        "fused/f_in/neg",
    }
    assert nodes["fused/f_in/neg"]["namespace"] == "fused/f_in"
    assert nodes["fused/mul"]["namespace"] == "fused" and nodes["sub"]["namespace"] == ""
    assert nodes["twice"]["incomingEdges"] == [
        {"sourceNodeId": "x", "sourceNodeOutputId": "0", "targetNodeInputId": "0"},
        {"sourceNodeId": "x", "sourceNodeOutputId": "0", "targetNodeInputId": "1"},
    ]
    assert [e["sourceNodeId"] for e in nodes["fused/mul"]["incomingEdges"]] == ["y", "twice"]
    assert nodes["sub"]["outputsMetadata"][0]["attrs"][0] == {
        "key": "tensor_shape",
        "value": "f32[4]{0}",
    }
    attrs = {a["key"]: a["value"] for a in nodes["twice"]["attrs"]}
    assert attrs["source"] == "/src/model.py:9" and attrs["op_name"] == "jit(f)/add"
    assert graph["groupNodeAttributes"]["fused"]["kind"] == "kOutput"
    assert graph["groupNodeAttributes"]["fused/f_in"]["fused_computation"] == "inner"


def check_model_explorer_graph(module: hloscope.Module, graph: dict) -> None:
    comp = module.computation(graph["id"])
    ids = {n["id"] for n in graph["nodes"]}
    assert len(ids) == len(graph["nodes"])
    # Every instruction of the computation is a node, or (a fusion) a namespace of nodes.
    namespaces = {n["namespace"] for n in graph["nodes"]}
    for inst in comp.instructions:
        if inst.opcode == "fusion":
            assert inst.name in namespaces, inst.name
        else:
            assert inst.name in ids, inst.name
    expected = module_graph(module, comp, expand_fusions=True)
    assert ids == set(expected.nodes)
    for node in graph["nodes"]:
        for edge in node["incomingEdges"]:
            assert edge["sourceNodeId"] in ids
            index = int(edge["targetNodeInputId"])
            assert index in expected.edges[edge["sourceNodeId"], node["id"]]["indices"]
        operands = len(expected.nodes[node["id"]]["instruction"].operands)
        assert len(node["incomingEdges"]) == operands


def test_model_explorer_json_of_corpus_modules(corpus, mobilenet, tmp_path):
    write_graph(mobilenet, GraphOptions(), tmp_path / "mobilenet.json")
    collection = json.loads((tmp_path / "mobilenet.json").read_text(encoding="utf-8"))
    assert collection["graphs"][0]["id"] == mobilenet.entry.name
    check_model_explorer_graph(mobilenet, collection["graphs"][0])

    # A module without fusions: exactly one node per instruction; while bodies become subgraphs.
    (path,) = (corpus / "generated" / "jax_control_flow").glob(
        "module_*jit_loops.before_optimizations.txt"
    )
    module = hloscope.parse(path)
    collection = model_explorer_collection(module)
    main = collection["graphs"][0]
    assert [n["id"] for n in main["nodes"]] == [i.name for i in module.entry.instructions]
    graph_ids = {g["id"] for g in collection["graphs"]}
    linked = {s for n in main["nodes"] for s in n["subgraphIds"]}
    assert linked and linked <= graph_ids
    for graph in collection["graphs"]:
        check_model_explorer_graph(module, graph)


def test_model_explorer_around(small):
    chosen = choose_explorer(small, GraphOptions(around="sub", depth=1))
    assert chosen == ExplorerChoice(None, frozenset({"sub", "y", "fused/sq", "out"}))
    collection = model_explorer_collection(small, keep=chosen.keep)
    nodes = {n["id"]: n for n in collection["graphs"][0]["nodes"]}
    assert set(nodes) == {"sub", "y", "fused/sq", "out"}
    assert nodes["out"]["incomingEdges"] == [
        {"sourceNodeId": "sub", "sourceNodeOutputId": "0", "targetNodeInputId": "0"},
        {"sourceNodeId": "fused/sq", "sourceNodeOutputId": "0", "targetNodeInputId": "1"},
    ]
    with pytest.raises(GraphRenderError, match="no instruction named 'missing'"):
        choose_explorer(small, GraphOptions(around="missing"))
    # A fusion's name keeps every op inside it; the depth defaults to 3 hops.
    inside = choose_explorer(small, GraphOptions(around="fused", depth=0)).keep
    assert inside is not None and inside == {n for n in inside if n.startswith("fused/")}
    by_default = choose_explorer(small, GraphOptions(around="sub"))
    assert by_default == choose_explorer(small, GraphOptions(around="sub", depth=3))
    # --fusion: the computation holding it (nothing is cut without --around).
    assert choose_explorer(small, GraphOptions(fusion="fused")) == ExplorerChoice("main")


# --- the command line -----------------------------------------------------------------------------


@pytest.fixture()
def small_file(tmp_path) -> Path:
    path = tmp_path / "small.hlo"
    path.write_text(SMALL)
    return path


@needs_dot
def test_cli_graph_writes_svg_dot_and_json(small_file, tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["graph", str(small_file), "-o", str(tmp_path / "g.svg")])
    assert result.exit_code == 0, result.output
    assert "6 of 6 nodes of main" in result.output
    svg_root((tmp_path / "g.svg").read_bytes())

    result = runner.invoke(
        cli, ["graph", str(small_file), "--expand-fusions", "-o", str(tmp_path / "g.dot")]
    )
    assert result.exit_code == 0, result.output
    assert "subgraph cluster_" in (tmp_path / "g.dot").read_text()

    result = runner.invoke(
        cli,
        [
            "graph",
            str(small_file),
            "--fusion",
            "fused",
            "--format",
            "model-explorer",
            "-o",
            str(tmp_path / "g.out"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "g.out").read_text())["graphs"][0]["id"] == "main"

    result = runner.invoke(
        cli,
        [
            "graph",
            str(small_file),
            "--around",
            "sub",
            "--depth",
            "1",
            "--max-nodes",
            "3",
            "-o",
            str(tmp_path / "a.svg"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "3 of 6 nodes" in result.output and "not shown" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--around", "nope"], "no instruction named 'nope'"),
        (["--computation", "nope"], "no computation named 'nope'"),
        (["--fusion", "sub"], "sub is a subtract, not a fusion"),
        (["--module", "other"], "no module named 'other'"),
    ],
)
def test_cli_graph_errors_are_one_line(small_file, tmp_path, args, message):
    result = CliRunner().invoke(
        cli, ["graph", str(small_file), *args, "-o", str(tmp_path / "g.dot")]
    )
    assert result.exit_code == 2  # a name that matches nothing: a usage error
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_cli_graph_bad_target_and_output(tmp_path, small_file):
    runner = CliRunner()
    result = runner.invoke(
        cli, ["graph", str(tmp_path / "missing.hlo"), "-o", str(tmp_path / "g.svg")]
    )
    assert result.exit_code == 2 and "no such file" in result.output
    result = runner.invoke(cli, ["graph", str(small_file), "-o", str(tmp_path / "g.txt")])
    assert result.exit_code == 2 and "cannot tell the format" in result.output
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY main {\n  ROOT x = f32[] frobnicate(\n}\n")
    result = runner.invoke(cli, ["graph", str(bad), "-o", str(tmp_path / "g.dot")])
    assert result.exit_code != 0 and f"{bad}:" in result.output and "Traceback" not in result.output


def test_dash_output_writes_the_graph_to_stdout(tmp_path, monkeypatch):
    """``-o -`` is stdout, as for other tools, never a file named '-'; the same bytes as a file."""
    monkeypatch.chdir(tmp_path)
    sample = str(
        Path(__file__).resolve().parents[1] / "samples/hlo/keras_cnn.after_optimizations.txt"
    )
    piped = CliRunner().invoke(cli, ["graph", "--format", "json", "-o", "-", sample])
    assert piped.exit_code == 0, piped.output
    assert not (tmp_path / "-").exists()
    written = CliRunner().invoke(cli, ["graph", "-o", "g.json", sample])
    assert written.exit_code == 0
    assert json.loads(piped.stdout) == json.loads((tmp_path / "g.json").read_text())
    assert "wrote stdout" in piped.stderr
    unknown = CliRunner().invoke(cli, ["graph", "-o", "-", sample])
    assert unknown.exit_code == 2 and "needs --format" in unknown.output
