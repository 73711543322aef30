"""In-process capture (hloscope.capture): JAX itself is the oracle for every stage.

The stage texts carry the Python stack of every traced op (``FileNames``/``StackFrames``), call
site included. So where a test compares hloscope's text with JAX's own, both are produced from
*one* call site (a loop over the two ways), and the texts can be compared byte for byte.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from frameworks_needed import needs_framework  # noqa: E402

jax = needs_framework("jax")
import jax.numpy as jnp  # noqa: E402

import hloscope  # noqa: E402
from hloscope.backends import _jaxlib as jaxlib_adapter  # noqa: E402
from hloscope.backends.frameworks import version_tuple  # noqa: E402
from hloscope.capture.errors import CaptureError  # noqa: E402
from hloscope.capture.inprocess import JAX_STAGES, Capture, capture  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def mlp(x, w1, w2):
    return jnp.tanh(jnp.tanh(x @ w1) @ w2).sum()


@pytest.fixture(scope="module")
def inputs():
    return (jnp.ones((4, 8)), jnp.full((8, 16), 0.1), jnp.full((16, 2), 0.2))


@pytest.fixture(scope="module")
def pair(inputs):
    """(jax.jit(mlp).lower(...), capture(mlp, ...)) from one call site."""
    made = []
    for how in (jax.jit(mlp).lower, functools.partial(capture, mlp)):
        made.append(how(*inputs))
    lowered, cap = made
    return lowered, lowered.compile(), cap


@pytest.fixture(scope="module")
def with_passes(inputs):
    return capture(mlp, *inputs, passes="fusion|algsimp")


def test_stage_names_in_compiler_order(pair):
    _, _, cap = pair
    assert tuple(cap.stages) == JAX_STAGES
    assert cap.frontend == "jax" and cap.name == "jit_mlp"
    assert (
        repr(cap).startswith("Capture(frontend='jax', name='jit_mlp', stages={jaxpr: ")
        and len(repr(cap)) < 300
    )


def test_optimized_hlo_is_exactly_what_jax_compiles(pair):
    _, compiled, cap = pair
    assert cap.stages["optimized_hlo"] == compiled.as_text()
    assert cap.text("after") == compiled.as_text()


def test_parsed_optimized_module_has_jaxs_instruction_names(pair):
    _, compiled, cap = pair
    ours = [(c.name, [i.name for i in c.instructions]) for c in cap.module("after").computations]
    theirs = [
        (c["name"], [i["name"] for i in c["instructions"]])
        for c in jaxlib_adapter.xla_structure(compiled.as_text())
    ]
    assert sorted(ours) == sorted(theirs)
    assert cap.module("after") is cap.module("optimized_hlo")  # parsed once


def _without_locations(text: str) -> str:
    # The location table differs where the user's frame limit cut JAX's own lowering (older jax
    # keeps 10 frames; hloscope's capture keeps them all), so the ops are compared without it.
    text = re.sub(r"^#loc\d* = .*\n", "", text, flags=re.M)
    return re.sub(r" loc\(#loc\d*\)", "", text)


def test_stablehlo_has_locations_and_equals_jax(pair):
    lowered, _, cap = pair
    ours, jax_own = cap.stages["stablehlo"], lowered.as_text(debug_info=True)
    assert _without_locations(ours) == _without_locations(jax_own)
    assert "loc(" in ours and ours.count("#loc") >= jax_own.count("#loc")


def test_jaxpr_equals_make_jaxpr(pair, inputs):
    _, _, cap = pair
    assert cap.stages["jaxpr"] == str(jax.make_jaxpr(mlp)(*inputs))


def test_hlo_before_optimizations_is_the_module_xla_received(pair):
    lowered, _, cap = pair
    before = cap.module("before")
    # The same module JAX converts for XLA (the dump adds two compile-option header attributes).
    converted = lowered.compiler_ir("hlo").as_hlo_module().to_string()

    # Column ranges in FileLocations come from whichever trace JAX cached first (another test in
    # the same worker may have traced `mlp` from another line), so compare without them.
    # Older XLA (jax 0.5.0) ends each computation of a dump with a `} // name` comment.
    def without_columns(text):
        text = re.sub(r"^\} // \S+$", "}", text, flags=re.M)
        return re.sub(r" (end_)?column=\d+", "", text.split("\n", 1)[1])

    assert without_columns(cap.stages["hlo"]) == without_columns(converted)
    theirs = [
        (c["name"], [i["name"] for i in c["instructions"]])
        for c in jaxlib_adapter.xla_structure(cap.stages["hlo"])
    ]
    assert sorted(
        (c.name, [i.name for i in c.instructions]) for c in before.computations
    ) == sorted(theirs)
    assert "fusion" not in {i.opcode for i in before.instructions()}
    assert "fusion" in {i.opcode for i in cap.module("after").instructions()}


def test_user_frames_only_in_source_locations(pair):
    _, _, cap = pair
    for stage in ("hlo", "optimized_hlo"):
        assert "hloscope/capture" not in cap.stages[stage]
    assert __file__ in cap.stages["hlo"]


def test_cost_and_memory_are_jaxs(pair):
    _, compiled, cap = pair
    assert cap.cost == {k: float(v) for k, v in compiled.cost_analysis().items()}
    assert cap.cost["flops"] > 0
    stats = compiled.memory_analysis()
    assert (
        cap.memory["argument_size_in_bytes"] == stats.argument_size_in_bytes == 4 * (32 + 128 + 32)
    )
    assert cap.memory["output_size_in_bytes"] == stats.output_size_in_bytes
    assert cap.memory["temp_size_in_bytes"] == stats.temp_size_in_bytes
    assert all(isinstance(v, int) for v in cap.memory.values())


def test_xla_reports_kept(pair):
    _, _, cap = pair
    # jaxlib 0.10 dumps the live range apart; older XLA puts it inside the buffer assignment.
    assert {"buffer_assignment", "memory_usage_report"} <= set(cap.reports)
    assert set(cap.reports) <= {"buffer_assignment", "live_range", "memory_usage_report"}
    assert "allocation" in cap.reports["buffer_assignment"].lower()
    live_range = cap.reports.get("live_range", cap.reports["buffer_assignment"])
    assert "(peak)" in live_range


def test_no_pass_snapshots_unless_asked(pair):
    assert pair[2].passes == []


def test_passes_are_captured_in_order(with_passes, pair):
    steps = [p.step for p in with_passes.passes]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert len(steps) >= 3
    pattern = re.compile("fusion|algsimp")
    for snap in with_passes.passes:
        assert pattern.search(snap.pass_name) or pattern.search(snap.next_pass or ""), snap.label
    # The snapshot after the fusion pass is the first to hold fusions; the final optimized
    # module is unchanged by asking for snapshots.
    after_fusion = next(p for p in with_passes.passes if p.pass_name == "fusion")
    assert "fusion" in {i.opcode for i in after_fusion.module().instructions()}
    assert with_passes.stages["optimized_hlo"] == pair[2].stages["optimized_hlo"]


def test_xla_flags_untouched(inputs):
    before = os.environ.get("XLA_FLAGS")
    capture(mlp, *inputs, passes="fusion")
    assert os.environ.get("XLA_FLAGS") == before


def test_users_jit_cache_is_neither_cleared_nor_filled(inputs):
    step = jax.jit(mlp)
    step(*inputs)
    assert step._cache_size() == 1
    cap = capture(step, *inputs)
    assert cap.name == "jit_mlp"
    capture(step, jnp.ones((2, 8)), *inputs[1:])  # another shape: still no dispatch-cache entry
    assert step._cache_size() == 1
    step(*inputs)  # still a cache hit
    assert step._cache_size() == 1


def test_jitted_function_keeps_its_static_arguments():
    scale = jax.jit(lambda x, n: x * n, static_argnums=1)
    cap = capture(scale, jnp.ones(3), 5)
    assert "constant(5)" in cap.stages["hlo"]


def test_shape_dtype_structs_are_enough():
    cap = capture(jnp.sin, jax.ShapeDtypeStruct((128,), jnp.float32))
    assert cap.module("before").entry.parameters[0].shape_text.startswith("f32[128]")


def test_bad_pass_patterns_are_refused_before_compiling(inputs):
    for pattern in ("(", "", "(?=x)"):
        with pytest.raises(CaptureError):
            capture(mlp, *inputs, passes=pattern)


def test_unknown_stage_is_a_clear_error(pair):
    with pytest.raises(KeyError, match="no stage 'nope'"):
        pair[2].text("nope")
    with pytest.raises(ValueError, match="not HLO"):
        pair[2].module("jaxpr")


def test_save_and_load_round_trip(with_passes, tmp_path):
    with_passes.save(tmp_path / "cap")
    again = Capture.load(tmp_path / "cap")
    assert Capture.is_saved(tmp_path / "cap")
    assert again.stages == with_passes.stages
    assert again.reports == with_passes.reports
    assert again.cost == with_passes.cost and again.memory == with_passes.memory
    assert again.passes == with_passes.passes
    assert again.serialized == with_passes.serialized
    assert json.loads((tmp_path / "cap" / "capture.json").read_text())["name"] == "jit_mlp"


def test_does_not_write_into_the_users_dump_folder(tmp_path):
    # XLA_FLAGS is read once per process, so this needs a process of its own.
    user_dump = tmp_path / "user-dump"
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        import jax, jax.numpy as jnp
        import hloscope
        def listing():
            folder = {str(user_dump)!r}
            return sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        jax.jit(lambda x: x + 1)(jnp.ones(3))      # the user's own compile: dumped as configured
        before = listing()
        def captured_only(x):
            return jnp.cos(x)
        cap = hloscope.capture(captured_only, jnp.ones(3), passes="fusion")
        after = listing()
        assert cap.passes and cap.stages["hlo"], "capture incomplete"
        print("NEW", [n for n in after if n not in before])
        print("FLAGS", os.environ["XLA_FLAGS"])
        """
    )
    flags = (
        f"--xla_dump_to={user_dump} --xla_dump_hlo_module_re=nothing "
        "--xla_dump_disable_metadata=true"
    )
    env = {**os.environ, "XLA_FLAGS": flags}
    run = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "NEW []" in run.stdout
    assert f"FLAGS {flags}" in run.stdout
    if version_tuple(jaxlib_adapter.jaxlib_version()) >= (0, 7):
        # PJRT writes the user's compile inputs into the configured folder (jaxlib 0.7 on).
        assert any("jit__lambda" in n for n in os.listdir(user_dump))


