"""compile-time without a TPU: XLA:TPU's module metadata read from a real dump, the stages of a
compile on this machine's XLA:CPU (which writes no pass times), the lines and the causes.

The XLA:TPU compiles themselves are in ``test_compile_time_tpu.py`` (slow, libtpu)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.compile_lines import Cause
from hloscope.analysis.compile_time import pass_times, pipeline_times
from hloscope.cli import cli
from hloscope.drivers.compile_time import compile_time
from hloscope.dump.errors import DumpFormatError
from hloscope.dump.metadata import parse_module_metadata, parse_text_proto

HERE = Path(__file__).resolve().parent
DUMP = HERE / "data" / "compile_time" / "xla_tpu_dump"
METADATA = DUMP / "module_0000.metadata.textproto"
PROGRAMS = HERE / "compile_time_programs.py"


def metadata_by_regex(text: str) -> list[dict[str, str]]:
    """The pass_metadata blocks read by a regular expression, independent of the parser."""
    blocks = re.findall(r"^pass_metadata \{\n(.*?)^\}", text, re.S | re.M)
    return [dict(re.findall(r'^  (\w+): "?([^"\n]*)"?$', block, re.M)) for block in blocks]


def test_the_reader_gives_every_pass_run_of_xla_tpus_metadata():
    text = METADATA.read_text()
    runs = parse_module_metadata(text).passes
    blocks = metadata_by_regex(text)
    assert len(runs) == len(blocks) == 477
    assert [(r.name, r.pipeline, r.start_usec, r.end_usec) for r in runs] == [
        (
            b["pass_name"],
            b["pipeline_name"],
            int(b["start_timestamp_usec"]),
            int(b["end_timestamp_usec"]),
        )
        for b in blocks
    ]
    assert sum(r.changed for r in runs) == text.count("module_changed: true")


def test_passes_are_the_metadatas_summed_per_pass_name_without_nested_pipelines():
    text = METADATA.read_text()
    blocks = metadata_by_regex(text)

    def span(b):
        return int(b["start_timestamp_usec"]), int(b["end_timestamp_usec"])

    def runs_a_pipeline(b):  # other runs of a pipeline of its name lie inside its time
        start, end = span(b)
        return any(
            o is not b
            and o["pipeline_name"] == b["pass_name"]
            and start <= span(o)[0]
            and span(o)[1] <= end
            for o in blocks
        )

    want: dict[str, float] = defaultdict(float)
    runs: dict[str, int] = defaultdict(int)
    for b in blocks:
        # A pipeline-start marker is no pass; a pass that runs a pipeline is that pipeline,
        # whose passes are counted themselves.
        if b["pass_name"] == "pipeline-start" or runs_a_pipeline(b):
            continue
        want[b["pass_name"]] += (
            int(b["end_timestamp_usec"]) - int(b["start_timestamp_usec"])
        ) / 1e6
        runs[b["pass_name"]] += 1
    got = pass_times(parse_module_metadata(text).passes)
    assert {p.name: p.runs for p in got} == runs
    for p in got:
        assert p.time_s == pytest.approx(want[p.name], abs=1e-9)
    assert [p.time_s for p in got] == sorted((p.time_s for p in got), reverse=True)
    assert got[0].name == "tpu_fusion" and got[0].pipeline in got[0].pipelines


def test_a_nested_pipeline_counts_once_in_its_parent():
    runs = parse_module_metadata(METADATA.read_text()).passes
    pipelines = {p.name: p for p in pipeline_times(runs)}
    inner = pipelines["simplification-1"]
    assert inner.parent == "Phase 1 pre-layout assignment passes"
    assert inner.time_s <= pipelines[inner.parent].time_s
    # The top pipelines hold every pass once (a nested pipeline's run, with the gaps between
    # its passes, inside its parent's), within the span of all passes.
    metadata = parse_module_metadata(METADATA.read_text())
    top = sum(p.time_s for p in pipelines.values() if p.parent is None)
    leaves = sum(p.time_s for p in pass_times(runs))
    assert leaves <= top <= (metadata.end_usec - metadata.start_usec) / 1e6
    assert top < 1.05 * leaves


def test_text_proto_reader_escapes_nesting_and_errors():
    parsed = parse_text_proto('a: "x\\"y\\n" b { c: 1 d { e: true } } b { c: 2 } # note\n')
    assert parsed["a"] == ['x"y\n']
    assert [block["c"] for block in parsed["b"]] == [["1"], ["2"]]
    assert parsed["b"][0]["d"] == [{"e": ["true"]}]
    with pytest.raises(DumpFormatError, match="not closed"):
        parse_text_proto("b { c: 1")
    with pytest.raises(DumpFormatError, match="not a number"):
        parse_module_metadata("pass_metadata { pass_id: x start_timestamp_usec: 1 }")


def test_a_dump_folder_gives_xla_tpus_pass_times_and_says_the_rest_is_not_there():
    result = CliRunner().invoke(cli, ["compile-time", str(DUMP), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    runs = parse_module_metadata(METADATA.read_text())
    assert got["stages"]["hlo_passes_s"] == pytest.approx((runs.end_usec - runs.start_usec) / 1e6)
    assert got["stages"]["trace_s"] is None and got["total_s"] is None
    assert any("pass times only" in note for note in got["notes"])
    assert {"layout-assignment", "copy-insertion", "tpu_fusion"} <= {
        p["name"] for p in got["passes"]
    }
    # Per line: the four layers' line made most of the program (a dot and the gelu's ops per
    # layer), before and after; no instruction is counted for two lines.
    top = got["lines"][0]
    dots = next(DUMP.glob("*before_optimizations.txt")).read_text().count(" dot(")
    assert dots == 4 and top["instructions_before"] >= 2 * dots
    assert top["instructions_before"] > 0.5 * got["instructions_before"]
    assert sum(line["instructions_before"] for line in got["lines"]) <= got["instructions_before"]
    assert 0 < top["instructions_after"] <= got["instructions_after"]


def test_text_fits_80_columns_when_piped():
    result = CliRunner().invoke(cli, ["compile-time", str(DUMP)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "Slowest HLO passes" in result.output and "tpu_fusion" in result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_an_hlo_file_is_refused_in_one_line():
    hlo = next(DUMP.glob("*after_optimizations.txt"))
    result = CliRunner().invoke(cli, ["compile-time", str(hlo)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "holds no compile times" in result.output


# ---- a compile on this machine (XLA:CPU: no pass times) -----------------------------------------


def _programs():
    import importlib.util

    spec = importlib.util.spec_from_file_location("compile_time_programs", PROGRAMS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line_of(text: str) -> int:
    return next(i for i, line in enumerate(PROGRAMS.read_text().splitlines(), 1) if text in line)


def test_cpu_compile_has_jax_stages_and_the_whole_backend_without_passes():
    pytest.importorskip("jax")
    programs = _programs()
    report = compile_time(programs.layers_scan, *programs.EXAMPLE_ARGS["layers_scan"])
    s = report.stages
    assert s.trace_s > 0 and s.lower_s > 0 and s.backend_compile_s > 0
    assert s.hlo_passes_s is None and s.backend_s == s.backend_compile_s  # XLA:CPU: no times
    assert report.total_s == pytest.approx(s.measured + s.other_s)
    assert not report.passes and any("XLA:CPU writes none" in n for n in report.notes)
    assert not [f for f in report.findings if f.cause is Cause.UNROLLED_LOOP]


def test_an_unrolled_python_loop_is_named_with_its_share_and_the_scan_fix():
    pytest.importorskip("jax")
    programs = _programs()
    report = compile_time(programs.layers_loop, *programs.EXAMPLE_ARGS["layers_loop"])
    loops = [f for f in report.findings if f.cause is Cause.UNROLLED_LOOP]
    assert len(loops) == 1
    loop = loops[0]
    assert loop.source == f"{PROGRAMS}:{_line_of('for w in ws:')}"
    assert loop.repeats == programs.LAYERS
    assert loop.share > 0.5 and loop.instructions <= report.instructions_before
    assert "lax.scan" in loop.fix
    # The layer's own line made those instructions.
    assert report.lines[0].source == f"{PROGRAMS}:{_line_of('return jax.nn.gelu(x @ w)')}"


def test_grad_over_the_loop_is_said():
    jax = pytest.importorskip("jax")
    programs = _programs()
    x, ws = programs.EXAMPLE_ARGS["layers_loop"]
    report = compile_time(jax.grad(programs.layers_loop, argnums=1), x, ws[:6])
    loop = next(f for f in report.findings if f.cause is Cause.UNROLLED_LOOP)
    assert loop.repeats == 6 and "grad" in loop.message and "checkpoint" in loop.fix


def test_a_large_numpy_constant_is_found_at_its_line():
    pytest.importorskip("jax")
    programs = _programs()
    report = compile_time(programs.lookup_table, *programs.EXAMPLE_ARGS["lookup_table"])
    constants = [f for f in report.findings if f.cause is Cause.LARGE_CONSTANT]
    assert len(constants) == 1
    assert constants[0].bytes == programs.TABLE.nbytes
    assert constants[0].source == f"{PROGRAMS}:{_line_of('return (x @ TABLE).sum()')}"
    assert "argument" in constants[0].fix


def test_a_cached_capture_without_times_is_captured_again(tmp_path, monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    target = f"{PROGRAMS}:lookup_table"
    first = CliRunner().invoke(cli, ["compile-time", target, "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["stages"]["trace_s"] > 0
    # A capture made before hloscope kept the times: its index has none.
    (index,) = (tmp_path / "cache").rglob("capture/capture.json")
    saved = json.loads(index.read_text())
    saved.pop("compile_time")
    index.write_text(json.dumps(saved))
    again = CliRunner().invoke(cli, ["compile-time", target, "--json"])
    assert again.exit_code == 0, again.output
    assert "capturing it again" in again.stderr
    assert json.loads(again.stdout)["stages"]["trace_s"] > 0


SCRIPT = """
import json
import jax
import jax.numpy as jnp

