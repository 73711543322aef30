"""`try`'s sharding warnings from real XLA:TPU compiles for a v5e 2x2 slice (libtpu offline):
the partitioner's and sharding propagation's log lines beyond the argument case of
``tests/test_try.py`` (an op placed on the user's line through the module's frame table,
GSPMD's deprecation), and the collectives a compiled scan and a ``fori_loop`` run every trip,
each counted against XLA's own parse of the module and proved gone by a variant. A
rematerialization's shardings are said as the ``P(...)`` a JAX user writes on the script's own
mesh (two axes on four chips, three on eight), each checked against the HLO sharding JAX
lowers that spec with.

What XLA:TPU (libtpu 0.0.42.1, jaxlib 0.10.2) prints about sharding, read from compiles of
these programs and others (reshapes, sorts, gathers, FFTs, eigh, Cholesky, approximate
top-k, conflicting sharding constraints, under Shardy and under GSPMD) at
``TPU_STDERR_LOG_LEVEL=0``: ``spmd_partitioner.cc:654`` "[SPMD] Involuntary full
rematerialization", ``sharding_propagation.cc:3132`` "GSPMD sharding propagation is going to
be deprecated" (only with Shardy off), jaxlib's ``mlir_to_hlo.cc:111`` "Module has GSPMD attrs
or ops, but Shardy is enabled" (an exported GSPMD module called under Shardy), and two lines
printed by every compile that no program changes (``tpu_spmd_partitioner.cc:459``
"Collective matmul V1 is enabled", ``shardy_xla_pass.cc:378`` "Module contains sdy shardings
... HloShardingV3"): left unread.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from frameworks_needed import needs_libtpu
from shared_cache import once, shared_cache

from hloscope.analysis.variant_warnings import log_warnings
from hloscope.analysis.variants import Goal, TryResult, sharding_warnings
from hloscope.drivers.variants import Variant, VariantOptions, compile_variants, try_variants
from hloscope.render.try_text import render_try, warning_words

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PROGRAMS = SAMPLES / "try_partitioner.py"
GSPMD = SAMPLES / "try_gspmd.py"
EXPORTED = SAMPLES / "try_exported.py"
SLICE = "tpu-v5e:2x2"
#: The variant that replicates the callback's argument (no rule names a mesh: --mesh does).
REPLICATED = VariantOptions(meshes=("data=4",), shard=("x=None,None",))


def _line(path: Path, text: str) -> str:
    """``path:N``, N the line of ``path`` holding ``text``."""
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return f"{path}:{number}"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One try cache for the module; under xdist one for the run, which both workers share."""
    return shared_cache(tmp_path_factory, "try-partitioner-cache")


def _tried(cache, function, options, path=PROGRAMS, device=SLICE):
    needs_libtpu()
    with pytest.MonkeyPatch.context() as patch, once(cache, f"{path.stem}-{function}"):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        return try_variants(f"{path}:{function}", device, options, jobs=2).to_dict()


def _baseline(cache, path, function):
    """``path``'s ``function`` compiled as the script gives it, once per cache."""
    needs_libtpu()
    with pytest.MonkeyPatch.context() as patch, once(cache, f"{path.stem}-{function}"):
        patch.setenv("HLOSCOPE_CACHE", str(cache))
        (base,) = compile_variants(f"{path}:{function}", SLICE, [Variant("baseline")])
    assert base.compiled, base.error
    return base


@pytest.fixture(scope="module")
def scanned(cache):
    return _tried(cache, "scanned_stack", VariantOptions(shard=("dp",)))


@pytest.fixture(scope="module")
def grads(cache):
    return _tried(cache, "scanned_grads", VariantOptions(shard=("dp",)))


@pytest.fixture(scope="module")
def looped(cache):
    return _tried(cache, "looped_matmul", VariantOptions(shard=("dp",)))


@pytest.fixture(scope="module")
def callback(cache):
    return _tried(cache, "host_callback", REPLICATED)


def _rows(payload):
    return {row["name"]: row for row in [payload["baseline"], *payload["variants"]]}


def _xla_text(path: str) -> str:
    """The module as XLA's own parser reads and prints it, operand shapes written out."""
    import jaxlib._hlo as xla_hlo

    options = xla_hlo.HloPrintOptions()
    options.print_operand_shape = True
    options.print_metadata = False
    options.print_backend_config = False
    return xla_hlo.hlo_module_from_text(Path(path).read_text()).to_string(options)


