"""What fills the memory figure, what would free it, and a TPU verdict on another backend's
module, on modules XLA compiled (no libtpu needed but where said).

``tests/data/tpu`` holds XLA:TPU's own compiles with their ``memory_analysis()``
(``oracle.json``); ``samples/hlo`` and ``tests/data/generated`` hold XLA:CPU's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from markupsafe import escape

from hloscope.analysis.memory._function import memory_of_compiled
from hloscope.capture.target import Target
from hloscope.cli import cli
from hloscope.drivers.memory import memory_results
from hloscope.hlo.parser import parse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TPU = HERE / "data" / "tpu"
CPU_HLO = [
    ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt",
    ROOT / "samples" / "hlo" / "keras_cnn.after_optimizations.txt",
]
DUMPS = [
    HERE / "data" / "generated" / "jax_mlp_train",
    HERE / "data" / "generated" / "jax_transformer_train",
]
TPU_PROGRAMS = ["transformer_train", "conv_net", "narrow_arrays", "fused_reduction"]


def _tpu_compile(name: str):
    folder = TPU / name
    after = next(folder.glob("*.after_optimizations.txt"))
    reports = {
        kind: next(folder.glob(f"*-{kind}.txt")).read_text()
        for kind in ("buffer-assignment", "memory-usage-report")
    }
    stats = json.loads((folder / "oracle.json").read_text())["memory_analysis"]
    module = parse(after.read_text(), path=str(after))
    return memory_of_compiled(module, reports, stats, "TPU v5 lite"), stats


def _check_sums(result) -> None:
    assert result.fills
    assert sum(g.bytes for g in result.fills) == result.peak_bytes
    for group in result.fills:
        assert group.rows and sum(r.bytes for r in group.rows) == group.bytes
        assert all(r.label and "(unknown)" not in r.label for r in group.rows)


@pytest.mark.parametrize("name", TPU_PROGRAMS)
def test_what_fills_xla_tpus_figure_sums_to_it_in_its_own_sizes(name):
    result, stats = _tpu_compile(name)
    assert result.peak_bytes == stats["peak_memory_in_bytes"]
    _check_sums(result)
    groups = {g.kind: g for g in result.fills}
    assert groups["arguments"].bytes == stats["argument_size_in_bytes"]
    outputs = stats["output_size_in_bytes"] - stats["alias_size_in_bytes"]
    assert groups["outputs"].bytes == outputs
    # What XLA:TPU's figure holds beyond them is its own, and said so.
    rest = stats["peak_memory_in_bytes"] - stats["argument_size_in_bytes"] - outputs
    rest -= groups["constants"].bytes if "constants" in groups else 0
    rest -= groups["temporaries"].bytes if "temporaries" in groups else 0
    assert groups["reserved"].bytes == rest and "XLA:TPU" in groups["reserved"].title


@pytest.mark.parametrize("target", [*CPU_HLO, *DUMPS], ids=lambda p: p.name)
def test_what_fills_a_live_range_peak_names_every_buffer(target):
    (result,) = memory_results(Target.resolve(str(target)))[:1]
    _check_sums(result)
    assert "reserved" not in {g.kind for g in result.fills}
    # The arguments are named by the function's argument names, never "(unknown)".
    rows = next(g for g in result.fills if g.kind == "arguments").rows
    assert all(not r.label.startswith("parameter ") for r in rows)
    assert "(unknown)" not in {row["source"] for row in result.by_source()}


def test_no_bf16_advice_for_buffers_in_on_chip_memory():
    # XLA:TPU put an 8 MiB f32 temporary of this program in VMEM (S(1)): it is not in HBM,
    # so storing it in bf16 frees nothing there.
    result, _ = _tpu_compile("fused_reduction")
    on_chip = [
        b
        for b in result.live_at_peak
        if b.kind == "temporary" and b.shape.startswith("f32[") and "S(1)" in b.shape
    ]
    assert on_chip and max(b.bytes for b in on_chip) >= 1 << 20
    assert not [s for s in result.savings if s.kind == "bf16"]


def test_no_bf16_advice_for_on_chip_buffers_of_an_lm_step(tmp_path, monkeypatch):
    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    target = f"{HERE / 'tpu' / 'programs.py'}:lm_step"
    out = CliRunner().invoke(cli, ["memory", target, "--device", "tpu-v5e", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    vmem_f32 = [
        b
        for b in data["live_at_peak"]
        if b["shape"].startswith("f32[") and "S(1)" in b["shape"] and b["bytes"] >= 1 << 20
    ]
    assert vmem_f32
    assert not [s for s in data["savings"] if s["kind"] == "bf16"]
    assert sum(g["bytes"] for g in data["fills"]) == data["peak_bytes"]


def test_savings_are_actions_with_totals():
    # The sample's train step returns new params without donating them: one donate action
    # for the argument, with every array's bytes, not one row per array.
    (result,) = memory_results(Target.resolve(str(CPU_HLO[0])))
    donate = [s for s in result.savings if s.kind == "donate"]
    assert len(donate) == 1 and donate[0].target.startswith("params (")
    params = next(g for g in result.fills if g.kind == "arguments").rows[0]
    assert params.label == "params" and donate[0].bytes <= params.bytes
    assert "donate_argnames=('params',)" in donate[0].fix


@pytest.mark.parametrize("hlo", CPU_HLO, ids=lambda p: p.name)
def test_a_cpu_compiled_module_gets_a_tpu_verdict_only_as_an_estimate(hlo):
    runner = CliRunner()
    out = runner.invoke(cli, ["memory", str(hlo), "--device", "tpu-v5e", "--json"])
    assert out.exit_code == 0, out.output
    device = json.loads(out.stdout)["device"]
    assert "not compiled by XLA:TPU" in device["estimate"]
    assert "SCRIPT.py:FUNCTION --device tpu-v5e" in device["estimate"]
    text = " ".join(runner.invoke(cli, ["memory", str(hlo), "--device", "tpu-v5e"]).stdout.split())
    assert "(an estimate) on tpu-v5e" in text
    assert "For XLA:TPU's own figure: hloscope memory SCRIPT.py:FUNCTION --device tpu-v5e" in text
    # Against a GPU, the module's own compile is no estimate of another TPU compiler's.
    gpu = json.loads(runner.invoke(cli, ["memory", str(hlo), "--device", "h100", "--json"]).stdout)
    assert "estimate" not in gpu["device"]


@pytest.mark.parametrize("name", ["conv_net", "narrow_arrays"])
def test_a_module_xla_tpu_compiled_is_no_estimate(name):
    out = CliRunner().invoke(cli, ["memory", str(TPU / name), "--device", "tpu-v5e", "--json"])
    assert out.exit_code == 0, out.output
    assert "estimate" not in json.loads(out.stdout)["device"]


@pytest.mark.parametrize("target", [CPU_HLO[0], TPU / "conv_net"], ids=["cpu", "tpu"])
def test_the_report_says_what_fills_the_peak(target, tmp_path):
    from hloscope.render.html.memory_section import memory_section

    (result,) = memory_results(Target.resolve(str(target)))[:1]
    section = memory_section(result)
    assert [(g.title, g.bytes) for g in section.fills] == [(g.title, g.bytes) for g in result.fills]
    assert sum(g.bytes for g in section.fills) == section.peak_bytes
    page = tmp_path / "report.html"
    out = CliRunner().invoke(cli, ["report", str(target), "-o", str(page), "--graphs", "0"])
    assert out.exit_code == 0, out.output
    html = page.read_text()
    table = html.split("<h3>What fills the peak</h3>")[1].split("</table>")[0]
    for group in result.fills:
        assert str(escape(group.title)) in table
        # Files are shown without their folders; the whole label is the tooltip.
        for row in group.rows[:10]:
            assert f'title="{escape(row.label)}"' in table


@pytest.mark.parametrize("target", [CPU_HLO[0], DUMPS[1]], ids=lambda p: p.name)
def test_by_scope_groups_an_arguments_arrays(target):
    (result,) = memory_results(Target.resolve(str(target)))[:1]
    arrays: dict[str, list[int]] = {}
    for b in result.live_at_peak:
        if b.kind == "parameter" and "[" in b.scope:
            arrays.setdefault(b.scope.split("[")[0], []).append(b.bytes)
    name, sizes = max(arrays.items(), key=lambda kv: len(kv[1]))
    assert len(sizes) > 1  # an argument with several arrays: params, blocks
    rows = {row["scope"]: row for row in result.by_scope()}
    assert rows[f"argument {name}"]["buffers"] == len(sizes)
    assert rows[f"argument {name}"]["bytes"] == sum(sizes)
    assert not [key for key in rows if key.startswith(f"{name}[")]


@pytest.mark.parametrize(
    ("message", "need", "have"),
    [
        (  # libtpu 0.0.42 (measured here)
            "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO "
            "temporaries (16.81G) exceeds available HBM (15.75G).",
            16.81,
            15.75,
        ),
        (  # the wording of earlier libtpu versions, as users pasted it
            "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory "
            "space hbm. Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G.",
            21.95,
            15.48,
        ),
    ],
    ids=["exceeds-available", "used-of"],
)
def test_a_refusal_in_either_wording_is_one_figure(message, need, have):
    from hloscope.analysis.memory._function import refused_for_memory
    from hloscope.analysis.memory.device_report import device_report
    from hloscope.analysis.memory.fill import fill_of
    from hloscope.render.memory_text import render_memory

    result, _ = _tpu_compile("transformer_train")
    refused_for_memory(result, message)
    module = parse(next((TPU / "transformer_train").glob("*.after_optimizations.txt")).read_text())
    result.fills = fill_of(result, module)
    GiB = 1 << 30
    assert result.peak_bytes == round(need * GiB)
    assert sum(g.bytes for g in result.fills) == result.peak_bytes
    result.device = device_report(result, "tpu-v5e")
    assert result.device["verdict"] == "does_not_fit"
    assert result.device["available_bytes"] == round(have * GiB)
    head = " ".join(render_memory(result).split("what fills it")[0].split())
    assert f"does NOT fit on tpu-v5e: XLA:TPU needs {need:.2f} GiB of the {have:.2f} GiB" in head
    assert "16.0 GiB" not in head and "live range" not in head
