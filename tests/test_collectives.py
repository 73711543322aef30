"""hloscope collectives on hand-written HLO: kinds, async forms, groups, loops, formulas."""

# ruff: noqa: E501 - HLO instructions are written one per line, as XLA prints them.

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hloscope.analysis.collectives import (
    CollectiveKind,
    DeviceMesh,
    Link,
    collective_seconds,
    collectives_of,
    interconnect_devices,
    mesh_axes_of,
    price,
    priced_device,
)
from hloscope.analysis.peaks import device_peak
from hloscope.analysis.roofline import roofline_seconds
from hloscope.cli import cli
from hloscope.devices import UnknownDeviceError, lookup
from hloscope.hlo.parser import parse
from hloscope.render.collectives_text import format_seconds, render_collectives

ADD = """
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
"""

ASYNC = (
    "HloModule async_demo, is_scheduled=true, num_partitions=8\n"
    + ADD
    + """
%rs_body (p: f32[1024,256]) -> f32[128,256] {
  %p = f32[1024,256]{1,0} parameter(0)
  ROOT %rs = f32[128,256]{1,0} reduce-scatter(%p), channel_id=3, replica_groups=[1,8]<=[8], dimensions={0}, to_apply=%add
}

ENTRY %main (x: f32[8192,256], w: f32[8192,8192]) -> (f32[8192,256], f32[8192,256], f32[1024,256]) {
  %x = f32[8192,256]{1,0} parameter(0)
  %w = f32[8192,8192]{1,0} parameter(1)
  %ars = f32[8192,256]{1,0} all-reduce-start(%x), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add
  %dot = f32[8192,256]{1,0} dot(%w, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ard = f32[8192,256]{1,0} all-reduce-done(%ars)
  %ars2 = f32[8192,256]{1,0} all-reduce-start(%dot), channel_id=2, replica_groups=[4,2]<=[2,4]T(1,0), to_apply=%add
  %ard2 = f32[8192,256]{1,0} all-reduce-done(%ars2)
  %sl = f32[1024,256]{1,0} slice(%x), slice={[0:1024], [0:256]}
  %as = ((f32[1024,256]{1,0}), f32[128,256]{1,0}) async-start(%sl), calls=%rs_body
  %ad = f32[128,256]{1,0} async-done(%as)
  ROOT %t = (f32[8192,256]{1,0}, f32[8192,256]{1,0}, f32[128,256]{1,0}) tuple(%ard, %ard2, %ad)
}
"""
)

LOOP = (
    "HloModule loop_demo, is_scheduled=true, num_partitions=4\n"
    + ADD
    + """
%body (s: (s32[], f32[16])) -> (s32[], f32[16]) {
  %s = (s32[], f32[16]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[16]{0} get-tuple-element(%s), index=1
  %g = f32[64]{0} all-gather(%v), channel_id=1, replica_groups=[1,4]<=[4], dimensions={0}
  %sl = f32[16]{0} slice(%g), slice={[0:16]}
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[16]{0}) tuple(%n, %sl)
}

%cond (s: (s32[], f32[16])) -> pred[] {
  %s = (s32[], f32[16]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %k = s32[] constant(7)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}

%yes (p: f32[16]) -> f32[16] {
  %p = f32[16]{0} parameter(0)
  ROOT %cp = f32[16]{0} collective-permute(%p), channel_id=2, source_target_pairs={{0,1},{1,0},{2,3},{3,2}}
}

%no (p: f32[16]) -> f32[16] {
  ROOT %p = f32[16]{0} parameter(0)
}

ENTRY %main (x: f32[16], c: pred[]) -> f32[16] {
  %x = f32[16]{0} parameter(0)
  %c = pred[] parameter(1)
  %zero = s32[] constant(0)
  %t = (s32[], f32[16]{0}) tuple(%zero, %x)
  %w = (s32[], f32[16]{0}) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"7"}}
  %out = f32[16]{0} get-tuple-element(%w), index=1
  ROOT %br = f32[16]{0} conditional(%c, %out, %out), true_computation=%yes, false_computation=%no
}
"""
)

