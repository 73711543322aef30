"""Collectives XLA:TPU runs inside fusions, found by ``find_collectives`` (issue 38).

XLA:TPU fuses an all-reduce with the slice each chip keeps (a ``kCustom`` fusion), and runs
an async all-gather in three fusions that start, run and end it (one channel). The programs
(``samples/try_partitioner.py``'s ``fori_loop`` matmul, scanned stack and its gradient for a
v5e 2x2 slice; ``tests/collectives_fused_programs.py``'s FSDP MLP gradient and ring for 2x4)
are compiled offline by XLA:TPU, and each module's collectives are counted a second time from
jaxlib's own parse of it: every computation, fused ones included, each channel once, bytes
per device as ``_find``'s module doc defines them, times the trip counts of the loops around
(``known_trip_count`` where XLA recorded one, else the constant the loop's condition compares
its counter with: XLA:TPU records none).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu
from shared_cache import once, shared_cache

from hloscope.analysis.collectives import collectives_of, find_collectives
from hloscope.hlo.parser import parse

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "try_partitioner.py"
OWN = Path(__file__).resolve().parent / "collectives_fused_programs.py"

#: (script, function, slice): the programs and the slices they are compiled for.
PROGRAMS = [
    (SAMPLES, "looped_matmul", "tpu-v5e:2x2"),
    (SAMPLES, "scanned_stack", "tpu-v5e:2x2"),
    (SAMPLES, "scanned_grads", "tpu-v5e:2x2"),
    (OWN, "fsdp_mlp_grads", "tpu-v5e:2x4"),
    (OWN, "ring", "tpu-v5e:2x4"),
]
IDS = [function for _, function, _ in PROGRAMS]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One compile cache for the module; under xdist one for the run, shared by workers."""
    return shared_cache(tmp_path_factory, "collectives-fused-cache")


def _compiled(cache: Path, script: Path, function: str, slice_: str):
    """The baseline compile of ``script:function`` for ``slice_`` (XLA:TPU, offline)."""
    needs_libtpu()
    from hloscope.drivers.variants import Variant, compile_variants

    with pytest.MonkeyPatch.context() as patch, once(cache, function):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        (base,) = compile_variants(f"{script}:{function}", slice_, [Variant("baseline")])
    assert base.compiled, base.error
    return base


# --- the oracle: jaxlib's parse of the optimized module ----------------------------------

#: XLA's opcodes (jaxlib's HloOpcode names) of the collectives, by the kind hloscope names.
_KINDS = {
    "kAllReduce": "all-reduce",
    "kAllReduceStart": "all-reduce",
    "kAllGather": "all-gather",
    "kAllGatherStart": "all-gather",
    "kReduceScatter": "reduce-scatter",
    "kAllToAll": "all-to-all",
    "kCollectivePermute": "collective-permute",
    "kCollectivePermuteStart": "collective-permute",
}
_CALLED = re.compile(r"\b(calls|body|condition|to_apply|true_computation|false_computation)=%")
_LEAF = re.compile(r"\b(pred|[suf]\d+|bf16|f8\w*)\[([\d,]*)\]")
_WIDTH = {"pred": 1, "bf16": 2}


def _leaf_bytes(shape_text: str) -> int:
    total = 0
    for dtype, dims in _LEAF.findall(shape_text):
        count = 1
        for d in filter(None, dims.split(",")):
            count *= int(d)
        width = _WIDTH.get(dtype) or int(re.sub(r"\D", "", dtype) or 8) // 8
        total += count * width
    return total


def _shape_text(inst) -> str:
    """The result shape of a jaxlib instruction, as its own text prints it."""
    text = inst.to_string()
    op = re.sub(r"(?<!^)([A-Z])", r"-\1", str(inst.opcode).split(".")[-1][1:]).lower()
    return text.split(" = ", 1)[1].split(f" {op}(", 1)[0]


def _called(text: str) -> list[tuple[str, str]]:
    """``(attribute, computation)`` of each computation an instruction's text calls."""
    out = [
        (m.group(1), re.match(r"[\w.-]+", text[m.end() :]).group(0)) for m in _CALLED.finditer(text)
    ]
    branches = re.search(r"branch_computations=\{([^}]*)\}", text)
    if branches is not None:
        out += [("branch", name.strip().lstrip("%")) for name in branches.group(1).split(",")]
    return out


