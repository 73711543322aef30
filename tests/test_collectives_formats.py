"""hloscope collectives on the forms XLA writes that XLA:CPU does not: old GPU dumps, async
wrappers, send/recv, collective-broadcast, ragged-all-to-all, every replica-group form.

Each module here is hand-written in XLA's own syntax (the 2023 GPU schedules' inline operand
shapes and tuple-shaped starts, the ``X-start`` sugar for async wrappers, send/recv pipelined
in a while loop...) and read first by XLA's own parser (``jaxlib._hlo``): it must accept the
text, and its fingerprint printer, which writes every replica-group form as the explicit list,
is the oracle for the groups. Bytes are computed by hand from the shapes XLA prints.
"""

# ruff: noqa: E501 - HLO instructions are written one per line, as XLA prints them.

from __future__ import annotations

import re

import pytest

from hloscope.analysis.collectives import CollectiveKind, collectives_of, price
from hloscope.analysis.cost import instruction_costs
from hloscope.analysis.peaks import device_peak
from hloscope.analysis.roofline import roofline_seconds
from hloscope.devices import lookup
from hloscope.hlo.parser import parse

ADD = """
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %x, f32[] %y)
}
"""


def xla_lines(text: str) -> dict[str, str]:
    """XLA's parser on ``text``: each instruction's line as its fingerprint printer writes it
    (replica groups as explicit lists, names kept), by name; the first line of a name wins
    (the sugared wrappers' own computations repeat it)."""
    import jaxlib._hlo as xla_hlo

    module = xla_hlo.hlo_module_from_text(text)
    options = xla_hlo.HloPrintOptions.fingerprint()
    options.canonicalize_instruction_names = False
    options.print_ids = True
    out: dict[str, str] = {}
    for line in module.to_string(options).splitlines():
        match = re.match(r"\s*(?:ROOT )?([\w.-]+) = ", line)
        if match:
            out.setdefault(match.group(1), line)
    return out


def explicit_groups(line: str, key: str = "replica_groups") -> tuple[tuple[int, ...], ...]:
    """The groups written ``key={{0,1},{2,3}}`` in one of XLA's lines."""
    match = re.search(key + r"=\{((?:\{[\d,]*\},?)*)\}", line)
    assert match, line
    return tuple(
        tuple(int(d) for d in g.split(",") if d) for g in re.findall(r"\{([\d,]*)\}", match[1])
    )


def by_name(text: str):
    return {c.name: c for c in collectives_of(parse(text)).collectives}


# ==========================================================================================
# A 2023 GPU schedule: inline operand shapes, tuple-shaped starts, X-start sugar
# ==========================================================================================

