"""explain-error round 12b (issue 35): the causes behind the ninth part's misses (fresh9, spent),
each rule tested on two wordings: one from the spent part (``tests/data/error_logs/fresh9_*``),
one from elsewhere (an older public thread, a library's own source, another framework, or
JAX 0.10.2's own error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Failure, Family, explain_error
from tests.explain_error_reading import first, spent


def _read(text: str) -> Failure:
    """The first failure of a spent corpus log (by its name) or of a text."""
    return spent(text) if text.startswith("fresh") else first(text)


# ---- PyTorch/XLA's check on the status an XLA call returned ----------------------------------
# Before its error-handling rework (pytorch/xla#9457) torch_xla ended on XLA_CHECK_OK for every
# status XLA returned: the status inside is XLA's answer to the program, not a check of XLA's.


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # fresh9 ptxla_6002: XLA's builder refused a transpose torch_xla's lowering made.
        (
            "fresh9_c_ptxla_6002_diagonal_view_update_transpose_not_permutation_tpu",
            "INVALID_ARGUMENT",
        ),
        # pytorch/xla's own while_loop test (glog's prefix, the message on the next line).
        (
            "F0516 21:59:47.227707 1514341 debug_macros.h:20] Non-OK-status: status.status() "
            "status: INVALID_ARGUMENT: \nThe parameter of condition and body, the result of the "
            "body, and init must all have the same shape; got \n*** Begin stack trace ***\n"
            "        tsl::CurrentStackTrace()\n"
            "        torch_xla::ShapeHelper::ShapeOfXlaOp(xla::XlaOp)\n",
            "INVALID_ARGUMENT",
        ),
    ],
)
def test_a_frontends_check_on_xlas_status_is_the_status(text, code):
    failure = _read(text)
    assert str(failure.family) == "xla_status"
    assert failure.status == code


# ---- XLA's verifier refusing an op that mixes float widths ---------------------------------


@pytest.mark.parametrize(
    ("text", "op", "dtypes"),
    [
        # fresh9 ptxla_8496: torch_xla's autocast gave batch norm a bf16 input, f32 scale.
        (
            "fresh9_c_ptxla_8496_autocast_bf16_batchnorm_mixed_precision_disallowed",
            "batch-norm-training",
            "bf16,f32",
        ),
        # TensorFlow under mixed_float16 (a Keras model's residual Add), TF's own class.
        (
            "tensorflow.python.framework.errors_impl.InternalError: Seen floating point types "
            "of different precisions in %add.51337 = f32[8,48,48,320]{3,2,1,0} add(f32[8,48,48,"
            "320]{3,2,1,0} %scatter.36858, f16[8,48,48,320]{3,2,1,0} %convolution.51336), but "
            "mixed precision is disallowed. [Op:__inference_train_function_5231]\n",
            "add",
            "f32,f16",
        ),
    ],
)
def test_mixed_float_widths_in_one_op_are_the_programs_types(text, op, dtypes):
    failure = _read(text)
    assert (str(failure.family), failure.finding.op) == ("xla_status", op)
    assert failure.finding.dtype == dtypes
    assert failure.advice_kind == "cast_dtype"
    assert [kind for kind, _ in failure.more_advice] == ["report_bug"]


# ---- a carry whose types differ only in the mesh axes they vary over (shard_map) -----------

# JAX 0.10.2's own error, made in a child process: shard_map over a (2, 2) mesh of 4 CPU
# devices, a scan whose initial carry is jnp.zeros (varying over no axis) and whose body adds
# the 'i'-sharded input to it.
_JAX_0_10_VARYING_CARRY = """\
Traceback (most recent call last):
  File "/tmp/vma.py", line 14, in <module>
    g(x)
  File "/tmp/vma.py", line 10, in f
    c, _ = jax.lax.scan(body, c0, x)
           ^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: scan body function carry input and carry output must have equal types, but they \
differ:

The input carry c has type float32[2] but the corresponding output carry component has type \
float32[2]{V:i}, so the manual axis types do not match.

This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')`, to the initial \
carry value corresponding to the input carry c.
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types.
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


