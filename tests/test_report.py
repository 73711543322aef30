"""The HTML report (``hloscope report``, :mod:`hloscope.render.html`) and the Jupyter views.

Read as text and parsed with the standard library's HTML parser: which sections the page has,
that it needs nothing from the network (no URL in any ``src``/``href``, no external style or
script, a Content-Security-Policy that allows only the page's own script), that names from HLO
metadata are escaped everywhere (text, attributes, inline JSON, SVG), and that the MobileNetV2
train step's report stays under 10 MB. What a browser makes of the page is
tests/test_report_browser.py's.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DOT_INSTALL, SAMPLES, have_dot, require_program
from markupsafe import escape as escape_html

import hloscope
from hloscope import reporting
from hloscope.cli import cli
from hloscope.render.html import escape, page, sections
from hloscope.render.html.escape import UnsafeSvgError, clean_svg, json_for_script
from hloscope.render.html.report import REPORT_SCHEMA, Report
from hloscope.reporting import build_report

HLO = SAMPLES / "hlo"
TRANSFORMER = HLO / "transformer_train.after_optimizations.txt"
SPLIT = HLO / "fusion_refactor_split.after_optimizations.txt"
FUSED = HLO / "fusion_refactor_fused.after_optimizations.txt"
EVIL = "<script>alert(1)</script>"
MOBILENET = "generated/tf_keras_mobilenet_train"
MAX_REPORT_BYTES = 10 * 1000 * 1000

TWO_COMPILES = """HloModule jit_f

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

// -----

HloModule jit_f

ENTRY main {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
"""


# ---- reading a page back --------------------------------------------------------------------


class Page(HTMLParser):
    """Every start tag with its attributes, the text of each ``<script>`` and ``<style>``, and
    the ids of the elements."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self._raw: tuple[str, dict[str, str | None]] | None = None
        self._buffer: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag in ("script", "style"):
            self._raw, self._buffer = (tag, attributes), []

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        if self._raw is not None:
            self._buffer.append(data)

    def handle_endtag(self, tag):
        if self._raw is not None and tag == self._raw[0]:
            text = "".join(self._buffer)
            if tag == "script":
                self.scripts.append((self._raw[1], text))
            else:
                self.styles.append(text)
            self._raw = None

    @property
    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if a.get("id")}

    def count(self, tag: str, **attrs: str) -> int:
        return sum(
            1 for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())
        )


@pytest.fixture(scope="module")
def transformer() -> Report:
    return build_report(str(TRANSFORMER))


@pytest.fixture(scope="module")
def transformer_html(transformer: Report) -> str:
    return transformer.to_html()