def _trips(while_text: str, condition) -> int:
    known = re.search(r'"known_trip_count":\{"n":"(\d+)"\}', while_text)
    if known is not None:
        return int(known.group(1))
    (limit,) = [
        int(m.group(1))
        for i in condition.instructions()
        if (m := re.search(r"s32\[\]\S* constant\((\d+)\)", i.to_string())) is not None
    ]
    return limit


def _executions(module) -> dict[str, int]:
    """Each computation of jaxlib's ``module`` by name: how often it runs per call."""
    computations = {c.name: c for c in module.computations()}
    edges: dict[str, list[tuple[str, int]]] = {}
    called: set[str] = set()
    for comp in computations.values():
        for inst in comp.instructions():
            text = inst.to_string()
            for attribute, name in _called(text):
                factor = 1
                if attribute in ("body", "condition"):
                    condition = re.search(r"condition=%([\w.-]+)", text).group(1)
                    factor = _trips(text, computations[condition])
                edges.setdefault(comp.name, []).append((name, factor))
                called.add(name)
    (entry,) = [name for name in computations if name not in called]
    runs = {entry: 1}
    todo = [entry]
    while todo:
        name = todo.pop()
        for child, factor in edges.get(name, []):
            if child not in runs:
                runs[child] = runs[name] * factor
                todo.append(child)
    return runs


def _moved(inst, kind: str) -> int:
    """Bytes per device as ``_find``'s module doc defines them, from jaxlib's instruction."""
    if kind == "all-gather":
        done = [u for u in inst.users() if str(u.opcode).endswith("kAllGatherDone")]
        return _leaf_bytes(_shape_text(done[0] if done else inst))
    return sum(_leaf_bytes(_shape_text(o)) for o in inst.operands())


def xla_collectives(path: str) -> dict[tuple[str, object], tuple[int, int]]:
    """Each collective of the module at ``path`` as jaxlib parses it, once per channel (an
    instruction without one by itself): its bytes per device and executions, by
    ``(kind, channel)``."""
    import jaxlib._hlo as xla_hlo

    module = xla_hlo.hlo_module_from_text(Path(path).read_text())
    runs = _executions(module)
    found: dict[tuple[str, object], tuple[int, int]] = {}
    for comp in module.computations():
        for inst in comp.instructions():
            kind = _KINDS.get(str(inst.opcode).split(".")[-1])
            if kind is None:
                continue
            channel = re.search(r"channel_id=(\d+)", inst.to_string())
            key = (kind, int(channel.group(1)) if channel else f"{comp.name}/{inst.name}")
            found.setdefault(key, (_moved(inst, kind), runs[comp.name]))
    return found


def _per_kind(pairs) -> Counter:
    total: Counter = Counter()
    for kind, moved, executions in pairs:
        total[kind] += moved * executions
    return total


# --- the tests ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("script", "function", "slice_"), PROGRAMS, ids=IDS)
def test_each_collective_once_with_xlas_bytes_and_executions(cache, script, function, slice_):
    base = _compiled(cache, script, function, slice_)
    xla = xla_collectives(base.module_file)
    found, _, _ = find_collectives(parse(Path(base.module_file).read_text()))
    # Each collective once (one channel, however many kernels write it), each kind's bytes
    # times executions XLA's parse's.
    assert len(found) == len(xla)
    assert Counter((c.kind.value, c.channel_id) for c in found) == Counter(
        (kind, channel) for kind, channel in xla
    )
    ours = _per_kind((c.kind.value, c.bytes, c.executions) for c in found)
    assert ours == _per_kind((kind, *xla[kind, ch]) for kind, ch in xla)
    assert all(c.source for c in found)  # each placed on a line of the program
    # The module's collective bytes per step are try's figure.
    assert base.collective_bytes == sum(c.executed_bytes for c in found)


@pytest.mark.slow
def test_a_fori_loops_fused_all_reduce_counts_every_trip(cache):
    base = _compiled(cache, SAMPLES, "looped_matmul", "tpu-v5e:2x2")
    (c,) = find_collectives(parse(Path(base.module_file).read_text()))[0]
    # Partial sums of a 256x1024 f32 block, added over the 4 chips every one of 5 trips.
    assert (c.kind, c.bytes, c.executions) == ("all-reduce", 256 * 1024 * 4, 5)
    assert c.fusion and c.where.endswith(f"> {c.fusion} fused") and " body x5" in c.where
    # A kernel that adds and slices: it runs the all-reduce to its end, nothing hides it.
    assert (c.is_async, c.done, c.overlapped_ops) == (False, None, 0)
    assert base.collective_bytes == 5 * 2**20


