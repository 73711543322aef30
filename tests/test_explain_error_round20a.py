"""Round 20a of explain-error: the recognisers, read on the spent parts' misses and the
twentieth dev batch's, each fix on two wordings: a corpus log and a second real text (an older
thread's, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import first, log

from hloscope.analysis.explain_error.record import Family

# ---- a module of JAX's gone, pasted under the import statement that asked for it ------------


@pytest.mark.parametrize(
    ("text", "module"),
    [
        # airsenal#658: jax.linear_util, removed in JAX 0.4.24, the statement then its error.
        (log("fresh13_b_airsenal_658"), "jax.linear_util"),
        # JAX 0.10.2's own error for jax.experimental.maps (removed in 0.4.31), the last two
        # lines of its traceback as a user pastes them.
        (
            "    from jax.experimental.maps import Mesh\n"
            "ModuleNotFoundError: No module named 'jax.experimental.maps'\n",
            "jax.experimental.maps",
        ),
    ],
)
def test_a_jax_module_gone_under_its_import_statement_is_a_release_mismatch(
    text: str, module: str
) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert module in failure.finding.op
    assert failure.advice_kind == "install"


def test_a_jax_module_gone_pasted_alone_is_not_read() -> None:
    # No importer shown: nothing says which release asked for it.
    from hloscope.analysis.explain_error import explain_error

    text = "ModuleNotFoundError: No module named 'jax.experimental.maps'\n"
    assert not explain_error(text).failures


# ---- a custom_partitioning sharding_rule giving one factor two sizes -------------------------

# JAX 0.10.2's own error, on 2 CPU devices, for a rule "... i, ... i -> ... i" over operands
# of leading sizes 4 and 2 (the traceback's last frames and line, verbatim).
_BATCH_SIZES = """\
Traceback (most recent call last):
  File "/tmp/cp.py", line 16, in <module>
    print(jax.jit(f)(x, y))
          ^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/custom_partitioning.py", line 648, in _custom_partitioning_lowering_rule
    out.attributes['sdy.sharding_rule'] = sdy_sharding_rule_to_mlir(
                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/custom_partitioning_sharding_rule.py", line 415, in add_factor
    raise ValueError(f"Batching dimension {factor[1:]} corresponds to "
ValueError: Batching dimension 0_0 corresponds to two sizes: 4 and 2
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        # jax#31678: jaxDecomp's Shardy rule on JAX 0.6.2, which refused any factor so.
        (log("fresh10_b_jax_31678"), "install"),
        (_BATCH_SIZES, "fix_shapes"),
    ],
)
def test_a_sharding_rule_factor_of_two_sizes_is_sharding(text: str, advice: str) -> None:
    failure = first(text)
    assert failure.family == Family.SHARDING
    assert failure.finding.op == "custom_partitioning"
    assert failure.advice_kind == advice


# ---- a pytree of dicts with keys that are not strings, which serialization cannot write ------


