"""`try`'s sharding warnings: large arrays replicated on every device and collectives in loop
bodies, read from each variant's optimized module, placed, merged with the partitioner's
involuntary rematerializations, and each with the variant that proves it gone."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from frameworks_needed import needs_libtpu

from hloscope.analysis.variant_warnings import module_warnings, spec_avoiding
from hloscope.analysis.variants import Goal, TryResult, VariantOutcome
from hloscope.drivers.variants import VariantOptions, try_variants
from hloscope.hlo.parser import parse
from hloscope.render.try_text import render_try

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

#: A scan of 8 trips whose body all-gathers the batch's shard, and a 4 MiB weight replicated
#: on all 4 devices. ``{W_SHARDING}`` and ``{GATHER}`` make the variants.
_SCAN = """HloModule scan_gather, num_partitions=4

body {
  p = (s32[], f32[1024,64], f32[256,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[1024,64] get-tuple-element(p), index=1
  shard = f32[256,64] get-tuple-element(p), index=2
  GATHER
  sum = f32[1024,64] add(acc, gathered)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[1024,64], f32[256,64]) tuple(next, sum, shard)
}

cond {
  p = (s32[], f32[1024,64], f32[256,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  w = W_SHAPE parameter(0), sharding=W_SHARDING, metadata={op_name="params['w']"}
  x = f32[256,64] parameter(1), sharding={devices=[4,1]<=[4]}, metadata={op_name="x"}
  zero = s32[] constant(0)
  z = f32[] constant(0)
  init = f32[1024,64] broadcast(z), dimensions={}
  t = (s32[], f32[1024,64], f32[256,64]) tuple(zero, init, x)
  loop = (s32[], f32[1024,64], f32[256,64]) while(t), condition=cond, body=body
  acc = f32[1024,64] get-tuple-element(loop), index=1
  ROOT out = f32[W_ROWS,64] dot(w, acc), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""
_GATHER = (
    "gathered = f32[1024,64] all-gather(shard), channel_id=1, replica_groups={{0,1,2,3}}, "
    'dimensions={0}, use_global_device_ids=true, metadata={op_name="jit(f)/while/all_gather" '
    'source_file="/home/me/model.py" source_line=42}'
)
_NO_GATHER = "gathered = f32[1024,64] broadcast(z2), dimensions={}\n  z2 = f32[] constant(1)"


def _scan(*, replicated: bool = True, gather: bool = True) -> str:
    shape, rows = ("f32[1024,1024]", "1024") if replicated else ("f32[256,1024]", "256")
    sharding = "{replicated}" if replicated else "{devices=[4,1]<=[4]}"
    return (
        _SCAN.replace("W_SHAPE", shape)
        .replace("W_ROWS", rows)
        .replace("W_SHARDING", sharding)
        .replace("GATHER", _GATHER if gather else _NO_GATHER)
    )


def test_a_replicated_weight_and_a_gather_in_a_scan_are_placed():
    found = module_warnings(parse(_scan()), {"data": 4})
    by_kind = {w["kind"]: w for w in found}
    assert set(by_kind) == {"replicated_large", "all_gather_in_loop"}
    weight = by_kind["replicated_large"]
    assert weight["where"] == "argument params['w']"
    assert weight["bytes"] == 1024 * 1024 * 4 and weight["devices"] == 4
    assert weight["to"] == "P('data', None)"
    gather = by_kind["all_gather_in_loop"]
    assert gather["where"] == "/home/me/model.py:42" and gather["op"] == "all-gather"
    # Per device and per trip: the gathered f32[1024,64]; eight trips of the scan.
    assert gather["executions"] == 8 and gather["bytes"] > 0


def test_a_sharded_weight_and_a_loop_without_collectives_warn_of_nothing():
    assert module_warnings(parse(_scan(replicated=False, gather=False)), {"data": 4}) == []


def test_one_device_has_nothing_replicated_to_warn_of():
    one = _scan(gather=False).replace("num_partitions=4", "num_partitions=1")
    one = one.replace("sharding={devices=[4,1]<=[4]}", "sharding={replicated}")
    assert module_warnings(parse(one), None) == []


@pytest.mark.parametrize(
    ("shape", "axes", "spec"),
    [
        ("f32[1024,4096]", {"data": 2, "model": 2}, "P(None, 'data')"),
        # The largest dimension is not split by 4: `model` (2) divides it.
        ("bf16[6,1002]", {"data": 4, "model": 2}, "P(None, 'model')"),
        # Nor any axis the largest: the next dimension.
        ("f32[8,1001]", {"data": 4}, "P('data', None)"),
        ("f32[7,1001]", {"data": 4}, "no mesh axis divides its dimensions"),
        ("f32[4096]", {}, "P('devices')"),
    ],
)
def test_the_spec_that_avoids_replication_splits_a_dimension_an_axis_divides(shape, axes, spec):
    assert spec_avoiding(shape, axes, 4) == spec


_REMAT_LINE = (
    "Involuntary full rematerialization. The compiler was not able to go from sharding "
    "{devices=[1,1,4]<=[4]} to {devices=[1,2,2]<=[4]} without doing a full rematerialization "
    "of the tensor for HLO operation: %param.1 = f32[8,64,64]{2,1,0} parameter(1), "
    'sharding={devices=[1,1,4]<=[4]}, metadata={op_name="b"}'
)


def _outcome(name, path, step, log=()):
    return VariantOutcome(
        name,
        {},
        compiled=True,
        fits=True,
        step_s=step,
        peak_bytes=1 << 20,
        module_file=str(path),
        log=list(log),
        mesh={"data": 4},
    )


def test_each_warning_names_the_best_variant_that_removes_it(tmp_path):
    files = {
        "baseline": _scan(),
        "fsdp": _scan(replicated=False),  # gathers still in the loop
        "slow": _scan(replicated=False, gather=False),
        "dp": _scan(),
    }
    for name, text in files.items():
        (tmp_path / f"{name}.hlo").write_text(text)
    base = _outcome("baseline", tmp_path / "baseline.hlo", 2.0, [_REMAT_LINE])
    variants = [
        _outcome("fsdp", tmp_path / "fsdp.hlo", 1.0),
        _outcome("slow", tmp_path / "slow.hlo", 3.0),
        _outcome("dp", tmp_path / "dp.hlo", 0.5),
    ]
    result = TryResult("m.py:f", "tpu-v5e:2x2", None, Goal.STEP, base, variants).to_dict()
    assert result["ranking"] == ["dp", "fsdp", "baseline", "slow"]
    warned = {w["kind"]: w for w in result["baseline"]["sharding_warnings"]}
    # The partitioner's line keeps its keys, with its kind.
    remat = warned["involuntary_remat"]
    assert remat["where"] == "argument b" and remat["count"] == 1
    assert remat["proven_by"] == "dp"  # its log is quiet
    # dp still replicates the weight: fsdp, ranked next, is the first without it.
    assert warned["replicated_large"]["proven_by"] == "fsdp"
    # Only the slowest gathers nothing in its loop.
    assert warned["all_gather_in_loop"]["proven_by"] == "slow"
    (slow_has,) = [r for r in result["variants"] if r["name"] == "slow"]
    assert slow_has["sharding_warnings"] == []
    lines: list[str] = []
    render_try(result, lines.append, 80)
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in text.splitlines())
    flat = " ".join(text.split())
    assert "replicated on every device: argument params['w'], f32[1024,1024], 4.0 MiB" in flat
    assert "shard it: P('data', None) (none in fsdp)" in flat
    assert "all-gather in a loop body at /home/me/model.py:42" in flat
    assert "x8" in flat and "(none in slow)" in flat


def test_a_warning_no_variant_removes_says_so(tmp_path):
    path = tmp_path / "m.hlo"
    path.write_text(_scan(gather=False))
    base = _outcome("baseline", path, 1.0)
    other = _outcome("again", path, 2.0)
    result = TryResult("m.py:f", "tpu-v5e:2x2", None, Goal.STEP, base, [other]).to_dict()
    (warning,) = result["baseline"]["sharding_warnings"]
    assert warning["proven_by"] is None
    out = io.StringIO()
    render_try(result, lambda line: out.write(line + "\n"), 80)
    assert "(none of the variants removes it)" in " ".join(out.getvalue().split())


@pytest.mark.slow
def test_data_parallel_replicates_the_weights_and_fsdp_proves_the_fix(tmp_path, monkeypatch):
    # XLA:TPU as the oracle: try_mesh's MLP under dp on 4 chips keeps both weights whole on
    # every chip (its optimized module says `sharding={replicated}`); fsdp splits them.
    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path))
    target = f"{SAMPLES / 'try_mesh.py'}:train_step"
    result = try_variants(target, "tpu-v5e:2x2", VariantOptions(shard=("dp", "fsdp")), jobs=2)
    payload = result.to_dict()
    rows = {row["name"]: row for row in [payload["baseline"], *payload["variants"]]}
    assert rows["dp"]["compiled"] and rows["fsdp"]["compiled"]
    weights = {w["where"]: w for w in rows["dp"]["sharding_warnings"]}
    # Each f32[1024,4096] weight whole: its own size on every chip.
    assert set(weights) == {"argument params['w1']", "argument params['w2']"}
    for warning in weights.values():
        assert warning["kind"] == "replicated_large" and warning["bytes"] == 1024 * 4096 * 4
        assert warning["proven_by"] == "fsdp"
    assert rows["fsdp"]["sharding_warnings"] == []
    lines: list[str] = []
    render_try(payload, lines.append, 80)
    flat = " ".join(" ".join(lines).split())
    assert "dp: replicated on every device: argument params['w1']" in flat
    assert "(none in fsdp)" in flat


def test_the_reports_what_if_section_shows_each_warning_and_its_proof(tmp_path):
    from hloscope.render.html.try_section import try_section

    (tmp_path / "dp.hlo").write_text(_scan(gather=False))
    (tmp_path / "fsdp.hlo").write_text(_scan(replicated=False, gather=False))
    base = _outcome("dp", tmp_path / "dp.hlo", 2.0)
    fsdp = _outcome("fsdp", tmp_path / "fsdp.hlo", 1.0)
    section = try_section(TryResult("m.py:f", "tpu-v5e:2x2", None, Goal.STEP, base, [fsdp]))
    rows = {row.name: row for row in section.rows}
    assert rows["fsdp"].details == []
    (line,) = rows["dp"].details
    assert line.startswith("replicated on every device: argument params['w'], f32[1024,1024]")
    assert line.endswith("shard it: P('data', None) (none in fsdp)")