GPU_2023 = (
    "HloModule jit_train_step, is_scheduled=true, entry_computation_layout={(f32[1024]{0}, f32[128]{0}, f32[256,256]{1,0})->(f32[1024]{0}, f32[1024]{0}, f32[128]{0}, f32[128]{0}, f32[1024]{0}, f32[256,256]{1,0})}, replica_count=1, num_partitions=8\n"
    + ADD
    + """
ENTRY %main.20 (Arg_0.1: f32[1024], Arg_1.2: f32[128], Arg_2.3: f32[256,256]) -> (f32[1024], f32[1024], f32[128], f32[128], f32[1024], f32[256,256]) {
  %Arg_0.1 = f32[1024]{0} parameter(0), sharding={replicated}
  %Arg_1.2 = f32[128]{0} parameter(1), sharding={devices=[8]0,1,2,3,4,5,6,7}
  %Arg_2.3 = f32[256,256]{1,0} parameter(2), sharding={replicated}
  %all-reduce-start = f32[1024]{0} all-reduce-start(f32[1024]{0} %Arg_0.1), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=%add, backend_config={"operation_queue_id":"0","wait_on_operation_queues":[],"collective_backend_config":{"is_sync":false,"no_parallel_custom_call":false}}
  %all-gather-start = (f32[128]{0}, f32[1024]{0}) all-gather-start(f32[128]{0} %Arg_1.2), channel_id=2, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}, use_global_device_ids=true, backend_config={"operation_queue_id":"0","wait_on_operation_queues":[],"collective_backend_config":{"is_sync":false}}
  %collective-permute-start = (f32[128]{0}, f32[128]{0}, u32[], u32[]) collective-permute-start(f32[128]{0} %Arg_1.2), channel_id=3, source_target_pairs={{0,1},{1,2},{2,3},{3,4},{4,5},{5,6},{6,7},{7,0}}
  %dot.5 = f32[256,256]{1,0} dot(f32[256,256]{1,0} %Arg_2.3, f32[256,256]{1,0} %Arg_2.3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %all-reduce-done = f32[1024]{0} all-reduce-done(f32[1024]{0} %all-reduce-start)
  %all-gather-done = f32[1024]{0} all-gather-done((f32[128]{0}, f32[1024]{0}) %all-gather-start)
  %collective-permute-done = f32[128]{0} collective-permute-done((f32[128]{0}, f32[128]{0}, u32[], u32[]) %collective-permute-start)
  %reduce-scatter-start = ((f32[1024]{0}), f32[128]{0}) reduce-scatter-start(f32[1024]{0} %Arg_0.1), channel_id=4, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, dimensions={0}, to_apply=%add
  %reduce-scatter-done = f32[128]{0} reduce-scatter-done(((f32[1024]{0}), f32[128]{0}) %reduce-scatter-start)
  %all-to-all-start = ((f32[1024]{0}), f32[1024]{0}) all-to-all-start(f32[1024]{0} %Arg_0.1), channel_id=5, replica_groups={{0,2,4,6},{1,3,5,7}}, dimensions={0}
  %all-to-all-done = f32[1024]{0} all-to-all-done(((f32[1024]{0}), f32[1024]{0}) %all-to-all-start)
  ROOT %tuple.19 = (f32[1024]{0}, f32[1024]{0}, f32[128]{0}, f32[128]{0}, f32[1024]{0}, f32[256,256]{1,0}) tuple(f32[1024]{0} %all-reduce-done, f32[1024]{0} %all-gather-done, f32[128]{0} %collective-permute-done, f32[128]{0} %reduce-scatter-done, f32[1024]{0} %all-to-all-done, f32[256,256]{1,0} %dot.5)
}
"""
)


def test_a_2023_gpu_schedule_reads_every_start_done_form():
    xla = xla_lines(GPU_2023)
    found = by_name(GPU_2023)
    assert list(found) == [
        "all-reduce-start",
        "all-gather-start",
        "collective-permute-start",
        "reduce-scatter-start",
        "all-to-all-start",
    ]
    expected = {
        # name: kind, bytes per device (by hand), done, result shape
        "all-reduce-start": (
            CollectiveKind.ALL_REDUCE,
            1024 * 4,
            "all-reduce-done",
            "f32[1024]{0}",
        ),
        # all-gather: the f32[128] operand times the 8 devices.
        "all-gather-start": (
            CollectiveKind.ALL_GATHER,
            128 * 4 * 8,
            "all-gather-done",
            "f32[1024]{0}",
        ),
        "collective-permute-start": (
            CollectiveKind.COLLECTIVE_PERMUTE,
            128 * 4,
            "collective-permute-done",
            "f32[128]{0}",
        ),
        "reduce-scatter-start": (
            CollectiveKind.REDUCE_SCATTER,
            1024 * 4,
            "reduce-scatter-done",
            "f32[128]{0}",
        ),
        "all-to-all-start": (
            CollectiveKind.ALL_TO_ALL,
            1024 * 4,
            "all-to-all-done",
            "f32[1024]{0}",
        ),
    }
    for name, (kind, nbytes, done, result) in expected.items():
        c = found[name]
        assert (c.kind, c.bytes, c.done, c.is_async) == (kind, nbytes, done, True), name
        # The result is what the done gives back (the tuple-shaped starts hold it second).
        assert c.result_shape == result and f"= {result} " in xla[done], name
        key = (
            "source_target_pairs" if kind is CollectiveKind.COLLECTIVE_PERMUTE else "replica_groups"
        )
        assert c.groups == explicit_groups(xla[name], key), name
    assert [c.channel_id for c in found.values()] == [1, 2, 3, 4, 5]
    # Only the dot is scheduled inside the first three pairs; the last two are back to back.
    assert [found[n].overlapped_ops for n in expected] == [1, 1, 1, 0, 0]