@pytest.mark.parametrize(
    "text",
    [
        # jax#32680 (JAX 0.8.0): the flatbuffers builder's TypeError under serialize().
        log("fresh5_a_jax_32680"),
        # JAX 0.10.2's own refusal for export(jit(f))({0: x, 1: y}).serialize().
        "TypeError: Serialization is supported only for dictionaries with string keys. "
        "Found key 0 of type <class 'int'>.\n",
    ],
)
def test_dict_keys_that_are_not_strings_are_an_export_refusal(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_EXPORT
    assert failure.finding.op == "serialize"
    assert "string keys" in failure.finding.suggestion


# ---- flax's FrozenDict method called on the plain dict newer flax returns --------------------

# flax 0.12.8 (JAX 0.10.2) running `nn.Dense(3).init(key, x)["params"].unfreeze()`, verbatim.
_UNFREEZE = """\
Traceback (most recent call last):
  File "/tmp/fl.py", line 5, in <module>
    params = variables["params"].unfreeze()
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AttributeError: 'dict' object has no attribute 'unfreeze'
"""


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # minimal-LRU#2: its train state written for flax before 0.7.1.
        (log("fresh9_b_minimallru_2"), "/minimal-LRU/lru/train_helpers.py:87"),
        (_UNFREEZE, "/tmp/fl.py:5"),
    ],
)
def test_unfreeze_on_a_plain_dict_is_a_flax_release_mismatch(text: str, line: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "unfreeze"
    assert failure.finding.source == line
    assert failure.advice_kind == "install"


# ---- a TPU kernel with no settings for the chip it runs on -----------------------------------


@pytest.mark.parametrize(
    ("text", "device"),
    [
        # marin#7085: tpu-inference's ragged paged attention v3 on a TPU v4.
        (log("fresh11_a_marin_7085"), "tpu"),
        # JAX 0.10.2's own, pltpu.get_tpu_info() asked on the CPU (its last line).
        ("ValueError: Unsupported TPU device kind: cpu\n", "cpu"),
    ],
)
def test_a_tpu_kernel_without_settings_for_the_chip_is_pallas(text: str, device: str) -> None:
    failure = first(text)
    assert failure.family == Family.PALLAS
    assert str(failure.platform) == device
    assert failure.advice_kind == "install"


# ---- jnp.broadcast_to a shape of fewer dimensions than the array's ---------------------------

# JAX 0.10.2's own error for jnp.broadcast_to(jnp.zeros((3, 4, 5)), (4, 5)), verbatim.
_FEWER = """\
Traceback (most recent call last):
  File "/tmp/bt.py", line 3, in <module>
    jnp.broadcast_to(jnp.zeros((3, 4, 5)), (4, 5))
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 3120, in broadcast_to
    return util._broadcast_to(array, shape, sharding=out_sharding)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/util.py", line 282, in _broadcast_to
    return lax.broadcast_to(arr, shape, sharding)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/lax/lax.py", line 2779, in broadcast_to
    raise ValueError(
ValueError: Cannot broadcast to shape with fewer dimensions: arr_shape=(3, 4, 5) shape=(4, 5)
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # jax#20533: older JAX's safe_zip failing inside jnp.broadcast_to, at a prompt.
        (log("dev20_c_jax_20533"), "<stdin>:1"),
        (_FEWER, "/tmp/bt.py:3"),
    ],
)
def test_broadcast_to_fewer_dimensions_is_a_shape_refusal(text: str, line: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == "broadcast_to"
    assert failure.finding.source == line


def test_a_safe_zip_of_a_librarys_own_lists_is_not_a_shape_refusal() -> None:
    from hloscope.analysis.explain_error import explain_error

    text = (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 12, in <module>\n'
        "    for a, b in safe_zip(names, values):\n"
        "ValueError: safe_zip() argument 2 is shorter than argument 1\n"
    )
    assert all(f.family != Family.JAX_SHAPE for f in explain_error(text).failures)


# ---- TF's XlaCallModule op that cannot read back the module a jax2tf model carries -----------

# TensorFlow 2.21's own error for an XlaCallModule (jit_compile=True, on the CPU) whose module
# bytes are no StableHLO it reads (the traceback and message, verbatim).
_CANNOT_DESERIALIZE = """\
Traceback (most recent call last):
  File "/tmp/r20a/xcm.py", line 14, in <module>
    print(f(tf.ones([3])))
          ^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot deserialize computation: UNKNOWN: -:1:1: error: custom op 'not' is unknown (tried 'builtin.not' as well)
<unknown>:0: error: failed to deserialize portable artifact using StableHLO_v1.13.7

\t [[{{node XlaCallModule}}]]
\ttf2xla conversion failed while converting __inference_f_8[_XlaMustCompile=true,config_proto=13561319589895757934,executor_type=11160318154034397263]. Run with TF_DUMP_GRAPH_PREFIX=/path/to/dump/dir and --vmodule=xla_compiler=2 to obtain a dump of the compiled functions. [Op:__inference_f_8]
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [
        # perch-hoplite#133: a jax2tf SavedModel's XlaCallModule under nvidia-tensorflow 2.17.
        log("dev20_c_perch-hoplite_133"),
        _CANNOT_DESERIALIZE,
    ],
)
def test_xla_call_module_that_cannot_deserialize_is_an_export_failure(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_EXPORT
    assert failure.finding.op == "XlaCallModule"
    assert failure.advice_kind == "install"


# ---- PyTorch/XLA's debugging tool saying the program makes it compile again ------------------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        # pytorch/xla#6614: k-diffusion reading a tensor mid-step, in the tool's analysis.
        ("dev20_e_ptxla_6614", "_apply_rotary_emb_inplace"),
        # PyTorch/XLA's troubleshooting guide's example of the tool's metrics summary.
        ("r20a_ptxla_troubleshoot_profiler", "CompileTime"),
    ],
)
def test_torch_xlas_debug_tool_on_compiles_the_program_caused_is_a_recompile(
    name: str, op: str
) -> None:
    failure = first(log(name))
    assert failure.family == Family.RECOMPILE
    assert failure.finding.op == op
    assert failure.advice_kind == "see_recompiles"


