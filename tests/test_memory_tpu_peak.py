"""Which peak ``hloscope memory`` gives for XLA:TPU's compiles, read from what XLA:TPU made.

The modules, reports and ``memory_analysis()`` of ``tests/data/tpu`` are XLA:TPU's own
(``tests/data/tpu/regenerate.py``): no libtpu is needed to read them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.memory._function import memory_of_compiled
from hloscope.capture.target import Target
from hloscope.cli import cli
from hloscope.drivers.memory import memory_results
from hloscope.hlo.parser import parse
from hloscope.render.memory_text import render_memory

TPU = Path(__file__).resolve().parent / "data" / "tpu"
PROGRAMS = ["transformer_train", "transformer_remat", "conv_net", "narrow_arrays"]


def _compiled(name: str):
    folder = TPU / name
    after = next(folder.glob("*.after_optimizations.txt"))
    reports = {}
    for kind in ("buffer-assignment", "memory-usage-report"):
        found = list(folder.glob(f"*-{kind}.txt"))
        if found:
            reports[kind] = found[0].read_text()
    stats = json.loads((folder / "oracle.json").read_text())["memory_analysis"]
    return parse(after.read_text(), path=str(after)), reports, stats


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_tpu_compiles_peak_is_its_peak_memory_in_bytes(name):
    module, reports, stats = _compiled(name)
    result = memory_of_compiled(module, reports, stats, "TPU v5 lite")
    assert result.peak_bytes == stats["peak_memory_in_bytes"]
    assert result.source == "xla_tpu"
    named = result.figures
    assert named["peak_memory_in_bytes"] == stats["peak_memory_in_bytes"]
    # These dumps keep no live range: the buffers are those of hloscope's simulation, and the
    # figure says so (never "the live range's peak", never a lower bound).
    assert named["simulated_peak_bytes"] == sum(b.bytes for b in result.live_at_peak)
    assert "live_range_peak_bytes" not in named and result.live_at == "simulated_peak_bytes"
    (note,) = [n for n in result.notes if "peak_memory_in_bytes," in n]
    assert "hloscope's simulation" in note and "lower bound" not in note
    payload = result.to_dict()
    assert payload["compiled_for"] == "TPU v5 lite" and payload["figures"] == named


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_text_says_the_peak_before_any_note_about_it(name):
    module, reports, stats = _compiled(name)
    text = render_memory(memory_of_compiled(module, reports, stats, "TPU v5 lite"), 80)
    lines = text.splitlines()
    peak = next(i for i, line in enumerate(lines) if line.startswith("peak "))
    about = next(i for i, line in enumerate(lines) if "peak_memory_in_bytes," in line)
    assert peak < about
    assert "(XLA:TPU's peak_memory_in_bytes)" in lines[peak]
    assert any(line.startswith("live at hloscope's simulated peak (") for line in lines)
    assert max(map(len, lines)) <= 80


def test_a_cpu_compile_keeps_its_live_range_peak_and_says_which_to_trust():
    module, reports, stats = _compiled("narrow_arrays")
    cpu_like = {**stats, "peak_memory_in_bytes": stats["peak_memory_in_bytes"] + 1}
    result = memory_of_compiled(module, reports, cpu_like, "cpu")
    assert result.source != "xla_tpu" and result.peak_bytes != cpu_like["peak_memory_in_bytes"]
    assert any("trust the peak" in note for note in result.notes)


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_tpu_dump_names_its_allocation_and_how_to_get_the_exact_peak(name):
    result = memory_results(Target.resolve(str(TPU / name)))[0]
    report = next((TPU / name).glob("*-memory-usage-report.txt")).read_text()
    total = int(report.split("Total bytes: ")[1].split()[0])
    assert result.figures["allocation_bytes"] == total
    assert any("--device tpu-" in note for note in result.notes)


def test_the_command_prints_it():
    result = CliRunner().invoke(cli, ["memory", str(TPU / "conv_net"), "--json"])
    assert result.exit_code == 0
    assert "allocation_bytes" in json.loads(result.stdout)["figures"]
