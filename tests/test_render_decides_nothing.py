"""The renderers take data and decide nothing: what a graph shows (a picture's selection, Model
Explorer's computation and neighbourhood), which fixes an out-of-memory report gets and which
note a profile says first are decided below them (the hlo and analysis layers) or by their
caller, and the renderer says what it is handed.

Checked twice: by reading the source (no module of ``hloscope/render`` imports a function that
decides), and by handing a renderer data it could not have decided itself and seeing it said.
"""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

from test_graph import SMALL  # noqa: E402  (a small module: nested fusions, repeated operands)

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.memory.oom_log import FixKind, OomFix, oom_fixes
from hloscope.hlo.graph_selection import GraphOptions, select_graph
from hloscope.hlo.parser import parse
from hloscope.render.graphviz import write_selection

RENDER = Path(__file__).resolve().parent.parent / "hloscope" / "render"

#: Functions that decide what is shown: the part of a graph drawn, the computation Model
#: Explorer's JSON is of and the neighbourhood it keeps, an out-of-memory report's fixes, a
#: profile's host-bound note, a fusion report's notes.
DECIDERS = {
    "select_graph",
    "choose_explorer",
    "neighbourhood",
    "find_fusion",
    "loop_body_name",
    "oom_fixes",
    "host_bound_note",
    "summary_notes",
}


def _imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_no_renderer_imports_a_function_that_decides():
    found = {
        f"{path.relative_to(RENDER)}: {name}"
        for path in RENDER.rglob("*.py")
        for name in _imported_names(path) & DECIDERS
    }
    assert not found, sorted(found)


def test_the_graph_drawn_is_the_selection_the_caller_chose(tmp_path):
    module = parse(SMALL)
    # The caller chose one instruction: the renderer draws it and nothing of the rest.
    chosen = select_graph(module, GraphOptions(around="sub", depth=0))
    drawn = write_selection(chosen, tmp_path / "g.dot")
    assert drawn is chosen and drawn.nodes == ["sub"]
    assert _boxes(tmp_path / "g.dot") == 1
    assert "5 of 6 nodes not shown" in (tmp_path / "g.dot").read_text()
    # The same module, another choice: another picture, from the same renderer.
    wider = write_selection(select_graph(module, GraphOptions()), tmp_path / "all.dot")
    assert _boxes(tmp_path / "all.dot") == len(wider.nodes) == 6


def _boxes(path: Path) -> int:
    """The instruction boxes of a DOT file (its nodes ``n0``, ``n1``...)."""
    return len(re.findall(r"^\s*n\d+ \[", path.read_text(), re.MULTILINE))


#: XLA:TPU's out-of-memory report as torch_xla raises it: its fixes are said in PyTorch/XLA's
#: terms, which only the analysis that read the log knows.
TORCH_OOM = (
    "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent "
    "error. Ran out of memory in memory space hbm. Used 17.00G of 15.48G hbm. Exceeded hbm "
    "capacity by 1.52G.\n\n  Largest program allocations in hbm:\n\n"
    "  1. Size: 4.00G\n"
    '     Operator: op_name="jvp(forward)/mul" source_file="/home/u/m.py" source_line=9\n'
    "     Shape: f32[1024,1048576]{1,0:T(8,128)}\n"
    "     Allocation type: HLO temp\n     ==========================\n"
)