def _computations(text: str) -> dict[str, str]:
    """Each computation of XLA's printed module by name: its text."""
    blocks = re.split(r"\n(?=(?:ENTRY )?%[\w.-]+ \()", text)
    return {re.match(r"(?:ENTRY )?%([\w.-]+)", b.strip()).group(1): b for b in blocks[1:]}


def _bytes(shape: str) -> int:
    sizes = {"f32": 4, "bf16": 2, "s32": 4}
    dtype, dims = re.match(r"(\w+)\[([\d,]*)\]", shape).groups()
    count = 1
    for d in filter(None, dims.split(",")):
        count *= int(d)
    return count * sizes[dtype]


def _xla_loops(path: str, op: str) -> dict[str, tuple[int, int]]:
    """Per while loop of the module at ``path`` (by name) that runs ``op`` each trip: its
    bytes per trip and per device, and its trips, as XLA's own parse says. Each ``op`` of
    the body counts, and each of the computations its fusions call (XLA:TPU fuses an
    all-reduce with its slice, and runs an async all-gather in the three fusions that start,
    run and end it: one channel, counted once); bytes are its result's (what each device
    ends with); trips the constant the loop's condition compares the counter with."""
    text = _xla_text(path)
    computations = _computations(text)
    loops = re.findall(r"%([\w.-]+) = .* while\(.*?condition=%([\w.-]+), body=%([\w.-]+)", text)
    out = {}
    for name, condition, body in loops:
        called = re.findall(r" fusion\(.*?calls=%([\w.-]+)", computations[body])
        moved: dict[str, int] = {}
        for block in [computations[body], *(computations[c] for c in called)]:
            pattern = rf"= (\w+\[[\d,]*\])\S* {op}\(.*?channel_id=(\d+)"
            for shape, channel in re.findall(pattern, block):
                moved.setdefault(channel, _bytes(shape))
        if moved:
            (limit,) = re.findall(r"s32\[\]\S* constant\((\d+)\)", computations[condition])
            out[name] = (sum(moved.values()), int(limit))
    return out


def _warned(row, op: str) -> dict[str, tuple[int, int]]:
    """``row``'s warnings of ``op`` in loop bodies by loop: bytes per trip, and trips."""
    found = [w for w in row["sharding_warnings"] if w.get("op") == op]
    return {w["from"].split()[0]: (w["bytes"], w["executions"]) for w in found}


@pytest.mark.slow
def test_a_compiled_scan_gathers_each_layer_every_trip_and_dp_proves_it(scanned):
    # FSDP over a scanned stack: XLA:TPU gathers one layer per trip inside the loop body.
    rows = _rows(scanned)
    (warning,) = [w for w in rows["baseline"]["sharding_warnings"] if w["op"] == "all-gather"]
    assert warning["kind"] == "all_gather_in_loop"
    # The scan's body, the line of the matmul the gather feeds, and the scan's own line.
    assert warning["where"].startswith(_line(PROGRAMS, "return jnp.tanh(h @ w), None"))
    assert warning["loop"].startswith(_line(PROGRAMS, "jax.lax.scan(layer"))
    # Per trip, what XLA's module gathers (each device ends with the whole layer); six trips.
    (loop,) = _xla_loops(rows["baseline"]["module_file"], "all-gather").values()
    assert _warned(rows["baseline"], "all-gather") == {warning["from"].split()[0]: loop}
    assert loop[1] == 6
    # Data parallel keeps the stack whole on every chip: nothing gathered in the loop.
    assert warning["proven_by"] == "dp"
    assert all(w["kind"] != "all_gather_in_loop" for w in rows["dp"]["sharding_warnings"])
    lines: list[str] = []
    render_try(scanned, lines.append, 80)
    flat = " ".join(" ".join(lines).split())
    assert f"all-gather in a loop body at {warning['where']}" in flat
    assert f"the loop written at {warning['loop']}" in flat
    assert "x6 = " in flat and "(none in dp)" in flat
    assert all(len(line) <= 80 for line in "\n".join(lines).splitlines())


