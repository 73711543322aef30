"""explain_error: XLA status errors (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION) read for
what failed, where, and the fix.

The oracle is jax itself: :data:`PROGRAM` makes jax 0.10.2 fail for real, each case in its own
named function, in a child process (a wrong call into an FFI handler may crash the process
rather than raise, and must not take the test run with it). Its tracebacks are explained here
and checked against the program: the function named, the line that called it, the target, the
dtype. Where the fix can be run, the program runs it too (a sub-byte dot widened first
compiles). Recorded texts at the end keep the forms covered where jax is absent, and the
cuDNN FAILED_PRECONDITION that only a GPU machine prints comes from users' public logs.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from frameworks_needed import needs_framework

from hloscope.analysis.explain_error import (
    ErrorExplanation,
    Failure,
    Family,
    explain_error,
)
from hloscope.analysis.unsupported import Platform, Reason
from hloscope.analysis.unsupported.fixes import suggest

# Each case is a named function whose call (marked CALL:NAME) raises; `main` prints
# {NAME: traceback}.
PROGRAM = """\
import json, sys, traceback
import jax, jax.numpy as jnp, numpy as np
from jax import lax

M = jnp.eye(3, dtype=jnp.float32) * 2
FACTOR = (jax.ShapeDtypeStruct((3, 3), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32))
LOWER = np.uint8(ord("L"))


def packed_matmul(a):
    return lax.dot(a, a.T, preferred_element_type=jnp.int32)


def quantised_filter(x):
    kernel = x[:, :, :3, :3]
    return lax.conv_general_dilated(x, kernel, (1, 1), "VALID", preferred_element_type=jnp.float32)