@pytest.fixture(scope="module")
def evil_hlo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The transformer sample with ``<script>alert(1)</script>`` in an op_name and in the name
    of its source file (both are free-form strings in HLO metadata)."""
    text = TRANSFORMER.read_text()
    text = text.replace('1 "samples/transformer_train.py"', f'1 "{EVIL}.py"', 1)
    text = text.replace('op_name="jit(train_step)/', f'op_name="{EVIL}jit(train_step)/')
    assert EVIL in text
    path = tmp_path_factory.mktemp("evil") / "evil.after_optimizations.txt"
    path.write_text(text)
    return path


# ---- structure ------------------------------------------------------------------------------


def test_report_has_every_section_that_applies(transformer: Report, transformer_html: str):
    parsed = Page(transformer_html)
    assert transformer_html.startswith("<!doctype html>")
    # The sample's 64-wide layers leave the TPU's 128x128 MXU half idle: that section applies.
    # The graphs need Graphviz's dot: without it (a user's clone; never CI) the page has none.
    graphs = ["graphs"] if have_dot() else []
    assert transformer.section_names() == [
        "summary",
        "kernels",
        *graphs,
        "source",
        "memory",
        "mxu",
    ]
    for name in transformer.section_names():
        assert f"hs-{name}" in parsed.ids
        assert parsed.count("a", href=f"#hs-{name}") == 1  # the navigation links to it
    ids = [a["id"] for _, a in parsed.tags if a.get("id")]
    assert len(ids) == len(set(ids)), "an id is used twice"
    # Sections that do not apply are absent, not empty.
    for name in ("passes", "recompiles", "unsupported", "bench"):
        assert f"hs-{name}" not in parsed.ids


def test_kernel_table_lists_every_kernel(transformer: Report, transformer_html: str):
    kernels = transformer.fusions.kernels
    rows = re.findall(r'<tr id="hs-k(\d+)">', transformer_html)
    assert [int(i) for i in rows] == list(range(len(kernels)))
    assert len(kernels) < page.TABLE_PAGE  # all in the table itself, no <template> needed
    assert 'id="hs-kernel-table-more"' not in transformer_html
    # Names carry <wbr> break opportunities at their joints (a narrow column breaks there).
    unbroken = transformer_html.replace("<wbr>", "")
    for k in kernels:
        assert f"<code>{html.escape(k.name)}</code>" in unbroken
    # Every header sorts and says how (numbers or text); every numeric cell has its sort key.
    parsed = Page(transformer_html)
    heads = [a for t, a in parsed.tags if t == "th" and a.get("data-key")]
    assert {"index", "name", "bytes", "flops", "source"} <= {a["data-key"] for a in heads}
    assert parsed.count("table", id="hs-kernel-table") == 1
    assert parsed.count("input", **{"data-hs-filter": "hs-kernel-table"}) == 1


def test_summary_and_inline_data_agree(transformer: Report, transformer_html: str):
    parsed = Page(transformer_html)
    (data_script,) = [text for a, text in parsed.scripts if a.get("id") == "hloscope-data"]
    data = json.loads(data_script)
    s = transformer.fusions.summary
    assert data["schema"] == REPORT_SCHEMA
    assert data["module"] == "jit_train_step"
    assert data["summary"]["kernel_count"] == s.kernel_count == 191
    assert data["summary"]["flops"] == s.flops
    assert data["sections"] == transformer.section_names()
    assert f"{s.kernel_count:,}" in transformer_html


def test_graphs_are_checked_svg_of_the_heaviest_kernels(transformer: Report):
    require_program("dot", DOT_INSTALL)
    by_bytes = sorted(transformer.fusions.kernels, key=lambda k: -k.cost.bytes_accessed)
    assert transformer.graphs[0].kernel == by_bytes[0].name
    assert len({g.kernel for g in transformer.graphs}) == len(transformer.graphs) == 4
    for g in transformer.graphs:
        assert g.svg.startswith("<svg")
        assert "<?xml" not in g.svg and "<!DOCTYPE" not in g.svg
        clean_svg(str(g.svg))  # passes the check again
        assert transformer.fusions.kernels[g.index].name == g.kernel


def test_source_view_links_lines_to_kernels(transformer: Report, transformer_html: str):
    lines = {line.source: line for line in transformer.sources}
    layer_norm = lines["samples/transformer_train.py:33 (layer_norm)"]
    assert layer_norm.code.startswith("return (x - mean)")  # the line's text, read from the file
    assert layer_norm.kernels and all(i is not None for _, i in layer_norm.kernels)
    name, index = layer_norm.kernels[0]
    assert transformer.fusions.kernels[index].name == name
    assert f'href="#hs-k{index}"' in transformer_html
    # Op counts per line are the fusion report's.
    from hloscope.analysis.fusions import source_rows

    assert {r["source"]: r["ops"] for r in source_rows(transformer.fusions)} == {
        s: line.ops for s, line in lines.items()
    }


def test_source_view_shows_the_stage_before_optimization(transformer: Report):
    """The sample's after-optimizations file is explained with the before file beside it."""
    ex = transformer.explanation
    if ex is None:
        pytest.skip("hloscope.analysis.explain is not available")
    assert "hlo" in ex.stages
    line = next(x for x in transformer.sources if x.source.endswith(":33 (layer_norm)"))
    assert line.stages is not None and line.stages.counts["hlo"] > 0
    assert line.stages.samples["hlo"]


# ---- offline ---------------------------------------------------------------------------------

_URL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


def test_page_loads_nothing(transformer_html: str):
    parsed = Page(transformer_html)
    for tag, attrs in parsed.tags:
        for name in ("src", "href", "xlink:href", "action", "formaction", "poster", "data"):
            value = attrs.get(name)
            if value is not None:
                assert not _URL.match(value), f"<{tag} {name}={value!r}>"
                assert value.startswith("#"), f"<{tag} {name}={value!r}> leaves the page"
        assert tag not in ("link", "iframe", "object", "embed", "base", "img")
        if tag == "script":
            assert "src" not in attrs
    for css in parsed.styles:
        assert "@import" not in css and "url(" not in css
    assert re.search(r"""(src|href)\s*=\s*["']?\s*https?:""", transformer_html, re.I) is None