@pytest.mark.slow
def test_a_fori_loop_adds_partial_sums_every_trip_in_a_fused_all_reduce(looped):
    # The weight's contracted rows split: each trip's matmul leaves partial sums, which
    # XLA:TPU adds with an all-reduce fused with the slice each chip keeps (a kCustom fusion
    # in the loop body).
    rows = _rows(looped)
    (warning,) = [w for w in rows["baseline"]["sharding_warnings"] if w.get("op")]
    assert (warning["kind"], warning["op"]) == ("all_gather_in_loop", "all-reduce")
    assert warning["where"].startswith(_line(PROGRAMS, "jax.lax.fori_loop(0, TRIPS"))
    assert warning["loop"].startswith(_line(PROGRAMS, "jax.lax.fori_loop(0, TRIPS"))
    module = rows["baseline"]["module_file"]
    # Not in the body itself: in the computation a fusion of the body calls.
    (body,) = re.findall(r" while\(.*?body=%([\w.-]+)", _xla_text(module))
    assert " all-reduce(" not in _computations(_xla_text(module))[body]
    (loop,) = _xla_loops(module, "all-reduce").values()
    assert _warned(rows["baseline"], "all-reduce") == {warning["from"].split()[0]: loop}
    assert loop[1] == 5
    assert warning["proven_by"] == "dp"
    assert [w for w in rows["dp"]["sharding_warnings"] if w.get("op")] == []
    # The batch left whole on every chip: the spec that splits it names the script's own
    # mesh axis, not the `axis_0` XLA's module calls it.
    (whole,) = [w for w in rows["baseline"]["sharding_warnings"] if not w.get("op")]
    assert (whole["where"], whole["to"]) == ("argument x", "P(None, 'data')")
    lines: list[str] = []
    render_try(looped, lines.append, 80)
    flat = " ".join(" ".join(lines).split())
    assert "all-reduce in a loop body at" in flat and "partial sums" in flat


@pytest.mark.slow
def test_a_scanned_train_step_gathers_forward_and_backward_and_dp_proves_both(grads):
    # The gradient of the FSDP stack: XLA:TPU gathers each layer in the forward scan and
    # again in the backward one (there as an async collective fusion: one all-gather in the
    # three fusions that start, run and end it), and adds each layer's gradient.
    rows = _rows(grads)
    for name, row in rows.items():
        for op in ("all-gather", "all-reduce"):
            assert _warned(row, op) == _xla_loops(row["module_file"], op), (name, op)
    gathers = [w for w in rows["baseline"]["sharding_warnings"] if w.get("op") == "all-gather"]
    # Two loops, each gathering one layer a trip, on the line of the matmul that uses it.
    assert len({w["from"] for w in gathers}) == 2
    matmul = _line(PROGRAMS, "return jnp.tanh(h @ w), None")
    assert all(w["where"].startswith(matmul) for w in gathers)
    # Data parallel gathers nothing (its gradients' all-reduce stays: nothing proves it gone).
    assert {w["proven_by"] for w in gathers} == {"dp"}
    assert _warned(rows["dp"], "all-gather") == {}
    assert {w["proven_by"] for w in rows["dp"]["sharding_warnings"] if w.get("op")} == {None}


@pytest.mark.slow
def test_a_callbacks_rematerializations_are_placed_on_the_users_line(callback):
    # A pure_callback runs on device 0: the partitioner replicates its sharded argument to
    # get there, and its result to split it again. The second op's line gives only a
    # stack_frame_id, which the variant's optimized module resolves.
    rows = _rows(callback)
    base = rows["baseline"]
    said = [line for line in base["log"] if "Involuntary full rematerialization" in line]
    assert len(said) == 2 and any("stack_frame_id=" in line for line in said)
    assert not any("source_file=" in line for line in said)
    warned = {w["where"]: w for w in base["sharding_warnings"]}
    user_line = _line(PROGRAMS, "y = jax.pure_callback(")
    (placed,) = [w for w in warned if w.startswith(user_line)]
    assert set(warned) == {"argument x", placed}
    assert warned["argument x"]["to"] == "{maximal device=0}"
    assert warned[placed]["from"] == "{maximal device=0}"
    # The argument's sharding as the script wrote it, on its own mesh; device 0 has no spec.
    assert warned["argument x"]["from_spec"] == "P(None, 'data')"
    assert warned["argument x"]["spec_mesh"] == {"data": 4}
    assert warned["argument x"]["to_spec"] is None
    # Replicated, the argument reaches device 0 without a rematerialization.
    (fixed,) = [n for n in rows if n != "baseline"]
    assert rows[fixed]["compiled"]
    assert all(w["kind"] != "involuntary_remat" for w in rows[fixed]["sharding_warnings"])
    assert {w["proven_by"] for w in warned.values()} == {fixed}
    # Every width, as the script's path is as long as the clone's folder (CI's failed once on
    # "one- device": a line wrapped at a hyphen, a word split in two).
    for width in range(60, 121):
        lines: list[str] = []
        render_try(callback, lines.append, width)
        flat = " ".join(" ".join(lines).split())
        assert f"involuntary full rematerialization at {placed}" in flat
        assert "go from P(None, 'data') to device 0 alone" in flat and "{devices=" not in flat
        assert "give it P() (whole on every device) before the op that needs it" in flat
        assert "keep the one-device op's result P() (whole on every device) after it" in flat


