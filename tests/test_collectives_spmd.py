"""hloscope collectives on real SPMD programs compiled by jax for 8 host devices.

``tests/collectives_spmd_programs.py`` compiles each program in a subprocess (the device
count is fixed when jax starts) and dumps its HLO; every collective here is known by
construction, and its bytes and groups are checked against the optimized HLO's own text.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hloscope.analysis.collectives import CollectiveKind, collectives_of, price
from hloscope.devices import lookup
from hloscope.hlo.parser import parse

SCRIPT = Path(__file__).with_name("collectives_spmd_programs.py")


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spmd")
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True, env=env, timeout=300)
    return out


def _after(dumps: Path, name: str) -> str:
    (path,) = (dumps / name).glob("*.cpu_after_optimizations.txt")
    return path.read_text()


def _result(dumps: Path, name: str):
    return collectives_of(parse(_after(dumps, name)))


def _hlo_line(text: str, opcode: str) -> str:
    (line,) = [line for line in text.splitlines() if f" {opcode}(" in line]
    return line


def test_data_parallel_gradient_is_one_all_reduce_over_all_devices(dumps):
    result = _result(dumps, "data_parallel")
    (c,) = result.collectives
    assert c.kind is CollectiveKind.ALL_REDUCE and not c.is_async
    # The gradient of the replicated f32[64,32] weight (the HLO reduces its f32[32,64]
    # transpose): 8192 bytes per device, one group of all 8.
    assert "f32[32,64]" in _hlo_line(_after(dumps, "data_parallel"), "all-reduce")
    assert c.bytes == 64 * 32 * 4 and c.groups == (tuple(range(8)),) and c.group_size == 8
    assert c.executions == 1 and c.mesh_axes == ["axis_0"]
    assert "collectives_spmd_programs.py" in c.source
    assert result.devices == 8


def test_tensor_parallel_mlp_all_reduces_over_the_model_axis(dumps):
    result = _result(dumps, "tp_mlp")
    (c,) = result.collectives
    line = _hlo_line(_after(dumps, "tp_mlp"), "all-reduce")
    assert "replica_groups={{0,1},{2,3},{4,5},{6,7}}" in line and "f32[8,16]" in line
    assert c.kind is CollectiveKind.ALL_REDUCE and c.bytes == 8 * 16 * 4
    assert (c.group_size, c.num_groups) == (2, 4)
    # The mesh is (data=4, model=2): groups of neighbours span the second axis only.
    assert result.mesh is not None and result.mesh.shape == (4, 2)
    assert c.mesh_axes == ["axis_1"]
    shapes = {p.shape for p in result.parameters}
    assert shapes == {"f32[32,16]", "f32[16,64]", "f32[64,16]"}


def test_shard_map_ppermute_and_psum_scatter(dumps):
    result = _result(dumps, "shard_map_ring")
    permute, scatter = result.collectives
    assert permute.kind is CollectiveKind.COLLECTIVE_PERMUTE
    assert permute.groups == tuple((i, (i + 1) % 8) for i in range(8))
    assert permute.bytes == 16 * 4 * 4  # each device's f32[16,4] block
    assert scatter.kind is CollectiveKind.REDUCE_SCATTER
    assert scatter.bytes == 16 * 4 * 4 and scatter.group_size == 8
    assert "f32[2,4]" in scatter.result_shape
    price(result, lookup("tpu-v5e"))
    # reduce-scatter of 256 bytes over 8: 7/8 of it over 100 GB/s, plus 7 hops of 1 us.
    assert scatter.estimate_s == pytest.approx(7 / 8 * 256 / 100e9 + 7e-6)


def test_a_collective_in_lax_scan_runs_once_per_step(dumps):
    text = _after(dumps, "scan_psum")
    assert re.search(r'"known_trip_count":\{"n":"5"\}', text)
    result = collectives_of(parse(text))
    (c,) = result.collectives
    assert c.kind is CollectiveKind.ALL_REDUCE and c.executions == 5
    assert c.bytes == 16 and c.executed_bytes == 80 and "body x5" in c.where
    assert result.to_dict()["totals"]["executed_bytes"] == 80


def _lowered(dumps: Path, name: str) -> str:
    return (dumps / name / f"{name}.gpu_lowered.txt").read_text()


def _xla_reads(text: str):
    """XLA's own parser on ``text``: its instructions by name (the oracle for what a
    hand-free text holds: opcodes, and every replica-group form as its explicit list)."""
    import jaxlib._hlo as xla_hlo

    module = xla_hlo.hlo_module_from_text(text)
    # The fingerprint printer writes groups as explicit lists; keep the instruction names.
    options = xla_hlo.HloPrintOptions.fingerprint()
    options.canonicalize_instruction_names = False
    options.print_ids = True
    out = {}
    for line in module.to_string(options).splitlines():
        match = re.match(r"\s*(?:ROOT )?%?([\w.-]+) = ", line)
        if match:
            out.setdefault(match.group(1), line)
    return out


def test_fsdp_gathers_parameters_and_reduce_scatters_gradients(dumps):
    text = _after(dumps, "fsdp")
    result = collectives_of(parse(text))
    gather, scatter = result.collectives
    # Each device's f32[8,32] slice of the f32[64,32] weight, gathered over all 8.
    assert "f32[64,32]" in _hlo_line(text, "all-gather") and "f32[8,32]" in scatter.result_shape
    assert gather.kind is CollectiveKind.ALL_GATHER and gather.operand_shapes == ["f32[8,32]{1,0}"]
    assert gather.bytes == 64 * 32 * 4 and gather.group_size == 8 and gather.num_groups == 1
    # The gradient: the full f32[64,32] reduced and scattered back to each device's slice.
    assert scatter.kind is CollectiveKind.REDUCE_SCATTER
    assert scatter.operand_shapes == ["f32[64,32]{1,0}"] and scatter.bytes == 64 * 32 * 4
    assert scatter.groups == (tuple(range(8)),) and scatter.executions == 1
    assert "transpose" in scatter.op_name and "collectives_spmd_programs.py" in scatter.source


def test_fsdp_under_jit_reads_the_partitioners_mesh_form_groups(dumps):
    text = _after(dumps, "fsdp_jit")
    assert "replica_groups=mesh['axis_0'=8,'axis_1'=1]" in _hlo_line(text, "all-gather")
    result = collectives_of(parse(text))
    gather, reduce = result.collectives
    assert gather.kind is CollectiveKind.ALL_GATHER and gather.bytes == 8192
    # XLA:CPU reduces the whole f32[32,64] gradient transpose; each device keeps its slice.
    assert reduce.kind is CollectiveKind.ALL_REDUCE and reduce.operand_shapes == ["f32[32,64]{1,0}"]
    assert reduce.bytes == 8192 and reduce.groups == (tuple(range(8)),)
    # The two meshes the partitioner wrote ('axis_0'=8,'axis_1'=1 and its mirror) are one
    # axis of eight devices.
    assert result.mesh is not None and result.mesh.shape == (8,)
    assert gather.mesh_axes == reduce.mesh_axes == ["axis_0"]


def test_an_expert_layer_dispatches_and_returns_by_all_to_all(dumps):
    text = _after(dumps, "expert_all_to_all")
    assert text.count(" all-to-all(") == 2
    result = collectives_of(parse(text))
    dispatch, combine = result.collectives
    for c in (dispatch, combine):
        # XLA:CPU writes the tiled all-to-all with one f32[1,2,16] operand per device: the
        # f32[8,2,16] dispatch buffer, 1024 bytes per device, sent a slice to each expert.
        assert c.kind is CollectiveKind.ALL_TO_ALL
        assert c.operand_shapes == ["f32[1,2,16]{2,1,0}"] * 8
        assert c.bytes == 8 * 2 * 16 * 4 and c.group_size == 8 and c.mesh_axes == ["axis_0"]
    assert "expert_layer" in dispatch.source and "expert_layer" in combine.source


def test_ragged_all_to_all_from_the_optimized_module_xla_cpu_cannot_run(dumps):
    text = _after(dumps, "ragged_all_to_all")
    assert "ragged-all-to-all(" in _hlo_line(text, "ragged-all-to-all")
    result = collectives_of(parse(text))
    (c,) = result.collectives
    assert c.kind is CollectiveKind.RAGGED_ALL_TO_ALL and len(c.operand_shapes) == 6
    # The data is the first operand, each device's f32[16,4] block; the rest are the output
    # buffer and the four s32[8] offset and size arrays.
    assert c.operand_shapes[2:] == ["s32[8]{0}"] * 4
    assert c.bytes == 16 * 4 * 4 and c.groups == (tuple(range(8)),) and c.group_size == 8


def test_a_collective_in_a_conditional_branch(dumps):
    text = _after(dumps, "cond_psum")
    assert " conditional(" in text
    result = collectives_of(parse(text))
    (c,) = result.collectives
    assert c.kind is CollectiveKind.ALL_REDUCE and c.bytes == 8 * 4 and c.executions == 1
    assert re.fullmatch(r"\S+ branch \d", c.where) and "cond" in c.op_name


def test_iota_groups_with_a_transpose_from_a_real_partition(dumps):
    text = _after(dumps, "dp_over_data_axis")
    assert "replica_groups=[2,4]<=[4,2]T(1,0)" in _hlo_line(text, "all-reduce")
    result = collectives_of(parse(text))
    (c,) = result.collectives
    # The 4 "data" devices of each "model" column of the (4, 2) mesh.
    assert c.groups == ((0, 2, 4, 6), (1, 3, 5, 7)) and (c.group_size, c.num_groups) == (4, 2)
    assert c.bytes == 32 * 16 * 4 and result.mesh is not None and result.mesh.shape == (4, 2)
    assert c.mesh_axes == ["axis_0"]
    xla = _xla_reads(text)[c.name]
    assert "replica_groups={{0,2,4,6},{1,3,5,7}}" in xla


def test_collective_broadcast_as_xla_writes_it_for_gpus(dumps):
    text = _lowered(dumps, "collective_broadcast")
    result = collectives_of(parse(text))
    (c,) = result.collectives
    assert c.kind is CollectiveKind.COLLECTIVE_BROADCAST and not c.is_async
    xla = _xla_reads(text)[c.name]
    assert " collective-broadcast(" in xla and "replica_groups={{3,0,1,2,4,5,6,7}}" in xla
    # The source first: one group of all 8, each device's f32[8,4] block.
    assert c.groups == ((3, 0, 1, 2, 4, 5, 6, 7),) and c.group_size == 8
    assert c.bytes == 8 * 4 * 4 and c.channel_id == 1


def test_send_and_recv_as_xla_writes_them_for_gpus(dumps):
    text = _lowered(dumps, "send_recv")
    result = collectives_of(parse(text))
    send, recv = result.collectives
    xla = _xla_reads(text)
    assert " send(" in xla[send.name] and " recv(" in xla[recv.name]
    ring = tuple((i, (i + 1) % 8) for i in range(8))
    for c, kind in ((send, CollectiveKind.SEND), (recv, CollectiveKind.RECV)):
        assert c.kind is kind and c.is_async and c.done is not None
        assert "-done(" in xla[c.done]
        # The pairs are in the frontend attribute jax's psend/precv write.
        assert c.groups == ring and c.group_size == 2
        assert c.bytes == 8 * 4 * 4  # the f32[8,4] sent, and the f32[8,4] received
    assert "_xla_send_recv_source_target_pairs" in xla[send.name]


V5E = 100e9, 50e9, 1e-6  # ring B, link L, hop latency a (tests/test_collectives.py derives them)
H100 = 450e9, 25e9, 3e-6  # through NVSwitch: B is the whole one-way NVLink bandwidth


@pytest.mark.parametrize(
    ("program", "index", "device", "expected"),
    [
        # all-reduce of 8192 bytes over 8: 2 (n-1)/n D / B + 2 (n-1) a.
        ("data_parallel", 0, "tpu-v5e", 2 * 7 / 8 * 8192 / V5E[0] + 14 * V5E[2]),
        ("data_parallel", 0, "h100", 2 * 7 / 8 * 8192 / H100[0] + 14 * H100[2]),
        # all-reduce of 512 bytes over the 2 model devices.
        ("tp_mlp", 0, "tpu-v5e", 2 * 1 / 2 * 512 / V5E[0] + 2 * V5E[2]),
        # all-gather and reduce-scatter of 8192 bytes over 8: (n-1)/n D / B + (n-1) a.
        ("fsdp", 0, "tpu-v5e", 7 / 8 * 8192 / V5E[0] + 7 * V5E[2]),
        ("fsdp", 1, "tpu-v5e", 7 / 8 * 8192 / V5E[0] + 7 * V5E[2]),
        ("fsdp", 1, "h100", 7 / 8 * 8192 / H100[0] + 7 * H100[2]),
        # all-to-all of 1024 bytes over 8: on a ring n/4 = 2 hops on average and n/2 latencies;
        # through a switch straight to each target, one latency.
        ("expert_all_to_all", 0, "tpu-v5e", 7 / 8 * 1024 * 2 / V5E[0] + 4 * V5E[2]),
        ("expert_all_to_all", 1, "h100", 7 / 8 * 1024 / H100[0] + H100[2]),
        ("ragged_all_to_all", 0, "tpu-v5e", 7 / 8 * 256 * 2 / V5E[0] + 4 * V5E[2]),
        # collective-permute of 256 bytes: one link one way (the switch: all of B), one hop.
        ("shard_map_ring", 0, "tpu-v5e", 256 / V5E[1] + V5E[2]),
        ("shard_map_ring", 0, "h100", 256 / H100[0] + H100[2]),
        # reduce-scatter of 256 bytes over 8.
        ("shard_map_ring", 1, "tpu-v5e", 7 / 8 * 256 / V5E[0] + 7 * V5E[2]),
        # the scan's all-reduce of 16 bytes over 8, per step.
        ("scan_psum", 0, "tpu-v5e", 2 * 7 / 8 * 16 / V5E[0] + 14 * V5E[2]),
        # collective-broadcast of 128 bytes along a ring of 8: D / B + (n-1) a.
        ("collective_broadcast", 0, "tpu-v5e", 128 / V5E[0] + 7 * V5E[2]),
        # send and recv of 128 bytes (one channel): one transfer, one link, one hop, priced
        # on the recv; the send it carries costs nothing more.
        ("send_recv", 0, "tpu-v5e", 0.0),
        ("send_recv", 1, "tpu-v5e", 128 / V5E[1] + V5E[2]),
        ("send_recv", 1, "h100", 128 / H100[0] + H100[2]),
    ],
)
def test_estimates_on_real_programs_match_hand_computations(
    dumps, program, index, device, expected
):
    folder = dumps / program
    text = next(iter(folder.glob("*after_optimizations.txt")), None)
    result = collectives_of(parse(text.read_text() if text else _lowered(dumps, program)))
    price(result, lookup(device))
    c = result.collectives[index]
    assert c.estimate_s == pytest.approx(expected, rel=1e-12)
    # XLA:CPU's collectives are synchronous: nothing is scheduled to hide them.
    if not c.is_async:
        assert c.exposed_s == c.estimate_s


def test_cli_json_on_a_real_fsdp_dump(dumps):
    from click.testing import CliRunner

    from hloscope.cli import cli

    out = CliRunner().invoke(cli, ["collectives", str(dumps / "fsdp"), "--json", "--device", "v5e"])
    assert out.exit_code == 0, out.output
    data = __import__("json").loads(out.output)
    assert data["devices"] == 8 and data["mesh"]["shape"] == [8]
    rows = [(c["kind"], c["bytes"], c["group_size"], c["executions"]) for c in data["collectives"]]
    assert rows == [("all-gather", 8192, 8, 1), ("reduce-scatter", 8192, 8, 1)]
    assert data["totals"]["bytes"] == 16384
    assert data["totals"]["exposed_s"] == pytest.approx(data["totals"]["estimate_s"])
