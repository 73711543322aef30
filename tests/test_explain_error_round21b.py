"""Round 21b of explain-error: the field readers, read on the spent parts' misses and the two
blind made batches', each fix on two wordings: a corpus or made log, and a second real text (a
log of the same message from another program, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import DATA, first, log

from hloscope.analysis.explain_error.record import Family


def made(case: str) -> str:
    """A blind made batch's log, ``folder/case``."""
    return (DATA / f"{case}.log").read_text()


# ---- XLA:TPU's 64-bit rewrite refusing an instruction JAX lowered: the op is JAX's ----------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # An int64 matmul under jax_enable_x64 on a TPU v5e: "%dot_general.1 = s64[...] dot(",
        # metadata op_name "jit(cooccurrence)/dot_general".
        (made("made_errors_tpu_blind15/b15_int64_matmul_x64"), "dot_general"),
        # A float64 Pallas kernel on the same TPU: a custom-call named after pallas_call.
        (made("made_errors_tpu_blind15/b15_pallas_f64_kernel"), "pallas_call"),
    ],
)
def test_the_x64_rewrite_names_the_jax_primitive_its_metadata_records(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == op


def test_the_x64_rewrite_of_an_instruction_with_no_metadata_keeps_its_opcode() -> None:
    # enzymejax#2126: Enzyme's custom call carries no JAX name stack.
    assert first(log("fresh14_a_enzymejax_2126")).finding.op == "custom-call"


def test_the_x64_rewrite_of_one_step_of_a_primitive_keeps_its_opcode() -> None:
    # diffrax#366: a bitcast-convert that nextafter's lowering made is no nextafter.
    assert first(log("fresh10_a_diffrax_366")).finding.op == "bitcast-convert"


# ---- jnp.repeat under jit with traced repeats: the op JAX names, and a static total --------

# JAX 0.10.2's own error (CPU) for jnp.repeat(x, n, axis=0) under jit, n a traced int32[2].
_REPEAT = """\
Traceback (most recent call last):
  File "/tmp/rep.py", line 7, in <module>
    print(tile_rows(jnp.ones((2, 3)), jnp.array([2, 1])))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/rep.py", line 5, in tile_rows
    return jnp.repeat(x, n, axis=0)
           ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 6351, in repeat
    return _repeat(repeats, a, axis=axis,
  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 6383, in _repeat
    repeats = core.concrete_or_error(None, repeats,
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[2]
When jit-compiling jnp.repeat, the total number of repeats must be static. To fix this, either specify a static value for `repeats`, or pass a static value to `total_repeat_length`.
The error occurred while tracing the function tile_rows at /tmp/rep.py:3 for jit. This concrete value was not available in Python because it depends on the value of the argument n.

See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [made("made_errors_blind15/tracing_repeat_ragged_counts"), _REPEAT],
)
def test_jnp_repeat_with_traced_repeats_is_repeat_given_a_fixed_size(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_TRACING
    assert failure.finding.op == "repeat"
    assert failure.advice_kind == "fixed_size"


# ---- a path shortened to a package that keeps its sources in src/_src: a library's ---------


@pytest.mark.parametrize(
    ("name", "line"),
    [
        # keras-hub#2591: ".../keras_hub/src/models/t5/t5_transformer_layer.py" under the
        # reporter's own script.
        ("fresh15_c_keras-hub_2591", "/Users/xxx/keras-hub/mwe_t5_nnx.py:10"),
        # mujoco_warp#926: ".../mujoco_warp/_src/warp_util.py" under the user's env step.
        ("fresh16_i_mujocowarp_926", ".../lib/rl/envs/mjx/mjwarp_env.py:141"),
    ],
)
def test_an_elided_path_into_a_packages_src_is_no_user_line(name: str, line: str) -> None:
    assert first(log(name)).finding.source == line


# ---- a platform's flag refused by name: no sign of that platform ---------------------------

# JAX 0.10.2's own error on the CPU for lowered.compile({"xla_tpu_...": True}), verbatim.
_OPTION = """\
Traceback (most recent call last):
  File "/tmp/opt.py", line 7, in <module>
    print(lowered.compile({"xla_tpu_megacore_fusion_allow_ags": True}))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/stages.py", line 592, in compile
    return Compiled(self._lowering.compile(**kw), self._lowering.const_args,
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 1239, in compile
    executable = UnloadedMeshExecutable.from_hlo(
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 1733, in from_hlo
    xla_executable = _cached_compilation(
                     ^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py", line 1516, in _cached_compilation
    xla_executable = compiler.compile_or_get_cached(
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/compiler.py", line 469, in compile_or_get_cached
    return _compile_and_write_cache(
           ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/compiler.py", line 737, in _compile_and_write_cache
    executable = backend_compile_and_load(
                 ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 420, in wrapper
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/compiler.py", line 363, in backend_compile_and_load
    raise e
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/compiler.py", line 353, in backend_compile_and_load
    return backend.compile_and_load(
           ^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: No such compile option: 'xla_tpu_megacore_fusion_allow_ags'
"""  # noqa: E501
# JAX 0.10.2's own abort on the CPU with XLA_FLAGS=--xla_tpu_enable_async_all_gather=true.
_FLAGS = """\
F1207 11:32:03.002182    4157 parse_flags_from_env.cc:234] Unknown flag in XLA_FLAGS: --xla_tpu_enable_async_all_gather=true
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [made("made_errors_blind15/status_tpu_compile_option_on_cpu"), _OPTION, _FLAGS],
)
def test_a_refused_tpu_flag_is_no_sign_of_a_tpu(text: str) -> None:
    assert first(text).platform is None


# ---- Mosaic's TPU dialect quoted in a message: the platform is the TPU ---------------------


@pytest.mark.parametrize(
    "name",
    [
        # tpu-inference#3038: '%97 = "tpu.memref_slice"(...)' on a #tpu.tiled memref.
        "fresh15_d_tpuinference_pr3038",
        # jax#36750: a "tpu.reshape" Mosaic could not legalize.
        "jax_36750_tpu_reshape_legalize",
    ],
)
def test_mosaics_tpu_dialect_in_the_message_is_a_tpu(name: str) -> None:
    from hloscope.analysis.unsupported.findings import Platform

    assert first(log(name)).platform is Platform.TPU


@pytest.mark.parametrize(
    ("name", "op"),
    [
        # tpu-inference#3038: "Slice sizes along tiled dimensions must be aligned to tiles"
        # about the '%97 = "tpu.memref_slice"(...)' it quotes, no HLO slice.
        ("fresh15_d_tpuinference_pr3038", "tpu.memref_slice"),
        # jax#18388: the '"tpu.matmul"(' Mosaic could not lay out, named so already.
        ("jax_18388_internal_tpu_kernel", "tpu.matmul"),
    ],
)
def test_the_mosaic_op_a_refusal_quotes_is_its_op(name: str, op: str) -> None:
    assert first(log(name)).finding.op == op


# ---- MLIR's "see current operation" note names the op a status's diagnostic was on ---------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        # openxla#39828: "'builtin.module' op ... INVALID_ARGUMENT" then the note's
        # '%1:4 = "stablehlo.while"(...': the module is only where it was reported.
        ("fresh15_a_openxla_39828", "stablehlo.while"),
        # Lux.jl#673 (Reactant): "UNKNOWN: <unknown>:0: error: Reduction function must
        # return a scalar" then the note's '"func.return"(%8, ...'.
        ("fresh15_d_luxjl_pr673", "func.return"),
    ],
)
def test_the_current_operation_mlir_notes_is_the_op(name: str, op: str) -> None:
    failure = first(log(name))
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == op
