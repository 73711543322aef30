"""How large can it get: the peak memory of a function as one argument's dimension grows.

``hloscope memory SCRIPT.py:FUNCTION --scale ARG:DIM --device NAME`` compiles the function
(with jax, in this process) at two sizes of dimension ``DIM`` of argument ``ARG``, fits a line
``peak = a + b * size`` through the two peaks, compiles it once more at a third size to say how
far the line is from what XLA does there, and solves the line for the largest size whose peak
stays under the device's limit.

Each peak is the one ``hloscope memory`` gives a function target
(:func:`hloscope.drivers.memory.memory_of_function`): XLA's own live-range peak of that compile,
read from the compile's live-range report (hloscope's simulation of the optimized module when the
compile dumped none), not ``memory_analysis()``'s ``peak_memory_in_bytes``, which on CPU counts
only arguments and outputs. On a TPU device each peak is padded to TPU tiles first
(:mod:`hloscope.analysis.memory.device_report`). The compiles run on the backend jax has
here: a CPU's buffer assignment stands in for the device's, which a TPU's or GPU's compiler
may lay out differently.

The default sizes are the example argument's own size ``n``, ``2n`` (the two the line goes
through) and ``3n`` (the check, past both, as the prediction will be); ``ARG:DIM:S1,S2,S3``
gives them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.memory.device_report import verdict_peak
from ..analysis.memory.fit import parse_limit
from ..capture.scaled_arguments import argument_position, resized_array
from ..devices import Device
from ..errors import UsageProblem

__all__ = ["ScaleSpec", "ScalePoint", "ScaleResult", "parse_scale", "scale_memory"]


@dataclass(frozen=True, slots=True)
class ScaleSpec:
    """``ARG:DIM[:S1,S2,S3]``: the argument (a parameter name or a position), the dimension
    and, when given, the two fitting sizes and the checking size."""

    argument: str | int
    dim: int
    sizes: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class ScalePoint:
    """One compile: the dimension's ``size`` and the ``peak_bytes`` XLA gives it."""

    size: int
    peak_bytes: int


@dataclass(frozen=True, slots=True)
class ScaleResult:
    """The line through two compiles, its check at a third, and the largest size that fits.

    ``intercept`` and ``slope`` are ``a`` and ``b`` of ``peak = a + b * size`` (bytes, bytes per
    unit of size); ``error`` is ``(predicted - measured) / measured`` at the check;
    ``largest_size`` is ``None`` when the peak does not grow with the size (any size fits if
    the first does), and 0 when even a size of 1 is over the limit.
    """

    spec: ScaleSpec
    argument: str
    points: tuple[ScalePoint, ScalePoint]
    check: ScalePoint
    predicted_check_bytes: int
    intercept: float
    slope: float
    limit_bytes: int
    largest_size: int | None
    backend: str

    @property
    def error(self) -> float:
        measured = self.check.peak_bytes
        return (self.predicted_check_bytes - measured) / measured if measured else 0.0

    def predict(self, size: int) -> int:
        """The line's peak at ``size``."""
        return round(self.intercept + self.slope * size)

    def to_dict(self) -> dict[str, Any]:
        """The ``scale`` object of ``hloscope memory --scale --json``."""
        return {
            "argument": self.argument,
            "dim": self.spec.dim,
            "backend": self.backend,
            "points": [{"size": p.size, "peak_bytes": p.peak_bytes} for p in self.points],
            "intercept_bytes": self.intercept,
            "bytes_per_size": self.slope,
            "check": {
                "size": self.check.size,
                "peak_bytes": self.check.peak_bytes,
                "predicted_bytes": self.predicted_check_bytes,
                "error": self.error,
            },
            "limit_bytes": self.limit_bytes,
            "largest_size": self.largest_size,
            "largest_size_peak_bytes": (
                self.predict(self.largest_size) if self.largest_size else None
            ),
        }


def parse_scale(text: str) -> ScaleSpec:
    """``"x:0"``, ``"1:0"``, ``"batch:0:8,16,32"`` -> a :class:`ScaleSpec`; a
    :class:`~hloscope.errors.UsageProblem` for anything else."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0] or not _is_int(parts[1]):
        raise UsageProblem(
            f"--scale {text!r}: give ARG:DIM (an argument's name or position and a dimension "
            "index, e.g. x:0), optionally :S1,S2,S3 (two sizes to fit and one to check)"
        )
    argument: str | int = int(parts[0]) if parts[0].isdigit() else parts[0]
    sizes = None
    if len(parts) == 3:
        values = parts[2].split(",")
        if len(values) != 3 or not all(v.strip().isdigit() and int(v) > 0 for v in values):
            raise UsageProblem(f"--scale {text!r}: the sizes are three positive integers")
        a, b, c = (int(v) for v in values)
        if a == b:
            raise UsageProblem(f"--scale {text!r}: the two fitting sizes must differ")
        sizes = (a, b, c)
    return ScaleSpec(argument, int(parts[1]), sizes)


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


def _position(fn: Callable[..., Any], spec: ScaleSpec, args: Sequence[Any], kwargs: dict) -> Any:
    """Where the argument is: an ``int`` position in ``args`` or a ``str`` key of ``kwargs``."""
    return argument_position(fn, spec.argument, args, kwargs)


def _peak(fn: Callable[..., Any], args: tuple, kwargs: dict, device: Device) -> int:
    from ..drivers.memory import memory_of_function

    return verdict_peak(memory_of_function(fn, *args, **kwargs), device)


def scale_memory(
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    spec: ScaleSpec,
    device: Device,
    limit: float | str,
) -> ScaleResult:
    """Compile ``fn`` at three sizes of ``spec``'s dimension and fit the peak (see the module
    docstring)."""
    import jax

    where = _position(fn, spec, args, kwargs)
    label = str(spec.argument)
    base = args[where] if isinstance(where, int) else kwargs[where]
    shape = getattr(base, "shape", None)
    if spec.sizes is not None:
        sizes = spec.sizes
    else:
        resized_array(base, spec.dim, 1, label)  # says a non-array or a bad dimension
        n = int(shape[spec.dim]) if shape is not None else 1
        sizes = (n, 2 * n, 3 * n)

    def compile_at(size: int) -> ScalePoint:
        value = resized_array(base, spec.dim, size, label)
        call_args = list(args)
        call_kwargs = dict(kwargs)
        if isinstance(where, int):
            call_args[where] = value
        else:
            call_kwargs[where] = value
        return ScalePoint(size, _peak(fn, tuple(call_args), call_kwargs, device))

    first, second, check = (compile_at(s) for s in sizes)
    slope = (second.peak_bytes - first.peak_bytes) / (second.size - first.size)
    intercept = first.peak_bytes - slope * first.size
    limit_bytes = int((device.memory_bytes or 0) * parse_limit(limit))
    return ScaleResult(
        spec=spec,
        argument=label,
        points=(first, second),
        check=check,
        predicted_check_bytes=round(intercept + slope * check.size),
        intercept=intercept,
        slope=slope,
        limit_bytes=limit_bytes,
        largest_size=_largest(intercept, slope, limit_bytes),
        backend=jax.default_backend(),
    )


def _largest(intercept: float, slope: float, limit_bytes: int) -> int | None:
    """The largest whole size whose predicted peak is at most ``limit_bytes``."""
    if slope <= 0:
        return None
    size = math.floor((limit_bytes - intercept) / slope)
    while size > 0 and intercept + slope * size > limit_bytes:  # floating point at the edge
        size -= 1
    return max(size, 0)
