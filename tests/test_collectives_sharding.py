"""The sharding view of ``hloscope collectives``: shardings in mesh terms, per-device shapes,
large replicated arrays, and resharding collectives traced to the user's lines.

JAX is the oracle. Run as a script (``python tests/test_collectives_sharding.py DIR``), this
file compiles two SPMD programs for 8 host devices into dump folders under ``DIR`` and writes
``DIR/oracle.json``: what JAX says of each argument and output (its shard shape) and, for a
table of ``PartitionSpec``s on two meshes, the HLO sharding JAX lowers each to and its shard
shape. The tests below run it once in a subprocess (the device count is fixed when jax
starts) and check hloscope's reading against it; hand-written HLO covers the other forms.
"""

# ruff: noqa: E501 - HLO instructions are written one per line, as XLA prints them.

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.collectives import (
    LARGE_BYTES,
    CollectiveKind,
    DeviceMesh,
    ShardingSource,
    collectives_of,
    named_mesh,
    per_device_dims,
    sharding_words,
    tile_axes,
)
from hloscope.cli import cli
from hloscope.hlo.attributes.sharding import decode_sharding
from hloscope.hlo.parser import parse
from hloscope.render.collectives_text import MAX_RESHARDING, render_collectives
from hloscope.units import format_bytes

# The (4, 2) mesh the programs use, and a (2, 2, 2) one for the spec table.
MESH = (("data", "model"), (4, 2))
CUBE = (("a", "b", "c"), (2, 2, 2))
# PartitionSpecs for a [256,128] array (None: a dimension not split; a tuple: several axes).
SPECS = {
    "mesh": [
        ["data", "model"],
        ["model", "data"],
        ["data", None],
        [None, "model"],
        ["model", None],
        [["data", "model"], None],
        [None, ["model", "data"]],
        [],
    ],
    "cube": [
        ["a", "c"],
        [["c", "a"], "b"],
        [None, "b"],
        ["b", None],
        [["a", "b", "c"], None],
    ],
}
MARK = "# line: "  # a source line the tests look up, by its name


def main(out: str) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = np.array(jax.devices())
    assert devices.size == 8, devices
    mesh = Mesh(devices.reshape(MESH[1]), MESH[0])
    cube = Mesh(devices.reshape(CUBE[1]), CUBE[0])
    oracle: dict = {"programs": {}, "specs": [], "lines": _marked_lines()}

    def spec(dims):
        return P(*[tuple(d) if isinstance(d, list) else d for d in dims])

    def compile_to(name, fn, *args, **jit):
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        compiled = (
            jax.jit(fn, **jit)
            .lower(*args)
            .compile(compiler_options={"xla_dump_to": folder, "xla_dump_hlo_as_text": True})
        )
        outs = jax.eval_shape(fn, *args)
        oracle["programs"][name] = {
            "args": [list(a.sharding.shard_shape(a.shape)) for a in args],
            "outputs": [
                list(s.shard_shape(o.shape))
                for s, o in zip(
                    jax.tree_util.tree_leaves(compiled.output_shardings),
                    jax.tree_util.tree_leaves(outs),
                )
            ],
        }

    # A replicated weight of 2 MiB (f32[1024,512]) and a batch split 4 ways over "data": the
    # gradient of the weight is all-reduced over "data", and comes out replicated.
    def step(w, x):
        return jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = jax.device_put(jnp.ones((1024, 512)), NamedSharding(mesh, P()))
    x = jax.device_put(jnp.ones((64, 1024)), NamedSharding(mesh, P("data", None)))
    compile_to("replicated_weight", step, w, x, out_shardings=NamedSharding(mesh, P()))

    # Two sharding constraints on different axes: (data, model) then (model, data). The
    # partitioner moves each device's f32[64,64] tile (16 KiB) to its new owner.
    def reshard(x):
        y = jnp.sin(x)  # line: sin
        y = jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P("data", "model")))
        z = y * 2  # line: mul
        z = jax.lax.with_sharding_constraint(z, NamedSharding(mesh, P("model", "data")))
        return jnp.cos(z)  # line: cos

    x = jax.device_put(jnp.ones((256, 128)), NamedSharding(mesh, P("data", "model")))
    compile_to("reshard", reshard, x)

    for key, which in (("mesh", mesh), ("cube", cube)):
        for dims in SPECS[key]:
            sharding = NamedSharding(which, spec(dims))
            oracle["specs"].append(
                {
                    "mesh": key,
                    "spec": dims,
                    "hlo": str(sharding._to_xla_hlo_sharding(2)),
                    "shard_shape": list(sharding.shard_shape((256, 128))),
                }
            )
    Path(out, "oracle.json").write_text(json.dumps(oracle))


