"""explain-error: the misses left on the made corpus and the sixth part (issue 35, round 10).

Each rule is read on two wordings: the made corpus's (JAX 0.10.2 / TF 2.21, by construction)
and one from elsewhere -- an older release's words as public threads quote them, or JAX
0.10.2's own error made here in a child process for a second program (pasted below, paths
neutral). Rules: the function JAX names as needing a concrete value is the op; TensorFlow's
device names (``/job:localhost/replica:0/task:0/device:CPU:0``) say the device; a target no
handler is registered for is first a library to load; a leaked tracer's line to change is
where it was made and kept, the advice naming where it was used; a removed JAX name met while
an app's own copy of a library imports is the library's API mismatch at import.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from hloscope.analysis.explain_error import Failure, Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.render.explain_error_text import explanation_view

MADE = Path(__file__).parent / "data" / "made_errors"
LOGS = Path(__file__).parent / "data" / "error_logs"


def _first(text: str) -> Failure:
    failures = explain_error(text).failures
    assert failures, text[:200]
    return failures[0]


def _kinds(failure: Failure) -> list[str]:
    return [str(failure.advice_kind), *(kind for kind, _ in failure.more_advice)]


# ---- the function that needed a concrete value is the op ------------------------------------

# JAX 0.10.2, jnp.unique under jit (made here in a child process): the function is named in
# another sentence than nonzero's.
_UNIQUE_0_10 = """\
Traceback (most recent call last):
  File "/home/user/uniq.py", line 8, in <module>
    distinct(jnp.array([1, 2, 2]))
  File "/home/user/uniq.py", line 6, in distinct
    return jnp.unique(x)
           ^^^^^^^^^^^^^
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value \
is expected: traced array with shape int32[3]
The error arose for the first argument of jnp.unique(). To make jnp.unique() compatible with \
JIT and other transforms, you can specify a concrete value for the size argument, which will \
determine the output size.
The error occurred while tracing the function distinct at /home/user/uniq.py:4 for jit. This \
concrete value was not available in Python because it depends on the value of the argument x.

See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError
"""

# An older JAX's words (0.4.x, as google/jaxonnxruntime#29 quotes them): the tracer's repr.
_NONZERO_OLD = """\
Traceback (most recent call last):
  File "/work/onnx/run.py", line 12, in main
    return jnp.stack(jnp.nonzero(x))
  File "/usr/lib/python3.9/site-packages/jax/_src/numpy/lax_numpy.py", line 1330, in nonzero
    size = core.concrete_or_error(operator.index, size,
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value \
is expected: Traced<ShapedArray(int32[])>with<DynamicJaxprTrace(level=1/0)>
The size argument of jnp.nonzero must be statically specified to use jnp.nonzero within JAX \
transformations.
"""


def test_the_function_named_as_needing_a_concrete_value_is_the_op() -> None:
    made = _first((MADE / "tracing_nonzero.log").read_text())
    assert made.finding.op == "nonzero" and made.finding.node == "jnp.nonzero"
    assert made.error_class == "ConcretizationTypeError"
    assert made.advice_kind == AdviceKind.FIXED_SIZE
    unique = _first(_UNIQUE_0_10)
    assert unique.finding.op == "unique" and unique.advice_kind == AdviceKind.FIXED_SIZE
    old = _first(_NONZERO_OLD)
    assert old.finding.op == "nonzero" and old.family == Family.JAX_TRACING


def _said(text: str) -> str:
    console = Console(width=80, record=True, color_system=None, file=io.StringIO())
    console.print(explanation_view(explain_error(text)))
    return console.export_text()


def test_the_title_keeps_the_class_beside_the_function() -> None:
    said = _said((MADE / "tracing_nonzero.log").read_text())
    assert "nonzero: JAX tracing error  (ConcretizationTypeError)" in said
    assert "unique: JAX tracing error  (ConcretizationTypeError)" in _said(_UNIQUE_0_10)
    # A status code says the kind already: the runtime's class is not repeated.
    ffi = _said((MADE / "status_ffi_unknown_target.log").read_text())
    assert "(NOT_FOUND)" in ffi and "JaxRuntimeError," not in ffi


def test_without_a_function_named_the_op_stays_the_class() -> None:
    bare = """\
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value \
is expected: traced array with shape int32[]
The error occurred while tracing the function f at /home/user/f.py:3 for jit.
"""
    assert _first(bare).finding.op == "ConcretizationTypeError"


# ---- TensorFlow's device names ---------------------------------------------------------------

# TF 1.x's words (thtrieu/darkflow#873 quotes the like) on the CPU, and a GPU's in lower case
# as a notebook printed it (Azure/MachineLearningNotebooks#880).
_TF_CPU_OLD = """\
tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor \
with shape[16,19,19,1024] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by \
allocator cpu
\t [[Node: 36-leaky = Maximum[T=DT_FLOAT]]]
"""
_TF_GPU_LOWER = """\
ResourceExhaustedError: 2 root error(s) found.
  (0) Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] and type \