# The 2022 pmap form: replicas, not partitions; `replica_groups={}` is every replica; one
# all-reduce combining several arrays (XLA's all-reduce combiner writes a tuple).
PMAP_2022 = (
    "HloModule pmap_step, replica_count=4\n"
    + ADD
    + """
ENTRY %main (a: f32[16], b: bf16[8,8]) -> (f32[16], bf16[8,8]) {
  %a = f32[16]{0} parameter(0)
  %b = bf16[8,8]{1,0} parameter(1)
  ROOT %all-reduce = (f32[16]{0}, bf16[8,8]{1,0}) all-reduce(f32[16]{0} %a, bf16[8,8]{1,0} %b), replica_groups={}, to_apply=%add
}
"""
)


def test_a_pmap_all_reduce_over_every_replica_combining_two_arrays():
    xla = xla_lines(PMAP_2022)
    assert "replica_groups={}" in xla["all-reduce"]
    result = collectives_of(parse(PMAP_2022))
    (c,) = result.collectives
    assert result.devices == 4 and c.groups == ((0, 1, 2, 3),) and c.group_size == 4
    # Both arrays travel: 16 f32 and 64 bf16.
    assert c.bytes == 16 * 4 + 64 * 2 and c.channel_id is None
    assert c.operand_shapes == ["f32[16]{0}", "bf16[8,8]{1,0}"]


# ==========================================================================================
# Every replica-group form, against XLA's own expansion
# ==========================================================================================

GROUPS_MODULE = (
    "HloModule m, num_partitions=8\n"
    + ADD
    + """
ENTRY %main (p: f32[64]) -> f32[64] {
  %p = f32[64]{0} parameter(0)
  ROOT %g = f32[64]{0} all-reduce(f32[64]{0} %p), channel_id=1, replica_groups=GROUPS, use_global_device_ids=true, to_apply=%add
}
"""
)


@pytest.mark.parametrize(
    ("groups", "size", "count"),
    [
        ("{{0,4},{1,5},{2,6},{3,7}}", 2, 4),
        ("{{0,1,2,3,4,5,6,7}}", 8, 1),
        ("[2,4]<=[8]", 4, 2),
        ("[1,8]<=[8]", 8, 1),
        ("[8,1]<=[8]", 1, 8),
        ("[4,2]<=[2,4]T(1,0)", 2, 4),
        ("[2,4]<=[4,2]T(1,0)", 4, 2),
        ("[2,4]<=[2,2,2]T(2,1,0)", 4, 2),
        ("[4,2]<=[2,2,2]T(0,2,1)", 2, 4),
        ("mesh['x'=4,'y'=2] {'x'}", 4, 2),
    ],
)
def test_replica_groups_are_expanded_as_xla_expands_them(groups, size, count):
    text = GROUPS_MODULE.replace("GROUPS", groups)
    (c,) = collectives_of(parse(text)).collectives
    assert c.groups == explicit_groups(xla_lines(text)["g"])
    assert (c.group_size, c.num_groups) == (size, count)


def test_an_all_gather_of_iota_groups_multiplies_by_the_group_size():
    text = (
        "HloModule m, num_partitions=8\n\nENTRY %main (p: f32[4,16]) -> f32[16,16] {\n"
        "  %p = f32[4,16]{1,0} parameter(0), sharding={devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}\n"
        "  ROOT %ag = f32[16,16]{1,0} all-gather(f32[4,16]{1,0} %p), channel_id=1, "
        "replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, use_global_device_ids=true\n}\n"
    )
    assert explicit_groups(xla_lines(text)["ag"]) == ((0, 2, 4, 6), (1, 3, 5, 7))
    result = collectives_of(parse(text))
    (c,) = result.collectives
    assert c.bytes == 4 * 16 * 4 * 4 and c.group_size == 4
    # The [4,2] mesh of the sharding's iota: devices 0,2,4,6 differ along its first axis.
    assert result.mesh is not None and result.mesh.shape == (4, 2)
    assert c.mesh_axes == ["axis_0"]


# ==========================================================================================
# send/recv, collective-broadcast and ragged-all-to-all as XLA's GPU schedules write them
# ==========================================================================================

