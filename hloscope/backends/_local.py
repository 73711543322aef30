"""The local backends: the JAX and the TensorFlow installed in this process."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..devices import is_tpu_kind
from ._base import Backend, BackendName, Compiled, Lowered, does_not_fit

if TYPE_CHECKING:  # pragma: no cover
    from .hlo_compile import CompiledHlo

# ``jax_compile`` is imported where a backend lowers, not here: picking a backend (the console
# script does, for a capture child's environment, before the child starts) needs none of it.

__all__ = ["LocalJax", "TensorFlow"]


def local_device_kind() -> str | None:
    """JAX's default device kind here (``cpu``, ``TPU v5 lite``, ``NVIDIA H100 80GB HBM3``)."""
    from .frameworks import require_jax

    jax = require_jax()
    try:
        return str(jax.devices()[0].device_kind)
    except Exception:  # a broken backend: the capture itself will say what is wrong
        return None


class LocalJax(Backend):
    """The JAX installed here, compiling for its default device (what ``jax.jit`` does).

    ``keep_refused``: on a TPU host, a program that does not fit is an answer (a capture
    holding XLA's refusal, no executable), as offline; ``False`` lets XLA's own error through,
    for a caller that must run what it compiles (bench)."""

    name = BackendName.LOCAL_JAX

    def __init__(self, keep_refused: bool = True) -> None:
        self.keep_refused = keep_refused

    def lower(self, fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Lowered:
        from .jax_compile import compile_jax, lower_jax

        lowering = lower_jax(fn, args, kwargs)

        def compile_(passes: str | None) -> Compiled:
            kind = local_device_kind()
            # On a TPU, as through XLA:TPU offline: the optimized stage is the module XLA
            # dumped (its buffer assignment and live range name its instructions; the
            # executable prints other names), and a program that does not fit is an answer.
            on_tpu = is_tpu_kind(kind)
            capture, executable = compile_jax(
                lowering,
                passes,
                keep_refused=does_not_fit if on_tpu and self.keep_refused else None,
                dumped_after=on_tpu,
            )
            # The compile is for this machine's device: what it made runs here.
            return Compiled(capture, kind, executable=executable)

        return Lowered(self, dict(lowering.stages), compile_)

    def compile_hlo(
        self,
        text: str,
        device: Any,
        layouts: Sequence[tuple[Any, Sequence[int], Sequence[int]]] | None = None,
    ) -> CompiledHlo:
        """An HLO module's ``text`` compiled for ``device`` (a ``jax.Device`` here), runnable
        (:mod:`.hlo_compile`)."""
        from .hlo_compile import compile_hlo

        return compile_hlo(text, device, layouts)


class TensorFlow(Backend):
    """``tf.function(jit_compile=True)`` and Keras models, through TensorFlow's XLA bridge."""

    name = BackendName.TENSORFLOW

    def lower(self, fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Lowered:
        from .tf_compile import capture_tf

        def compile_(passes: str | None) -> Compiled:
            return Compiled(capture_tf(fn, args, kwargs, passes), "cpu")

        return Lowered(self, {}, compile_)