float on /job:localhost/replica:0/task:0/device:gpu:0 by allocator gpu_0_bfc
"""


def test_tensorflow_device_names_say_the_device() -> None:
    made = _first((MADE / "tf_oom_cpu.log").read_text())
    assert str(made.platform) == "cpu" and made.family == Family.DEVICE_ALLOCATION
    assert str(_first(_TF_CPU_OLD).platform) == "cpu"
    assert str(_first(_TF_GPU_LOWER).platform) == "gpu"


# ---- a target no handler is registered for ---------------------------------------------------

# An older JAX's words for a target its package registers (NVIDIA/TransformerEngine#1024).
_CUSTOM_CALL_OLD = """\
jaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: No registered implementation for custom \
call to te_scaled_softmax_forward for platform CUDA
"""
_TYPED_CALL = """\
jax.errors.JaxRuntimeError: UNIMPLEMENTED: No registered implementation for untyped custom \
call to my_kernel for Host
"""


def test_an_unregistered_target_is_first_a_library_to_load() -> None:
    made = _first((MADE / "status_ffi_unknown_target.log").read_text())
    assert made.family == Family.XLA_STATUS and made.finding.op == "my_custom_kernel"
    assert _kinds(made)[:2] == [AdviceKind.INSTALL, AdviceKind.REPLACE_OP]
    assert "my_custom_kernel" in made.finding.suggestion
    assert "register_ffi_target" in made.more_advice[0][1]  # the replacement keeps its words
    old = _first(_CUSTOM_CALL_OLD)
    assert old.finding.op == "te_scaled_softmax_forward"
    assert _kinds(old)[:2] == [AdviceKind.INSTALL, AdviceKind.REPLACE_OP]


def test_a_call_of_another_api_version_is_not_a_library_to_load() -> None:
    typed = _first(_TYPED_CALL)
    assert typed.finding.op == "my_kernel" and typed.advice_kind != AdviceKind.INSTALL


# ---- a leaked tracer: made and kept here, used there -----------------------------------------

# An older JAX's words (0.2.x-0.3.x, as jax-ml/jax#7556 rewrote them): "created on line".
_LEAK_OLD = """\
Traceback (most recent call last):
  File "/home/user/keep.py", line 14, in <module>
    total = cache["h"] * 2
  File "/usr/lib/python3/site-packages/jax/_src/numpy/array_methods.py", line 256, in deferring
    return binary_op(self, other)
jax._src.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function \
transformed by JAX had a side effect, allowing for a reference to an intermediate value with \
shape (3,) and dtype float32 to escape.
JAX transformations require that functions explicitly return their outputs, and disallow \
saving intermediate values to global state.
The function being traced when the value leaked was step at /home/user/keep.py:5 traced for \
jit.
------------------------------
The leaked intermediate value was created on line /home/user/keep.py:7 (step).
------------------------------
"""


def test_a_leaked_tracer_names_where_it_was_made_and_where_used() -> None:
    made = _first((MADE / "tracing_leaked_global.log").read_text())
    assert made.finding.source.endswith("tracing_leaked_global.py:8")
    assert made.advice_kind == AdviceKind.NO_LEAKED_TRACER
    assert "tracing_leaked_global.py:8" in made.finding.suggestion
    assert "tracing_leaked_global.py:12" in made.finding.suggestion
    old = _first(_LEAK_OLD)
    assert old.finding.source == "/home/user/keep.py:7"
    assert "/home/user/keep.py:14" in old.finding.suggestion


def test_a_leak_that_surfaced_on_its_own_line_names_it_once() -> None:
    # The value made and used on one line (no later use elsewhere): nothing more to name.
    text = _LEAK_OLD.replace('line 14, in <module>\n    total = cache["h"] * 2', "line 7, in step")
    old = _first(text)
    assert old.finding.source == "/home/user/keep.py:7"
    assert "only where it was used" not in old.finding.suggestion


# ---- an app's own copy of a library importing a removed JAX name -----------------------------

# JAX 0.10.2 (made here in a child process): an app's package whose module calls a removed
# jax.core name at import.
_VENDORED_0_10 = """\
Traceback (most recent call last):
  File "/srv/app/app.py", line 1, in <module>
    from mathlib import attention
  File "/srv/app/mathlib/__init__.py", line 1, in <module>
    from .kernels import attention
  File "/srv/app/mathlib/kernels.py", line 3, in <module>
    attention_p = jax.core.Primitive("attention")
                  ^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3/site-packages/jax/_src/deprecations.py", line 57, in getattr
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
AttributeError: module 'jax.core' has no attribute 'Primitive'
"""
# The same name in a script of the user's own: no library's import stopped.
_SCRIPT = """\
Traceback (most recent call last):
  File "/srv/app/train.py", line 3, in <module>
    attention_p = jax.core.Primitive("attention")
  File "/usr/lib/python3/site-packages/jax/_src/deprecations.py", line 57, in getattr
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
AttributeError: module 'jax.core' has no attribute 'Primitive'
"""


def test_an_apps_copy_of_a_library_meets_a_removed_name_at_import() -> None:
    logs = sorted(LOGS.glob("fresh6_a_hfspaces_whisperjax_*.log"))
    assert logs
    whisper = _first(logs[0].read_text())
    # A release mismatch (jax_call since 2026-12-07; the start-up before), the app's copy named.
    assert whisper.family == Family.JAX_CALL
    assert whisper.advice_kind == AdviceKind.INSTALL and "whisper_jax" in whisper.finding.suggestion
    assert whisper.finding.source == "/home/user/app/whisper_jax/layers.py:63"
    made = _first(_VENDORED_0_10)
    assert made.family == Family.JAX_CALL and "mathlib" in made.finding.suggestion
    script = _first(_SCRIPT)
    assert script.family != Family.BACKEND_STARTUP
    # The script that was run asked for the name itself: its call is ported first (since
    # made29's reading, whose maker wrote that for jax.xla_computation), an older JAX second.
    assert script.advice_kind == AdviceKind.OTHER
    assert "jax.core" in script.finding.suggestion and "Primitive" in script.finding.suggestion
    assert [kind for kind, _ in script.more_advice] == [AdviceKind.INSTALL]