# The 2023 GPU form: operand shapes written inline, `replica_groups={}` for all devices.
OLD = (
    "HloModule old_demo, is_scheduled=true, replica_count=1, num_partitions=8\n"
    + ADD
    + """
ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %all-reduce-start = f32[8]{0} all-reduce-start(f32[8]{0} %p), channel_id=5, replica_groups={}, use_global_device_ids=true, to_apply=%add
  ROOT %all-reduce-done = f32[8]{0} all-reduce-done(f32[8]{0} %all-reduce-start)
}
"""
)


def _by_name(result):
    return {c.name: c for c in result.collectives}


def test_async_pairs_and_async_start_wrappers_are_listed_once_at_their_start():
    result = collectives_of(parse(ASYNC))
    found = _by_name(result)
    assert list(found) == ["ars", "ars2", "as"]
    assert [c.kind for c in result.collectives] == [
        CollectiveKind.ALL_REDUCE,
        CollectiveKind.ALL_REDUCE,
        CollectiveKind.REDUCE_SCATTER,
    ]
    assert all(c.is_async for c in result.collectives)
    assert (found["ars"].done, found["ars2"].done, found["as"].done) == ("ard", "ard2", "ad")
    # The reduce-scatter's attributes are the wrapped op's: its channel and its iota groups.
    assert found["as"].channel_id == 3 and found["as"].bytes == 1024 * 256 * 4
    assert found["as"].groups == (tuple(range(8)),)


def test_iota_replica_groups_are_read_as_xla_expands_them():
    found = _by_name(collectives_of(parse(ASYNC)))
    assert found["ars"].groups == ((0, 1, 2, 3), (4, 5, 6, 7))
    # [4,2]<=[2,4]T(1,0): arange(8).reshape(2,4).T.reshape(4,2) -> columns of the 2x4 array.
    assert found["ars2"].groups == ((0, 4), (1, 5), (2, 6), (3, 7))
    assert (found["ars2"].group_size, found["ars2"].num_groups) == (2, 4)


def test_only_the_compute_between_start_and_done_overlaps():
    found = _by_name(collectives_of(parse(ASYNC)))
    assert found["ars"].overlapped_ops == 1
    assert found["ars"].overlap.flops == 2 * 8192 * 8192 * 256
    assert found["ars2"].overlapped_ops == 0 and found["ars2"].overlap.flops == 0


def test_exposed_time_is_zero_when_hidden_and_the_estimate_when_nothing_overlaps():
    result = collectives_of(parse(ASYNC))
    price(result, lookup("tpu-v5e"))
    found = _by_name(result)
    assert found["ars"].hidden_s > found["ars"].estimate_s > 0
    assert found["ars"].exposed_s == 0.0
    assert found["ars2"].exposed_s == found["ars2"].estimate_s > 0
    totals = result.to_dict()["totals"]
    assert totals["estimate_s"] == pytest.approx(sum(c.estimate_s for c in result.collectives))
    assert totals["exposed_s"] == pytest.approx(found["ars2"].estimate_s + found["as"].estimate_s)


def test_a_loop_body_counts_its_trip_count_and_a_branch_is_found():
    result = collectives_of(parse(LOOP))
    found = _by_name(result)
    gather, permute = found["g"], found["cp"]
    assert gather.kind is CollectiveKind.ALL_GATHER and gather.executions == 7
    # all-gather moves the gathered array: the f32[16] operand times the 4 devices.
    assert gather.bytes == 16 * 4 * 4 and gather.executed_bytes == 7 * 256
    assert gather.where == "w body x7"
    assert permute.kind is CollectiveKind.COLLECTIVE_PERMUTE and permute.executions == 1
    assert permute.groups == ((0, 1), (1, 0), (2, 3), (3, 2)) and permute.group_size == 2
    assert permute.bytes == 64 and "br branch" in permute.where
    assert result.to_dict()["totals"]["executed_bytes"] == 7 * 256 + 64