def test_the_tools_expected_compiles_are_no_recompile() -> None:
    from hloscope.analysis.explain_error import explain_error

    # The guide's own example of a compile every program has (the parallel loader's step
    # end), and a compile per step at most.
    text = (
        "Compilation Analysis: ========================================================\n"
        "Compilation Analysis: Compilation Cause\n"
        "Compilation Analysis:   `torch_xla.sync()` in parallel loader at step end\n"
        "Compilation Analysis: Python Frame Triggered Execution:\n"
        "Compilation Analysis:   sync (/workspaces/dk3/pytorch/xla/torch_xla/core/"
        "xla_model.py:1055)\n"
        "pt-xla-profiler: CompileTime too frequent: 11 counts during 11 steps\n"
    )
    assert all(f.family != Family.RECOMPILE for f in explain_error(text).failures)


# ---- pl.program_id asked where no kernel grid is (a pallas_call differentiated) --------------

# JAX 0.10.2's own error for jax.jvp of an interpret-mode pallas_call whose kernel reads
# pl.program_id(0) (the traceback after "The above exception ...", verbatim).
_NO_GRID = """\
Traceback (most recent call last):
  File "/tmp/r20a/pid.py", line 14, in <module>
    print(jax.jvp(f, (jnp.ones((8, 128)),), (jnp.ones((8, 128)),)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r20a/pid.py", line 11, in f
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,), interpret=True)(x)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py", line 278, in _pallas_call_jvp_rule
    jvp_jaxpr_, _ = ad.jvp_jaxpr(closed_jaxpr, nonzero_tangents_with_outputs, [])
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/primitives.py", line 81, in program_id_bind_with_trace
    frame = pallas_core.axis_frame()
            ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/core.py", line 361, in axis_frame
    assert env.grid_context is not None
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [
        # marin#3043: Levanter's Pallas GPU cross-entropy under jax.vjp, the assert condensed.
        log("dev20_d_marin_3043"),
        _NO_GRID,
    ],
)
def test_program_id_without_a_grid_is_pallas_under_a_derivative(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.PALLAS
    assert failure.finding.op == "program_id"
    assert failure.advice_kind == "other"
    assert failure.platform is None  # Pallas's Python: the log names no device


# ---- a Pallas kernel's module refused by its kernel language's MLIR verifier -----------------

# JAX 0.10.2's own error lowering (for the TPU, on a CPU host) a Pallas kernel that takes
# jnp.isfinite of a bfloat16 block: the first traceback, as a paste may keep it alone.
_WEIRD = """\
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/mosaic/lowering.py", line 1610, in _lower_jaxpr_to_func_common
    func_op.verify()
jaxlib.mlir._mlir_libs._mlir.ir.MLIRError: Verification failed:
error: "is_finite:"("is_finite/is_finite"(callsite("kernel"("/tmp/r20a/weird.py":8:27 to :42) at "kernel"("/tmp/r20a/weird.py":8:27 to :42)))): 'tpu.weird' op Input type must be F32
 note: "is_finite:"("is_finite/is_finite"(callsite("kernel"("/tmp/r20a/weird.py":8:27 to :42) at "kernel"("/tmp/r20a/weird.py":8:27 to :42)))): see current operation: %3 = "tpu.weird"(%2) : (vector<16x128xbf16>) -> vector<16x128xi1>

"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # jax PR 34674: Mosaic's logistic lowering broadcasting an f32 constant to bf16.
        (log("dev20_a_jax_pr34674"), "logistic"),
        (_WEIRD, "is_finite"),
    ],
)
def test_a_kernels_module_the_verifier_refuses_is_pallas(text: str, op: str) -> None:
    from hloscope.analysis.explain_error import explain_error

    failures = explain_error(text).failures
    assert all(f.family == Family.PALLAS for f in failures)
    verified = next(f for f in failures if f.finding.op == op)
    assert str(verified.platform) == "tpu"
    assert verified.advice_kind == "install"