def _hlo_of(spec: str, mesh: dict[str, int], ndim: int):
    """The HLO sharding JAX lowers ``spec`` (text) with on a mesh of ``mesh``'s axes."""
    from jax.sharding import AbstractMesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    abstract = AbstractMesh(tuple(mesh.values()), tuple(mesh))
    return NamedSharding(abstract, eval(spec, {"P": P}))._to_xla_hlo_sharding(ndim)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "device", "mesh", "fix"),
    [
        # Two axes on four chips.
        (SAMPLES / "try_reshard.py", SLICE, {"x": 2, "y": 2}, "b=None,x,y"),
        # Three on eight, `pipe` replicating both arguments (a transposed iota in XLA's text).
        (
            SAMPLES / "try_respec.py",
            "tpu-v5e:2x4",
            {"pipe": 2, "data": 2, "model": 2},
            "b=None,data,model",
        ),
    ],
)
def test_a_rematerializations_shardings_are_the_specs_a_user_writes(cache, path, device, mesh, fix):
    # XLA:TPU prints each sharding in its device-list notation; try says them as specs on the
    # script's own mesh, each checked against the HLO sharding JAX lowers that spec with.
    from jax._src.lib import xla_client as xc
    from jax.sharding import PartitionSpec as P

    payload = _tried(cache, "combine", VariantOptions(shard=(fix,)), path, device)
    rows = _rows(payload)
    (warning,) = rows["baseline"]["sharding_warnings"]
    assert warning["kind"] == "involuntary_remat" and warning["where"] == "argument b"
    assert warning["spec_mesh"] == mesh  # the script's own mesh, its axes in order
    for key in ("from", "to"):
        spec = warning[f"{key}_spec"]
        assert spec is not None and spec.startswith("P("), warning
        xla = xc.HloSharding.from_string(warning[key])  # XLA's notation, kept beside it
        ndim = len(eval(spec, {"P": P}))
        assert _hlo_of(spec, mesh, ndim) == xla, (key, spec, warning[key])
    # What it had is what the script gave `b`: its last dimension over both split axes.
    split = tuple(axis for axis in mesh if axis != "pipe")
    assert eval(warning["from_spec"], {"P": P}) == P(None, None, split)
    assert warning["proven_by"] == fix and rows[fix]["sharding_warnings"] == []
    lines: list[str] = []
    render_try(payload, lines.append, 80)
    flat = " ".join(" ".join(lines).split())
    said = f"go from {warning['from_spec']} to {warning['to_spec']}"
    assert said in flat and f"give it {warning['to_spec']} where it is made" in flat
    assert "{devices=" not in flat
    assert all(len(line) <= 80 for line in "\n".join(lines).splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("function", ["mlp", "norms"])
def test_gspmds_deprecation_is_read_with_the_setting_that_avoids_it(cache, function):
    # The script turns Shardy off: XLA's sharding propagation says GSPMD is to go.
    base = _baseline(cache, GSPMD, function)
    assert any("GSPMD sharding propagation" in line for line in base.log)
    (warning,) = [w for w in sharding_warnings(base) if w["kind"] == "gspmd_propagation"]
    assert warning["count"] >= 1
    assert "jax_use_shardy_partitioner', True" in warning["to"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "line"),
    [
        # The call of the exported module, where an op of the program's own is at its line.
        ("scaled", 'return _exported("sine").call(x) + 1'),
        # Else the exported function's own line, which the exported ops keep.
        ("projected", "lambda a, w: jnp.tanh(a @ w)"),
    ],
)
def test_an_exported_gspmd_module_turns_shardy_off_and_is_placed(cache, function, line):
    # Exported while JAX used GSPMD, called under Shardy: XLA falls back to GSPMD for the
    # whole program, and then says GSPMD is to be deprecated.
    base = _baseline(cache, EXPORTED, function)
    assert any("Module has GSPMD attrs or ops, but Shardy is enabled" in x for x in base.log)
    warned = {w["kind"]: w for w in sharding_warnings(base)}
    assert set(warned) == {"gspmd_fallback", "gspmd_propagation"}
    assert warned["gspmd_fallback"]["where"].startswith(_line(EXPORTED, line))
    assert warned["gspmd_fallback"]["count"] == 1
    result = TryResult(f"{EXPORTED}:{function}", SLICE, None, Goal.FIT, base, [])
    lines: list[str] = []
    render_try(result.to_dict(), lines.append, 80)
    flat = " ".join(" ".join(lines).split())
    assert "Shardy turned off for the whole program: the exported module at" in flat
    assert "export it again with Shardy on" in flat