def test_the_old_start_done_form_with_empty_groups_means_every_device():
    result = collectives_of(parse(OLD))
    (c,) = result.collectives
    assert c.name == "all-reduce-start" and c.is_async and c.done == "all-reduce-done"
    assert c.groups == (tuple(range(8)),) and c.group_size == 8 and c.channel_id == 5
    assert c.bytes == 32 and result.devices == 8


def test_mesh_axes_are_the_axes_a_group_varies_along():
    mesh = DeviceMesh(("data", "model"), (4, 2))
    assert mesh_axes_of(((0, 1), (2, 3), (4, 5), (6, 7)), mesh, 8) == ["model"]
    assert mesh_axes_of(((0, 2, 4, 6), (1, 3, 5, 7)), mesh, 8) == ["data"]
    assert mesh_axes_of((tuple(range(8)),), mesh, 8) == ["data", "model"]
    assert mesh_axes_of(((0, 1),), mesh, 16) is None  # the mesh is not the whole machine
    assert mesh_axes_of(((0, 1),), None, 8) is None


def test_mesh_is_inferred_from_the_iota_reshape_of_the_shardings():
    text = (
        "HloModule m, num_partitions=8\n\nENTRY %main (p: f32[8,16]) -> f32[8,16] {\n"
        "  ROOT %p = f32[8,16]{1,0} parameter(0), "
        "sharding={devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}\n}\n"
    )
    result = collectives_of(parse(text))
    assert result.mesh == DeviceMesh(("axis_0", "axis_1"), (4, 2))
    (param,) = result.parameters
    assert param.shape == "f32[16,16]" and param.per_device_shape == "f32[8,16]"
    assert param.per_device_bytes == 512 and not param.replicated


LINK = Link(ring_bytes_per_s=100e9, link_bytes_per_s=50e9, latency_s=1e-6)
SWITCH = Link(ring_bytes_per_s=450e9, link_bytes_per_s=25e9, latency_s=3e-6, switch=True)
MB = 1 << 20


@pytest.mark.parametrize(
    ("kind", "n", "link", "expected"),
    [
        # (n-1)/n of the data over the ring, plus a hop's latency per step.
        (CollectiveKind.ALL_GATHER, 8, LINK, 7 / 8 * MB / 100e9 + 7e-6),
        (CollectiveKind.REDUCE_SCATTER, 4, LINK, 3 / 4 * MB / 100e9 + 3e-6),
        # all-reduce: twice the reduce-scatter.
        (CollectiveKind.ALL_REDUCE, 4, LINK, 2 * 3 / 4 * MB / 100e9 + 6e-6),
        # all-to-all on a ring: pieces travel n/4 hops on average.
        (CollectiveKind.ALL_TO_ALL, 16, LINK, 15 / 16 * MB * 4 / 100e9 + 8e-6),
        (CollectiveKind.ALL_TO_ALL, 2, LINK, 1 / 2 * MB / 100e9 + 1e-6),
        # through a switch every piece goes straight to its target.
        (CollectiveKind.ALL_TO_ALL, 8, SWITCH, 7 / 8 * MB / 450e9 + 3e-6),
        # a permute crosses one link one way (the switch: the GPU's whole bandwidth).
        (CollectiveKind.COLLECTIVE_PERMUTE, 2, LINK, MB / 50e9 + 1e-6),
        (CollectiveKind.COLLECTIVE_PERMUTE, 2, SWITCH, MB / 450e9 + 3e-6),
        (CollectiveKind.COLLECTIVE_BROADCAST, 4, LINK, MB / 100e9 + 3e-6),
        (CollectiveKind.ALL_REDUCE, 1, LINK, 0.0),
    ],
)
def test_formulas_match_hand_computations(kind, n, link, expected):
    assert collective_seconds(kind, MB, n, link) == pytest.approx(expected)