@pytest.mark.slow
@pytest.mark.parametrize("function", ["scanned_grads", "fsdp_mlp_grads"])
def test_an_async_collective_fusion_is_one_async_collective(cache, function):
    script, slice_ = (
        (SAMPLES, "tpu-v5e:2x2") if function == "scanned_grads" else (OWN, "tpu-v5e:2x4")
    )
    base = _compiled(cache, script, function, slice_)
    text = Path(base.module_file).read_text()
    found, _, _ = find_collectives(parse(text))
    fused = [c for c in found if c.is_async and c.fusion]
    assert fused
    for c in fused:
        # Started and ended by the fusions whose roots say so; compute scheduled between.
        start = re.search(rf"%{re.escape(c.fusion)} = .*calls=%([\w.-]+)", text).group(1)
        done = re.search(rf"%{re.escape(c.done)} = .*calls=%([\w.-]+)", text).group(1)
        assert _root_target(text, start) == "AsyncCollectiveStart"
        assert _root_target(text, done) == "AsyncCollectiveDone"
        assert c.overlapped_ops > 0
        # The channel is written in more than one fused computation, listed once.
        assert len(re.findall(rf"channel_id={c.channel_id}\b", text)) > 1
        assert sum(o.channel_id == c.channel_id for o in found) == 1


def _root_target(text: str, computation: str) -> str:
    body = text.split(f"\n%{computation} ", 1)[1].split("\n}", 1)[0]
    return re.search(r"ROOT .*custom_call_target=\"(\w+)\"", body).group(1)