def test_content_security_policy_allows_only_the_page_script(transformer_html: str):
    parsed = Page(transformer_html)
    (csp,) = [
        a["content"]
        for t, a in parsed.tags
        if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert "default-src 'none'" in csp
    code = [text for a, text in parsed.scripts if a.get("type") != "application/json"]
    assert len(code) == 1
    digest = base64.b64encode(hashlib.sha256(code[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp


def test_script_and_style_use_no_network_and_no_html_injection():
    assets = page.assets()
    for text in (assets.css, assets.js):
        assert "http:" not in text and "https:" not in text
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in assets.js


# ---- escaping --------------------------------------------------------------------------------


def test_metadata_strings_are_escaped(evil_hlo: Path):
    report = build_report(str(evil_hlo))
    text = report.to_html()
    assert EVIL not in text
    assert html.escape(EVIL, quote=False) in text  # shown, as text
    parsed = Page(text)
    assert len(parsed.scripts) == 2  # the page's data and its own script, nothing else
    (data,) = [body for a, body in parsed.scripts if a.get("id") == "hloscope-data"]
    assert "<" not in data and EVIL + ".py" in json.dumps(json.loads(data), ensure_ascii=False)
    assert [body for a, body in parsed.scripts if a.get("id") is None] == [page.assets().js]
    sources = {line.source for line in report.sources}
    assert any(EVIL in s for s in sources)  # the source view has the evil file name
    assert any(EVIL in (k.op_name or "") for k in report.fusions.kernels)
    if report.graphs:
        for g in report.graphs:
            assert "<script" not in g.svg


def test_inline_json_cannot_end_its_script_element():
    report = build_report(str(TRANSFORMER), graphs=0)
    report.target = f"</script>{EVIL}<!--"
    text = report.to_html()
    parsed = Page(text)
    (data,) = [body for a, body in parsed.scripts if a.get("id") == "hloscope-data"]
    assert json.loads(data)["target"] == report.target
    assert "</script>" + EVIL not in text
    assert len(parsed.scripts) == 2


def test_json_for_script_escapes_what_html_would_read():
    value = {"a": "</script><script>x()</script>", "b": "<!-- & \u2028 \u2029 >"}
    text = json_for_script(value)
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in text
    assert json.loads(text) == value


@pytest.mark.parametrize(
    "svg, why",
    [
        ('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "script"),
        ('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>', "handler"),
        (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
            '<a xlink:href="https://example.com/"><text>x</text></a></svg>',
            "outside",
        ),
        ('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>', "foreignObject"),
        ("<svg><g></svg>", "well-formed"),
        ("<html></html>", "no <svg>"),
    ],
)
def test_clean_svg_refuses_anything_but_drawing(svg: str, why: str):
    with pytest.raises(UnsafeSvgError, match=why):
        clean_svg(svg)


def test_clean_svg_keeps_a_graphviz_picture():
    prolog = (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
        ' "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<!-- Title: hlo -->\n'
    )
    body = (
        '<svg width="8pt" height="8pt" xmlns="http://www.w3.org/2000/svg" '
        'xmlns:xlink="http://www.w3.org/1999/xlink"><g id="a"><title>&lt;script&gt;</title>'
        '<a xlink:title="&lt;b&gt;"><text>&lt;script&gt;alert(1)&lt;/script&gt;</text></a>'
        "</g></svg>"
    )
    assert clean_svg(prolog + body) == body
    assert clean_svg(prolog + body, "p-").count('id="p-a"') == 1
    assert "svg" in escape.SVG_ELEMENTS


# ---- what the page adapts to ------------------------------------------------------------------


def test_without_dot_the_page_says_why(monkeypatch):
    monkeypatch.setattr(sections.shutil, "which", lambda name: None)
    report = build_report(str(FUSED))
    assert report.graphs == []
    assert sections.NO_DOT_NOTE in report.notes
    assert "graphs" not in report.section_names()
    assert str(escape_html(sections.NO_DOT_NOTE)) in report.to_html()


def test_graphs_can_be_left_out():
    report = build_report(str(FUSED), graphs=0)
    assert report.graphs == [] and not any("dot" in n for n in report.notes)


def test_unsupported_ops_section_shows_what_check_says():
    # A host callback: it compiles everywhere (lowered for TPU it is send/recv), with a warning
    # the section shows, under the verdict `hloscope check` prints for the same file.
    report = build_report(str(SPLIT), graphs=0)
    assert "unsupported" in report.section_names()
    by_platform = {c.platform: c for c in report.checks}
    assert set(by_platform) == {"cpu", "gpu", "tpu"}
    text = report.to_html()
    assert 'id="hs-unsupported"' in text
    for platform, check in by_platform.items():
        assert check.supported and check.stage == "before"
        result = CliRunner().invoke(cli, ["check", str(SPLIT), "--platform", platform])
        assert result.exit_code == 0
        assert result.stdout.splitlines()[-1] == check.verdict
        assert f'<h3 class="hs-good">{escape_html(check.verdict)}</h3>' in text


def test_no_unsupported_section_when_nothing_is_found():
    assert build_report(str(FUSED), graphs=0).checks == []


def test_recompiles_section_when_a_function_compiled_again(tmp_path: Path):
    path = tmp_path / "two.txt"
    path.write_text(TWO_COMPILES)
    report = build_report(str(path), graphs=0)
    assert "recompiles" in report.section_names()
    assert report.recompiles is not None
    (function,) = report.recompiles.functions
    assert function.name == "f" and function.compiles == 2
    assert function.events[1].causes == ["shape"]
    text = report.to_html()
    assert 'id="hs-recompiles"' in text
    assert "p: f32[4] -&gt; f32[8]" in text


class FakeBench:
    """Stands for :mod:`hloscope.bench.api` (which compiles and runs for seconds): records
    what it was asked and answers with fixed numbers in its JSON contract."""

    calls: list[tuple[object, dict]] = []

    @classmethod
    def bench(cls, subject, **options):
        cls.calls.append((subject, options))

        class Result:
            notes = ["timed on a fake device"]

            def to_dict(self):
                rates = {"flops_per_s": 2e9, "bytes_per_s": 1e9}
                roofline = {"peak_flops_per_s": 1e11, "peak_bytes_per_s": 5e9, "bound": "memory"}
                return {
                    "device": "fake:0",
                    "median_s": 0.00123,
                    "p10_s": 0.001,
                    "p90_s": 0.002,
                    "runs": 50,
                    **rates,
                    "roofline": roofline,
                    "skipped": [{"name": "debug_callback.1", "reason": "a host callback"}],
                }

            def kernel_rows(self):
                cost = {"flops": 4096, "bytes": 2048, "executions": 1}
                return [
                    {"name": "multiply_add_fusion", "time_s": 2e-5, "share": 0.75, **cost},
                    {"name": "add_divide_fusion", "time_s": 7e-6, "share": 0.25, **cost},
                ]

        return Result()


def test_bench_section_only_when_asked(monkeypatch):
    assert "bench" not in build_report(str(SPLIT), graphs=0).section_names()
    real = reporting._sections.optional_module
    monkeypatch.setattr(
        reporting._sections,
        "optional_module",
        lambda n: FakeBench if n == "hloscope.bench.api" else real(n),
    )
    FakeBench.calls.clear()
    report = build_report(str(SPLIT), graphs=0, bench=True)
    ((subject, options),) = FakeBench.calls
    assert options["per_kernel"] is True and options["module"] == "jit_split"
    assert "bench" in report.section_names()
    assert report.bench is not None
    assert ("median time per run", "1.23 ms") in report.bench.program
    assert [s.name for s in report.bench.skipped] == ["debug_callback.1"]
    text = report.to_html()
    assert 'id="hs-bench"' in text and "timed on a fake device" in text
    index = report.kernel_index()["multiply_add_fusion"]
    assert f'href="#hs-k{index}"><code>multiply_add_fusion</code>' in text  # linked to its row
    assert "75.0%" in text and "debug_callback.1" in text
    # The roofline chart, inline: each kernel a point, its name escaped.
    assert 'class="hs-svg hs-roofline"' in text and 'data-name="multiply_add_fusion"' in text


def test_bench_that_cannot_run_is_a_note(monkeypatch):
    real = reporting._sections.optional_module
    monkeypatch.setattr(
        reporting._sections,
        "optional_module",
        lambda n: None if n == "hloscope.bench.api" else real(n),
    )
    report = build_report(str(FUSED), graphs=0, bench=True)
    assert report.bench is None and "bench" in report.section_names()
    assert any(n.startswith("bench left out: ") for n in report.notes)
    assert "No bench results" in report.to_html()


def test_pass_timeline_of_a_capture_with_snapshots():
    """A capture with per-pass snapshots gets the pass timeline; one without, none."""
    from hloscope.capture.inprocess import Capture, PassSnapshot

    split, fused = SPLIT.read_text(), FUSED.read_text()
    cap = Capture(frontend="jax", name="jit_fused", stages={"optimized_hlo": fused})
    assert build_report(cap, graphs=0).passes is None
    cap.passes = [
        PassSnapshot(0, "p", "pipeline-start", "fusion", text=split, filename="0000.txt"),
        PassSnapshot(1, "p", "fusion", "dce", text=fused, filename="0001.txt"),
        PassSnapshot(2, "p", "dce", "end", text=fused, filename="0002.txt"),
    ]
    report = build_report(cap, graphs=0)
    assert report.passes is not None
    steps = report.passes.steps
    assert [s.step for s in steps] == [0, 1, 2]
    assert steps[1].label == "fusion (p)" and steps[1].changed and not steps[2].changed
    assert steps[1].instructions == len(list(hloscope.parse(fused).instructions()))
    assert "passes" in report.section_names()
    text = report.to_html()
    assert 'id="hs-passes"' in text and "fusion (p)" in text


def test_pass_timeline_of_a_dump_folder(corpus: Path):
    report = build_report(str(corpus / "generated/jax_pass_dumps"), graphs=0)
    assert report.module == "jit_small"
    timeline = report.passes
    assert timeline is not None and timeline.module == "jit_small"
    # One step per pass file XLA wrote for the module (``module_NNNN.jit_small.SSSS.*.txt``).
    pass_files = [
        p
        for p in (corpus / "generated/jax_pass_dumps").glob("module_*.jit_small.*.txt")
        if re.match(r"module_\d+\.jit_small\.\d{4}\.", p.name)
    ]
    assert len(timeline.steps) == len(pass_files) > 10
    fusion = next(s for s in timeline.steps if s.label.startswith("fusion ("))
    assert fusion.fusions_delta == 1 and fusion.changed
    assert timeline.unchanged  # passes that ran and changed nothing are named


def test_a_failing_optional_section_is_a_note(monkeypatch):
    def broken(origin):
        raise RuntimeError("boom")

    monkeypatch.setattr(reporting._sections, "recompiles", broken)
    report = build_report(str(FUSED), graphs=0)
    assert report.recompiles is None
    assert "recompiles left out: RuntimeError: boom" in report.notes
    monkeypatch.setenv("HLOSCOPE_DEBUG", "1")
    with pytest.raises(RuntimeError):
        build_report(str(FUSED), graphs=0)


def test_build_report_takes_modules_and_refuses_other_things():
    module = hloscope.parse(FUSED)
    assert build_report(module, graphs=0).module == "jit_fused"
    with pytest.raises(TypeError, match="TARGET"):
        build_report(42)


def test_mobilenet_train_step_report_is_under_10_mb(corpus: Path, tmp_path: Path):
    report = build_report(str(corpus / MOBILENET))
    path = report.write(tmp_path / "mobilenet.html")
    size = path.stat().st_size
    assert size < MAX_REPORT_BYTES, f"{size:,} bytes"
    text = path.read_text()
    # Over a page of kernels: the first rows in the table, the others in its <template>.
    assert len(report.rows) == len(report.fusions.kernels) > page.TABLE_PAGE
    assert 'id="hs-kernel-table-more"' in text
    assert len(re.findall(r'<tr id="hs-k\d+">', text)) == len(report.rows)


# ---- the command -----------------------------------------------------------------------------


def test_cli_writes_the_report_and_prints_a_summary(tmp_path: Path):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["report", str(TRANSFORMER), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and out.read_text().startswith("<!doctype html>")
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"wrote {out} (") and lines[0].endswith("KiB)")
    assert lines[1].startswith("module jit_train_step: 191 kernels (175 fusions, 16 unfused)")
    # The summary wraps at the terminal's width (80 columns here), its next lines indented.
    assert next(line for line in lines[2:] if not line.startswith("  ")).startswith(
        "sections: summary, kernels (191)"
    )


def test_cli_notes_go_to_stderr(tmp_path: Path):
    path = tmp_path / "two.txt"
    path.write_text(TWO_COMPILES)
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(path), "-o", str(out), "--graphs", "0"])
    assert result.exit_code == 0, result.output
    assert "hloscope: note: module jit_f: the largest of 2 modules" in result.stderr
    assert "recompiles" in result.stdout


def test_cli_missing_target_is_one_line(tmp_path: Path):
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "nope.txt")])
    assert result.exit_code == 2
    assert result.stderr.startswith("hloscope: error: ") and result.stderr.count("\n") == 1