@pytest.mark.parametrize(
    ("text", "call"),
    [
        # fresh9 differt_280: JAX 0.6's words ("varying manual axes"), pytest's "E" prefix.
        ("fresh9_c_differt_280_jax06_scan_carry_vma_mismatch_shard_map", "jax.lax.pvary"),
        (_JAX_0_10_VARYING_CARRY, "jax.lax.pcast"),
    ],
)
def test_a_carry_that_differs_only_in_its_varying_axes_is_sharding(text, call):
    failure = _read(text)
    assert (str(failure.family), failure.finding.op) == ("sharding", "scan")
    assert failure.advice_kind == "reshard"
    assert call in failure.finding.suggestion
    assert [kind for kind, _ in failure.more_advice] == ["disable_check"]


# ---- a sharding of another rank than the value it is applied to ----------------------------


@pytest.mark.parametrize(
    ("text", "api", "ranks"),
    [
        # fresh9 equinox_815: a PositionalSharding of rank 2 on rank-3 data (eqx.filter_shard).
        (
            "fresh9_a_equinox_815_positional_sharding_rank2_applied_to_rank3",
            "with_sharding_constraint",
            ("2", "3"),
        ),
        # JAX 0.10.2's own words, made in a child process: jit(..., out_shardings=) of P('x',
        # 'y', None) on a 4 x 4 array ("of rank at least 3").
        (
            "ValueError: One of pjit outputs with pytree key path result is incompatible with "
            "its sharding annotation NamedSharding(mesh=Mesh('x': 2, 'y': 2, axis_types=("
            "Explicit, Explicit)), spec=P('x', 'y', None), memory_kind=device): Sharding "
            "NamedSharding(mesh=Mesh('x': 2, 'y': 2, axis_types=(Explicit, Explicit)), spec=P("
            "'x', 'y', None), memory_kind=device) is only valid for values of rank at least 3, "
            "but was applied to a value of rank 2.\n",
            "pjit",
            ("3", "2"),
        ),
    ],
)
def test_a_sharding_of_another_rank_than_its_value(text, api, ranks):
    failure = _read(text)
    # No op is named (JAX says "pjit" for every jit): the op is the class, the API is said.
    assert (str(failure.family), failure.finding.op) == ("sharding", "ValueError")
    spec, value = ranks
    said = f"given to {api} is for arrays of {spec} dimensions and the value has {value}"
    assert said in failure.finding.suggestion


# ---- a dot algorithm the device has no kernel for: its name says the element types ---------


@pytest.mark.parametrize(
    ("text", "dtype", "platform"),
    [
        # fresh9 keras_21112: XLA:GPU on a T4 (no bf16 dots before Ampere), Keras 3 on JAX.
        ("fresh9_c_keras_21112_dot_product_attention_t4_bf16_unsupported_algorithm", "bf16", None),
    ],
)
def test_a_dot_algorithm_the_device_lacks_is_its_element_types(text, dtype, platform):
    failure = _read(text)
    assert (str(failure.family), failure.advice_kind) == ("xla_status", "cast_dtype")
    assert failure.finding.dtype == dtype
    assert (str(failure.platform) if failure.platform else None) == platform


@pytest.mark.parametrize(
    ("text", "dtype"),
    [
        # JAX 0.10.2's own words, made in a child process: lax.dot of float16 arrays with
        # precision=DotAlgorithmPreset.F16_F16_F32 on the CPU.
        (
            "jax._src.source_info_util.JaxStackTraceBeforeTransformation: ValueError: The "
            "precision 'F16_F16_F32' is not supported by dot_general on CPU\n",
            "f16",
        ),
        # made29: a GPU script's TF32 and an fp8 recipe run on the CPU (their maker wrote
        # missing_lowering and "other": leave the precision at its default).
        ("made_errors_blind29/lowering_tf32_dot_algorithm_from_gpu_script_on_cpu", "tf32"),
        ("made_errors_blind29/lowering_fp8_dot_algorithm_recipe_on_cpu", "f8"),
    ],
)
def test_a_dot_precision_jaxs_lowering_lacks_for_the_platform(text, dtype):
    # JAX's lowering of dot_general refused the precision for the CPU (since made29's
    # reading; an XLA status with a cast before): the precision first, a cast of data kept
    # in that type second.
    if text.startswith("made_errors"):
        text = (Path(__file__).parent / "data" / f"{text}.log").read_text()
    (failure,) = [f for f in explain_error(text).failures if f.family != Family.BACKEND_STARTUP]
    assert (str(failure.family), failure.finding.op) == ("missing_lowering", "dot_general")
    assert failure.advice_kind == "other"
    assert [kind for kind, _ in failure.more_advice] == ["cast_dtype"]
    assert (failure.finding.dtype, str(failure.platform)) == (dtype, "cpu")