@pytest.mark.slow
def test_the_collectives_command_and_try_show_the_fused_ones(cache):
    from hloscope.cli import cli

    base = _compiled(cache, SAMPLES, "scanned_grads", "tpu-v5e:2x2")
    xla = xla_collectives(base.module_file)
    total = sum(moved * runs for moved, runs in xla.values())
    out = CliRunner().invoke(cli, ["collectives", base.module_file, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["totals"]["executed_bytes"] == total == 48 * 2**20
    (fused,) = [c for c in data["collectives"] if c["where"].endswith(" fused")]
    assert (fused["kind"], fused["async"], fused["executions"]) == ("all-gather", True, 6)
    assert fused["done"] and fused["source"]
    # Its result used by the backward matmul (past the fusion that ends it), not by the
    # custom-call that ends it inside its kernel.
    assert [e["op_name"].rsplit("/", 1)[-1] for e in fused["consumers"]] == ["dot_general"]
    text = CliRunner().invoke(cli, ["collectives", base.module_file], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "48.0 MiB" in text.output or "48 MiB" in text.output
    # try --json's collective_bytes: the baseline's (the same compile) and data parallel's,
    # each its module's as XLA's parse counts them.
    from hloscope.drivers.variants import VariantOptions, try_variants

    with pytest.MonkeyPatch.context() as patch, once(cache, "scanned_grads"):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        payload = try_variants(
            f"{SAMPLES}:scanned_grads", "tpu-v5e:2x2", VariantOptions(shard=("dp",)), jobs=1
        ).to_dict()
    assert payload["baseline"]["collective_bytes"] == total
    (dp,) = payload["variants"]
    xla_dp = xla_collectives(dp["module_file"])
    assert dp["collective_bytes"] == sum(moved * runs for moved, runs in xla_dp.values())


# --- hand-written modules: the same reading without a compiler ----------------------------

_ASYNC = """HloModule m, num_partitions=4

%start_body (p: f32[4,8]) -> (f32[4,8], f32[16,8]) {
  %p = f32[4,8]{1,0} parameter(0)
  %ag.1 = f32[16,8]{1,0} all-gather(%p), channel_id=3, replica_groups={}, dimensions={0}
  ROOT %cc.1 = (f32[4,8], f32[16,8]) custom-call(%ag.1), custom_call_target="AsyncCollectiveStart"
}

%done_body (q: f32[4,8], r: f32[16,8]) -> f32[16,8] {
  %q = f32[4,8]{1,0} parameter(0)
  %r = f32[16,8]{1,0} parameter(1)
  %ag.2 = f32[16,8]{1,0} all-gather(%q), channel_id=3, replica_groups={}, dimensions={0},
    metadata={op_name="jit(f)/gather" source_file="/w/f.py" source_line=7}
  ROOT %cc.2 = f32[16,8]{1,0} custom-call(%q, %r, %ag.2), custom_call_target="AsyncCollectiveDone"
}

%sum_body (a: f32[64,8]) -> f32[64,8] {
  %a = f32[64,8]{1,0} parameter(0)
  %ar.1 = f32[64,8]{1,0} all-reduce(%a), replica_groups={{0,1},{2,3}}, to_apply=%add
  %ar.2 = f32[64,8]{1,0} all-reduce(%ar.1), replica_groups={{0,1},{2,3}}, to_apply=%add
  ROOT %n = f32[64,8]{1,0} negate(%ar.2)
}

%plain (b: f32[64,8]) -> f32[64,8] {
  %b = f32[64,8]{1,0} parameter(0)
  ROOT %e = f32[64,8]{1,0} exponential(%b)
}

%late_body (c: f32[64,8]) -> f32[64,8] {
  %c = f32[64,8]{1,0} parameter(0)
  ROOT %l = f32[64,8]{1,0} log(%c)
}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (w: f32[4,8], v: f32[64,8]) -> (f32[16,8], f32[64,8], f32[64,8]) {
  %w = f32[4,8]{1,0} parameter(0)
  %v = f32[64,8]{1,0} parameter(1)
  %start = (f32[4,8]{1,0}, f32[16,8]{1,0}) fusion(%w), kind=kCustom, calls=%start_body
  %e1 = f32[64,8]{1,0} fusion(%v), kind=kLoop, calls=%plain
  %t = f32[64,8]{1,0} tanh(%e1)
  %g0 = f32[4,8]{1,0} get-tuple-element(%start), index=0
  %g1 = f32[16,8]{1,0} get-tuple-element(%start), index=1
  %done = f32[16,8]{1,0} fusion(%g0, %g1), kind=kCustom, calls=%done_body
  %sums = f32[64,8]{1,0} fusion(%t), kind=kCustom, calls=%sum_body
  %late = f32[64,8]{1,0} fusion(%v), kind=kLoop, calls=%late_body
  ROOT %out = (f32[16,8]{1,0}, f32[64,8]{1,0}, f32[64,8]{1,0}) tuple(%done, %sums, %late)
}
"""


def test_a_channel_in_three_kernels_is_one_async_collective_placed_by_a_copy():
    found, _, _ = find_collectives(parse(_ASYNC))
    gather, first, second = found
    assert (gather.name, gather.kind, gather.channel_id) == ("ag.1", "all-gather", 3)
    assert (gather.fusion, gather.computation, gather.done) == ("start", "start_body", "done")
    assert gather.is_async and gather.bytes == 16 * 8 * 4
    # The start's copy has no line; the done's does.
    assert gather.source.startswith("/w/f.py:7")
    # Between the start and done kernels: the loop fusion, the tanh, two tuple reads.
    assert gather.overlapped_ops == 4 and gather.overlap.transcendentals > 0
    # No channel: each all-reduce by itself, synchronous in its kernel.
    assert [(c.name, c.fusion, c.is_async, c.bytes) for c in (first, second)] == [
        ("ar.1", "sums", False, 64 * 8 * 4),
        ("ar.2", "sums", False, 64 * 8 * 4),
    ]
    assert first.group_size == 2 and first.where == "sums fused"


def test_a_fusion_without_a_collective_is_not_built_and_traces_read_the_fused_op():
    module = parse(_ASYNC)
    find_collectives(module)
    # A fusion outside every collective's overlap is not looked into: its opcodes say why.
    assert module.computations_by_name["late_body"]._body is not None, "late_body was built"
    assert module.computations_by_name["sum_body"]._body is None  # its all-reduces read
    result = collectives_of(parse(_ASYNC))
    # The ops either side of a fused collective, found from where it is.
    trace = result.traces["ar.2"]
    assert trace.producer is not None and trace.producer.name == "ar.1"
    assert [e.name for e in trace.consumers] == ["n"]