# ---- Equinox's filter spec passed through jax.jit, its booleans traced -----------------------

# Equinox 0.13.8 under JAX 0.10.2: eqx.partition(params, mask) inside jax.jit with the mask an
# ordinary argument (verbatim).
_FILTER_SPEC = """\
Traceback (most recent call last):
  File "/tmp/r20a/eqx1.py", line 15, in <module>
    step(params, mask)
  File "/tmp/r20a/eqx1.py", line 11, in step
    trainable, frozen = eqx.partition(params, mask)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/equinox/_filters.py", line 177, in partition
    filter_tree = jtu.tree_map(_make_filter_tree(is_leaf), filter_spec, pytree)
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/equinox/_filters.py", line 95, in _filter_tree
    raise ValueError("`filter_spec` leaf values cannot be traced arrays.")
ValueError: `filter_spec` leaf values cannot be traced arrays.
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [
        # equinox#1036: its words before 0.11, the error line alone.
        log("fresh6_c_equinox_1036"),
        _FILTER_SPEC,
    ],
)
def test_a_traced_filter_spec_is_a_static_argument_to_keep(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_TRACING
    assert failure.advice_kind == "static_args"
    assert "filter_jit" in failure.finding.suggestion


# ---- Equinox's closure-converted function called with arguments unlike its example ones -------

# Equinox 0.13.8 under JAX 0.10.2: eqx.filter_closure_convert(f, ones(3), ones(3)) called with
# arrays of 4 (verbatim).
_CLOSURE = """\
Traceback (most recent call last):
  File "/tmp/r20a/cc.py", line 10, in <module>
    g(jnp.ones(4), jnp.ones(4))
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/equinox/_ad.py", line 588, in __call__
    _ = _check_closure_convert_input(self, args, kwargs)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/equinox/_ad.py", line 553, in _check_closure_convert_input
    raise ValueError(
ValueError: Closure-converted function called with different dynamic arguments to the example arguments provided:

Called with: ((f32[4], f32[4]), {})

Closure-converted with: ((f32[3], f32[3]), {})
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        # optimistix#86: nested root finds on an older Equinox, in pytest's output.
        (log("fresh6_c_optimistix_86"), ["install", "fix_shapes"]),
        (_CLOSURE, ["fix_shapes", "install"]),
    ],
)
def test_a_closure_converted_call_unlike_its_examples_is_a_call_error(
    text: str, advice: list[str]
) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "closure_convert"
    assert [failure.advice_kind, *(kind for kind, _ in failure.more_advice)][:2] == advice


# ---- a typed PRNG key (dtype key<fry>) used as numbers ---------------------------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own errors (their last lines): `key + 1`, and jnp.sin(key), which
        # promotes the key's dtype before any op sees it.
        ("TypeError: add does not accept dtypes key<fry>, int32.\n", "add"),
        ("TypeError: Cannot interpret 'key<fry>' as a data type\n", "PRNG key"),
    ],
)
def test_a_typed_key_used_as_numbers_is_a_key_misused(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == op
    assert failure.advice_kind == "prng_key"


def test_a_keys_repr_is_no_error() -> None:
    from hloscope.analysis.explain_error import explain_error

    assert not explain_error("Array((), dtype=key<fry>) overlaying:\n[0 0]\n").failures


# ---- differentiation APIs given inputs unlike what they differentiate ------------------------


@pytest.mark.parametrize(
    ("text", "op", "advice"),
    [
        # JAX 0.10.2's own words (the errors' last lines): jacfwd and jacrev of an int input.
        (
            "TypeError: jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            "np.floating), but got int32. For holomorphic differentiation, pass "
            "holomorphic=True.\n",
            "jacfwd",
            "cast_dtype",
        ),
        (
            "TypeError: jacrev requires real- or complex-valued inputs (input dtype that is a "
            "sub-dtype of np.inexact), but got int32. If you want to use Boolean- or "
            "integer-valued inputs, use vjp or set allow_int to True.\n",
            "jacrev",
            "cast_dtype",
        ),
        # A vjp function given a cotangent of another shape (one of the output's shape and
        # another dtype is the call's argument to cast: see below).
        (
            "ValueError: unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
            "got float32[4], but expected float32[3] because the corresponding output of the "
            "differentiated function had JAX type float32[3]\n",
            "vjp",
            "fix_shapes",
        ),
        # jax.jvp's tangents unlike its primals: shapes, dtypes, structure.
        (
            "ValueError: jvp called with different primal and tangent shapes;Got primal shape "
            "(3,) and tangent shape as (4,)\n",
            "jvp",
            "fix_shapes",
        ),
        (
            "TypeError: primal and tangent arguments to jax.jvp do not match; dtypes must be "
            "equal, or in case of int/bool primal dtype the tangent dtype must be float0.Got "
            "primal dtype float32 and so expected tangent dtype float32, but got tangent dtype "
            "int32 instead.\n",
            "jvp",
            "fix_shapes",
        ),
        (
            "TypeError: primal and tangent arguments to jax.jvp must have the same tree "
            "structure; primals have tree structure PyTreeDef((*,)) whereas tangents have tree "
            "structure PyTreeDef([*]).\n",
            "jvp",
            "fix_shapes",
        ),
    ],
)
def test_differentiation_given_unlike_inputs_is_a_shape_refusal(
    text: str, op: str, advice: str
) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == op
    assert failure.advice_kind == advice