def _said(explanation) -> str:
    from rich.console import Console

    from hloscope.render.explain_error_text import render_explanation

    out = io.StringIO()
    render_explanation(explanation, Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_an_out_of_memory_failure_carries_its_fixes_and_the_text_says_them():
    explanation = explain_error(TORCH_OOM)
    (failure,) = explanation.failures
    report = failure.memory
    assert report is not None and report.framework == "torch_xla"
    # Decided where the log was read, in the framework's terms, and in the JSON as they are.
    assert report.fixes == oom_fixes(report) and report.fixes
    assert any("torch_xla.utils.checkpoint" in fix.fix for fix in report.fixes)
    assert failure.to_dict()["memory"]["fixes"] == [fix.to_dict() for fix in report.fixes]
    text = _said(explanation)
    assert "torch_xla.utils.checkpoint" in text
    # The text says the fixes the failure carries, whatever they are.
    report.fixes = [OomFix(FixKind.SMALLER_BATCH, "the batch", 3 << 30, "halve the batch")]
    text = _said(explanation)
    assert "halve the batch (at least 3.0 GiB must go)" in text
    assert "torch_xla.utils.checkpoint" not in text.split("what to do")[1]


def test_a_host_bound_profile_carries_its_note_and_the_text_says_it_once(tmp_path):
    import profile_traces as traces
    from rich.console import Console

    from hloscope.analysis.op_profile import op_profile, read_trace
    from hloscope.capture.target import Target
    from hloscope.render.profile_text import render_profile

    case = "elementwise"
    traces.write(traces.host_bound(case, 5_000.0), tmp_path)
    module = Target.resolve(str(traces.TPU / case / "dump")).choose_module("after", None).module
    profile = op_profile(read_trace(tmp_path), module)
    assert "question is the host" in profile.host_note and profile.notes[0] == profile.host_note

    def said() -> str:
        out = io.StringIO()
        render_profile(profile, Console(file=out, width=200, color_system=None))
        return " ".join(out.getvalue().split())

    text = said()
    assert text.count("question is the host") == 1
    assert text.index("per step wall") < text.index("question is the host")
    # What the profile carries is what is said: another note under the steps, said once.
    profile.host_note = profile.notes[0] = "the chip waits on the host"
    text = said()
    assert "question is the host" not in text and text.count("the chip waits on the host") == 1


def test_model_explorers_json_holds_the_nodes_the_caller_kept():
    from hloscope.hlo.explorer_choice import choose_explorer
    from hloscope.render.model_explorer import model_explorer_collection

    module = parse(SMALL)
    chosen = choose_explorer(module, GraphOptions(around="sub", depth=0)).keep
    assert chosen == {"sub"}
    (graph,) = model_explorer_collection(module, keep=chosen)["graphs"]
    assert [node["id"] for node in graph["nodes"]] == ["sub"]
    # Any set the caller hands it, chosen by no rule of the writer's.
    (graph,) = model_explorer_collection(module, keep={"x", "y"})["graphs"]
    assert sorted(node["id"] for node in graph["nodes"]) == ["x", "y"]


def test_a_fusion_reports_notebook_view_says_the_notes_it_is_handed():
    import html

    import hloscope
    from hloscope.analysis.fusion_notes import summary_notes
    from hloscope.render.html.notebook import fusion_report_html

    sample = (
        RENDER.parent.parent / "samples" / "hlo" / "fusion_refactor_split.after_optimizations.txt"
    )
    report = hloscope.fusion_report(str(sample))
    decided = summary_notes(report.summary)
    assert decided  # the sample leaves an elementwise op unfused
    shown = html.unescape(report._repr_html_())
    assert all(note in shown for note in decided)
    mine = html.unescape(fusion_report_html(report, ["a note the caller chose"]))
    assert "a note the caller chose" in mine and decided[0] not in mine


def test_a_reports_summary_says_the_notes_the_report_was_handed(tmp_path):
    import html

    from test_report_hints import UNFUSED  # four elementwise ops left unfused, in two chains

    from hloscope.analysis.report_hints import HintKind
    from hloscope.reporting import build_report

    sample = tmp_path / "unfused.txt"
    sample.write_text(UNFUSED)
    report = build_report(str(sample), graphs=0)
    every = report.fusion_summary["notes"]
    # Decided where the report is gathered: the unfused elementwise ops are a hint of their
    # own, so the summary's first note (the same ops) is not said twice.
    assert HintKind.UNFUSED_CHAIN in {h.kind for h in report.hints}
    assert report.summary_notes == every[1:]
    body = html.unescape(report.to_html())
    assert every[0] not in body.split('id="hloscope-data"')[0]
    # The page says what it is handed, and nothing of its own choosing.
    report.summary_notes = ["a note the caller chose", every[0]]
    body = html.unescape(report.to_html()).split('id="hloscope-data"')[0]
    assert "a note the caller chose" in body and every[0] in body
    assert all(note not in body for note in every[1:] if note != every[0])