# A collective-permute pipelined by XLA's GPU pass into send/recv inside the loop, the pairs in
# frontend attributes; a collective-broadcast and a ragged-all-to-all wrapped in async-start.
GPU_FORMS = (
    "HloModule gpu_forms, is_scheduled=true, num_partitions=4\n"
    + """
%body (s: (u32[], f32[64])) -> (u32[], f32[64]) {
  %s = (u32[], f32[64]{0}) parameter(0)
  %i = u32[] get-tuple-element(%s), index=0
  %v = f32[64]{0} get-tuple-element(%s), index=1
  %after-all = token[] after-all()
  %recv = (f32[64]{0}, u32[], token[]) recv(%after-all), channel_id=7, frontend_attributes={_xla_send_recv_pipeline="0",_xla_send_recv_source_target_pairs={{0,1},{1,2},{2,3}}}
  %send = (f32[64]{0}, u32[], token[]) send(%v, %after-all), channel_id=7, frontend_attributes={_xla_send_recv_pipeline="0",_xla_send_recv_source_target_pairs={{0,1},{1,2},{2,3}}}, control-predecessors={%recv}
  %recv-done = (f32[64]{0}, token[]) recv-done(%recv), channel_id=7, frontend_attributes={_xla_send_recv_pipeline="0"}
  %send-done = token[] send-done(%send), channel_id=7, frontend_attributes={_xla_send_recv_pipeline="0"}
  %data = f32[64]{0} get-tuple-element(%recv-done), index=0
  %one = u32[] constant(1)
  %n = u32[] add(%i, %one)
  ROOT %r = (u32[], f32[64]{0}) tuple(%n, %data)
}

%cond (s: (u32[], f32[64])) -> pred[] {
  %s = (u32[], f32[64]{0}) parameter(0)
  %i = u32[] get-tuple-element(%s), index=0
  %k = u32[] constant(3)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}

%bcast (p: f32[32,8]) -> f32[32,8] {
  %p = f32[32,8]{1,0} parameter(0)
  ROOT %cb = f32[32,8]{1,0} collective-broadcast(%p), channel_id=8, replica_groups={{2,0,1,3}}
}

%ragged (x: bf16[128,16], o: bf16[128,16], io: s64[2], ss: s64[2], oo: s64[2], rs: s64[2]) -> bf16[128,16] {
  %x = bf16[128,16]{1,0} parameter(0)
  %o = bf16[128,16]{1,0} parameter(1)
  %io = s64[2]{0} parameter(2)
  %ss = s64[2]{0} parameter(3)
  %oo = s64[2]{0} parameter(4)
  %rs = s64[2]{0} parameter(5)
  ROOT %ra2a = bf16[128,16]{1,0} ragged-all-to-all(%x, %o, %io, %ss, %oo, %rs), channel_id=9, replica_groups=[2,2]<=[2,2]T(1,0)
}

ENTRY %main (x: f32[64], b: f32[32,8], r: bf16[128,16], o: bf16[128,16], z: s64[2]) -> (f32[64], f32[32,8], bf16[128,16]) {
  %x = f32[64]{0} parameter(0)
  %b = f32[32,8]{1,0} parameter(1)
  %r = bf16[128,16]{1,0} parameter(2)
  %o = bf16[128,16]{1,0} parameter(3)
  %z = s64[2]{0} parameter(4)
  %zero = u32[] constant(0)
  %t = (u32[], f32[64]{0}) tuple(%zero, %x)
  %w = (u32[], f32[64]{0}) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"3"}}
  %out = f32[64]{0} get-tuple-element(%w), index=1
  %cbs = ((f32[32,8]{1,0}), f32[32,8]{1,0}) async-start(%b), calls=%bcast
  %cbd = f32[32,8]{1,0} async-done(%cbs)
  %ras = ((bf16[128,16]{1,0}, bf16[128,16]{1,0}, s64[2]{0}, s64[2]{0}, s64[2]{0}, s64[2]{0}), bf16[128,16]{1,0}) async-start(%r, %o, %z, %z, %z, %z), calls=%ragged
  %rad = bf16[128,16]{1,0} async-done(%ras)
  ROOT %res = (f32[64]{0}, f32[32,8]{1,0}, bf16[128,16]{1,0}) tuple(%out, %cbd, %rad)
}
"""
)