def _marked_lines() -> dict[str, int]:
    lines = Path(__file__).read_text().splitlines()
    return {
        line.split(MARK)[1].strip(): number
        for number, line in enumerate(lines, 1)
        if MARK in line and "MARK" not in line
    }


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sharding")
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    env["JAX_PLATFORMS"] = "cpu"
    script = Path(__file__)
    subprocess.run([sys.executable, str(script), str(out)], check=True, env=env, timeout=300)
    return out


@pytest.fixture(scope="module")
def oracle(dumps) -> dict:
    return json.loads((dumps / "oracle.json").read_text())


def _modules(dumps: Path, name: str):
    (after,) = (dumps / name).glob("*.cpu_after_optimizations.txt")
    (before,) = (dumps / name).glob("*.before_optimizations.txt")
    return parse(after.read_text()), parse(before.read_text())


def _mesh(which: tuple) -> DeviceMesh:
    return DeviceMesh(tuple(which[0]), tuple(which[1]))


def _dims(shape_text: str) -> list[int]:
    return [int(d) for d in shape_text.split("[")[1].rstrip("]").split(",") if d]


# --- shardings in words -----------------------------------------------------------------------

DATA_MODEL = DeviceMesh(("data", "model"), (4, 2))


@pytest.mark.parametrize(
    ("text", "mesh", "words"),
    [
        ("{devices=[4,2]<=[8]}", None, "dim 0 over 4 devices, dim 1 over 2 devices"),
        ("{devices=[4,2]<=[8]}", DATA_MODEL, "dim 0 over data=4, dim 1 over model=2"),
        ("{devices=[2,4]<=[4,2]T(1,0)}", DATA_MODEL, "dim 0 over model=2, dim 1 over data=4"),
        (
            "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
            None,
            "dim 0 over 4 devices, replicated x2",
        ),
        (
            "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
            DATA_MODEL,
            "dim 0 over data=4, replicated x2 over model",
        ),
        ("{devices=[8,1]<=[8]}", DATA_MODEL, "dim 0 over (data,model)=8"),
        (
            "{devices=[2,1,4]<=[8] last_tile_dims={manual}}",
            None,
            "dim 0 over 2 devices, manual x4",
        ),
        # An explicit device list: walking dim 0 goes 0 -> 1 (the second mesh axis).
        (
            "{devices=[2,2]0,2,1,3}",
            DeviceMesh(("a", "b"), (2, 2)),
            "dim 0 over b=2, dim 1 over a=2",
        ),
        # Tile dims that split one mesh axis between them cannot be named.
        (
            "{devices=[2,4]<=[8]}",
            DeviceMesh(("x",), (8,)),
            "dim 0 over 2 devices, dim 1 over 4 devices",
        ),
        ("{devices=[1,1]<=[1]}", None, "replicated"),
        ("{replicated}", DATA_MODEL, "replicated"),
        ("{maximal device=3}", None, "all on device 3"),
        ("{manual}", None, "manual (laid out by a shard_map body)"),
        ("{unknown}", None, "unknown (left to the partitioner)"),
        (
            "{{replicated}, {devices=[2,1]0,1}}",
            None,
            "tuple (0: replicated; 1: dim 0 over 2 devices)",
        ),
    ],
)
def test_sharding_in_mesh_terms(text, mesh, words):
    assert sharding_words(decode_sharding(text, None), mesh) == words


