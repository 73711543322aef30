"""The step estimate: compute on the roofline plus exposed communication, checked by hand.

The hand computations use the figures of the tables the estimate reads (the TPU v5e peak:
197 TFLOP/s bf16, 819 GB/s; its ICI ring: 100 GB/s per device, 1 us per hop) and the cost
model's rules for a ``dot`` (``2*M*N*K`` FLOPs, operands read and result written); the
single-kernel programs are checked against XLA's own ``cost_analysis()``.
"""

# ruff: noqa: E501 - HLO instructions are written one per line, as XLA prints them.

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hloscope.analysis.collectives import collectives_of, interconnect_devices, price
from hloscope.analysis.peaks import device_peak
from hloscope.analysis.step_estimate import compute_seconds, is_collective_opcode, step_estimate
from hloscope.cli import cli
from hloscope.devices import lookup
from hloscope.hlo.parser import parse
from hloscope.render.step_text import format_share, render_step

ADD = """
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
"""

# An all-reduce of x started before a dot and finished after it (the dot can hide it), then
# a sync all-reduce of the dot's result (nothing hides it). Both move 4 MiB in groups of 4.
OVERLAP = (
    "HloModule step_demo, is_scheduled=true, num_partitions=4\n"
    + ADD
    + """
ENTRY %main (x: f32[1024,1024], w: f32[1024,1024]) -> (f32[1024,1024], f32[1024,1024]) {
  %x = f32[1024,1024]{1,0} parameter(0)
  %w = f32[1024,1024]{1,0} parameter(1)
  %ars = f32[1024,1024]{1,0} all-reduce-start(%x), channel_id=1, replica_groups={{0,1,2,3}}, to_apply=%add
  %dot = f32[1024,1024]{1,0} dot(%w, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ard = f32[1024,1024]{1,0} all-reduce-done(%ars)
  %ar2 = f32[1024,1024]{1,0} all-reduce(%dot), channel_id=2, replica_groups={{0,1,2,3}}, to_apply=%add
  ROOT %t = (f32[1024,1024]{1,0}, f32[1024,1024]{1,0}) tuple(%ard, %ar2)
}
"""
)

# A loop of 7 steps whose body exponentiates f32[65536] and counts; no collective.
LOOP = """HloModule loop_demo, is_scheduled=true
%body (s: (s32[], f32[65536])) -> (s32[], f32[65536]) {
  %s = (s32[], f32[65536]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[65536]{0} get-tuple-element(%s), index=1
  %e = f32[65536]{0} exponential(%v)
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[65536]{0}) tuple(%n, %e)
}

%cond (s: (s32[], f32[65536])) -> pred[] {
  %s = (s32[], f32[65536]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %k = s32[] constant(7)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}

ENTRY %main (x: f32[65536]) -> f32[65536] {
  %x = f32[65536]{0} parameter(0)
  %zero = s32[] constant(0)
  %t = (s32[], f32[65536]{0}) tuple(%zero, %x)
  %w = (s32[], f32[65536]{0}) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"7"}}
  ROOT %out = f32[65536]{0} get-tuple-element(%w), index=1
}
"""

V5E_FLOPS = 197e12
V5E_BYTES = 819e9
V5E_RING = 100e9  # 400 GB/s both ways over 4 ports: 50 GB/s one way per link, two directions
HOP = 1e-6
MIB4 = 1024 * 1024 * 4


def _all_reduce_seconds(nbytes: int, n: int) -> float:
    return 2 * (n - 1) / n * nbytes / V5E_RING + 2 * (n - 1) * HOP