# ---- Jupyter ---------------------------------------------------------------------------------


def _fragment_ok(text: str) -> Page:
    """A notebook fragment: one scoped element, no document, our script once, ids prefixed."""
    assert text.startswith('<div class="hloscope" id="hs')
    assert "<html" not in text and "<!doctype" not in text.lower()
    parsed = Page(text)
    assert [body for _, body in parsed.scripts] == [page.assets().js]
    return parsed


def test_fusion_report_repr_html():
    report = hloscope.fusion_report(str(TRANSFORMER))
    text = report._repr_html_()
    parsed = _fragment_ok(text)
    assert len(re.findall(r'<tr id="hs[0-9a-f]+-k\d+">', text)) == len(report.kernels)
    assert any(t == "table" and "data-hs-sortable" in a for t, a in parsed.tags)
    assert report._repr_html_() != text  # a fresh id prefix for each output


def test_kernel_diff_repr_html():
    result = hloscope.diff(str(FUSED), str(SPLIT))
    text = result._repr_html_()
    _fragment_ok(text)
    assert "split" in text and "kernels" in text
    assert "fusion_refactor.py:57" in text  # the line that gained a kernel


def test_capture_repr_html():
    from hloscope.backends.record import Capture

    cap = Capture(frontend="jax", name="jit_fused", stages={"optimized_hlo": FUSED.read_text()})
    text = cap._repr_html_()
    _fragment_ok(text)
    assert "hloscope report: jit_fused" in text


