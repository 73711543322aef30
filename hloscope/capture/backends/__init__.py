"""Backends: the one seam between hloscope and the compilers it asks.

A :class:`Backend` lowers a function and compiles it (:class:`Lowered`, :class:`Compiled`,
shaped like ``jax.stages``) and hands back the optimized module, XLA's memory and cost
analyses, the dump's reports and, when it can run here, something runnable. Three backends:

* :class:`LocalJax`: the JAX installed here, for its default device (``hloscope.capture``);
* :class:`TensorFlow`: ``tf.function(jit_compile=True)`` and Keras models;
* :class:`XlaTpu`: XLA:TPU through libtpu, for any TPU chip or slice of the device registry,
  on a machine without a TPU (``pip install 'hloscope[tpu]'``).

:func:`backend_for` picks one from the device asked for, and :func:`capture_for` captures
with it, recording what compiled the module::

    from hloscope.capture.backends import capture_for

    cap = capture_for(step, (params, batch), {}, device="tpu-v5e")
    cap.compiled_for  # 'TPU v5 lite' (None for an estimate, with cap.estimate_note)
    cap.memory["peak_memory_in_bytes"]  # what the chip reserves for this program
"""

from typing import TYPE_CHECKING, Any

from ._base import Backend, BackendName, Compiled, Lowered
from ._local import LocalJax, TensorFlow
from ._registry import BACKENDS, backend_for, capture_for, estimate_note
from ._xla_tpu import (
    LIBTPU_ENVIRONMENT,
    TPU_EXTRA_HINT,
    XlaTpu,
    libtpu_environment,
    libtpu_installed,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._confirm import CompileVerdict, ConfirmJob, ConfirmResult, OpCandidate, confirm_on_tpu

#: Loaded when first asked for: ``check`` needs them, and the console script, which picks a
#: backend for a capture child's environment before that child starts, does not.
_CONFIRM_NAMES = frozenset(
    {"CompileVerdict", "ConfirmJob", "ConfirmResult", "OpCandidate", "confirm_on_tpu"}
)


def __getattr__(name: str) -> Any:
    if name in _CONFIRM_NAMES:
        from . import _confirm

        return getattr(_confirm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BACKENDS",
    "Backend",
    "BackendName",
    "Compiled",
    "CompileVerdict",
    "ConfirmJob",
    "ConfirmResult",
    "OpCandidate",
    "confirm_on_tpu",
    "LIBTPU_ENVIRONMENT",
    "LocalJax",
    "Lowered",
    "TPU_EXTRA_HINT",
    "TensorFlow",
    "XlaTpu",
    "backend_for",
    "capture_for",
    "estimate_note",
    "libtpu_environment",
    "libtpu_installed",
]
