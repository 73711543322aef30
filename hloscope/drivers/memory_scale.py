"""How large can it get: a ``SCRIPT.py:FUNCTION`` compiled at three sizes of one argument's
dimension for a device, and the peaks fitted (``hloscope memory --scale ARG:DIM --device NAME``).

Each size is a capture of the function with its example argument ``ARG`` resized
(:meth:`hloscope.capture.target.Target.resolve` with ``scale``, cached as any
``SCRIPT.py:FUNCTION``), compiled in the capture's child by the backend the registry picks for
the device, as every ``--device`` command compiles: XLA:TPU offline for a TPU (its own peak, its
own layouts), a registered backend for what it claims, else this machine's JAX standing in
(an estimate, said so). Each peak is the one ``hloscope memory`` judges the target's own by
(:func:`hloscope.analysis.memory.device_report.device_report`): XLA:TPU's peak for its compile,
another compiler's padded to the TPU's tiles. The line through the first two and its check at
the third are :mod:`hloscope.analysis.memory.scale_fit`'s.

The default sizes are the example argument's own size ``n``, ``2n`` (the two the line goes
through) and ``3n`` (the check, past both, as the prediction will be); ``ARG:DIM:S1,S2,S3``
gives them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..analysis.memory import memory_of_capture
from ..analysis.memory.device_report import device_report
from ..analysis.memory.fit import memory_device, parse_limit
from ..analysis.memory.scale_fit import ScalePoint, ScaleResult, ScaleSpec, fit_scale

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import DeviceSpec

__all__ = ["scale_memory", "scale_texts"]

#: Multiples of the example's own size: two fitted, then the check.
DEFAULT_FACTORS = (1, 2, 3)


def scale_texts(spec: ScaleSpec) -> list[str]:
    """What the capture child is told of each size (``x:0*2``, ``x:0=64``)."""
    what = f"{spec.argument}:{spec.dim}"
    if spec.sizes is None:
        return [f"{what}*{factor}" for factor in DEFAULT_FACTORS]
    return [f"{what}={size}" for size in spec.sizes]


def scale_memory(
    target: str,
    spec: ScaleSpec,
    device: DeviceSpec | str,
    limit: float | str,
    *,
    refresh: bool = False,
    on_compile: Callable[[str], object] | None = None,
) -> ScaleResult:
    """Compile ``target`` (``SCRIPT.py:FUNCTION``) for ``device`` at three sizes of ``spec``'s
    dimension and fit the peak (see the module docstring); ``on_compile(scale)`` is called
    before each size."""
    fraction = parse_limit(limit)
    row = memory_device(device)
    points = []
    compiled: dict[str, Any] = {}
    for text in scale_texts(spec):
        if on_compile is not None:
            on_compile(text)
        point, compiled = _compile_at(target, text, device, row, fraction, refresh)
        points.append(point)
    first, second, check = points
    limit_bytes = int((row.memory_bytes or 0) * fraction)
    return fit_scale(spec, (first, second, check), limit_bytes, compiled)


def _compile_at(
    target: str, text: str, device: Any, row: Any, fraction: float, refresh: bool
) -> tuple[ScalePoint, dict[str, Any]]:
    """One size: its capture (the registry's backend, in the capture's child), the peak the
    device is judged by, and what compiled it."""
    from ..capture.target import Target

    opened = Target.resolve(target, device=device, scale=text, refresh=refresh)
    result = memory_of_capture(opened.capture())
    judged = device_report(result, row, fraction)["peak_bytes"]
    scaled = (opened.manifest or {}).get("scaled") or {}
    size = scaled.get("size")
    if not isinstance(size, int):  # every scaled capture says its size; an old one may not
        raise _no_size(target, text)
    return ScalePoint(size, judged, refused=result.refused is not None), opened.compile_info()


def _no_size(target: str, text: str) -> Exception:
    from ..capture.errors import CaptureError

    return CaptureError(
        f"{target} at {text}: the capture did not say the size it compiled (--refresh "
        "compiles it again)"
    )
