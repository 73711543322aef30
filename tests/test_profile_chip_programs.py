"""``profile`` of two programs traced on a TPU v5e, against the profiler's own reading.

``tests/data/profiles/tpu/attention_step`` and ``rnn_scan`` are five steps of
``samples/tpu_kernel_programs.py``'s functions traced on a v5e by
``benchmarks/tpu_kernels_check.py`` (2026-12-06), with the module XLA:TPU ran (the chip's dump
for the attention step; for the scan, the offline XLA:TPU compile of the same function, whose
instruction names are the chip's: every op of the trace joins it). The oracle is jax's own
``ProfileData`` of the same ``xplane.pb``: each instruction's device time per execution.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.cli import cli
from hloscope.devices import lookup

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "profiles" / "tpu"
PROGRAMS = ("attention_step", "rnn_scan")
_INSTRUCTION = re.compile(r"^%?([^\s=]+)")


def _profile(name: str, *extra: str) -> dict:
    folder = DATA / name
    args = ["profile", str(folder / "trace"), str(folder / "dump"), "--json", *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _profiler_times(name: str) -> dict[str, float]:
    """Each instruction's device seconds per execution of the module, read with jax alone."""
    jax_profiler = needs_framework("jax").profiler
    path = next((DATA / name / "trace").rglob("*.xplane.pb"))
    data = jax_profiler.ProfileData.from_file(str(path))
    times: dict[str, float] = defaultdict(float)
    runs = 0
    for plane in data.planes:
        if not plane.name.startswith("/device:TPU:0"):
            continue
        for line in plane.lines:
            if line.name == "XLA Modules":
                runs += sum(1 for e in line.events if str(e.name).startswith(f"jit_{name}("))
            elif line.name == "XLA Ops":
                for event in line.events:
                    found = _INSTRUCTION.match(str(event.name))
                    if found:  # in picoseconds where the event has them, as XProf reads it
                        picoseconds = dict(event.stats).get("device_duration_ps")
                        seconds = picoseconds * 1e-12 if picoseconds else event.duration_ns * 1e-9
                        times[found.group(1)] += seconds
    assert runs == 5
    return {op: seconds / runs for op, seconds in times.items()}


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_kernel_time_is_the_profilers(name):
    got = _profile(name, "--xplane", "--device", "tpu-v5e")
    want = _profiler_times(name)
    assert got["steps"] == 5
    assert {k["name"] for k in got["kernels"]} == set(want)
    for kernel in got["kernels"]:
        if kernel["kind"] == "while":  # its event encloses its body's: its own time is less
            assert kernel["time_s"] < want[kernel["name"]]
            continue
        assert kernel["time_s"] == pytest.approx(want[kernel["name"]], rel=1e-4, abs=1e-12)


@pytest.mark.parametrize("name", PROGRAMS)
def test_no_kernel_of_any_share_sits_above_a_roof(name):
    row = lookup("tpu-v5e")
    flops_peak = row.flops_per_s["bf16"]  # the programs are bf16 and f32: no int8 roof
    bytes_peak = row.memory_bytes_per_s
    assert bytes_peak
    kernels = _profile(name, "--device", "tpu-v5e")["kernels"]
    positioned = 0
    for kernel in kernels:
        time_s = kernel["time_s"]
        if kernel["async"]:
            assert kernel["bound"] in (None, "async"), kernel["name"]  # no bound, no roof
            continue
        if not time_s:
            continue
        position = max(
            (kernel["flops"] or 0) / time_s / flops_peak,
            (kernel["hbm_bytes"] or 0) / time_s / bytes_peak,
        )
        assert position <= 1.0, (kernel["name"], position, kernel["share"])
        if kernel["flops"] or kernel["hbm_bytes"]:
            assert kernel["bound"], kernel["name"]  # every kernel with a cost has a bound
            positioned += 1
    assert positioned >= 3


def test_a_buffer_a_scan_will_fill_moves_no_bytes():
    # XLA:TPU's AllocateBuffer (the scan's 256 MiB of stacked outputs) took 0.25 ns on the
    # chip: counted as bytes, it sat at over a million times the HBM roof.
    kernels = {k["name"]: k for k in _profile("rnn_scan", "--device", "tpu-v5e")["kernels"]}
    allocate = kernels["custom-call"]
    assert allocate["hbm_bytes"] in (0, None) and allocate["bound"] is None
    result = CliRunner().invoke(
        cli, ["fusions", str(DATA / "rnn_scan" / "dump"), "--json", "--sort", "bytes"]
    )
    assert result.exit_code == 0, result.output
    names = [r["name"] for r in json.loads(result.stdout)["rows"]]
    assert "custom-call" not in names  # no kernel: nothing runs but the allocation


@pytest.mark.slow
def test_a_function_target_is_compiled_for_the_chip_the_trace_ran_on(tmp_path, monkeypatch):
    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    target = f"{HERE.parent / 'samples' / 'tpu_kernel_programs.py'}:rnn_scan"
    trace = str(DATA / "rnn_scan" / "trace")
    # The xplane names its chip (TPU v5 Lite): no --device needed to compile for it.
    result = CliRunner().invoke(cli, ["profile", trace, target, "--xplane", "--json"])
    assert result.exit_code == 0, result.output
    named = json.loads(result.stdout)
    # The trace.json.gz names none: --device says which.
    result = CliRunner().invoke(cli, ["profile", trace, target, "--device", "tpu-v5e", "--json"])
    assert result.exit_code == 0, result.output
    given = json.loads(result.stdout)
    reference = _profile("rnn_scan", "--device", "tpu-v5e")
    for got in (named, given):
        assert [(k["name"], k["flops"]) for k in got["kernels"]] == [
            (k["name"], k["flops"]) for k in reference["kernels"]
        ]