heard = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, seconds, **tags: heard.append((event, tags.get("fun_name"), seconds))
)


def f(x):
    return jnp.sin(x) * 2


def g(x):
    for _ in range(6):
        x = jnp.cos(x) @ x
    return x


jax.jit(f)(jnp.ones(8))
jax.jit(g)(jnp.ones((16, 16)))
print(json.dumps(heard))
"""


def test_a_script_runs_every_compile_timed_and_each_module_gets_its_own(tmp_path, monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "two.py"
    script.write_text(SCRIPT)
    result = CliRunner().invoke(cli, ["compile-time", str(script), "--module", "jit_g", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert got["module"] == "jit_g"
    # The script's own listener is the oracle: the durations JAX reported for g's compile.
    from hloscope.capture.target import Target

    folder = Target.resolve(str(script)).output_dir
    heard = json.loads((folder / "stdout.txt").read_text().strip().splitlines()[-1])
    want = {
        "trace_s": next(s for e, name, s in heard if e.endswith("trace_duration") and name == "g"),
        "lower_s": next(
            s for e, n, s in heard if e.endswith("mlir_module_duration") and n == "jit(g)"
        ),
        "backend_s": next(
            s for e, n, s in heard if e.endswith("backend_compile_duration") and n == "jit(g)"
        ),
    }
    for stage, seconds in want.items():
        assert got["stages"][stage] == pytest.approx(seconds)
    assert not any("pass times only" in note for note in got["notes"])
    loop = next(f for f in got["findings"] if f["cause"] == "unrolled_loop")
    line = SCRIPT.splitlines().index("    for _ in range(6):") + 1
    assert loop["repeats"] == 6 and loop["source"] == f"{script}:{line}"


def test_the_report_has_a_compile_time_section_with_the_loop_and_its_fix(tmp_path):
    pytest.importorskip("jax")
    import hloscope

    programs = _programs()
    cap = hloscope.capture(programs.layers_loop, *programs.EXAMPLE_ARGS["layers_loop"])
    report = hloscope.build_report(cap, graphs=0)
    assert "compile-time" in report.section_names()
    section = report.compile_time
    assert [row.name for row in section.stages] == ["trace", "lower", "HLO passes", "backend"]
    assert section.findings and "lax.scan" in section.findings[0].detail
    page = tmp_path / "report.html"
    report.write(page)
    html = page.read_text()
    assert "-compile-time" in html and "What makes this compile slow" in html
    # A module alone says nothing of its compile: no section.
    assert hloscope.build_report(cap.module("after"), graphs=0).compile_time is None


def test_a_function_traced_before_says_jax_reported_no_tracing():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def twice(x):
        return jnp.sin(x) * 2

    jitted = jax.jit(twice)
    x = jnp.ones(8)
    jitted.trace(x)  # JAX's tracing cache now holds it: the capture's trace is a hit
    report = compile_time(jitted, x)
    assert report.stages.trace_s is None and report.stages.backend_compile_s > 0
    assert any("reused a trace" in note for note in report.notes)
