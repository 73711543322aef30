"""An HLO module's text compiled for a device JAX sees here, and run there.

What ``bench`` times when it has a module instead of a function (an HLO file, a dump, one
kernel cut out of a module): XLA parses the text, compiles it for the ``jax.Device`` with the
entry parameters in the layouts asked for, and :class:`CompiledHlo` runs it on device arrays.
:meth:`~hloscope.backends.LocalJax.compile_hlo` is the door; jaxlib's private APIs stay in
:mod:`._jaxlib`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import XlaCompileFailed

__all__ = ["CompiledHlo", "compile_hlo"]


class CompiledHlo:
    """An HLO module compiled for one device: called with device arrays (in the parameters'
    layouts) it runs the module and returns its outputs, a tuple result flattened into its
    elements, without waiting for the device; :meth:`as_text` is the optimized module."""

    __slots__ = ("loaded", "device")

    def __init__(self, loaded: Any, device: Any) -> None:
        self.loaded = loaded  # jaxlib's LoadedExecutable
        self.device = device

    def __call__(self, *arrays: Any) -> list[Any]:
        from ._jaxlib import execute

        return execute(self.loaded, arrays)

    def as_text(self) -> str:
        """The optimized HLO XLA made of the module for this device (made when asked: a
        kernel timed alone never needs it)."""
        from ._jaxlib import executable_hlo_text

        return executable_hlo_text(self.loaded)


def compile_hlo(
    text: str,
    device: Any,
    layouts: Sequence[tuple[Any, Sequence[int], Sequence[int]]] | None = None,
) -> CompiledHlo:
    """Compile ``text`` for ``device`` (a ``jax.Device``); ``layouts`` gives, per entry
    parameter, ``(numpy dtype, dims, minor_to_major)``. XLA's refusal is
    :class:`~.errors.XlaParseFailed` or :class:`~.errors.XlaCompileFailed` with its first
    line."""
    from ..errors import HloscopeError
    from ._jaxlib import xla_compile

    try:
        loaded = xla_compile(text, device, layouts)
    except HloscopeError:
        raise
    except Exception as error:  # noqa: BLE001 - XLA's importer raises its runtime's errors
        # (XLA:TPU's tiled layouts: "UNIMPLEMENTED: Tiled layout is not supported yet").
        raise XlaCompileFailed(str(error).strip().splitlines()[0]) from None
    return CompiledHlo(loaded, device)