def test_a_cotangent_of_the_outputs_shape_and_another_type_is_the_calls_to_cast() -> None:
    # (Before made28's reading this was a shape refusal whose fix was the shapes; its maker,
    # who never ran explain-error, wrote the call's argument to cast, as the numbers say.)
    failure = first(
        "ValueError: unexpected JAX type (e.g. shape/dtype) for argument to VJP function: "
        "got int32[3], but expected float32[3] because the corresponding output of the "
        "differentiated function had JAX type float32[3]\n"
    )
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "vjp"
    assert failure.advice_kind == "cast_dtype"


# ---- an executable compiled ahead of time, called with another pytree ------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # JAX 0.10.2's own words (the error's last lines): compiled for {'a': x}, called with
        # {'b': x}; compiled for a tuple, called with a list.
        (
            "TypeError: Function compiled with input pytree does not match the input pytree it "
            "was called with. There are 1 mismatches, including:\n"
            "    * at args[0], seen <class 'dict'> with pytree metadata ('a',) but now given "
            "<class 'dict'> with pytree metadata ('b',), so the pytree node metadata does not "
            "match\n",
            "pytree metadata ('b',)",
        ),
        (
            "TypeError: Function compiled with input pytree does not match the input pytree it "
            "was called with. There are 1 mismatches, including:\n"
            "    * at args[0], seen <class 'tuple'> but now given <class 'list'>, so their "
            "Python types differ\n",
            "now given <class 'list'>",
        ),
    ],
)
def test_a_compiled_call_with_another_pytree_is_a_call_error(text: str, said: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == "compiled"
    assert failure.advice_kind == "fix_shapes"
    assert said in failure.finding.suggestion


# ---- lax.switch given an index that is not one integer ---------------------------------------


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        # JAX 0.10.2's own words (the errors' last lines): a float index under jit, a string,
        # an array of indices.
        (
            "TypeError: Index type must be an integer, got JitTracer(float32[]) as float32\n",
            "cast_dtype",
        ),
        ("TypeError: Index type must be an integer, got 1.\n", "cast_dtype"),
        ("TypeError: Branch index must be scalar, got [0 1] of shape (2,).\n", "fix_shapes"),
    ],
)
def test_a_switch_index_that_is_not_one_integer_is_refused(text: str, advice: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == "switch"
    assert failure.advice_kind == advice


# ---- a configuration flag this JAX does not have (removed, or misspelt) ----------------------


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        # JAX 0.10.2's own words: jax.config.update of a flag removed in 0.4 (jax_array), and
        # the flag read off jax.config.
        ("AttributeError: Unrecognized config option: jax_array\n", "jax_array"),
        ("AttributeError: 'Config' object has no attribute 'jax_array'\n", "jax_array"),
        (
            "AttributeError: Unrecognized config option: jax_jit_pjit_api_merge\n",
            "jax_jit_pjit_api_merge",
        ),
    ],
)
def test_a_config_flag_this_jax_lacks_is_a_release_mismatch(text: str, flag: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == flag
    assert failure.advice_kind == "install"


# ---- lax.cond's predicate that is not one boolean, lax.scan with nothing to scan over --------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own words (the errors' last lines): an array predicate, a string one, and
        # scan given xs=None without a length.
        ("TypeError: Pred must be a scalar, got [ True  True] of shape (2,).\n", "cond"),
        ("TypeError: Pred must be a scalar, got yes of type <class 'str'>\n", "cond"),
        ("ValueError: scan got no values to scan over and `length` not provided.\n", "scan"),
    ],
)
def test_control_flow_given_nothing_to_choose_or_count_is_refused(text: str, op: str) -> None:
    failure = first(text)
    assert failure.finding.op == op
    if op == "scan":  # an argument not passed (length): the call's, made otherwise
        assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, "other")
    else:
        assert (failure.family, failure.advice_kind) == (Family.JAX_SHAPE, "fix_shapes")