def test_pipelined_send_recv_in_a_loop_carry_their_pairs_and_trip_count():
    xla = xla_lines(GPU_FORMS)
    found = by_name(GPU_FORMS)
    pairs = explicit_groups(xla["send"], "_xla_send_recv_source_target_pairs")
    assert pairs == ((0, 1), (1, 2), (2, 3))
    for name, kind in (("send", CollectiveKind.SEND), ("recv", CollectiveKind.RECV)):
        c = found[name]
        assert c.kind is kind and c.is_async and c.done == f"{name}-done"
        assert c.groups == pairs and c.group_size == 2
        # The f32[64] sent (the send's first operand) and received (the recv's first leaf).
        assert c.bytes == 64 * 4 and c.executions == 3 and c.where == "w body x3"
        assert c.channel_id == 7


# The same pairs as the pipelined send/recv above, in a collective-permute beside them: the
# module before optimizations names the (x=2, y=2) mesh, as Shardy writes it.
NAMED_BEFORE = """HloModule gpu_forms, num_partitions=4, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=2, "y"=2]>}}

ENTRY %main (x: f32[64]) -> f32[64] {
  ROOT %x = f32[64]{0} parameter(0)
}
"""


def test_send_and_recv_pairs_are_read_against_the_named_mesh():
    permute = GPU_FORMS.replace(
        "  %out = f32[64]{0} get-tuple-element(%w), index=1\n",
        "  %out = f32[64]{0} get-tuple-element(%w), index=1\n"
        "  %cp = f32[64]{0} collective-permute(%x), channel_id=10, "
        "source_target_pairs={{0,1},{1,2},{2,3}}\n",
    )
    xla = xla_lines(permute)
    before = parse(NAMED_BEFORE)
    result = collectives_of(parse(permute), before)
    assert result.mesh is not None and result.mesh.names == ("x", "y")
    found = {c.name: c for c in result.collectives}
    assert found["cp"].groups == explicit_groups(xla["cp"], "source_target_pairs")
    # On the row-major (x=2, y=2) mesh 0->1 moves along y, 1->2 along x and y, 2->3 along y.
    assert found["cp"].mesh_axes == ["x", "y"]
    for name in ("send", "recv"):
        assert found[name].groups == found["cp"].groups
        assert found[name].mesh_axes == ["x", "y"], name
    # The collectives read against the mesh the before-module names own their lists.
    found["send"].mesh_axes.append("z")
    assert found["recv"].mesh_axes == ["x", "y"]


def test_a_send_and_its_recv_are_one_transfer_priced_on_the_recv():
    result = collectives_of(parse(GPU_FORMS))
    row = lookup("tpu-v5e")
    price(result, row)
    found = {c.name: c for c in result.collectives}
    send, recv = found["send"], found["recv"]
    # f32[64] to one neighbour over one v5e link (50 GB/s one way): D / L + a, once.
    transfer = 64 * 4 / 50e9 + 1e-6
    assert row.interconnect.link_bytes_per_s == 50e9
    assert recv.estimate_s == pytest.approx(transfer) and send.estimate_s == 0.0
    assert send.exposed_s == 0.0
    others = sum(
        c.estimate_s * c.executions
        for c in result.collectives
        if c.kind.value not in ("send", "recv")
    )
    # The loop runs three times: three transfers, not six.
    assert result.estimate_s == pytest.approx(others + 3 * transfer)
    assert any("priced on the recv" in note for note in result.notes)
    # The table says where the send's time went rather than "0.0 ns".
    from hloscope.render.collectives_text import render_collectives

    (send_row,) = [line for line in render_collectives(result).splitlines() if "on recv" in line]
    assert send_row.startswith("send")
    # Without its recv (another channel), a send is priced as a transfer of its own.
    alone = collectives_of(
        parse(
            GPU_FORMS.replace(
                "send(%v, %after-all), channel_id=7", "send(%v, %after-all), channel_id=17"
            )
        )
    )
    price(alone, row)
    lone = {c.name: c for c in alone.collectives}
    assert lone["send"].estimate_s == pytest.approx(transfer) == lone["recv"].estimate_s
    assert not any("priced on the recv" in note for note in alone.notes)


