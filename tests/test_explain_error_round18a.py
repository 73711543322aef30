"""Round 18a of explain-error: the recognisers, read on the thirteenth blind part's misses and the
blind made batch's (JAX 0.10.2), each fix on two wordings: a corpus log and a second real text
(another thread's, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import first, log

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Family

# ---- the HLO verifier refusing a module under INVALID_ARGUMENT or FAILED_PRECONDITION ----------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        # Enzyme-JAX's pass made a compare of s64 with an UNSIGNED type: FAILED_PRECONDITION.
        ("fresh13_a_enzymejax_477", "compare"),
        # SPMD partitioning mixed s64 and s32 in a compare: INVALID_ARGUMENT.
        ("fresh13_a_jax_19691", "compare"),
        # A sharded complex128 FFT's twiddle factors made at c64 (openxla/xla#44541).
        ("r18a_xla_44541", "multiply"),
    ],
)
def test_the_verifier_refusing_under_a_refusal_code_is_a_status_naming_the_instruction(name, op):
    failure = first(log(name))
    assert failure.family is Family.XLA_STATUS
    assert failure.finding.op == op


@pytest.mark.parametrize("name", ["fresh3_a_jax_39301", "fresh4_a_jax_29088"])
def test_the_verifier_refusing_under_internal_stays_a_crash(name):
    assert first(log(name)).family is Family.XLA_CRASH


# ---- jnp.einsum's operands whose sizes of one label differ (opt_einsum's words) -----------------

# JAX 0.10.2 on CPU: jnp.einsum("ij,jk->ik", jnp.ones((3, 4)), jnp.ones((5, 2))), its stderr.
EINSUM_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18a/einsum_matmul_inner.py", line 5, in <module>
    print(jnp.einsum("ij,jk->ik", a, b))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/numpy/einsum.py", line 309, in einsum
    operands, contractions = contract_path(
                             ^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/opt_einsum/contract.py", line 324, in contract_path
    raise ValueError(
ValueError: Size of label 'j' for operand 1 (4) does not match previous terms (5).
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (log("shape_einsum_head_dim"), "shape_einsum_head_dim.py:6"),  # q and k's head dims
        (EINSUM_0_10_2, "einsum_matmul_inner.py:5"),
    ],
)
def test_an_einsum_label_of_two_sizes_is_a_shape_failure_of_einsum(text, line):
    failure = first(text)
    assert failure.family is Family.JAX_SHAPE and failure.finding.op == "einsum"
    assert failure.advice_kind == "fix_shapes"
    assert failure.finding.source is not None and failure.finding.source.endswith(line)


# ---- a Pallas kernel storing a value of another dtype than its Ref's -----------------------------

# JAX 0.10.2 on CPU: a kernel writing `o_ref[...] = x_ref[...] * 2.0` (float32) into a bfloat16
# out_shape, interpret=True; its stderr's traceback.
PALLAS_STORE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18a/pallas_bf16_out.py", line 11, in <module>
    out = pl.pallas_call(
          ^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py", line 1326, in wrapped
    jaxpr, consts = _trace_kernel_to_jaxpr(
                    ^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py"\
, line 809, in _trace_kernel_to_jaxpr
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/pallas/primitives.py"\
, line 652, in wrap_with_transforms
    return f(*new_args)
           ^^^^^^^^^^^^
  File "/tmp/r18a/pallas_bf16_out.py", line 7, in scale_kernel
    o_ref[...] = x_ref[...] * 2.0
    ~~~~~^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/numpy/array_methods.py", line 1532, in op
    return getattr(self.aval, f"_{name}")(self, *args)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: Invalid dtype for `swap`. Ref dtype: bfloat16. Value dtype: float32.\x20
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (log("pallas_store_wrong_dtype"), "pallas_store_wrong_dtype.py:7"),  # int8 into float32
        (PALLAS_STORE_0_10_2, "pallas_bf16_out.py:7"),  # float32 into bfloat16
    ],
)
def test_a_kernel_storing_another_dtype_than_its_ref_is_a_pallas_dtype_failure(text, line):
    failure = first(text)
    assert failure.family is Family.PALLAS and failure.finding.op == "swap"
    assert failure.advice_kind == "cast_dtype"
    assert failure.finding.source is not None and failure.finding.source.endswith(line)


def test_a_ref_store_outside_a_kernel_is_not_read_as_pallas():
    # The same words from a jax.new_ref outside any pallas_call: no Pallas frame shows.
    text = "ValueError: Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int8. \n"
    assert all(f.family is not Family.PALLAS for f in explain_error(text).failures)


# ---- jax.tree.map given trees of different structures: how it was called ------------------------

# JAX 0.10.2 on CPU: jax.tree_util.tree_map over a list of three arrays and a list of two.
TREE_MAP_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18a/tree_map_lists.py", line 6, in <module>
    print(jax.tree_util.tree_map(lambda w, m: w - m, weights, moments))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/jax/_src/tree_util.py", line 398, in tree_map
    raise (err('tree_map tree') if err is not None else e) from None
ValueError: pytree structure error: different lengths of list at key path
    tree_map tree
At that key path, the prefix pytree tree_map tree has a subtree of type list of length 3\
, but the full pytree has a subtree of the same type but of length 2.
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (log("call_tree_map_mismatch"), "call_tree_map_mismatch.py:16"),  # a dict of 2 keys vs 1
        (TREE_MAP_0_10_2, "tree_map_lists.py:6"),  # lists of length 3 and 2
    ],
)
def test_tree_map_over_trees_of_two_structures_is_a_call_failure(text, line):
    failure = first(text)
    assert failure.family is Family.JAX_CALL and failure.finding.op == "tree_map"
    assert failure.advice_kind == "other"
    assert failure.finding.source is not None and failure.finding.source.endswith(line)


def test_a_transformation_s_pytrees_stay_a_shape_failure():
    text = (
        "TypeError: scan body function carry input and carry output must have the same pytree "
        "structure, but they differ:\n"
    )
    assert first(text).family is Family.JAX_SHAPE


# ---- a JAX library refusing how it was called: Flax's errors, optax's update without params -----

# Flax 0.12.8 on JAX 0.10.2, CPU: model.apply(variables["params"], x) (the params not wrapped in
# {"params": ...}); its stderr's traceback.
FLAX_APPLY_0_12_8 = """\
Traceback (most recent call last):
  File "/tmp/r18a/flax_apply_params.py", line 15, in <module>
    print(model.apply(variables["params"], x))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18a/flax_apply_params.py", line 9, in __call__
    return nn.Dense(4)(x)
           ^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/flax/linen/linear.py", line 263, in __call__
    kernel = self.param(
             ^^^^^^^^^^^
flax.errors.ScopeCollectionNotFound: Tried to access "kernel" from collection "params" in\
 "/Dense_0" but the collection is empty.\
 (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.ScopeCollection\
NotFound)
"""


@pytest.mark.parametrize(
    ("text", "op", "line"),
    [
        # BatchNorm in training mode, applied without mutable=["batch_stats"].
        (
            log("call_flax_batch_stats_immutable"),
            "ModifyScopeVariableError",
            "call_flax_batch_stats_immutable.py:10",
        ),
        (FLAX_APPLY_0_12_8, "ScopeCollectionNotFound", "flax_apply_params.py:9"),
    ],
)
def test_a_flax_error_is_a_call_failure_naming_its_class(text, op, line):
    failure = first(text)
    assert failure.family is Family.JAX_CALL and failure.finding.op == op
    assert failure.advice_kind == "other"
    assert failure.finding.source is not None and failure.finding.source.endswith(line)


def test_a_flax_error_another_family_reads_keeps_that_family():
    # Flax NNX's leaked-tracer guard (flax.errors.TraceContextError): a tracing failure.
    assert first(log("fresh2_a_flax_5050")).family is Family.JAX_TRACING


@pytest.mark.parametrize(
    "name",
    [
        "call_optax_adamw_no_params",  # optax 0.2.8's words, with backticks
        "r18a_brax_647",  # the same through Markdown, without them
    ],
)
def test_an_optax_update_without_the_params_it_needs_is_a_call_failure(name):
    failure = first(log(name))
    assert failure.family is Family.JAX_CALL and failure.advice_kind == "other"
    assert "opt.update(grads, opt_state, params)" in failure.finding.suggestion


# ---- the shell's "Segmentation fault" in a session that shows JAX on a device ------------------


@pytest.mark.parametrize(
    "name",
    [
        "fresh13_a_jax_28692",  # jax 0.6: the devices printed (CudaDevice(id=0)), then the fault
        "r18a_jax_3115",  # jax 0.1.63 at a prompt: `from jax import random`, a DeviceArray
    ],
)
def test_a_segfault_after_jax_ran_on_a_device_is_a_crash(name):
    failure = first(log(name))
    assert failure.family is Family.XLA_CRASH and failure.finding.op == "SIGSEGV"


def test_a_segfault_with_no_sign_of_jax_is_not_read():
    text = ">>> import numpy as np\n>>> np.ones(3)\nSegmentation fault (core dumped)\n"
    assert not explain_error(text).failures


# ---- with_sharding_constraint acting as an assert under explicit mesh axes ---------------------

# JAX 0.10.2 on CPU (two host devices): an array sharded P('x', None) constrained to
# P(None, 'x') in a jit under jax.set_mesh of an Explicit mesh; its stderr's traceback.
WSC_ASSERT_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18a/wsc_explicit.py", line 13, in <module>
    print(f(a))
          ^^^^
  File "/tmp/r18a/wsc_explicit.py", line 11, in f
    return jax.lax.with_sharding_constraint(a * 2, P(None, "x"))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError: `with_sharding_constraint` acts as an assert when all axes of mesh are of type\
 `Explicit`. The array sharding: P('x', None) did not match the sharding provided: P(None, 'x').\
 Please use `jax.sharding.reshard` to shard your input to the sharding you want.
"""


@pytest.mark.parametrize(
    "text",
    [
        log("fresh13_a_maxtext_pr4208"),  # "of type Explicit." without backticks, wrapped
        WSC_ASSERT_0_10_2,  # "of type `Explicit`", one line, jax.sharding.reshard named
    ],
)
def test_a_constraint_that_only_asserts_is_a_sharding_failure_with_both_fixes(text):
    failure = first(text)
    assert failure.family is Family.SHARDING and failure.finding.op == "with_sharding_constraint"
    kinds = [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]
    assert kinds[:2] == ["reshard", "other"]


# ---- XLA:GPU's RET_CHECK that the DNN library came up: a start-up failure ---------------------


@pytest.mark.parametrize(
    "name",
    [
        "fresh13_b_quantecon_lectures_315",  # the check alone, raised as XlaRuntimeError
        "r18a_jax_14801",  # after "Could not create cudnn handle", logged with its stack
    ],
)
def test_the_compiler_s_check_for_a_dnn_library_is_a_start_up_failure(name):
    failures = explain_error(log(name)).failures
    assert failures and all(f.family is Family.BACKEND_STARTUP for f in failures)
    assert failures[0].finding.op == "cuDNN" and failures[0].platform is not None
    kinds = [failures[0].advice_kind, *(kind for kind, _ in failures[0].more_advice)]
    assert "install" in kinds[:2]


# ---- PyTorch/XLA's profiler naming the aten ops it ran on the CPU ------------------------------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        ("fresh13_c_pytorch_xla_6017", "aten::_linalg_eigh"),  # one op, torch.linalg.eigh
        ("r18a_ptxla_6932", "aten::upsample_nearest3d"),  # two ops, the forward and backward
    ],
)
def test_an_op_the_profiler_says_was_not_lowered_is_a_harmless_missing_lowering(name, op):
    failure = first(log(name))
    assert failure.family is Family.MISSING_LOWERING and failure.finding.op == op
    assert failure.advice_kind == "harmless"
    assert [kind for kind, _ in failure.more_advice] == ["replace_op"]