def test_report_repr_html(transformer: Report):
    text = transformer._repr_html_()
    parsed = _fragment_ok(text)
    assert any(i.endswith("-summary") for i in parsed.ids)
    assert "Content-Security-Policy" not in text  # the notebook's page, not ours


def test_report_of_an_hlo_file_needs_no_framework(tmp_path: Path):
    """The README's first command runs on the core install: with jax, jaxlib and TensorFlow
    made unimportable, the report of the sample is written all the same."""
    import subprocess
    import sys

    out = tmp_path / "report.html"
    code = (
        "import sys\n"
        "for name in ('jax', 'jaxlib', 'tensorflow', 'keras'):\n"
        "    sys.modules[name] = None  # import fails\n"
        "from hloscope.cli import main\n"
        f"sys.argv = ['hloscope', 'report', {str(TRANSFORMER)!r}, '-o', {str(out)!r}]\n"
        "main()\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"wrote {out}")
    assert "jit_train_step" in out.read_text()


@pytest.mark.slow
def test_function_target_links_jaxpr_lines(monkeypatch, tmp_path: Path):
    """A ``SCRIPT.py:FUNCTION`` target is traced again (once, cached) for the line of each
    jaxpr equation, so its source view has every stage."""
    from frameworks_needed import needs_framework

    needs_framework("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    report = build_report(f"{SAMPLES / 'fusion_refactor.py'}:fused", graphs=0)
    assert report.explanation is not None, report.notes
    assert report.explanation.stages == ["jaxpr", "stablehlo", "hlo"]
    gate = next(line for line in report.sources if line.code.startswith("gate = "))
    assert gate.stages is not None and all(gate.stages.counts[s] > 0 for s in ("jaxpr", "hlo"))
    text = report.to_html()
    for label in ("jaxpr", "StableHLO", "HLO before optimization"):
        assert f">{label}</th>" in text