def test_split_matches_the_hand_computation():
    module = parse(OVERLAP)
    result = collectives_of(module)
    step = step_estimate(module, result, lookup("tpu-v5e"))
    assert step is not None
    # The dot: 2*1024^3 FLOPs, 3 arrays of 4 MiB read and written: memory-bound on v5e.
    dot_s = max(2 * 1024**3 / V5E_FLOPS, 3 * MIB4 / V5E_BYTES)
    assert dot_s == 3 * MIB4 / V5E_BYTES
    assert step.kernels == 1  # the dot; the collectives are communication, the tuple is free
    assert step.compute_s == pytest.approx(dot_s, rel=1e-12)
    each = _all_reduce_seconds(MIB4, 4)
    assert step.communication_s == pytest.approx(2 * each, rel=1e-12)
    # The async one hides under the dot (shorter than it), the sync one not at all.
    assert step.hidden_s == pytest.approx(dot_s, rel=1e-12)
    assert step.exposed_s == pytest.approx(2 * each - dot_s, rel=1e-12)
    assert step.total_s == pytest.approx(dot_s + 2 * each - dot_s, rel=1e-12)
    split = step.split
    assert split["compute"] == pytest.approx(dot_s / (2 * each), rel=1e-12)
    assert split["compute"] + split["exposed"] == pytest.approx(1.0)
    assert split["hidden"] == pytest.approx(split["compute"])
    data = step.to_dict()
    assert set(data) >= {"compute_s", "exposed_s", "hidden_s", "total_s", "split"}
    assert data["total_s"] == step.total_s and data["device"] == "tpu-v5e"


def test_the_same_dump_priced_on_two_devices_keeps_its_groups():
    module = parse(OVERLAP)
    v5e = step_estimate(module, collectives_of(module), lookup("tpu-v5e"))
    v4 = step_estimate(module, collectives_of(module), lookup("tpu-v4"))
    assert v5e is not None and v4 is not None
    # v4: 45 GB/s one way per link, a ring of 90 GB/s; 1200 GB/s of HBM.
    v4_each = 2 * 3 / 4 * MIB4 / 90e9 + 2 * 3 * HOP
    assert v4.communication_s == pytest.approx(2 * v4_each, rel=1e-12)
    assert v4.compute_s == pytest.approx(3 * MIB4 / 1200e9, rel=1e-12)
    assert v4.total_s != v5e.total_s


def test_loop_kernels_count_once_per_trip():
    module = parse(LOOP)
    seconds, kernels = compute_seconds(module, device_peak(lookup("tpu-v5e")))
    # Per trip: exp reads and writes 256 KiB (no FLOPs, transcendentals are apart), the
    # counter's add reads 8 bytes and writes 4, the condition's compare reads 8 writes 1.
    per_trip = (2 * 65536 * 4 + 12 + 9) / V5E_BYTES
    assert kernels == 3
    assert seconds == pytest.approx(7 * per_trip, rel=1e-12)


def test_a_module_without_collectives_is_all_compute():
    module = parse(LOOP)
    step = step_estimate(module, collectives_of(module), lookup("h100"))
    assert step is not None and step.exposed_s == 0 and step.hidden_s == 0
    assert step.split == {"compute": 1.0, "exposed": 0.0, "hidden": 0.0}
    text = render_step(step.to_dict(), 1)
    assert "one device" in text and "none of 0.0 ns" in text


def test_every_interconnect_row_has_a_peak_to_price_compute_with():
    for row in interconnect_devices():
        assert device_peak(row) is not None, row.name


def test_collective_opcodes_are_not_compute():
    for op in ("all-reduce", "all-reduce-start", "all-reduce-done", "send", "recv-done"):
        assert is_collective_opcode(op)
    for op in ("dot", "fusion", "copy", "add"):
        assert not is_collective_opcode(op)


def test_shares_never_round_a_part_away():
    assert format_share(0.714) == "71%" and format_share(0.003) == "<1%"
    assert format_share(0.0) == "0%" and format_share(1.0) == "100%"