# ---- XLA's HLO verifier refusing a module, whatever its context's name -----------------------

# TensorFlow 2.21's own error for tf.random.shuffle of a float tensor under jit_compile=True on
# the CPU: the verifier in a context it names [Unknown] (the traceback and message, verbatim).
_SHUFFLE = """\
Traceback (most recent call last):
  File "/tmp/r20a/sweep4/tf_random_shuffle_xla.py", line 4, in <module>
    f(tf.constant([1., 2.]))
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
tensorflow.python.framework.errors_impl.FailedPreconditionError: during context [Unknown]: Expected comparison type SIGNED.
actual: TOTALORDER
operand: s32[]
 [Op:__inference_f_6]
"""  # noqa: E501


@pytest.mark.parametrize(
    "text",
    [
        # Enzyme-JAX#477: the verifier's refusal under its own context's name.
        log("fresh13_a_enzymejax_477"),
        _SHUFFLE,
    ],
)
def test_the_hlo_verifiers_refusal_is_a_status_whatever_its_context(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == "compare"
    assert failure.advice_kind == "report_bug"


# ---- jnp and lax calls given axes or subscripts their operands do not have -------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own words, two programs each (the errors' last lines).
        (
            "ValueError: indices and arr must have the same number of dimensions; 1 vs. 2\n",
            "take_along_axis",
        ),
        (
            "ValueError: indices and arr must have the same number of dimensions; 2 vs. 3\n",
            "take_along_axis",
        ),
        (
            "ValueError: reduction axes (1,) contains out-of-bounds indices for float32[3].\n",
            "reduce",
        ),
        (
            "ValueError: reduction axes (2,) contains out-of-bounds indices for float32[2,3].\n",
            "reduce",
        ),
        ("ValueError: Output character 'l' did not appear in the input\n", "einsum"),
        ("ValueError: Output character 'x' did not appear in the input\n", "einsum"),
    ],
)
def test_axes_or_subscripts_the_operands_lack_are_a_shape_refusal(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == op
    assert failure.advice_kind == "fix_shapes"


# ---- a Keras layer given an input of another shape than it was built for ---------------------


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # Keras 3.15 on JAX 0.10.2 (the errors' last lines): a Dense layer built for 3 features
        # given 5, a Conv2D given a 2-D input.
        (
            "ValueError: Input 0 with name 'None' of layer 'dense' is incompatible with the "
            "layer: expected axis -1 of input shape to have value 3, but received input with "
            "shape (4, 5)\n",
            "dense",
        ),
        (
            "ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the "
            "layer: expected min_ndim=4, found ndim=2. Full shape received: (4, 3)\n",
            "conv2d",
        ),
    ],
)
def test_a_keras_layers_input_of_another_shape_is_a_shape_refusal(text: str, layer: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == layer
    assert failure.advice_kind == "fix_shapes"


# ---- a Keras loss given targets of another shape than the model's outputs --------------------


@pytest.mark.parametrize(
    "text",
    [
        # Keras 3.15 on JAX 0.10.2 (the errors' last lines): categorical and sparse
        # categorical crossentropy with labels of 5 and 3 columns for 2 outputs.
        "ValueError: Arguments `target` and `output` must have the same shape. Received: "
        "target.shape=(4, 5), output.shape=(4, 2)\n",
        "ValueError: Arguments `target` and `output` must have the same shape up until the last "
        "dimension: target.shape=(4, 3), output.shape=(4, 2)\n",
    ],
)
def test_a_keras_loss_given_targets_of_another_shape_is_a_shape_refusal(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == "loss"
    assert "output.shape=(4, 2)" in failure.finding.suggestion


# ---- grad given a container output, argnums past the call's arguments; a pytree's leaves -----

# JAX 0.10.2's own error for jax.value_and_grad(lambda x: (x, x))(1.0): the bind's refusal of the
# tuple, then grad's own words it caused (verbatim from the first).
_TUPLE_OUTPUT = """\
TypeError: Argument '(TypedFloat(1.0, dtype=float32), TypedFloat(1.0, dtype=float32))' of type '<class 'tuple'>' is not a valid JAX type

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/r20a/sweep9/value_and_grad_tuple.py", line 2, in <module>
    jax.value_and_grad(lambda x: (x, x))(1.0)
TypeError: Gradient only defined for scalar-output functions. Output was (TypedFloat(1.0, dtype=float32), TypedFloat(1.0, dtype=float32)).
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own words (the errors' last lines where not given above).
        (
            "TypeError: Gradient only defined for scalar-output functions. Output was "
            "[TypedFloat(1.0, dtype=float32), TypedFloat(1.0, dtype=float32)].\n",
            "grad",
        ),
        (_TUPLE_OUTPUT, "grad"),
        (
            "TypeError: differentiating with respect to argnums=2 requires at least 3 "
            "positional arguments to be passed by the caller, but got only 1 positional "
            "arguments.\n",
            "grad",
        ),
        (
            "TypeError: differentiating with respect to argnums=(0, 3) requires at least 4 "
            "positional arguments to be passed by the caller, but got only 2 positional "
            "arguments.\n",
            "grad",
        ),
        ("ValueError: Too few leaves for PyTreeDef; expected 2, got 1\n", "pytree"),
        ("ValueError: Too many leaves for PyTreeDef; expected 2.\n", "pytree"),
    ],
)
def test_grads_outputs_and_argnums_and_a_pytrees_leaves_are_refused(text: str, op: str) -> None:
    failure = first(text)
    assert failure.finding.op == op
    if "argnums" in text or "Output was" in text:
        # Positions the call does not pass, a container out of a function grad was not told
        # has aux (has_aux=True): the call's, made otherwise.
        assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, "other")
    else:
        assert (failure.family, failure.advice_kind) == (Family.JAX_SHAPE, "fix_shapes")


# ---- lax.top_k asked for more than the axis holds, lax.pad cutting more than it holds --------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own words, two programs each (the errors' last lines).
        (
            "ValueError: k argument to top_k must be no larger than size along axis; got k=5 "
            "with shape=[3] and axis=0\n",
            "top_k",
        ),
        (
            "ValueError: k argument to top_k must be no larger than size along axis; got k=10 "
            "with shape=[2, 4] and axis=1\n",
            "top_k",
        ),
        (
            "ValueError: Dimension size after padding is not at least 0, got result shape (-1,), "
            "for padding_config ((-4, 0, 0),) and operand shape (3,)\n",
            "pad",
        ),
        (
            "ValueError: Dimension size after padding is not at least 0, got result shape (2, "
            "-1), for padding_config ((0, 0, 0), (-2, -2, 0)) and operand shape (2, 3)\n",
            "pad",
        ),
    ],
)
def test_top_k_or_pad_past_the_axis_is_a_shape_refusal(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == op
    assert failure.advice_kind == "fix_shapes"


# ---- a custom_jvp or custom_vjp function differentiated before its rule was defined ----------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # JAX 0.10.2's own words (the errors' last lines): jax.grad of each kind with no rule.
        ("AttributeError: No JVP defined for custom_jvp function f using defjvp.\n", "custom_jvp"),
        ("AttributeError: No VJP defined for custom_vjp function f using defvjp.\n", "custom_vjp"),
    ],
)
def test_a_custom_rule_never_defined_is_a_call_error(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_CALL
    assert failure.finding.op == op
    assert failure.advice_kind == "other"
