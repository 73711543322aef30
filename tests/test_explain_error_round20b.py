"""Round 20b of explain-error: the fields (device, op, user line, advice) the spent parts and
the twentieth dev batch showed wrong, each fix on two wordings: the corpus log and a second
text (another thread's, saved under tests/data/family_logs/ with its URL, or what JAX 0.10.2
raised itself, quoted here)."""

from __future__ import annotations

from round_logs import first, log

from hloscope.analysis.explain_error.named_op import op_named

# What JAX 0.10.2 raised (JAX_PLATFORMS=cpu) for a custom_vjp function given an array in an
# argument it declares non-differentiable (nondiff_argnums=(1,)) under jax.jit.
_CUSTOM_VJP_TRACER = """\
Traceback (most recent call last):
  File "/tmp/cv.py", line 9, in <module>
    jax.jit(lambda a, b: f(a, b))(1.0, 2.0)
  File "/tmp/cv.py", line 9, in <lambda>
    jax.jit(lambda a, b: f(a, b))(1.0, 2.0)
                         ^^^^^^^
jax.errors.UnexpectedTracerError: Found a JAX Tracer object passed as an argument to a \
custom_vjp function in a position indicated by nondiff_argnums as non-differentiable. Tracers \
cannot be passed as non-differentiable arguments to custom_vjp functions; instead, \
nondiff_argnums should only be used for arguments that can't be or contain JAX tracers, e.g. \
function-valued arguments. In particular, array-valued arguments should typically not be \
indicated as nondiff_argnums.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_the_custom_derivative_function_a_message_names_is_its_op() -> None:
    # JAX names the kind of custom-derivative function whose use it refuses ("passed as an
    # argument to a custom_vjp function"): that is the op, not the exception's class; also
    # where the exception is printed qualified (jax.errors.UnexpectedTracerError) and its
    # recogniser kept no class.
    failure = first(log("fresh13_c_lagrangian_nns_11_custom_vjp_nondiff_argnums_tracer"))
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "custom_vjp")
    failure = first(_CUSTOM_VJP_TRACER)
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "custom_vjp")
    # JAX 0.10.2's words for a custom_jvp function given no rule.
    message = "AttributeError: No JVP defined for custom_jvp function f using defjvp."
    assert op_named(message) == "custom_jvp"


def test_torch_xlas_dispatched_aten_op_in_a_check_failures_stack_is_its_op() -> None:
    # PyTorch/XLA's failed XLA_CHECK prints a C++ stack trace whose innermost frame of its
    # dispatcher names the aten op it ran (torch_xla::XLANativeFunctions::mul; before 2021
    # torch_xla::AtenXlaType::native_batch_norm_backward): the op, not "Check failed".
    failure = first(log("fresh14_a_ptxla_7266_spmd_llama_rotary_mul_check_failed_inputs_end"))
    assert (str(failure.family), failure.finding.op) == ("xla_crash", "mul")
    failure = first(log("r20b_ptxla_2176_aten_xla_type_check_failed_xtensor"))
    assert (str(failure.family), failure.finding.op) == ("xla_crash", "native_batch_norm_backward")
