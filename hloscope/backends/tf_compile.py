"""TensorFlow through its XLA bridge: ``experimental_get_compiler_ir`` of a
``tf.function(jit_compile=True)`` or a Keras model, as a :class:`~hloscope.backends.record.Capture`.

Nothing here imports TensorFlow until :func:`capture_tf` is called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import CaptureError
from .record import TF_STAGES, Capture, module_name, package_versions

__all__ = ["is_tensorflow_function", "capture_tf"]


def is_tensorflow_function(fn: Any) -> bool:
    """A ``tf.function`` or a Keras model, recognised without importing TensorFlow."""
    if callable(getattr(fn, "experimental_get_compiler_ir", None)):
        return True
    return _is_keras_model(fn)


def _is_keras_model(fn: Any) -> bool:
    modules = [klass.__module__ for klass in type(fn).__mro__]
    return any(m.startswith(("keras.", "tf_keras.")) for m in modules) and hasattr(fn, "call")


def capture_tf(
    fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any], passes: str | None
) -> Capture:
    if passes is not None:
        raise CaptureError(
            "per-pass snapshots of a tf.function need XLA_FLAGS set before TensorFlow starts: "
            "use `hloscope capture SCRIPT.py --passes REGEX`"
        )
    from .frameworks import require_tensorflow

    tf = require_tensorflow()

    if _is_keras_model(fn) and not callable(getattr(fn, "experimental_get_compiler_ir", None)):
        fn = tf.function(fn, jit_compile=True)
    try:
        compiler_ir = fn.experimental_get_compiler_ir(*args, **kwargs)
    except ValueError as error:
        if "jit_compile" in str(error):
            raise CaptureError(
                "this tf.function is not XLA-compiled: "
                "define it with tf.function(..., jit_compile=True)"
            ) from None
        raise
    stages = {stage: compiler_ir(stage=stage) for stage in TF_STAGES}
    serialized = {"hlo_serialized": compiler_ir(stage="hlo_serialized")}
    fallback_name: str = getattr(fn, "__name__", "function")
    return Capture(
        frontend="tensorflow",
        name=module_name(stages["hlo"]) or fallback_name,
        stages=stages,
        serialized=serialized,
        versions=package_versions("tensorflow", "tensorflow-cpu", "keras"),
    )