def test_text_lines_fit_80_columns_and_say_the_split():
    module = parse(OVERLAP)
    step = step_estimate(module, collectives_of(module), lookup("tpu-v5e"))
    assert step is not None
    text = render_step(step.to_dict(), 4)
    assert text.startswith("step on tpu-v5e (one call, each of 4 devices):")
    assert "compute" in text and "exposed communication" in text and "under compute" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert f"{format_share(step.split['exposed'])}" in text


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a @ b,  # one dot kernel: compute-bound on a TPU
        lambda a, b: a + b,  # one elementwise kernel: memory-bound
    ],
)
def test_one_kernel_programs_match_xla_cost_analysis_on_the_roofline(fn):
    import jax
    import jax.numpy as jnp

    x = jnp.ones((512, 512), jnp.float32)
    compiled = jax.jit(fn).lower(x, x).compile()
    module = parse(compiled.as_text())
    peak = device_peak(lookup("tpu-v6e"))
    assert peak is not None
    seconds, kernels = compute_seconds(module, peak)
    assert kernels == 1
    cost = compiled.cost_analysis()
    if isinstance(cost, list):  # older jax: one dict per device
        cost = cost[0]
    expected = max(
        cost["flops"] / peak.flops_per_s["bf16"], cost["bytes accessed"] / peak.bytes_per_s
    )
    assert seconds == pytest.approx(expected, rel=1e-6)


def test_cli_collectives_json_and_text_carry_the_step(tmp_path):
    path = tmp_path / "step.hlo"
    path.write_text(OVERLAP)
    out = CliRunner().invoke(cli, ["collectives", str(path), "--device", "tpu-v5e", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    module = parse(OVERLAP)
    expected = step_estimate(module, collectives_of(module), lookup("tpu-v5e"))
    assert expected is not None
    want = expected.to_dict()
    assert data["step"]["split"] == pytest.approx(want.pop("split"))
    assert {k: v for k, v in data["step"].items() if k != "split"} == pytest.approx(want)
    assert data["step"]["total_s"] == pytest.approx(
        data["step"]["compute_s"] + data["totals"]["exposed_s"]
    )
    text = CliRunner().invoke(cli, ["collectives", str(path), "--device", "tpu-v5e"])
    assert text.exit_code == 0 and "step on tpu-v5e" in text.output
    bare = CliRunner().invoke(cli, ["collectives", str(path), "--json"])
    assert json.loads(bare.output)["step"] is None
    assert "step on" not in CliRunner().invoke(cli, ["collectives", str(path)]).output


def test_price_then_step_does_not_price_twice():
    module = parse(OVERLAP)
    result = collectives_of(module)
    row = lookup("tpu-v5e")
    price(result, row)
    notes = list(result.notes)
    step_estimate(module, result, row)
    assert result.notes == notes


def test_the_command_with_a_device_parses_an_hlo_file_once(tmp_path, monkeypatch):
    import hloscope.hlo.parser as parser

    path = tmp_path / "step.hlo"
    path.write_text(OVERLAP)
    parsed: list[object] = []
    real = parser.parse_modules

    def counting(*args, **kwargs):
        parsed.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(parser, "parse_modules", counting)
    out = CliRunner().invoke(cli, ["collectives", str(path), "--device", "tpu-v5e", "--json"])
    assert out.exit_code == 0, out.output
    # The collectives and the step estimate read the same module: a 54 MB file costs 1.3 s
    # a parse.
    assert len(parsed) == 1 and json.loads(out.output)["step"]["kernels"] == 1


def test_compute_is_the_fusion_reports_kernels_on_the_roofline_costed_once(monkeypatch):
    from pathlib import Path

    from hloscope.analysis.cost._analysis import _Analysis
    from hloscope.analysis.fusions import fusion_report
    from hloscope.analysis.roofline import roofline_seconds

    sample = (
        Path(__file__).parent.parent
        / "samples"
        / "hlo"
        / "transformer_train.after_optimizations.txt"
    )
    module = parse(sample.read_text())
    peak = device_peak(lookup("tpu-v5e"))
    kernels = [k for k in fusion_report(module).kernels if not is_collective_opcode(k.opcode)]

    def costed_again(self, inst):
        raise AssertionError(f"{inst.name} costed a second time")

    # The step reads the per-kernel costs the fusion report made (the cost model keeps them
    # per module): `fusions --device` and `report --device` cost the module once.
    monkeypatch.setattr(_Analysis, "_compute", costed_again)
    seconds, count = compute_seconds(module, peak)
    assert count == len(kernels) > 10
    expected = sum(roofline_seconds(k.cost, peak) * k.executions for k in kernels)
    assert seconds == pytest.approx(expected, rel=1e-12)