def test_importing_hloscope_does_not_import_jax():
    code = (
        "import sys, hloscope, hloscope.capture.inprocess; print('jax' in sys.modules, "
        "'tensorflow' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.stdout.split() == ["False", "False"], run.stderr


# ---- TensorFlow ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keras_model():
    tf = needs_framework("tensorflow")
    keras = needs_framework("keras")
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(2)]
    )
    return tf, model, tf.function(model, jit_compile=True), tf.ones((2, 4))


def test_tf_function_stages_equal_experimental_get_compiler_ir(keras_model):
    tf, _, fn, x = keras_model
    cap = hloscope.capture(fn, x)
    compiler_ir = fn.experimental_get_compiler_ir(x)
    assert cap.frontend == "tensorflow"
    assert list(cap.stages) == ["hlo", "optimized_hlo"]
    for stage, text in cap.stages.items():
        assert text == compiler_ir(stage=stage)
    assert cap.name.startswith("a_inference_")
    # The serialized HloModuleProto carries a fresh module id each time: compare its size.
    assert (
        abs(len(cap.serialized["hlo_serialized"]) - len(compiler_ir(stage="hlo_serialized"))) <= 4
    )
    assert cap.module("after").entry.root.shape_text.startswith("f32[2,2]")
    assert cap.cost is None and cap.memory is None


