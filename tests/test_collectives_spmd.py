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

from hloscope.analysis.collectives import CollectiveKind, collectives_of
from hloscope.bench.interconnect import interconnect, price
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
    price(result, interconnect("tpu-v5e"))
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