def test_mesh_axes_of_each_tile_dimension_are_the_partition_specs_axes(oracle):
    """For every PartitionSpec in the table, the HLO sharding JAX lowers it to is read back
    as the axes the spec named, dimension by dimension; the rest are the replicas."""
    meshes = {"mesh": _mesh(MESH), "cube": _mesh(CUBE)}
    for row in oracle["specs"]:
        mesh = meshes[row["mesh"]]
        sharding = decode_sharding(row["hlo"], None)
        spec = [[d] if isinstance(d, str) else (d or []) for d in row["spec"]]
        spec += [[]] * (2 - len(spec))
        used = {a for dims in spec for a in dims}
        if not used:
            assert sharding.is_replicated and sharding_words(sharding, mesh) == "replicated"
            continue
        named = tile_axes(sharding, mesh)
        for k in range(2):
            if spec[k]:
                assert set(named[k] or ()) == set(spec[k]), row
        if sharding.last_tile_dim_replicate:
            assert set(named[-1] or ()) == set(mesh.names) - used, row
        for k, dims in enumerate(spec):
            if dims:
                size = 1
                for axis in dims:
                    size *= mesh.shape[mesh.names.index(axis)]
                label = (
                    dims[0]
                    if len(dims) == 1
                    else "(" + ",".join(sorted(dims, key=mesh.names.index)) + ")"
                )
                assert f"dim {k} over {label}={size}" in sharding_words(sharding, mesh), row


def test_per_device_shape_is_jaxs_shard_shape(oracle):
    for row in oracle["specs"]:
        sharding = decode_sharding(row["hlo"], None)
        assert list(per_device_dims((256, 128), sharding)) == row["shard_shape"], row


# --- real programs --------------------------------------------------------------------------


def test_a_large_replicated_weight_is_flagged_with_its_saving(dumps, oracle):
    after, before = _modules(dumps, "replicated_weight")
    result = collectives_of(after, before)
    w, x = sorted(result.parameters, key=lambda p: p.op_name)
    assert (w.op_name, x.op_name) == ("w", "x")
    size = 1024 * 512 * 4  # the f32[1024,512] weight: 2 MiB, whole on each device
    assert (w.shape, w.per_device_shape, w.per_device_bytes) == (
        "f32[1024,512]",
        "f32[1024,512]",
        size,
    )
    assert w.replicated and w.sharding == "{replicated}" and w.mesh_text == "replicated"
    # The batch f32[64,1024] over data=4: f32[16,1024] on each device, the same 2 on "model".
    assert (x.shape, x.per_device_shape, x.per_device_bytes) == (
        "f32[64,1024]",
        "f32[16,1024]",
        16 * 1024 * 4,
    )
    assert x.mesh_text == "dim 0 over data=4, replicated x2 over model" and not x.replicated
    args = oracle["programs"]["replicated_weight"]["args"]
    assert [_dims(w.per_device_shape), _dims(x.per_device_shape)] == args
    (out,) = result.outputs
    assert out.replicated and out.sharding_source is ShardingSource.BEFORE
    assert _dims(out.per_device_shape) == oracle["programs"]["replicated_weight"]["outputs"][0]
    flagged = {r.op_name or r.name: r for r in result.replicated_large}
    assert set(flagged) == {"w", out.op_name}
    r = flagged["w"]
    # Sharded 8 ways it would hold 256 KiB; its gradient all-reduce moves 2*7/8 of 2 MiB.
    assert r.bytes == size and r.saving_bytes == size - size // 8
    assert r.all_reduce_bytes == 2 * 7 * size // 8 and r.reduce_scatter_bytes == 7 * size // 8
    assert flagged[out.op_name].all_reduce_bytes is None  # an output has no gradient
    # The program's one all-reduce is that gradient: the weight's bytes, over "data".
    (c,) = result.collectives
    assert c.kind is CollectiveKind.ALL_REDUCE and c.bytes == size and c.mesh_axes == ["data"]
    assert not result.resharding