def test_keras_model_is_wrapped_in_an_xla_tf_function(keras_model):
    _, model, _, x = keras_model
    cap = hloscope.capture(model, x)
    assert cap.module("before").entry.root.shape_text.startswith("f32[2,2]")


def test_tf_function_without_jit_compile_is_explained(keras_model):
    tf, _, _, x = keras_model
    with pytest.raises(CaptureError, match="jit_compile=True"):
        hloscope.capture(tf.function(lambda v: v * 2), x)


def test_tf_passes_point_to_the_script_capture(keras_model):
    _, _, fn, x = keras_model
    with pytest.raises(CaptureError, match="hloscope capture SCRIPT.py --passes"):
        hloscope.capture(fn, x, passes="fusion")


def test_persistent_compilation_cache_hit_is_handled(tmp_path):
    # JAX's persistent cache ignores dump options in its key, so a hit means XLA never runs:
    # the stages still come (from JAX's own conversion) and asking for passes says why not.
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import jax, jax.numpy as jnp
        jax.config.update("jax_compilation_cache_dir", {str(tmp_path / "cache")!r})
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        import hloscope
        def cached(x):
            return jnp.sin(x) * 2
        compiled_text = jax.jit(cached).lower(jnp.ones(3)).compile().as_text()
        cap = hloscope.capture(cached, jnp.ones(3))
        assert cap.stages["hlo"].startswith("HloModule jit_cached"), cap.stages["hlo"][:80]
        assert cap.module("after").name == "jit_cached" and cap.reports == {{}}
        try:
            hloscope.capture(cached, jnp.ones(3), passes="fusion")
        except hloscope.CaptureError as error:
            print("REFUSED", error)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert (
        "REFUSED XLA did not run its passes for this function: JAX's persistent compilation cache"
        in run.stdout
    )