def test_collective_broadcast_and_ragged_all_to_all_in_async_wrappers():
    xla = xla_lines(GPU_FORMS)
    found = by_name(GPU_FORMS)
    bcast, ragged = found["cbs"], found["ras"]
    assert bcast.kind is CollectiveKind.COLLECTIVE_BROADCAST and bcast.done == "cbd"
    assert bcast.groups == explicit_groups(xla["cb"]) == ((2, 0, 1, 3),)
    assert bcast.bytes == 32 * 8 * 4 and bcast.channel_id == 8
    assert ragged.kind is CollectiveKind.RAGGED_ALL_TO_ALL and ragged.done == "rad"
    # [2,2]<=[2,2]T(1,0): the columns of arange(4).reshape(2,2).
    assert ragged.groups == explicit_groups(xla["ra2a"]) == ((0, 2), (1, 3))
    assert ragged.bytes == 128 * 16 * 2 and ragged.group_size == 2
    assert ragged.operand_shapes[2:] == ["s64[2]{0}"] * 4


# ==========================================================================================
# Collectives in conditional branches, inside a loop
# ==========================================================================================

BRANCHES = (
    "HloModule branches, num_partitions=4\n"
    + ADD
    + """
%b0 (p: f32[32]) -> f32[32] {
  %p = f32[32]{0} parameter(0)
  ROOT %ar = f32[32]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1},{2,3}}, to_apply=%add
}

%b1 (p: f32[32]) -> f32[32] {
  %p = f32[32]{0} parameter(0)
  %ag = f32[128]{0} all-gather(%p), channel_id=2, replica_groups=[1,4]<=[4], dimensions={0}
  ROOT %sl = f32[32]{0} slice(%ag), slice={[0:32]}
}

%b2 (p: f32[32]) -> f32[32] {
  ROOT %p = f32[32]{0} parameter(0)
}

%body (s: (s32[], f32[32])) -> (s32[], f32[32]) {
  %s = (s32[], f32[32]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[32]{0} get-tuple-element(%s), index=1
  %c = f32[32]{0} conditional(%i, %v, %v, %v), branch_computations={%b0, %b1, %b2}
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[32]{0}) tuple(%n, %c)
}

%cond (s: (s32[], f32[32])) -> pred[] {
  %s = (s32[], f32[32]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %k = s32[] constant(6)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}

ENTRY %main (x: f32[32]) -> f32[32] {
  %x = f32[32]{0} parameter(0)
  %zero = s32[] constant(0)
  %t = (s32[], f32[32]{0}) tuple(%zero, %x)
  %w = (s32[], f32[32]{0}) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"6"}}
  ROOT %out = f32[32]{0} get-tuple-element(%w), index=1
}
"""
)


def test_collectives_in_the_branches_of_a_conditional_in_a_loop():
    xla = xla_lines(BRANCHES)
    assert "branch_computations=" in xla["c"]
    found = by_name(BRANCHES)
    assert list(found) == ["ar", "ag"]
    reduce, gather = found["ar"], found["ag"]
    # Each branch counts as if taken, every trip of the loop around it.
    assert reduce.where == "w body x6 > c branch 0" and reduce.executions == 6
    assert gather.where == "w body x6 > c branch 1" and gather.executions == 6
    assert reduce.groups == explicit_groups(xla["ar"]) and reduce.bytes == 32 * 4
    assert gather.groups == explicit_groups(xla["ag"]) == ((0, 1, 2, 3),)
    assert gather.bytes == 32 * 4 * 4 and gather.executed_bytes == 6 * 512


# ==========================================================================================
# Exposed time: hidden by the compute between start and done, by hand
# ==========================================================================================