def test_a_resharding_is_traced_to_the_lines_on_either_side(dumps, oracle):
    after, before = _modules(dumps, "reshard")
    result = collectives_of(after, before)
    lines = oracle["lines"]
    here = Path(__file__).name
    moves = result.resharding
    assert moves and moves == result.collectives
    tile = 64 * 64 * 4  # each device's tile of f32[256,128] over 8 devices: 16 KiB
    for c in moves:
        assert c.kind in (CollectiveKind.ALL_TO_ALL, CollectiveKind.COLLECTIVE_PERMUTE)
        assert c.bytes == tile
        trace = result.traces[c.name]
        assert trace.producer is not None and trace.producer.opcode == "sine"
        assert f"{here}:{lines['sin']} " in trace.producer.source + " "
        consumed = {e.source.split(" ")[0].rsplit(":", 1)[1] for e in trace.consumers}
        assert consumed and consumed <= {str(lines["mul"]), str(lines["cos"])}
    first = result.to_dict()["collectives"][0]
    assert first["resharding"] and first["producer"]["op_name"].endswith("/sin")
    assert first["consumers"] and all("source" in e for e in first["consumers"])
    text = render_collectives(result)
    assert f"{here}:{lines['sin']}" in text
    words = " ".join(text.split())  # the sentence, unwrapped
    assert f"resharding its output costs an {moves[0].kind.value} of 16.0 KiB per device" in words
    assert max(len(line) for line in text.split("sharding (mesh")[1].splitlines()) <= 80


def test_the_output_sharding_is_read_from_the_shapes_when_no_module_writes_it(dumps, oracle):
    after, before = _modules(dumps, "reshard")
    (out,) = collectives_of(after, before).outputs
    # JAX gave the output the second constraint's (model, data): f32[128,32] per device.
    assert [_dims(out.per_device_shape)] == oracle["programs"]["reshard"]["outputs"]
    assert out.shape == "f32[256,128]" and out.per_device_bytes == 128 * 32 * 4
    assert out.sharding_source is ShardingSource.SHAPES and out.sharding == ""
    assert out.mesh_text == "dim 0 over model=2, dim 1 over data=4 (from shapes)"
    assert f":{oracle['lines']['cos']} " in out.source + " "
    # The optimized module alone knows neither the global shape nor the mesh names.
    (alone,) = collectives_of(after).outputs
    assert alone.sharding_source is ShardingSource.NONE and alone.shape == "f32[128,32]"


def test_the_mesh_is_named_as_the_user_named_it(dumps):
    after, before = _modules(dumps, "reshard")
    assert collectives_of(after).mesh != DATA_MODEL  # read from the replica groups alone
    result = collectives_of(after, before)
    assert result.mesh == DATA_MODEL
    (x,) = result.parameters
    assert x.mesh_text == "dim 0 over data=4, dim 1 over model=2"
    assert all(set(c.mesh_axes or ()) <= {"data", "model"} for c in result.collectives)
    assert result.collectives[0].mesh_axes  # the all-to-all spans a named axis


def test_the_command_reads_a_dump_with_both_stages(dumps):
    shown = CliRunner().invoke(cli, ["collectives", "--json", str(dumps / "replicated_weight")])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["mesh"] == {"axes": ["data", "model"], "shape": [4, 2]}
    keys = {"name", "shape", "sharding", "per_device_shape", "per_device_bytes", "replicated"}
    assert all(keys | {"mesh_text", "role"} <= set(p) for p in data["parameters"])
    assert [o["per_device_shape"] for o in data["outputs"]] == ["f32[1024,512]"]
    assert {r["op_name"] for r in data["replicated_large"]} >= {"w"}
    text = CliRunner().invoke(cli, ["collectives", str(dumps / "replicated_weight")]).stdout
    section = text.split("sharding (mesh data=4 x model=2):\n")[1]
    assert "replicated and large" in section and "\n  w f32[1024,512]: 2.0 MiB" in section
    assert "\n  (output)  f32[1024,512]" in section  # an output row, named apart
    assert max(len(line) for line in section.splitlines()) <= 80


