"""Capture every stage XLA takes one function through, inside this Python process::

    cap = hloscope.capture(f, x)  # f: a JAX function (jitted or not)
    list(cap.stages)  # ['jaxpr', 'stablehlo', 'hlo', 'optimized_hlo']
    cap.module("after").fusion_computations()  # parsed lazily with hloscope.parse
    cap.cost["flops"], cap.memory["temp_size_in_bytes"]
    cap = hloscope.capture(f, x, passes="fusion|algsimp")  # plus per-pass snapshots

The compile itself goes through the backend the device asks for (:mod:`hloscope.backends`);
what a capture holds is :class:`~hloscope.backends.record.Capture`'s doc. Nothing here imports
jax or tensorflow until :func:`capture` is called.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..backends.errors import CaptureUsageError
from ..backends.record import JAX_STAGES, TF_STAGES, Capture, PassSnapshot, package_versions
from ..backends.tf_compile import is_tensorflow_function

__all__ = [
    "is_tensorflow_function",
    "Capture",
    "PassSnapshot",
    "capture",
    "check_pass_regex",
    "package_versions",
    "JAX_STAGES",
    "TF_STAGES",
]


def capture(
    fn: Callable[..., Any],
    *args: Any,
    passes: str | None = None,
    device: Any = None,
    **kwargs: Any,
) -> Capture:
    """Capture the compiler stages of ``fn(*args, **kwargs)`` without running it.

    ``device`` (a registry name such as ``"tpu-v6e"``, a slice ``"tpu-v5e:2x4"``, or a
    :class:`~hloscope.devices.DeviceSpec`) compiles for that device through the backend that
    can (:mod:`hloscope.backends`): for a TPU with libtpu installed, XLA:TPU's own
    compile in this process (libtpu loads here; the command line compiles in a child instead).
    Without it the capture is this machine's compile, marked as an estimate
    (``compiled_for`` is ``None``, ``estimate_note`` says why).

    ``fn`` is a JAX function (plain or already ``jax.jit``-ed, with its own static arguments), a
    ``tf.function(jit_compile=True)``, or a Keras model with the TensorFlow backend. ``args``
    and ``kwargs`` are example inputs (arrays, or ``jax.ShapeDtypeStruct`` for JAX): only their
    shapes and dtypes matter. ``passes`` is a regular expression of XLA pass names (RE2 syntax,
    partial match, e.g. ``"fusion"`` or ``".*"``); every matching pass yields a
    :class:`PassSnapshot`. JAX only: TensorFlow reads its XLA flags once per process, so capture
    TF passes with ``hloscope capture SCRIPT.py --passes REGEX``.

    Errors raised while tracing or compiling ``fn`` are the user's and propagate unchanged;
    misuse (a ``tf.function`` without ``jit_compile=True``, a bad ``passes`` pattern) raises
    :class:`~hloscope.capture.errors.CaptureError`.
    """
    if passes is not None:
        check_pass_regex(passes)
    from ..backends import capture_for

    return capture_for(fn, args, kwargs, device, passes)


def check_pass_regex(pattern: str) -> None:
    """Raise :class:`CaptureUsageError` when ``pattern`` is not a pass pattern XLA can use."""
    # XLA compiles the pattern with RE2 inside the compiler; a malformed one must be caught here.
    # Python's `re` accepts a superset of what matters (RE2 lacks backreferences and lookaround).
    if not pattern:
        raise CaptureUsageError(
            "--passes needs a non-empty regular expression (use '.*' for every pass)"
        )
    if re.search(r"\(\?[=!<]|\\[1-9]", pattern):
        raise CaptureUsageError(
            f"pass pattern {pattern!r} uses lookaround or backreferences, which XLA's RE2 lacks"
        )
    try:
        re.compile(pattern)
    except re.error as error:
        raise CaptureUsageError(
            f"pass pattern {pattern!r} is not a regular expression: {error}"
        ) from None