# ---- the TPU runtime's older words for a core that halted ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # fresh9 jax_19118: the runtime's log line on a v4-128 pod (core TC0 named before it).
        "fresh9_a_jax_19118_tpu_pod_halt_unexpected_eval_step",
        # A TPU inference project's notes (2026), the same words as a status, no core named.
        "With TPU debug logs:\n"
        "  - `INTERNAL: *** Halt is unexpected, all pending programs will fail.`\n"
        "  - `Slice health check failed ... Worker connection ... failed.`\n",
    ],
)
def test_halt_is_unexpected_is_a_tpu_core_halt(text):
    failure = _read(text)
    assert (str(failure.family), str(failure.platform)) == ("xla_crash", "tpu")
    assert (failure.finding.op, failure.advice_kind) == ("TPU core halt", "report_bug")


# ---- TF2's message cut after its graph's name: the op from the node Keras named ------------

# TF 2.21's own words, made in a child process (Keras 3 on TensorFlow, model.fit with
# jit_compile=True of a layer calling tf.strings.as_string), cut after the graph's name as a
# paste or a notebook's output may cut it.
_TF_2_21_CUT = """\
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node sequential_1/l_1/AsString defined at (most recent call last):
<stack traces unavailable>
Detected at node sequential_1/l_1/AsString defined at (most recent call last):
<stack traces unavailable>
Detected unsupported operations when trying to compile graph __inference_one_step_on_data_237
"""


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # fresh9 kerashub_2454: Gemma 3n's vision encoder fine-tuned with model.fit.
        (
            "fresh9_c_kerashub_2454_gemma3n_mobilenetv5_resize_nn_grad_tf2xla",
            "ResizeNearestNeighborGrad",
        ),
        (_TF_2_21_CUT, "AsString"),
    ],
)
def test_a_cut_tf2xla_message_takes_its_op_from_the_node_keras_named(text, op):
    failure = _read(text)
    assert (str(failure.family), failure.finding.op) == ("tf2xla", op)
    assert failure.finding.node.endswith(f"/{op}")
    assert failure.advice_kind == "replace_op"


def test_a_cut_message_with_no_node_named_says_nothing():
    # Nothing names the op: no failure is made up from the opening alone.
    explanation = explain_error(
        "InvalidArgumentError: Detected unsupported operations when trying to compile graph __\n"
    )
    assert all(str(f.family) != "tf2xla" for f in explanation.failures)


# ---- Mosaic's compile refusal in jaxlib's older words --------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # fresh9 maxtext_264: "Failed to compile a Mosaic module: 'tpu.matmul' op Unsupported
        # input data type" (bf16 matmuls in MaxText's flash attention on a v3).
        ("fresh9_a_maxtext_264_v3_bf16_train_failed_to_compile_mosaic_module", "cast_dtype"),
        # jax#30104 (2025): the current words, a bf16 comparison on a v5p.
        (
            "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not "
            'support this comparison\n\nThe MLIR operation involved:\n  %13060 = "arith.cmpf"('
            "%11789, %283) <{fastmath = #arith.fastmath<none>, predicate = 1 : i64}> : (vector<"
            "8x128x2xbf16>, vector<8x128x2xbf16>) -> vector<8x128x2xi1>\n... additional "
            "diagnostics were skipped.\n",
            "cast_dtype",
        ),
    ],
)
def test_mosaics_refusal_in_either_wording_is_pallas(text, kind):
    failure = _read(text)
    assert (str(failure.family), str(failure.platform)) == ("pallas", "tpu")
    assert failure.advice_kind == kind


@pytest.mark.parametrize(
    "text",
    [
        # fresh9 maxtext_791: MaxText's flash attention on a v3; the reporter's fix was
        # attention='dot_product' (the plain-XLA attention).
        "fresh9_a_maxtext_791_tpuv3_flash_attention_unsupported_matmul_dtype",
        # jax#30104: qwix's kernel comparing bf16 vectors on a v5p (a library's kernel too).
        "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not "
        'support this comparison\n\nThe MLIR operation involved:\n  %13060 = "arith.cmpf"('
        "%11789, %283) : (vector<8x128x2xbf16>, vector<8x128x2xbf16>) -> vector<8x128x2xi1>\n",
    ],
)
def test_a_mosaic_element_type_refusal_offers_the_plain_xla_kernel_second(text):
    failure = _read(text)
    assert failure.advice_kind == "cast_dtype"
    assert [kind for kind, _ in failure.more_advice] == ["replace_op"]