def test_the_api_gives_dataframes(dumps):
    pytest.importorskip("pandas")
    import hloscope

    result = hloscope.collectives(dumps / "reshard", device="tpu-v5e")
    frame = result.to_frame()
    as_json = result.to_dict()["collectives"]
    assert list(frame["name"]) == [c["name"] for c in as_json]
    assert list(frame["bytes"]) == [c["bytes"] for c in as_json]
    assert list(frame["estimate_s"]) == [c["estimate_s"] for c in as_json]
    assert frame["resharding"].all()
    assert list(frame["producer"]) == [c["producer"]["source"] for c in as_json]
    params = result.parameters_frame()
    assert list(params["role"]) == ["parameter", "output"]
    assert list(params["per_device_shape"]) == ["f32[64,64]", "f32[128,32]"]
    assert list(params["mesh_text"])[0] == "dim 0 over data=4, dim 1 over model=2"
    after, _ = _modules(dumps, "reshard")
    assert hloscope.collectives(after).to_dict()["outputs"][0]["sharding_source"] == "none"


def test_without_pandas_the_frames_name_the_extra(monkeypatch):
    from hloscope.dataframes import MissingPandas

    result = collectives_of(parse(_one_param("f32[8]", "{replicated}")))
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now fails
    for frame in (result.to_frame, result.parameters_frame):
        with pytest.raises(MissingPandas, match=r"pip install 'hloscope\[dataframe\]'"):
            frame()
    assert result.to_dict()["parameters"]  # the result itself needs no pandas


# --- hand-written modules -----------------------------------------------------------------------


def _one_param(shape: str, sharding: str, devices: int = 8, extra: str = "") -> str:
    return f"""HloModule m, num_partitions={devices}

ENTRY %main (p: {shape}) -> {shape} {{
  %p = {shape} parameter(0), sharding={sharding}, metadata={{op_name="w"}}{extra}
  ROOT %n = {shape} negate(%p)
}}
"""


def test_large_means_a_mebibyte_and_a_hundredth_of_the_parameters():
    at = collectives_of(parse(_one_param("f32[512,512]", "{replicated}")))
    assert LARGE_BYTES == 512 * 512 * 4 and [r.op_name for r in at.replicated_large] == ["w"]
    under = collectives_of(parse(_one_param("f32[512,511]", "{replicated}")))
    assert under.replicated_large == []
    one_device = collectives_of(parse(_one_param("f32[1024,1024]", "{replicated}", devices=1)))
    assert one_device.replicated_large == []
    split = collectives_of(parse(_one_param("f32[1024,1024]", "{devices=[8,1]<=[8]}")))
    assert split.replicated_large == []
    # 1 MiB replicated beside 200 MiB per device of sharded weights: under 1%, not listed.
    big = """HloModule m, num_partitions=8

ENTRY %main (p: f32[512,512], q: f32[8192,6400]) -> f32[512,512] {
  %p = f32[512,512]{1,0} parameter(0), sharding={replicated}
  %q = f32[8192,6400]{1,0} parameter(1), sharding={devices=[8,1]<=[8]}
  ROOT %n = f32[512,512]{1,0} negate(%p)
}
"""
    assert collectives_of(parse(big)).replicated_large == []


def test_without_a_sharding_a_parameter_is_replicated_and_an_output_unknown():
    text = """HloModule m, num_partitions=4

ENTRY %main (p: f32[8,4]) -> f32[8,4] {
  %p = f32[8,4]{1,0} parameter(0)
  ROOT %n = f32[8,4]{1,0} negate(%p)
}
"""
    result = collectives_of(parse(text))
    (p,), (out,) = result.parameters, result.outputs
    assert (p.replicated, p.mesh_text, p.sharding) == (True, "replicated (none written)", "")
    assert (out.replicated, out.mesh_text) == (False, "not written")
    assert out.sharding_source is ShardingSource.NONE
    single = collectives_of(parse(text.replace("num_partitions=4", "num_partitions=1")))
    assert [a.mesh_text for a in (*single.parameters, *single.outputs)] == [
        "whole (one device)"
    ] * 2
    assert single.parameters[0].replicated and render_collectives(single).endswith(
        "no collectives\n"
    )