#: The partitioner's line before 2025 (XLA's spmd_partitioner.cc, ``LOG(ERROR) << "[spmd]
#: Involuntary full rematerialization. The compiler was not able to go from sharding " ...
#: " without doing a full rematerialization of the tensor for HLO operation: " ...), with a
#: sharding that holds braces of its own.
_OLD = (
    "E0412 09:01:02.000 1 spmd_partitioner.cc:612] [spmd] Involuntary full "
    "rematerialization. The compiler was not able to go from sharding {{devices=[2,2]<=[4]}, "
    "{replicated}} to {{replicated}, {replicated}} without doing a full rematerialization of "
    "the tensor for HLO operation: %tuple.3 = (f32[8,8]{1,0}, f32[4]{0}) tuple(%a, %b), "
    'sharding={{devices=[2,2]<=[4]}, {replicated}}, metadata={op_name="jit(f)/tuple" '
    'source_file="/home/me/train.py" source_line=88}. You probably want to enrich the sharding '
    "annotations to prevent this from happening."
)
#: libtpu 0.0.42's wording, a sharding with a replicated last tile dimension.
_NEW = (
    "W1206 12:31:45.487702 10878 spmd_partitioner.cc:654] [SPMD] Involuntary full "
    "rematerialization. The compiler cannot go from sharding {devices=[1,1,4]<=[4]} to "
    "{devices=[1,2,1,2]<=[4] last_tile_dim_replicate} efficiently for HLO operation %param = "
    "f32[8,64,16]{2,1,0} parameter(1), sharding={devices=[1,1,4]<=[4]}, "
    'metadata={op_name="b"}. As the last resort, SPMD will replicate the tensor and then '
    "partition it to obtain the target sharding, which is inefficient."
)


def test_both_wordings_are_read_by_their_stable_tokens():
    old, new = log_warnings([_OLD, _NEW, _NEW])
    assert old["where"] == "/home/me/train.py:88"
    assert old["from"] == "{{devices=[2,2]<=[4]}, {replicated}}"
    assert old["to"] == "{{replicated}, {replicated}}"
    assert (new["where"], new["count"]) == ("argument b", 2)
    assert new["to"] == "{devices=[1,2,1,2]<=[4] last_tile_dim_replicate}"


def test_lines_printed_by_every_compile_are_not_warnings():
    every = [
        "W1206 12:31:45.474331 10878 tpu_spmd_partitioner.cc:459] Collective matmul V1 is "
        "enabled. Please consider migrating to V2 since V1 will be deprecated soon.",
        "W1206 12:31:45.484861 10878 shardy_xla_pass.cc:378] Module contains sdy shardings or "
        "meshes in frontend_attributes even when HloShardingV3 is enabled.",
        # Cut short where the sharding should start, or inside it: nothing to place.
        "[SPMD] Involuntary full rematerialization. The compiler cannot go from sharding",
        "[SPMD] Involuntary full rematerialization. The compiler cannot go from sharding "
        "{devices=[1,1,4]<=[4]} to {devices=[1,2",
    ]
    assert log_warnings(every) == []


def test_a_module_not_yet_in_place_is_read_when_it_is(tmp_path):
    # Another try may be moving the same cache entry into place: a failed read is not kept.
    from hloscope.analysis.variant_warnings import read_module, read_module_warnings

    path = tmp_path / "optimized.hlo.txt"
    assert read_module(str(path)) is None
    assert read_module_warnings(str(path), ()) == ()
    path.write_text(
        "HloModule m, num_partitions=4\n\nENTRY main {\n  ROOT p = f32[8] parameter(0)\n}\n"
    )
    assert read_module(str(path)).name == "m"
    assert read_module_warnings(str(path), ()) == ()


