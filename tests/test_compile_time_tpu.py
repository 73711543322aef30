"""compile-time of XLA:TPU compiles made on this machine (offline, for a TPU v5e chip).

The oracles: the wall-clock time measured around JAX's own trace, lower and compile calls
(``compile_time_around_the_call.py``), and the module metadata file XLA:TPU wrote for the
compile, read with a regular expression.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from test_compile_time import metadata_by_regex

from hloscope.capture.target import Target
from hloscope.cli import cli

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "compile_time_programs.py"


@pytest.fixture(autouse=True)
def _libtpu_and_cache(tmp_path_factory, monkeypatch):
    needs_libtpu()
    # One cache for the module's tests: a program is compiled once, then read from the cache.
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "tpu-cache"))


def report(name: str) -> dict:
    result = CliRunner().invoke(
        cli, ["compile-time", f"{PROGRAMS}:{name}", "--device", "tpu-v5e", "--json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(PROGRAMS.read_text().splitlines(), 1) if text in line)


def test_the_stages_sum_to_the_time_measured_around_the_compile():
    done = subprocess.run(
        [sys.executable, str(HERE / "compile_time_around_the_call.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    stages = measured["stages"]
    parts = [stages[k] for k in ("trace_s", "lower_s", "hlo_passes_s", "backend_s")]
    assert all(part > 0 for part in parts)
    assert sum(parts) == pytest.approx(measured["wall_s"], rel=0.05)
    assert measured["total_s"] == pytest.approx(measured["wall_s"], rel=0.05)
    # The passes are a part of the backend compile, its rest split around them.
    assert stages["hlo_passes_s"] + stages["backend_s"] == pytest.approx(
        stages["backend_compile_s"]
    )
    assert stages["backend_before_passes_s"] + stages["backend_after_passes_s"] == pytest.approx(
        stages["backend_s"], abs=1e-3
    )


def test_the_passes_are_those_of_xla_tpus_metadata_summed_per_pass_name():
    got = report("layers_loop")
    assert got["compiled_for"] == "TPU v5 lite"
    capture = Target.resolve(f"{PROGRAMS}:layers_loop", device="tpu-v5e").capture()
    blocks = metadata_by_regex(capture.reports["module_metadata"])
    assert blocks, "XLA:TPU wrote no pass_metadata"
    nested = {b["pass_name"] for b in blocks} & {b["pipeline_name"] for b in blocks}
    want: dict[str, float] = defaultdict(float)
    for b in blocks:
        if b["pass_name"] != "pipeline-start":
            seconds = (int(b["end_timestamp_usec"]) - int(b["start_timestamp_usec"])) / 1e6
            want[b["pass_name"]] += seconds
    passes = {p["name"]: p for p in got["passes"]}
    # Every pass of the file is there with its summed time, but a run of a pipeline (counted
    # through its own passes) where a name is both.
    assert set(passes) | nested == set(want) | nested
    for name, p in passes.items():
        if name not in nested:
            assert p["time_s"] == pytest.approx(want[name], abs=1e-9)
    starts = [int(b["start_timestamp_usec"]) for b in blocks]
    ends = [int(b["end_timestamp_usec"]) for b in blocks]
    assert got["stages"]["hlo_passes_s"] == pytest.approx((max(ends) - min(starts)) / 1e6)


@pytest.mark.parametrize("name", ["layers_scan", "lookup_table"])
def test_passes_every_xla_tpu_compile_runs_are_found(name):
    got = report(name)
    runs = {p["name"]: p["runs"] for p in got["passes"]}
    for must in ("layout-assignment", "copy-insertion", "tpu_fusion"):
        assert runs.get(must, 0) >= 1, must


def test_a_python_loop_is_named_and_scan_compiles_faster():
    loop = report("layers_loop")
    scan = report("layers_scan")
    found = [f for f in loop["findings"] if f["cause"] == "unrolled_loop"]
    assert len(found) == 1
    assert found[0]["source"] == f"{PROGRAMS}:{line_of('for w in ws:')}"
    assert found[0]["share"] > 0.5 and "lax.scan" in found[0]["fix"]
    assert not [f for f in scan["findings"] if f["cause"] == "unrolled_loop"]
    # One body compiled instead of every layer's: XLA's passes are faster (a ratio; the times
    # themselves depend on the machine: under CI's load the loop's passes once took only 1.6x
    # the scan's, so no factor is asked). The whole compile's total is not compared: its
    # tracing and lowering are small and noisy, and on a loaded 2-core machine (2026-12-08,
    # two helpers running programs beside the suite) the loop's total came out below the
    # scan's while its passes stayed above them.
    assert loop["stages"]["hlo_passes_s"] > scan["stages"]["hlo_passes_s"]
    assert loop["instructions_before"] > 4 * scan["instructions_before"]


def test_a_large_constant_is_found_in_a_tpu_compile():
    got = report("lookup_table")
    found = [f for f in got["findings"] if f["cause"] == "large_constant"]
    assert len(found) == 1
    assert found[0]["source"] == f"{PROGRAMS}:{line_of('return (x @ TABLE).sum()')}"
    assert found[0]["bytes"] == 256 * 1024 * 4


_INSTRUCTION = re.compile(r"^\s+(?:ROOT )?%?[\w.\-]+ = ", re.M)
_SNAPSHOT = re.compile(r"\.(\d{4})\.[^.]+\.after_([^.]+)\.before_[^.]+\.txt$")


def test_a_script_run_on_xla_tpu_gets_every_stage_and_each_pass_its_instructions(tmp_path):
    # The script compiles for the TPU itself; hloscope captures it with every pass dumped.
    out = tmp_path / "run"
    script = HERE / "compile_time_tpu_script.py"
    done = CliRunner().invoke(cli, ["capture", str(script), "--passes", ".*", "-o", str(out)])
    assert done.exit_code == 0, done.output
    result = CliRunner().invoke(cli, ["compile-time", str(out), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert got["module"] == "jit_step"
    stages = got["stages"]
    assert all(stages[k] > 0 for k in ("trace_s", "lower_s", "hlo_passes_s", "backend_s"))
    assert stages["hlo_passes_s"] + stages["backend_s"] == pytest.approx(
        stages["backend_compile_s"]
    )
    # Each pass's instructions added or removed: the snapshots XLA wrote after it, counted
    # here with a regular expression, against the snapshot before.
    snapshots = sorted(
        (int(m.group(1)), m.group(2), path)
        for path in (out / "dump").iterdir()
        if (m := _SNAPSHOT.search(path.name))
    )
    assert snapshots
    want: dict[str, int] = defaultdict(int)
    previous = None
    for _, name, path in snapshots:
        count = len(_INSTRUCTION.findall(path.read_text()))
        if previous is not None and name != "pipeline-start":
            want[name] += count - previous
        previous = count
    deltas = {p["name"]: p["instructions_delta"] for p in got["passes"]}
    pipelines = {p["name"] for p in got["pipelines"]}
    for name, delta in want.items():
        if name in deltas:
            assert deltas[name] == delta, name
        else:  # a run of a nested pipeline: its passes' snapshots count its changes
            assert name in pipelines, name
    assert any(delta != 0 for delta in want.values())