@pytest.mark.parametrize(
    ("meshes", "named"),
    [
        ('{mesh = #sdy.mesh<["x"=2, "y"=4]>}', DeviceMesh(("x", "y"), (2, 4))),
        # The mesh of the right size is taken; one with its own device order is not row-major.
        ('{a = #sdy.mesh<["u"=2]>, b = #sdy.mesh<["v"=8]>}', DeviceMesh(("v",), (8,))),
        ('{mesh = #sdy.mesh<["x"=2, "y"=4], device_ids=[7,6,5,4,3,2,1,0]>}', None),
    ],
)
def test_the_mesh_names_come_from_shardy_attributes(meshes, named):
    text = _one_param("f32[8]", "{replicated}").replace(
        "num_partitions=8", f"num_partitions=8, frontend_attributes={{xla.sdy.meshes={meshes}}}"
    )
    assert named_mesh(parse(text), 8) == named


def test_names_from_the_dump_cannot_drive_the_terminal():
    text = """HloModule m, num_partitions=2

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0), sharding={devices=[2]0,1}, metadata={op_name="ev\\033]0;t\\007il"}
  %s = f32[8]{0} sine(%x), metadata={op_name="jit(f)/sin" source_file="/w/\\033[2Jf.py" source_line=3}
  %cp = f32[8]{0} collective-permute(%s), channel_id=1, source_target_pairs={{0,1},{1,0}}
  ROOT %n = f32[8]{0} negate(%cp)
}
"""
    result = collectives_of(parse(text))
    assert result.parameters[0].op_name == "ev\x1b]0;t\x07il"  # read as XLA wrote it
    shown = render_collectives(result)
    assert "\x1b" not in shown and "\x07" not in shown
    assert "sin at /w/\\e[2Jf.py:3" in shown
    rows = shown.split("sharding (mesh axis_0=2):\n")[1].splitlines()[:3]
    # The escaped name keeps the table's columns in line.
    assert rows[1].startswith("  ev\\e]0;t\\x07il  f32[16]")
    assert rows[0].index("global") == rows[1].index("f32[16]") == rows[2].index("f32[8]")


def test_a_root_tuple_writes_each_outputs_sharding():
    text = """HloModule m, num_partitions=2

ENTRY %main (p: f32[8,4]) -> (f32[8,4], f32[4,4]) {
  %p = f32[8,4]{1,0} parameter(0), sharding={maximal device=1}
  %s = f32[4,4]{1,0} slice(%p), slice={[0:4], [0:4]}, metadata={op_name="jit(f)/slice"}
  %e = f32[4,4]{1,0} exponential(%s), metadata={op_name="jit(f)/exp"}
  ROOT %t = (f32[8,4]{1,0}, f32[4,4]{1,0}) tuple(%p, %e), sharding={{replicated}, {devices=[2,1]1,0}}
}
"""
    result = collectives_of(parse(text))
    (p,) = result.parameters
    assert p.mesh_text == "all on device 1" and not p.replicated
    first, second = result.outputs
    assert (first.name, first.mesh_text, first.replicated) == ("output 0", "replicated", True)
    assert (second.shape, second.per_device_shape) == ("f32[8,4]", "f32[4,4]")
    # The mesh read from the module itself names its axes axis_0, axis_1, ...
    assert result.mesh == DeviceMesh(("axis_0",), (2,))
    assert second.mesh_text == "dim 0 over axis_0=2" and second.per_device_bytes == 64
    assert second.sharding_source is ShardingSource.WRITTEN and second.op_name == "jit(f)/exp"