def test_an_op_without_a_line_of_its_own_is_placed_by_the_modules_op_of_that_name():
    # The line names the op only by its op_name (a GSPMD-era line, no frame id): the variant's
    # module has an op of that name with a source line.
    from hloscope.hlo.parser import parse

    module = parse(
        "HloModule m, num_partitions=4\n\nENTRY main {\n"
        "  p = f32[8,8] parameter(0)\n"
        '  ROOT t = f32[8,8] transpose(p), dimensions={1,0}, metadata={op_name="jit(f)/transpose"'
        ' source_file="/home/me/model.py" source_line=12}\n}\n'
    )
    line = _NEW.replace(
        "%param = f32[8,64,16]{2,1,0} parameter(1), sharding={devices=[1,1,4]<=[4]}, "
        'metadata={op_name="b"}',
        "%transpose.3 = f32[8,8]{1,0} transpose(%p), dimensions={1,0}, "
        'metadata={op_name="jit(f)/transpose"}',
    )
    assert line != _NEW
    (placed,) = log_warnings([line], module)
    assert placed["where"] == "/home/me/model.py:12"
    # Without the module, its op_name is all there is.
    (unplaced,) = log_warnings([line])
    assert unplaced["where"] == "jit(f)/transpose"


def test_a_lines_shardings_are_read_as_specs_on_the_mesh_given():
    mesh = {"x": 2, "y": 2}
    (new,) = log_warnings([_NEW], mesh=mesh)
    assert (new["from_spec"], new["to_spec"]) == ("P(None, None, ('x', 'y'))", "P(None, 'x', None)")
    assert new["spec_mesh"] == mesh
    # XLA's notation stays beside them.
    assert new["to"] == "{devices=[1,2,1,2]<=[4] last_tile_dim_replicate}"
    # The mesh's order is the devices' order: with `y` major the same devices name `y` first.
    (swapped,) = log_warnings([_NEW], mesh={"y": 2, "x": 2})
    assert swapped["from_spec"] == "P(None, None, ('y', 'x'))"
    assert swapped["to_spec"] == "P(None, 'y', None)"
    # A tuple's sharding per element.
    (old,) = log_warnings([_OLD], mesh=mesh)
    assert (old["from_spec"], old["to_spec"]) == ("(P('x', 'y'), P())", "(P(), P())")
    # No mesh known: no spec, XLA's notation only.
    (bare,) = log_warnings([_NEW])
    assert (bare["from_spec"], bare["to_spec"], bare["spec_mesh"]) == (None, None, None)
    text = warning_words(bare)
    assert "go from {devices=[1,1,4]<=[4]} to {devices=[1,2,1,2]<=[4]" in text


def test_without_a_mesh_the_modules_is_named_by_the_scripts_axes():
    # A result kept before the script's mesh was recorded: the module's shardings give the
    # mesh's shape ([2,2] in an iota), the script's axis names name it where they fit.
    from hloscope.hlo.parser import parse

    module = parse(
        "HloModule m, num_partitions=4\n\nENTRY main {\n  ROOT p = f32[8,8] parameter(0), "
        "sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}\n}\n"
    )
    (named,) = log_warnings([_NEW], module, axis_names=("data", "model"))
    assert named["spec_mesh"] == {"data": 2, "model": 2}
    assert named["to_spec"] == "P(None, 'data', None)"
    # Names that do not fit its axes name nothing.
    (unnamed,) = log_warnings([_NEW], module, axis_names=("pipe", "data", "model"))
    assert unnamed["to_spec"] is None and unnamed["spec_mesh"] is None


def test_a_sharding_no_spec_gives_is_said_in_xlas_notation_with_why():
    line = _NEW.replace(
        "to {devices=[1,2,1,2]<=[4] last_tile_dim_replicate}", "to {devices=[1,2,2]3,2,1,0}"
    )
    (warning,) = log_warnings([line], mesh={"x": 2, "y": 2})
    assert warning["to_spec"] is None and warning["from_spec"] == "P(None, None, ('x', 'y'))"
    text = warning_words(warning)
    assert "to {devices=[1,2,2]3,2,1,0} (no P(...) over the mesh x=2, y=2 gives it)" in text


def test_the_reports_try_section_says_the_specs_too():
    from hloscope.analysis.variants import VariantOutcome
    from hloscope.render.html.try_section import try_section

    base = VariantOutcome("baseline", {}, compiled=True, log=[_NEW], mesh={"x": 2, "y": 2})
    section = try_section(TryResult("m.py:f", SLICE, None, Goal.FIT, base, []))
    (row,) = section.rows
    (said,) = [line for line in row.details if "rematerialization" in line]
    assert "go from P(None, None, ('x', 'y')) to P(None, 'x', None)" in said
    assert "{devices=" not in said