def test_the_interconnect_rows_derive_links_from_the_cited_per_chip_figures():
    v5e = priced_device("tpu-v5e").device.interconnect
    # 400 GBps bidirectional over 4 ports: 50 GB/s one way per link, a ring uses both ways.
    assert v5e.link_bytes_per_s == 50e9 and v5e.ring_bytes_per_s == 100e9
    assert lookup("v6e").interconnect.ring_bytes_per_s == 200e9
    assert lookup("TPU_V5P").interconnect.links == 6
    h100 = lookup("h100").interconnect
    assert h100.switch and h100.ring_bytes_per_s == 450e9 and h100.links == 18
    rows = interconnect_devices()
    assert all(row.interconnect.source.startswith("http") and device_peak(row) for row in rows)
    with pytest.raises(UnknownDeviceError, match="tpu-v5e"):
        priced_device("tpu-v9")
    with pytest.raises(UnknownDeviceError, match="no interconnect figures for tpu-v2"):
        priced_device("tpu-v2")  # a chip the registry knows, without ICI figures


def test_roofline_seconds_take_the_slower_of_compute_and_memory():
    from hloscope.analysis.cost import Cost

    peak = device_peak(lookup("tpu-v5e"))
    assert roofline_seconds(Cost.of(flops=197 * 10**12), peak) == pytest.approx(1.0)
    assert roofline_seconds(Cost.of(read=819 * 10**9), peak) == pytest.approx(1.0)


def test_text_lists_each_collective_and_where_a_loop_runs_it():
    result = collectives_of(parse(LOOP))
    price(result, lookup("h100"))
    text = render_collectives(result)
    assert "all-gather" in text and "collective-permute" in text
    assert "in w body x7" in text and "communication:" in text
    assert "total: 2 collectives" in text
    assert format_seconds(1.23e-5) == "12.3 us" and format_seconds(None) == "-"


def test_cli_json_on_the_stored_dump(tmp_path):
    dump = "tests/data/generated/jax_collectives"
    out = CliRunner().invoke(
        cli, ["collectives", dump, "--module", "jit_talk", "--json", "--device", "tpu-v4"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) >= {"module", "devices", "mesh", "collectives", "totals", "parameters"}
    assert data["module"] == "jit_talk" and data["devices"] == 8
    # The dump holds the module before optimizations too: the mesh as the user named it.
    assert data["mesh"] == {"axes": ["rows", "cols"], "shape": [2, 4]}
    kinds = [c["kind"] for c in data["collectives"]]
    assert kinds == [
        "all-reduce",
        "all-gather",
        "collective-permute",
        "reduce-scatter",
        "all-to-all",
    ]
    gather = data["collectives"][1]
    # f32[4,4] gathered over {0,4}: 2 x 64 bytes, along the 2-device axis of the [2,4] mesh.
    assert gather["bytes"] == 128 and gather["groups"] == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert gather["mesh_axes"] == ["rows"] and gather["source"].endswith("(talk)")
    for c in data["collectives"]:
        assert set(c) >= {
            "name", "kind", "async", "shapes", "bytes", "group_size", "groups",
            "executions", "mesh_axes", "source", "estimate_s",
        }  # fmt: skip
        assert c["estimate_s"] > 0
    assert data["totals"]["count"] == 5 and data["totals"]["bytes"] == 576
    assert data["totals"]["exposed_s"] == pytest.approx(data["totals"]["estimate_s"])
    assert data["device"]["name"] == "tpu-v4"


def test_cli_without_device_leaves_times_null_and_says_so():
    out = CliRunner().invoke(
        cli,
        ["collectives", "tests/data/generated/jax_collectives", "--module", "jit_talk", "--json"],
    )
    data = json.loads(out.output)
    assert data["totals"]["estimate_s"] is None and data["device"] is None
    assert any("--device" in note for note in data["notes"])


def test_cli_unknown_device_is_a_usage_error():
    out = CliRunner().invoke(
        cli, ["collectives", "tests/data/generated/jax_collectives", "--device", "tpu-v1"]
    )
    assert out.exit_code != 0 and "tpu-v5e" in out.output + (out.stderr or "")