def test_a_shard_map_collective_is_not_a_resharding_and_fusions_are_walked_through():
    text = """HloModule m, num_partitions=2

%fused_sin (a: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %sin = f32[8]{0} sine(%a), metadata={op_name="jit(f)/sin" source_file="/w/f.py" source_line=3}
  ROOT %b = f32[8]{0} bitcast(%sin)
}

%fused_use (c: f32[8], d: f32[8]) -> f32[8] {
  %c = f32[8]{0} parameter(0)
  %d = f32[8]{0} parameter(1)
  %cp = f32[8]{0} copy(%d)
  ROOT %mul = f32[8]{0} multiply(%c, %cp), metadata={op_name="jit(f)/mul" source_file="/w/f.py" source_line=7}
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0), sharding={devices=[2]0,1}
  %f = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused_sin
  %move = f32[8]{0} collective-permute(%f), channel_id=1, source_target_pairs={{0,1},{1,0}}, metadata={op_name="jit(f)/mul"}
  %pp = f32[8]{0} collective-permute(%f), channel_id=2, source_target_pairs={{0,1},{1,0}}, metadata={op_name="jit(f)/shard_map/ppermute"}
  ROOT %u = f32[8]{0} fusion(%x, %move), kind=kLoop, calls=%fused_use
}
"""
    result = collectives_of(parse(text))
    assert [c.name for c in result.resharding] == ["move"]
    trace = result.traces["move"]
    assert trace.producer is not None and trace.producer.name == "sin"
    assert trace.producer.source.startswith("/w/f.py:3")
    (use,) = trace.consumers
    assert use.name == "mul" and use.source.startswith("/w/f.py:7")
    assert not result.traces["pp"].resharding and result.traces["pp"].consumers == []


def test_the_text_lists_the_costliest_reshardings_and_counts_the_rest():
    count = MAX_RESHARDING + 3
    body = ['  %x = f32[64]{0} parameter(0), sharding={devices=[2]0,1}, metadata={op_name="x"}']
    for i in range(count):
        # Collective i moves (i + 1) * 256 bytes; each feeds an op on line 100 + i.
        size = 64 * (i + 1)
        # The producer's path shrinks by one letter each time, moving where its line wraps.
        where = f'source_file="/w/{"d" * (count - 1 - i)}.py" source_line=1'
        body.append(
            f"  %s{i} = f32[{size}]{{0}} broadcast(%x), dimensions={{}}, "
            f'metadata={{op_name="jit(f)/broadcast" {where}}}'
        )
        body.append(
            f"  %cp{i} = f32[{size}]{{0}} collective-permute(%s{i}), channel_id={i + 1}, "
            "source_target_pairs={{0,1},{1,0}}"
        )
        body.append(
            f"  %n{i} = f32[{size}]{{0}} negate(%cp{i}), "
            f'metadata={{op_name="jit(f)/neg" source_file="/w/f.py" source_line={100 + i}}}'
        )
    body.append("  ROOT %t = () tuple()")
    text = "HloModule m, num_partitions=2\n\nENTRY %main (x: f32[64]) -> () {\n"
    result = collectives_of(parse(text + "\n".join(body) + "\n}\n"))
    assert len(result.resharding) == count
    shown = render_collectives(result)
    listed = [int(n) for n in re.findall(r"neg at /w/f\.py:(\d+)", " ".join(shown.split()))]
    # The costliest (the last ones written) first, MAX_RESHARDING of them, no number split
    # from its unit by the wrapping, and one line for the rest.
    assert listed == [100 + i for i in range(count - 1, count - 1 - MAX_RESHARDING, -1)]
    rest = sum(64 * (i + 1) * 4 for i in range(3))
    assert f"  ... 3 more ({format_bytes(rest)} per device per call; --json lists all)" in shown
    assert not re.search(r"\n\s+(B|KiB|MiB|GiB)\b", shown.split("resharding (")[1])
    assert len(result.to_dict()["collectives"]) == count


# --- what one module's reading shares ----------------------------------------------------------