def denoise(x):
    return jax.ffi.ffi_call("hloscope_test_denoiser", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def legacy_factor(a):
    return jax.ffi.ffi_call("lapack_spotrf_ffi", FACTOR, custom_call_api_version=2)(a)


def integer_factor(a):
    return jax.ffi.ffi_call("lapack_spotrf_ffi", FACTOR)(a.astype(jnp.int32), uplo=LOWER)


def factor_with_extra(a):
    return jax.ffi.ffi_call("lapack_spotrf_ffi", FACTOR)(a, uplo=LOWER, pivot=np.int32(1))


def row_factor(a):
    row = (jax.ShapeDtypeStruct((3,), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32))
    return jax.ffi.ffi_call("lapack_spotrf_ffi", row)(a[0], uplo=LOWER)


def tuned(x):
    return x * 2


FLOAT4 = jnp.ones((1, 1, 6, 6), jnp.float4_e2m1fn)
NO_SUCH_FLAG = {"xla_hloscope_no_such_flag": True}


CASES = {
    "int4_dot": lambda: jax.jit(packed_matmul)(jnp.ones((4, 8), jnp.int4)),  # CALL:int4_dot
    "float4_conv": lambda: jax.jit(quantised_filter)(FLOAT4),  # CALL:float4_conv
    "no_handler": lambda: jax.jit(denoise)(M),  # CALL:no_handler
    "legacy_api": lambda: jax.jit(legacy_factor)(M),  # CALL:legacy_api
    "operand_dtype": lambda: jax.jit(integer_factor)(M),  # CALL:operand_dtype
    "attribute_count": lambda: jax.jit(factor_with_extra)(M),  # CALL:attribute_count
    "operand_rank": lambda: jax.jit(row_factor)(M),  # CALL:operand_rank
    "compile_option": lambda: jax.jit(tuned).lower(M).compile(NO_SUCH_FLAG),  # CALL:compile_option
}


def main():
    texts = {}
    for name, call in CASES.items():
        try:
            jax.block_until_ready(call())
            texts[name] = None
        except Exception:
            texts[name] = traceback.format_exc()
    # The fix the explanation gives for sub-byte operands: widen them first, then the dot.
    a = jnp.ones((4, 8), jnp.int4)
    wide = a.astype(jnp.bfloat16)
    fixed = jax.jit(lambda w: lax.dot(w, w.T, preferred_element_type=jnp.float32))(wide)
    texts["fix_runs"] = bool(np.allclose(np.asarray(fixed), 8.0))
    json.dump(texts, sys.stdout)


main()
"""

SCRIPT_NAME = "xla_status_cases.py"


def call_line(case: str) -> int:
    lines = PROGRAM.splitlines()
    (line,) = [n for n, text in enumerate(lines, 1) if text.endswith(f"# CALL:{case}")]
    return line


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> dict:
    """The tracebacks jax prints for each case, made in a child process."""
    needs_framework("jax")
    folder = tmp_path_factory.mktemp("xla_status")
    script = folder / SCRIPT_NAME
    script.write_text(PROGRAM)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=folder
    )
    assert done.returncode == 0, done.stderr[-3000:]
    texts = json.loads(done.stdout)
    texts["script"] = str(script)
    return texts


def only(explanation: ErrorExplanation) -> Failure:
    assert explanation.recognised, "nothing recognised"
    assert len(explanation.failures) == 1, [f.to_dict() for f in explanation.failures]
    return explanation.failures[0]


def explained(live: dict, case: str) -> Failure:
    text = live[case]
    assert text is not None, f"jax no longer refuses {case}"
    failure = only(explain_error(text))
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.source == f"{live['script']}:{call_line(case)}"  # where: the call
    assert failure.error_class == "JaxRuntimeError"
    return failure


# ---- INVALID_ARGUMENT from the HLO verifier ---------------------------------------------------


@pytest.mark.parametrize(
    ("case", "function", "dtype", "primitive"),
    [
        ("int4_dot", "packed_matmul", "s32", "dot_general"),
        ("float4_conv", "quantised_filter", "f32", "conv_general_dilated"),
    ],
)
def test_custom_element_size_from_the_verifier(live, case, function, dtype, primitive):
    failure = explained(live, case)
    finding = failure.finding
    assert failure.status == "INVALID_ARGUMENT"
    assert "custom element sizes" in live[case] and "Failed after operand_upcaster" in live[case]
    # What failed: the widened convert XLA made of the sub-byte operand, and its wide type.
    assert (finding.op, finding.node, finding.dtype) == ("convert", "convert", dtype)
    assert finding.reason is Reason.DTYPE and finding.function == function
    assert any(primitive in hint for hint in failure.hints)  # the op_name XLA kept
    assert any("operand_upcaster" in hint for hint in failure.hints)  # the pass it failed after
    assert finding.suggestion == suggest("xla:custom_element_size")
    assert "astype" in finding.suggestion and live["fix_runs"] is True


# ---- FFI handlers -------------------------------------------------------------------------------


def test_ffi_target_not_registered_for_the_platform(live):
    failure = explained(live, "no_handler")
    finding = failure.finding
    assert "NOT_FOUND: No FFI handler registered for hloscope_test_denoiser" in live["no_handler"]
    assert (finding.op, finding.reason, finding.function) == (
        "hloscope_test_denoiser",
        Reason.CUSTOM_CALL,
        "denoise",
    )
    assert failure.status == "NOT_FOUND" and failure.platform == Platform.CPU
    assert failure.device == "Host"  # XLA's word for the CPU platform
    # First the library that registers the target, then the call replaced or registered.
    assert failure.advice_kind == "install" and "hloscope_test_denoiser" in finding.suggestion
    assert failure.more_advice[0] == ("replace_op", suggest("xla:ffi_not_found"))
    assert "register_ffi_target" in failure.more_advice[0][1]


def test_a_typed_ffi_target_called_through_the_legacy_api(live):
    failure = explained(live, "legacy_api")
    assert "untyped custom call to lapack_spotrf_ffi" in live["legacy_api"]
    assert failure.finding.op == "lapack_spotrf_ffi" and failure.status == "NOT_FOUND"
    assert failure.finding.function == "legacy_factor" and failure.platform == Platform.CPU
    assert any("custom_call_api_version=4" in hint for hint in failure.hints)


def test_ffi_handler_given_operands_of_the_wrong_dtype(live):
    failure = explained(live, "operand_dtype")
    finding = failure.finding
    assert failure.status == "INVALID_ARGUMENT" and finding.function == "integer_factor"
    assert finding.op == "FFI handler" and finding.node.startswith("operands at ")
    assert finding.dtype == "s32"  # what it got; the hint says what it expected
    assert any(hint == "Wrong buffer dtype: expected F32 but got S32" for hint in failure.hints)
    assert finding.suggestion == suggest("xla:ffi_operands")


def test_ffi_handler_given_another_number_of_attributes(live):
    failure = explained(live, "attribute_count")
    assert failure.finding.node == "attributes" and failure.finding.function == "factor_with_extra"
    assert any(hint.startswith("attributes: expected 1, got 2") for hint in failure.hints)


def test_ffi_handler_refuses_an_operand_rank(live):
    failure = explained(live, "operand_rank")
    assert failure.status == "INVALID_ARGUMENT" and failure.finding.function == "row_factor"
    assert any("at least 2 dimensions" in hint for hint in failure.hints)


def test_other_invalid_arguments_are_said_with_their_code(live):
    failure = explained(live, "compile_option")
    assert failure.finding.op == "INVALID_ARGUMENT" and failure.status == "INVALID_ARGUMENT"
    assert "xla_hloscope_no_such_flag" in failure.message
    assert failure.finding.suggestion == suggest("xla:INVALID_ARGUMENT")


# ---- recorded texts -----------------------------------------------------------------------------

# RECORDED from jax/jaxlib 0.10.2 on CPU (Linux, Python 3.11): `python f4dot.py` with
#   def scores(q, k): return lax.dot(q, k.T, preferred_element_type=jnp.float32)
#   q = jnp.ones((4, 8), jnp.float4_e2m1fn); print(jax.jit(scores)(q, q))  # line 6
RECORDED_FLOAT4 = """\
Traceback (most recent call last):
  File "/tmp/ee/f4dot.py", line 6, in <module>
    print(jax.jit(scores)(q, q))
          ^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: during context [hlo verifier]: The XLA CPU/GPU \
backend does not support custom element sizes on non-sub-byte types: %convert = \
f32[4,8]{1,0:E(4)} convert(%q.1), metadata={op_name="jit(scores)/dot_general" stack_frame_id=3}

Failed after operand_upcaster
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# RECORDED from jax 0.10.2 on CPU: `jax.ffi.ffi_call("my_fancy_smoother", out)(x)` inside
# `def smooth(x)`, called as `print(jax.jit(smooth)(jnp.ones(4)))` on line 5.
RECORDED_NO_HANDLER = """\
Traceback (most recent call last):
  File "/tmp/ee/ffi_missing.py", line 5, in <module>
    print(jax.jit(smooth)(jnp.ones(4)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: NOT_FOUND: No FFI handler registered for my_fancy_smoother on a \
platform Host (canonical host)
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# RECORDED from jax 0.10.2 on CPU: lapack_spotrf_ffi given int32 operand and result buffers in
# `def factor(a)`; the handler's two diagnostics come out glued together, as here.
RECORDED_OPERANDS = """\
Traceback (most recent call last):
  File "/tmp/ee/ffi_types.py", line 5, in <module>
    print(jax.jit(factor)(jnp.eye(3)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INVALID_ARGUMENT: [execute] Failed to decode all FFI handler \
operands (bad operands at: 1, 3)
Diagnostics:
Wrong buffer dtype: expected F32 but got S32Wrong buffer dtype: expected F32 but got S32
--------------------
"""

# RECORDED by users on GPU machines (public logs, jax-ml/jax#22626 and #16901; paths shortened):
# cuDNN could not start. No CPU-only jax makes this text.
RECORDED_CUDNN = """\
2024-07-19 15:49:01.341533: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could \
not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR
2024-07-19 15:49:01.341571: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:443] Memory \
usage: 2624061440 bytes free, 12524191744 bytes total.
Traceback (most recent call last):
  File "scripts/train_vqgan.py", line 202, in <module>
    main()
  File "scripts/train_vqgan.py", line 32, in main
    rng = jax.random.PRNGKey(config.seed)
  File "/home/u/envs/viper/lib/python3.8/site-packages/jax/_src/random.py", line 160, in PRNGKey
    key = prng.seed_with_impl(impl, seed)
jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. \
Look at the errors above for more details.
"""


def test_recorded_float4_verifier_error():
    failure = only(explain_error(RECORDED_FLOAT4))
    assert (failure.finding.op, failure.finding.dtype) == ("convert", "f32")
    assert failure.finding.function == "scores"  # jit(scores) in the op_name
    assert failure.finding.source == "/tmp/ee/f4dot.py:6"
    assert failure.status == "INVALID_ARGUMENT"


def test_recorded_missing_handler_and_operand_errors():
    missing = only(explain_error(RECORDED_NO_HANDLER))
    assert (missing.finding.op, missing.platform, missing.finding.function) == (
        "my_fancy_smoother",
        Platform.CPU,
        "smooth",
    )
    operands = only(explain_error(RECORDED_OPERANDS))
    assert operands.finding.node == "operands at 1, 3" and operands.finding.dtype == "s32"
    # The glued diagnostics are read apart, and said once.
    assert operands.hints.count("Wrong buffer dtype: expected F32 but got S32") == 1


def test_cudnn_failed_precondition_says_why_from_the_lines_before():
    failure = only(explain_error(RECORDED_CUDNN))
    finding = failure.finding
    assert finding.op == "cuDNN" and failure.status == "FAILED_PRECONDITION"
    assert failure.platform == Platform.GPU and failure.error_class == "XlaRuntimeError"
    assert finding.source == "scripts/train_vqgan.py:32" and finding.function == "main"
    assert "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR" in failure.hints
    assert "Memory usage: 2624061440 bytes free, 12524191744 bytes total" in failure.hints
    assert finding.suggestion == suggest("xla:cudnn_init")


def test_a_bare_failed_precondition_from_jax_is_explained_with_its_code():
    # HAND-WRITTEN from XLA's PjRt source (FailedPrecondition("Buffer Definition Event: %s")):
    # an input made by a computation that failed; jax 0.10.2 on CPU reports that one as INTERNAL.
    text = (
        "jax.errors.JaxRuntimeError: FAILED_PRECONDITION: Buffer Definition Event: "
        "Error dispatching computation\n"
    )
    failure = only(explain_error(text))
    assert failure.finding.op == "FAILED_PRECONDITION" and failure.status == "FAILED_PRECONDITION"
    assert failure.finding.suggestion == suggest("xla:FAILED_PRECONDITION")


def test_status_codes_that_jax_did_not_raise_are_not_guessed_at():
    # HAND-WRITTEN in TensorFlow's forms: its own FAILED_PRECONDITION (a variable read before
    # it was initialised) and INVALID_ARGUMENT (a missing feed) are not XLA refusing a program.
    for text in (
        "tensorflow.python.framework.errors_impl.FailedPreconditionError: Graph execution "
        "error:\n\n(0) FAILED_PRECONDITION: Could not find variable dense/kernel.\n",
        "  (0) INVALID_ARGUMENT: You must feed a value for placeholder tensor 'x'\n",
    ):
        assert not explain_error(text).recognised


def test_the_command_says_the_code_and_the_fix():
    from click.testing import CliRunner

    from hloscope.cli import cli

    result = CliRunner(env={"COLUMNS": "100"}).invoke(
        cli, ["explain-error"], input=RECORDED_OPERANDS
    )
    assert result.exit_code == 0
    out = result.stdout
    assert "FFI handler: XLA refused it  (INVALID_ARGUMENT, dtype s32)" in out
    assert "function    factor" in out and "/tmp/ee/ffi_types.py:5" in out
    assert "Wrong buffer dtype: expected F32 but got S32" in out
    assert "give the FFI handler what its binding declares" in out
