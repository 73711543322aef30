"""hloscope memory -o memory.svg: the timeline picture, peak marked, every name escaped."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from click.testing import CliRunner

from hloscope.analysis.memory import LiveBuffer, MemoryResult
from hloscope.cli import cli
from hloscope.render.memory_svg import render_memory_svg

ROOT = Path(__file__).parent
SVG = "{http://www.w3.org/2000/svg}"


def test_picture_is_written_and_marks_the_peak_while_the_text_keeps_its_sparkline(tmp_path):
    picture = tmp_path / "memory.svg"
    folder = ROOT / "data" / "generated" / "jax_mlp_train"
    out = CliRunner().invoke(cli, ["memory", str(folder), "-o", str(picture)])
    assert out.exit_code == 0, out.output
    assert "^ peak" in out.stdout
    tree = ElementTree.parse(picture).getroot()
    assert tree.tag == f"{SVG}svg"
    assert tree.find(f"{SVG}polyline") is not None
    assert tree.find(f"{SVG}circle[@class='peak']") is not None
    texts = " ".join(t.text or "" for t in tree.iter(f"{SVG}text"))
    assert "peak" in texts and "at 18" in texts


def test_names_are_escaped():
    result = MemoryResult(
        module='m<&>"x',
        source="simulated",
        peak_bytes=100,
        breakdown={},
        peak_at={"index": 1, "instruction": "a<b>&c", "kernel": None},
        live_at_peak=[LiveBuffer("a<b>&c", "f32[]", 100, "temporary", "a<b>&c", "", "")],
        timeline=[(0, 10), (1, 100), (2, 0)],
    )
    text = render_memory_svg(result)
    root = ElementTree.fromstring(text)  # raises if anything was left unescaped
    assert "a<b>&c" in " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "<b>" not in text


def test_a_picture_that_is_not_svg_is_refused(tmp_path):
    folder = ROOT / "data" / "generated" / "jax_mlp_train"
    out = CliRunner().invoke(cli, ["memory", str(folder), "-o", str(tmp_path / "m.png")])
    assert out.exit_code != 0
    assert "SVG" in out.output