SHARED = """HloModule m, num_partitions=8

%fused_sin (a: f32[64,8]) -> f32[64,8] {
  %a = f32[64,8]{1,0} parameter(0)
  ROOT %sin = f32[64,8]{1,0} sine(%a), metadata={op_name="jit(f)/sin" source_file="/w/f.py" source_line=3}
}

%fused_cos (b: f32[64,8]) -> f32[64,8] {
  %b = f32[64,8]{1,0} parameter(0)
  ROOT %cos = f32[64,8]{1,0} cosine(%b), metadata={op_name="jit(f)/cos" source_file="/w/f.py" source_line=9}
}

ENTRY %main (p0: f32[64,8], p1: f32[64,8], p2: f32[64,8], p3: f32[64,8], p4: f32[64,8]) -> (f32[64,8], f32[64,8]) {
  %p0 = f32[64,8]{1,0} parameter(0), sharding={devices=[4,1,2]<=[8] last_tile_dim_replicate}
  %p1 = f32[64,8]{1,0} parameter(1), sharding={devices=[4,1,2]<=[8] last_tile_dim_replicate}
  %p2 = f32[64,8]{1,0} parameter(2), sharding={devices=[4,1,2]<=[8] last_tile_dim_replicate}
  %p3 = f32[64,8]{1,0} parameter(3), metadata={op_name="p3"}, sharding={devices=[2,4]<=[8]}
  %p4 = f32[64,8]{1,0} parameter(4), sharding={replicated}
  %ag = f32[64,8]{1,0} all-gather(%p0), channel_id=1, replica_groups=[2,4]<=[8], dimensions={0}
  %f = f32[64,8]{1,0} fusion(%ag), kind=kLoop, calls=%fused_sin
  %g = f32[64,8]{1,0} fusion(%p4), kind=kLoop, calls=%fused_cos
  %n = f32[64,8]{1,0} negate(%g)
  ROOT %t = (f32[64,8]{1,0}, f32[64,8]{1,0}) tuple(%f, %n), sharding={{devices=[4,1,2]<=[8] last_tile_dim_replicate}, {replicated}}
}
"""


def test_each_distinct_sharding_text_is_decoded_once_and_read_as_the_attributes_read_it(
    monkeypatch,
):
    import hloscope.analysis.collectives._sharding as sharding_module

    decoded: list[str] = []

    def counting(raw, opcode):
        decoded.append(raw)
        return decode_sharding(raw, opcode)

    monkeypatch.setattr(sharding_module, "decode_sharding", counting)
    module = parse(SHARED)
    result = collectives_of(module)
    # Three parameters share one text; p3's sits after a string (metadata first), where the
    # quick read steps aside for the attribute mapping; the root's tuple is one text.
    assert sorted(decoded) == sorted(
        [
            "{devices=[4,1,2]<=[8] last_tile_dim_replicate}",
            "{replicated}",
            "{{devices=[4,1,2]<=[8] last_tile_dim_replicate}, {replicated}}",
        ]
    )
    # The same shardings the attribute mapping decodes, each parameter's and the outputs'.
    entry = parse(SHARED).entry
    for array, param in zip(result.parameters, entry.parameters):
        assert array.sharding == str(param.attrs["sharding"])
    elements = entry.root.attrs["sharding"].elements
    assert [o.sharding for o in result.outputs] == [str(e) for e in elements]
    assert [p.mesh_text for p in result.parameters[:3]] == [
        "dim 0 over axis_0=4, replicated x2 over axis_1"
    ] * 3


def test_tracing_a_collective_builds_only_the_fusions_it_walks_through():
    module = parse(SHARED)
    result = collectives_of(module)
    trace = result.traces["ag"]
    assert trace.producer is not None and trace.producer.name == "p0"  # an entry parameter
    assert [e.name for e in trace.consumers] == ["sin"]
    # The consumer is found inside the fusion the walk entered; finding where the entry
    # parameter stands needed no table of every computation's callers, which would have
    # built the body no walk enters.
    cos = module.computations_by_name["fused_cos"]
    assert cos._body is not None, "fused_cos was built"
    # What the output is made by is found without entering it either.
    assert result.outputs[1].op_name == "" and module.computations_by_name["fused_cos"]._body


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    main(sys.argv[1])