# ---- a symbolic dimension of jax.export where code needs an int ---------------------------------

# JAX 0.10.2 on CPU: jax.export of a function calling len(range(x.shape[0])) on a shape ("n",).
EXPORT_DIM_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18a/export_range.py", line 12, in <module>
    export.export(jax.jit(f))(jax.ShapeDtypeStruct((n,), jnp.float32))
  File "/usr/lib/python3.11/site-packages/jax/_src/export/_export.py", line 651, in do_export
    traced = fun_jit.trace(*args_specs, **kwargs_specs)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18a/export_range.py", line 8, in f
    return x * np.arange(len(range(x.shape[0])))
                             ^^^^^^^^^^^^^^^^^
TypeError: '_DimExpr' object cannot be interpreted as an integer
"""


@pytest.mark.parametrize(
    ("text", "op"),
    [
        (log("fresh13_c_jax_22489"), "searchsorted"),  # jnp.digitize's searchsorted: len(bins)
        (EXPORT_DIM_0_10_2, "symbolic dimension"),  # the program's own len()
    ],
)
def test_a_symbolic_dimension_where_an_int_is_needed_is_an_export_failure(text, op):
    failure = first(text)
    assert failure.family is Family.JAX_EXPORT and failure.finding.op == op
    assert "jnp.arange(x.shape[0])" in failure.finding.suggestion


# ---- Equinox's assert_max_traces: a function traced more often than allowed ------------------

# Equinox 0.13.8 on JAX 0.10.2, CPU: a jitted step under assert_max_traces(max_traces=1) called
# with float32[3] and then float32[4]; its stderr's traceback.
MAX_TRACES_0_13_8 = """\
Traceback (most recent call last):
  File "/tmp/r18a/eqx_traces.py", line 13, in <module>
    step(jnp.ones(4))
  File "/usr/lib/python3.11/site-packages/equinox/debug/_max_traces.py", line 66, in __call__
    raise RuntimeError(
RuntimeError: <function step at 0x7f8c8d745bc0> can only be traced 1 times. However, it is has\
 now been traced 2 times. It appears that the 'x' argument is responsible: it currently has the\
 value:
f32[4]
Previous values are:
f32[3]
"""


@pytest.mark.parametrize(
    ("text", "op", "kinds"),
    [
        # weak_type against float32: Equinox could not name the argument.
        (log("fresh13_b_equinox_817"), "f", ["see_recompiles", "install"]),
        (MAX_TRACES_0_13_8, "step", ["see_recompiles"]),  # the 'x' argument named
    ],
)
def test_equinox_s_trace_guard_is_a_recompile_of_the_function_it_names(text, op, kinds):
    failure = first(text)
    assert failure.family is Family.RECOMPILE and failure.finding.op == op
    assert [failure.advice_kind, *(kind for kind, _ in failure.more_advice)] == kinds


# ---- an op's XLA kernel refusing bounded dynamic dimensions (TensorFlow) -----------------------

# TensorFlow 2.21.0 on CPU: tf.squeeze(tf.where(tf.not_equal(x, 6))) in a
# tf.function(jit_compile=True), x of three elements; its stderr's traceback.
TF_BOUNDED_2_21 = """\
Traceback (most recent call last):
  File "/tmp/r18a/tf_squeeze.py", line 9, in <module>
    print(f(tf.constant([1, 6, 3])))
          ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167,\
 in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/usr/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in\
 quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
tensorflow.python.framework.errors_impl.InvalidArgumentError: Squeeze op does not support bounded\
 dynamic dimensions. Input shape: s64[<=3,1]

Stack trace for op definition:\x20
File "tmp/r18a/tf_squeeze.py", line 9, in <module>
File "tmp/r18a/tf_squeeze.py", line 6, in f

\t [[{{node Squeeze}}]]
\ttf2xla conversion failed while converting\
 __inference_f_9[_XlaMustCompile=true,config_proto=13561319589895757934,executor_type=111603181540\
34397263]. Run with TF_DUMP_GRAPH_PREFIX=/path/to/dump/dir and --vmodule=xla_compiler=2 to obtain\
 a dump of the compiled functions. [Op:__inference_f_9]
"""


@pytest.mark.parametrize(
    "text",
    [
        log("fresh13_c_tensorflow_122885"),  # the message alone, s64[<=2,1]
        TF_BOUNDED_2_21,  # InvalidArgumentError with its node and tf2xla's words, s64[<=3,1]
    ],
)
def test_an_op_refusing_bounded_dynamic_dimensions_is_a_known_tf_limit(text):
    failure = first(text)
    assert failure.family is Family.TF_KNOWN_ISSUE and failure.finding.op == "Squeeze"
    kinds = [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]
    assert kinds[:2] == ["other", "install"]


# ---- a library's call refusing a JAX tracer (Awkward Array's words) ------------------------------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        ("fresh13_c_awkward_2556", "multiply"),  # jax.grad of ak.sum(ak.sum(x) * x)
        ("r18a_awkward_2637", "add"),  # a jet's pt plus 25 * a traced scalar
    ],
)
def test_a_library_refusing_a_tracer_in_a_call_it_names_is_a_tracing_failure(name, op):
    failure = first(log(name))
    assert failure.family is Family.JAX_TRACING and failure.finding.op == op
    assert [failure.advice_kind, *(kind for kind, _ in failure.more_advice)] == [
        "install",
        "other",
    ]


# ---- PyTorch/XLA lowering a node of an element type it cannot convert ---------------------------


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("r18a_ptxla_2939", "f16"),  # xla::cast from Half: "Unsupported XLA type 10"
        ("r18a_ptxla_3293", "c64"),  # xla::cast from ComplexFloat: "... type 15"
    ],
)
def test_an_unsupported_xla_type_while_lowering_is_a_status_of_the_node(name, dtype):
    failure = first(log(name))
    assert failure.family is Family.XLA_STATUS and failure.finding.op == "xla::cast"
    assert failure.finding.dtype == dtype and failure.advice_kind == "cast_dtype"