OVERLAP = (
    "HloModule overlap, is_scheduled=true, num_partitions=4\n"
    + ADD
    + """
ENTRY %main (a: f32[1024], s: f32[256,256], l: f32[8192,8192]) -> (f32[1024], f32[1024], f32[1024], f32[256,256], f32[8192,8192]) {
  %a = f32[1024]{0} parameter(0)
  %s = f32[256,256]{1,0} parameter(1)
  %l = f32[8192,8192]{1,0} parameter(2)
  %none = f32[1024]{0} all-reduce-start(%a), channel_id=1, replica_groups={{0,1,2,3}}, to_apply=%add
  %none.done = f32[1024]{0} all-reduce-done(%none)
  %part = f32[1024]{0} all-reduce-start(%a), channel_id=2, replica_groups={{0,1,2,3}}, to_apply=%add
  %small = f32[256,256]{1,0} dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %part.done = f32[1024]{0} all-reduce-done(%part)
  %full = f32[1024]{0} all-reduce-start(%a), channel_id=3, replica_groups={{0,1,2,3}}, to_apply=%add
  %large = f32[8192,8192]{1,0} dot(%l, %l), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %full.done = f32[1024]{0} all-reduce-done(%full)
  ROOT %t = (f32[1024]{0}, f32[1024]{0}, f32[1024]{0}, f32[256,256]{1,0}, f32[8192,8192]{1,0}) tuple(%none.done, %part.done, %full.done, %small, %large)
}
"""
)


def test_exposed_time_is_the_estimate_less_the_compute_that_hides_it():
    xla_lines(OVERLAP)  # XLA reads it
    module = parse(OVERLAP)
    result = collectives_of(module)
    row = lookup("tpu-v5e")
    price(result, row)
    found = {c.name: c for c in result.collectives}
    # all-reduce of f32[1024] over 4 on a v5e ring: 2 (3/4) 4096 / 100e9 + 2 (3) 1e-6.
    estimate = 2 * 3 / 4 * 4096 / 100e9 + 6e-6
    assert all(c.estimate_s == pytest.approx(estimate) for c in found.values())
    # Nothing scheduled between start and done: all of it is exposed.
    assert found["none"].overlapped_ops == 0 and found["none"].exposed_s == found["none"].estimate_s
    # A 256^3 matmul: 2 * 256^3 FLOPs at 197e12, or its bytes at 819e9, the larger.
    cost = instruction_costs(module)
    small = next(i for i in module.instructions() if i.name == "small")
    assert cost(small).flops == 2 * 256**3
    hidden = max(2 * 256**3 / 197e12, cost(small).bytes_accessed / 819e9)
    assert found["part"].hidden_s == pytest.approx(hidden)
    assert roofline_seconds(cost(small), device_peak(row)) == pytest.approx(hidden)
    assert 0 < hidden < estimate
    assert found["part"].exposed_s == pytest.approx(estimate - hidden)
    # An 8192^3 matmul (5.6 ms at the peak) hides the 6 us all-reduce entirely.
    assert found["full"].hidden_s >= 2 * 8192**3 / 197e12 > estimate
    assert found["full"].exposed_s == 0.0
    totals = result.to_dict()["totals"]
    assert totals["exposed_s"] == pytest.approx(estimate + (estimate - hidden))
    assert totals["estimate_s"] == pytest.approx(3 * estimate)


# ==========================================================================================
# Attribute text read without the full split: the same answers, the same placed errors
# ==========================================================================================

ONE = (
    "HloModule m, num_partitions=8\n"
    + ADD
    + """
ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0), SHARDING
  ROOT %r = f32[8]{0} all-reduce(%p), ATTRS
}
"""
)


@pytest.mark.parametrize(
    ("sharding", "attrs", "groups", "channel"),
    [
        # The usual order: groups before the metadata.
        (
            "sharding={devices=[4,2]<=[8]}",
            'channel_id=3, replica_groups=[2,4]<=[8], to_apply=%add, metadata={op_name="a"}',
            ((0, 1, 2, 3), (4, 5, 6, 7)),
            3,
        ),
        # A string first that holds look-alikes: the attributes, not the string, are read.
        (
            'metadata={op_name="x, sharding={devices=[8]<=[8]}"}, sharding={devices=[4,2]<=[8]}',
            'metadata={op_name="y, replica_groups={{7}}, channel_id=9"}, channel_id=3, '
            "replica_groups={{0,4},{1,5},{2,6},{3,7}}, to_apply=%add",
            ((0, 4), (1, 5), (2, 6), (3, 7)),
            3,
        ),
        # A frontend attribute ending in the same name is not the attribute.
        (
            'frontend_attributes={xla.sdy.sharding="#sdy"}, sharding={devices=[4,2]<=[8]}',
            "replica_groups={}, to_apply=%add",
            (tuple(range(8)),),
            None,
        ),
    ],
)
def test_attributes_read_from_the_text_match_the_attribute_mapping(
    sharding, attrs, groups, channel
):
    text = ONE.replace("SHARDING", sharding).replace("ATTRS", attrs)
    module = parse(text)
    result = collectives_of(module)
    (c,) = result.collectives
    (inst,) = (i for i in module.instructions() if i.name == "r")
    mapped = inst.attrs.get("replica_groups")
    assert c.groups == (tuple(map(tuple, mapped)) if mapped and len(mapped) else groups)
    assert c.groups == groups and c.channel_id == channel == inst.attrs.get("channel_id")
    assert result.mesh is not None and result.mesh.shape == (4, 2)


