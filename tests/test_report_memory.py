"""The report's memory section (issue 21, point 6): the numbers ``hloscope memory --json`` gives,
where they come from said on the page, the timeline picture checked like every other picture,
names from HLO escaped, and a failure that costs only the section."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hloscope import reporting
from hloscope.cli import cli
from hloscope.render.html.memory_section import MEMORY_SOURCES, MEMORY_TOP, MemorySection
from hloscope.render.html.report import Report
from hloscope.reporting import build_report

ROOT = Path(__file__).parent
DUMP = ROOT / "data" / "generated" / "jax_mlp_train"
TRANSFORMER = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"
EVIL = "<script>alert(1)</script>"
SVG = "{http://www.w3.org/2000/svg}"


def _memory_json(target: Path) -> dict:
    out = CliRunner().invoke(cli, ["memory", str(target), "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def _section_html(html: str) -> str:
    (section,) = re.findall(r'<section id="hs-memory">.*?</section>', html, flags=re.S)
    return section


def _unnamed(buffer: dict) -> str:
    """How a buffer without a source line is grouped: an argument by the first part of its
    path, anything else by its kind, as made by XLA."""
    if buffer["kind"] == "parameter":
        return "argument " + re.split(r"[\[.]", buffer["scope"])[0]
    plural = {"temporary": "temporaries"}.get(buffer["kind"], buffer["kind"] + "s")
    return f"({plural} XLA made: no source line)"


def _assert_same_numbers(section: MemorySection, data: dict) -> None:
    """The section says what ``hloscope memory --json`` says of the same target."""
    assert section.source == data["source"]
    assert section.peak_bytes == data["peak_bytes"]
    assert dict(section.breakdown) == data["breakdown"]
    assert section.peak_index == data["peak_at"]["index"]
    assert section.peak_instruction == data["peak_at"]["instruction"]
    assert section.peak_kernel == data["peak_at"]["kernel"]
    live = data["live_at_peak"]
    assert [b.name for b in section.buffers] == [b["name"] for b in live[:MEMORY_TOP]]
    assert [b.bytes for b in section.buffers] == [b["bytes"] for b in live[:MEMORY_TOP]]
    assert [b.source for b in section.buffers] == [b["source"] for b in live[:MEMORY_TOP]]
    assert section.more == max(len(live) - MEMORY_TOP, 0)
    # The groups by source line add up to the bytes live at the peak.
    by_line: dict[str, int] = {}
    for b in live:
        # A buffer without a source line is named (an argument by its name), not "(unknown)".
        key = b["source"] or _unnamed(b)
        by_line[key] = by_line.get(key, 0) + b["bytes"]
    assert {g.key: g.bytes for g in section.by_source} == dict(
        sorted(by_line.items(), key=lambda kv: -kv[1])[:MEMORY_TOP]
    )
    assert [(s.kind, s.bytes) for s in section.savings] == [
        (s["kind"], s["bytes"]) for s in data["savings"][:MEMORY_TOP]
    ]
    assert section.savings_more == max(len(data["savings"]) - MEMORY_TOP, 0)


@pytest.fixture(scope="module")
def dump_report() -> Report:
    return build_report(str(DUMP), graphs=0)


@pytest.fixture(scope="module")
def hlo_report() -> Report:
    return build_report(str(TRANSFORMER), graphs=0)


def test_dump_with_side_files_gets_xlas_numbers(dump_report: Report):
    section = dump_report.memory
    assert section is not None
    assert "memory" in dump_report.section_names()
    assert section.source == "buffer_assignment" and not section.simulated
    assert section.peak_bytes == 82212  # XLA's "Live ranges at 18 (peak)"
    _assert_same_numbers(section, _memory_json(DUMP))
    html = _section_html(dump_report.to_html())
    assert MEMORY_SOURCES["buffer_assignment"].replace("'", "&#39;") in html
    assert "(simulated)" not in html
    assert "82,212 bytes" in html


def test_hlo_file_is_simulated_and_says_so(hlo_report: Report):
    section = hlo_report.memory
    assert section is not None and section.simulated
    _assert_same_numbers(section, _memory_json(TRANSFORMER))
    html = _section_html(hlo_report.to_html())
    assert 'data-source="simulated"' in html
    assert "peak (simulated)" in html
    assert "live-range simulation" in html


def test_section_is_in_the_navigation_and_the_inline_data(hlo_report: Report):
    html = hlo_report.to_html()
    assert hlo_report.section_names()[:4] == ["summary", "kernels", "source", "memory"]
    assert html.count('<a href="#hs-memory">Memory</a>') == 1
    (data,) = re.findall(r'<script type="application/json" id="hloscope-data">(.*?)</script>', html)
    memory = json.loads(data)["memory"]
    assert memory["source"] == "simulated"
    assert memory["peak_bytes"] == hlo_report.memory.peak_bytes
    assert memory["peak_at"]["index"] == hlo_report.memory.peak_index


def test_timeline_picture_is_checked_svg_marking_the_peak(dump_report: Report):
    svg = str(dump_report.memory.svg)
    assert svg.startswith("<svg") and "<?xml" not in svg
    root = ElementTree.fromstring(svg)
    assert root.find(f"{SVG}polyline") is not None
    assert root.find(f"{SVG}circle[@class='peak']") is not None
    assert svg in _section_html(dump_report.to_html())


def test_buffers_link_to_the_kernels_that_made_them(hlo_report: Report):
    html = _section_html(hlo_report.to_html())
    index = hlo_report.kernel_index()
    linked = [b for b in hlo_report.memory.buffers if b.producer in index]
    assert linked
    for b in linked:
        assert f'href="#hs-k{index[b.producer]}"><code>{b.producer}</code>' in html


def test_hostile_names_are_escaped(tmp_path: Path):
    text = TRANSFORMER.read_text()
    text = text.replace('op_name="jit(train_step)/', f'op_name="{EVIL}jit(train_step)/')
    text = text.replace('1 "samples/transformer_train.py"', f'1 "{EVIL}.py"', 1)
    assert EVIL in text
    path = tmp_path / "evil.after_optimizations.txt"
    path.write_text(text)
    report = build_report(str(path), graphs=0)
    assert report.memory is not None
    assert any(EVIL in b.scope for b in report.memory.buffers)  # the name reached the section
    html = _section_html(report.to_html())
    assert EVIL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_failing_memory_section_is_a_note(monkeypatch):
    def broken(origin):
        raise RuntimeError("no memory")

    monkeypatch.setattr(reporting._sections, "memory", broken)
    report = build_report(str(TRANSFORMER), graphs=0)
    assert report.memory is None
    assert "memory" not in report.section_names()
    assert "memory left out: RuntimeError: no memory" in report.notes
    assert 'id="hs-memory"' not in report.to_html()


def test_a_module_without_a_target_is_simulated():
    import hloscope

    report = build_report(hloscope.parse(TRANSFORMER), graphs=0)
    assert report.memory is not None and report.memory.simulated
    assert report.memory.peak_bytes == _memory_json(TRANSFORMER)["peak_bytes"]


def test_long_lists_are_cut_and_say_how_many_more():
    from hloscope.analysis.memory import LiveBuffer, MemoryResult, Saving
    from hloscope.render.html.memory_section import memory_section

    buffers = [
        LiveBuffer(f"b{i}", "f32[4]", 16 - i, "temporary", f"b{i}", "", "") for i in range(5)
    ]
    savings = [Saving("donate", f"parameter {i}", 16, "donate it") for i in range(4)]
    result = MemoryResult(
        "m",
        "simulated",
        70,
        {"temporaries": 70},
        {"index": 1, "instruction": "b0", "kernel": None},
        buffers,
        [(0, 0), (1, 70), (2, 0)],
        savings,
    )
    section = memory_section(result, top=2)
    assert [b.name for b in section.buffers] == ["b0", "b1"] and section.more == 3
    assert len(section.savings) == 2 and section.savings_more == 2
