"""Round 17c of explain-error: the fields of logs already recognised, read from threads opened
before 2023 (the dev17c part) and the spent parts' misses, each fix on two wordings: a corpus
log and a second real text (another thread's, or an error JAX 0.10.2 raises itself, pasted
verbatim below)."""

from __future__ import annotations

from round_logs import first, log

from hloscope.analysis.explain_error.named_op import op_called
from hloscope.analysis.explain_error.user_line import is_users
from hloscope.hlo.metadata import StackFrame


def advice_kinds(failure) -> list[str]:
    return [str(failure.advice_kind), *(str(kind) for kind, _ in failure.more_advice)]


# ---- out-of-memory advice: a fix that cannot free what must go ranks after one that can --------


def test_a_fix_that_frees_less_than_the_program_is_over_ranks_after_a_smaller_batch():
    # trax#533: 14.93G of 8.00G hbm, bf16 of the one buffer listed frees 3.0G of the 6.9G
    # over; the user's fix was the batch (2048 fits, 4096 does not).
    trax = first(log("dev17c_trax_533"))
    kinds = advice_kinds(trax)
    assert "smaller_batch" in kinds[:2]
    assert kinds.index("smaller_batch") < kinds.index("lower_precision")
    # ColabFold#62: 9.08G of 7.48G; bf16 of the buffers listed frees far less than 1.60G.
    colabfold = advice_kinds(first(log("colabfold_62_tpu_hbm")))
    assert colabfold[0] == "smaller_batch"
    assert colabfold.index("smaller_batch") < colabfold.index("lower_precision")


# ---- the op the user's line called, where the message names none -----------------------------


def test_the_op_is_the_jax_call_on_the_users_line_where_the_message_names_none():
    # keras-core#718: the user's train_step called jnp.tile, whose broadcast_to raised.
    tile = first(log("fresh10_a_kerascore_718"))
    assert tile.finding.op == "tile"
    # keras#19116: the user's script sits in a folder named `jax`; Keras's frames filtered out.
    broadcast = first(log("fresh10_a_keras_19116"))
    assert broadcast.finding.op == "broadcast_to"
    # jax#29859: an explicit-mesh reshape's assertion, raised under the user's jnp.reshape.
    reshape = first(log("fresh9_a_jax_29859"))
    assert reshape.finding.op == "reshape"
    # Where the recogniser named the exception's class on purpose (a tracing error's op is
    # the function JAX names, else its class), the frames do not replace it.
    assert first(NUMPY_ON_A_SETTING).finding.op == "TracerArrayConversionError"


def test_a_frame_of_jaxs_dispatch_under_the_users_line_is_no_op():
    site = "/usr/lib/python3.11/site-packages/jax/_src"
    user = StackFrame("/home/u/train.py", 12, "step")
    # innermost first: the user's line called jax.jit's wrapper, not an op.
    dispatch = [StackFrame(f"{site}/pjit.py", 300, "cache_miss"), user]
    assert op_called(dispatch, is_users) is None
    helper = [StackFrame(f"{site}/numpy/lax_numpy.py", 10, "_arange"), user]
    assert op_called(helper, is_users) is None
    public = [StackFrame(f"{site}/numpy/lax_numpy.py", 10, "arange"), user]
    assert op_called(public, is_users) == "arange"
    # The innermost run of JAX's frames ends at its outermost: the call, not the helper.
    run = [StackFrame(f"{site}/numpy/util.py", 9, "_broadcast_to"), *public]
    assert op_called(run, is_users) == "arange"
    mine = StackFrame("/home/u/sandbox/jax/script.py", 3, "<module>")  # a folder named jax
    assert op_called([public[0], mine], is_users) == "arange"
    # jax 0.2's layout, before jax/_src: jax/random.py, jax/numpy/lax_numpy.py.
    old = [StackFrame("/opt/site-packages/jax/random.py", 5, "normal"), user]
    assert op_called(old, is_users) == "normal"


# ---- a traced value NumPy converted: a setting to make static is the second fix ----------------

# JAX 0.10.2's own error for `np.sqrt(temperature)` on a traced float under jit, verbatim.
NUMPY_ON_A_SETTING = """\
Traceback (most recent call last):
  File "/tmp/gen17c/np_setting.py", line 11, in <module>
    print(scale(jnp.ones(3), 2.0))
          ^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/gen17c/np_setting.py", line 8, in scale
    return x / np.sqrt(temperature)
               ^^^^^^^^^^^^^^^^^^^^
jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape float32[]
The error occurred while tracing the function scale at /tmp/gen17c/np_setting.py:6 for jit. This concrete value was not available in Python because it depends on the value of the argument temperature.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


def test_a_tracer_numpy_converted_gets_jnp_first_and_a_static_argument_second():
    # jax#3654 (jax 0.1.7x's wording): one_hot's num_classes was a tracer; static_argnums.
    one_hot = first(log("dev17c_jax_3654"))
    assert advice_kinds(one_hot)[:2] == ["jnp_not_np", "static_args"]
    setting = first(NUMPY_ON_A_SETTING)
    assert advice_kinds(setting)[:2] == ["jnp_not_np", "static_args"]
    assert setting.finding.source == "/tmp/gen17c/np_setting.py:8"


# ---- the user's line in a folder of theirs named like a framework ------------------------------

# JAX 0.10.2's own error, the script and its helper module in a folder named `jax`, verbatim.
HELPER_IN_A_JAX_FOLDER = """\
Traceback (most recent call last):
  File "/tmp/gen17c/playground/jax/train.py", line 8, in <module>
    print(jax.jit(dense)(x, w))
          ^^^^^^^^^^^^^^^^^^^^
  File "/tmp/gen17c/playground/jax/layers.py", line 5, in dense
    return jnp.dot(x, w)
           ^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/tensor_contractions.py", line 122, in dot
    result = lax.dot_general(a, b, dimension_numbers=(contract_dims, batch_dims),
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: dot_general requires contracting dimensions to have the same shape, got (16,) and (32,).
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""  # noqa: E501


def test_a_users_folder_named_like_a_framework_holds_the_users_line():
    helper = first(HELPER_IN_A_JAX_FOLDER)
    assert helper.finding.source == "/tmp/gen17c/playground/jax/layers.py:5"
    # jax#12083: IPython's traceback of a script run from ~/.../playground/jax/.
    ndim = first(log("r17c_jax_12083"))
    assert ndim.finding.source.endswith("lsqfitgp/playground/jax/ndimbug.py:6")
    # A checkout's package and its sources stay the framework's; so does an installed one.
    for path in (
        "/home/u/src/jax/jax/core.py",
        "/home/u/src/jax/jax/_src/api.py",
        "/usr/lib/python3/dist-packages/jax/api.py",
        "/home/u/jax/__init__.py",
    ):
        assert not is_users(StackFrame(path, 1, "f")), path