@pytest.mark.parametrize(
    ("sharding", "attrs", "message"),
    [
        ("sharding={devices=[2,4]<=[9]}", "replica_groups={}, to_apply=%add", "bad sharding"),
        ("sharding={replicated}", "replica_groups=[2,4]<=[9], to_apply=%add", "bad replica_groups"),
        (
            "sharding={replicated}",
            "replica_groups={{0,1},{2,x}}, to_apply=%add",
            "bad replica_groups",
        ),
    ],
)
def test_a_bad_group_or_sharding_is_a_placed_error(sharding, attrs, message):
    from hloscope.errors import HloscopeError

    text = ONE.replace("SHARDING", sharding).replace("ATTRS", attrs)
    with pytest.raises(HloscopeError, match=message) as raised:
        collectives_of(parse(text))
    # The line of the bad value in the module text: the parameter's or the all-reduce's.
    opcode = "sharding={" if "sharding" in message else "all-reduce("
    line = next(n for n, row in enumerate(text.splitlines(), 1) if opcode in row)
    assert f"<string>:{line}:" in str(raised.value)


@pytest.mark.parametrize(
    ("header", "devices"),
    [
        ("replica_count=2, num_partitions=4", 8),
        ("entry_computation_layout={(f32[8]{0})->f32[8]{0}}, num_partitions=4", 4),
        # A string first holding a look-alike: the attribute, not the string, is read.
        ('frontend_attributes={note="num_partitions=99"}, num_partitions=2', 2),
        ("is_scheduled=true", 1),
    ],
)
def test_the_device_count_is_the_headers_partitions_times_replicas(header, devices):
    text = f"HloModule m, {header}\n\nENTRY %main (p: f32[8]) -> f32[8] {{\n"
    text += "  ROOT %p = f32[8]{0} parameter(0)\n}\n"
    import jaxlib._hlo as xla_hlo

    xla_hlo.hlo_module_from_text(text)  # XLA reads the header too
    assert collectives_of(parse(text)).devices == devices


# Permutes XLA's combiner merged into one (every operand is data), and the in-place form
# (input, output buffer and two index tuples, with slice_sizes): only its input is sent.
PERMUTES = """HloModule permutes, num_partitions=2

ENTRY %main (a: f32[8], b: bf16[16], o: f32[8]) -> ((f32[8], bf16[16]), f32[8]) {
  %a = f32[8]{0} parameter(0)
  %b = bf16[16]{0} parameter(1)
  %o = f32[8]{0} parameter(2)
  %combined = (f32[8]{0}, bf16[16]{0}) collective-permute(%a, %b), channel_id=1, source_target_pairs={{0,1},{1,0}}
  %z = s32[] constant(0)
  %i = (s32[]) tuple(%z)
  %inplace = f32[8]{0} collective-permute(%a, %o, %i, %i), channel_id=2, source_target_pairs={{0,1},{1,0}}, slice_sizes={{4}}
  ROOT %t = ((f32[8]{0}, bf16[16]{0}), f32[8]{0}) tuple(%combined, %inplace)
}
"""


def test_a_combined_permute_moves_every_operand_an_in_place_one_its_input():
    xla = xla_lines(PERMUTES)
    assert "collective-permute(f32[8]{0}, bf16[16]{0})" in xla["combined"]
    found = by_name(PERMUTES)
    assert found["combined"].bytes == 8 * 4 + 16 * 2
    assert found["inplace"].bytes == 8 * 4 and len(found["inplace"].operand_shapes) == 4
    assert found["combined"].groups == explicit_groups(xla["combined"], "source_target_pairs")