# ---- an error's line comparing types that differ only in the axes they vary along ----------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # fresh3 jax_28193: JAX 0.6.0's vjp inside shard_map ("{x}", its first notation).
        ("fresh3_a_jax_28193_shard_map_vjp_type", "float32[]{x}"),
        # JAX 0.10.2's own words, made in a child process: jax.vjp of jnp.sum inside shard_map
        # over a 2-device mesh, its cotangent given as a plain float32 scalar.
        (
            "ValueError: unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
            "got float32[], but expected float32[]{V:x} because the corresponding output of the "
            "differentiated function had JAX type float32[]{V:x}\n",
            "float32[]{V:x}",
        ),
    ],
)
def test_types_that_differ_only_in_their_varying_axes_are_sharding(text, want):
    failure = spent(text) if text.startswith("fresh") else first(text)
    assert (str(failure.family), failure.advice_kind) == ("sharding", "reshard")
    assert f"where {want} is expected" in failure.finding.suggestion


def test_types_that_differ_in_shape_are_not_read_as_varying_axes():
    explanation = explain_error(
        "TypeError: unexpected JAX type: got float32[3], but expected float32[4]{V:x}\n"
    )
    assert all(str(f.family) != "sharding" for f in explanation.failures)


# JAX 0.10.2's own words, made in a child process: shard_map over a (2, 2) mesh, a cond whose
# true branch returns the ('i', 'j')-sharded input and whose false branch returns jnp.zeros.
_JAX_0_10_VARYING_COND = """\
TypeError: cond branches must have equal output types but they differ.
true_fun is <lambda> at /tmp/vma2.py:13
false_fun is <lambda> at /tmp/vma2.py:13
The output of true_fun has type float32[2,2]{V:(i,j)} but the corresponding output of \
false_fun has type float32[2,2], so the manual axis types do not match.
This might be fixed by applying `jax.lax.pcast(..., (), to='varying')` to the output of \
true_fun.
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.
Revise true_fun and/or false_fun so that all output types match.
--------------------
"""


def test_cond_branches_that_differ_only_in_their_varying_axes_are_sharding():
    failure = first(_JAX_0_10_VARYING_COND)
    assert (str(failure.family), failure.finding.op) == ("sharding", "cond")
    assert "jax.lax.pcast" in failure.finding.suggestion


# ---- what each rule leaves to the reading it had before ------------------------------------


@pytest.mark.parametrize(
    ("text", "family", "op"),
    [
        # XLA's autotuner checking a status of its own (jax#33679's wording): a bug of XLA's.
        (
            "2025-12-03 08:05:18.241212: F external/xla/xla/service/gpu/autotuning/"
            "gemm_fusion_autotuner.cc:1136] Non-OK-status: executable.status()\n"
            "Status: INTERNAL: ptxas exited with non-zero error code 139, output: \n"
            "*** Check failure stack trace: ***\n",
            "xla_crash",
            "Check failed",
        ),
        # JAX 0.10.2: lax.scan(lambda c, x: (c + x, None), jnp.int32(0), jnp.ones(3)), no mesh.
        (
            "TypeError: scan body function carry input and carry output must have equal types, "
            "but they differ:\n\nThe input carry c has type int32[] but the corresponding output "
            "carry component has type float32[], so the dtypes do not match.\n\nRevise the "
            "function so that all output types match the corresponding input types.\n"
            "--------------------\n",
            "jax_shape",
            "scan",
        ),
        # JAX 0.10.2: lax.cond(True, lambda: jnp.float32(1), lambda: jnp.int32(1)), no mesh.
        (
            "TypeError: cond branches must have equal output types but they differ.\n\n"
            "true_fun is <lambda> at /tmp/cond.py:2\nfalse_fun is <lambda> at /tmp/cond.py:2\n\n"
            "The output of true_fun has type float32[] but the corresponding output of false_fun "
            "has type int32[], so the dtypes do not match.\n\nRevise true_fun and/or false_fun so "
            "that all output types match.\n--------------------\n",
            "jax_shape",
            "cond",
        ),
    ],
)
def test_what_each_rule_leaves_to_the_reading_it_had(text, family, op):
    failure = first(text)
    assert (str(failure.family), failure.finding.op) == (family, op)
