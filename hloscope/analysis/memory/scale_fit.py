"""How large can it get, as data: a line ``peak = a + b * size`` through two compiles' peaks,
its check at a third, and the largest size whose predicted peak stays under a limit.

``hloscope memory SCRIPT.py:FUNCTION --scale ARG:DIM --device NAME`` compiles the function at
three sizes of one argument's dimension (:mod:`hloscope.drivers.memory_scale`, through the
backend the registry picks for the device); this module takes the three peaks and fits them,
and compiles nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...errors import UsageProblem

__all__ = ["ScaleSpec", "ScalePoint", "ScaleResult", "parse_scale", "fit_scale"]


@dataclass(frozen=True, slots=True)
class ScaleSpec:
    """``ARG:DIM[:S1,S2,S3]``: the argument (a parameter name or a position), the dimension
    and, when given, the two fitting sizes and the checking size."""

    argument: str | int
    dim: int
    sizes: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class ScalePoint:
    """One compile: the dimension's ``size`` and the ``peak_bytes`` the device is judged by
    (as ``hloscope memory`` judges the target's own: XLA:TPU's peak for its compile, a TPU's
    tiles added to another compiler's); ``refused`` when the compiler refused the program for
    want of memory (the peak is then what it said it needs)."""

    size: int
    peak_bytes: int
    refused: bool = False

    def to_dict(self) -> dict[str, Any]:
        point: dict[str, Any] = {"size": self.size, "peak_bytes": self.peak_bytes}
        if self.refused:
            point["does_not_compile"] = True
        return point


@dataclass(frozen=True, slots=True)
class ScaleResult:
    """The line through two compiles, its check at a third, and the largest size that fits.

    ``intercept`` and ``slope`` are ``a`` and ``b`` of ``peak = a + b * size`` (bytes, bytes per
    unit of size); ``error`` is ``(predicted - measured) / measured`` at the check;
    ``largest_size`` is ``None`` when the peak does not grow with the size (any size fits if
    the first does), and 0 when even a size of 1 is over the limit. ``backend`` is the label of
    the registry's row that compiled each size, ``compiled_by`` its words for its compiler,
    ``compiled_for`` the device kind it compiled for (``None``: an estimate standing in for
    the device, ``estimate_note`` says why).
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
    compiled_by: str | None = None
    compiled_for: str | None = None
    estimate_note: str | None = None

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
            "compiled_by": self.compiled_by,
            "compiled_for": self.compiled_for,
            "estimate_note": self.estimate_note,
            "points": [p.to_dict() for p in self.points],
            "intercept_bytes": self.intercept,
            "bytes_per_size": self.slope,
            "check": {
                **self.check.to_dict(),
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


def fit_scale(
    spec: ScaleSpec,
    points: tuple[ScalePoint, ScalePoint, ScalePoint],
    limit_bytes: int,
    compiled: dict[str, Any],
) -> ScaleResult:
    """The line through ``points``' first two, checked at the third; ``compiled`` says what
    compiled them (``backend``, ``compiled_by``, ``compiled_for``, ``estimate_note``)."""
    first, second, check = points
    if first.size == second.size:
        raise UsageProblem(
            f"--scale {spec.argument}:{spec.dim}: the two fitting compiles have the same size "
            f"({first.size}): give the sizes (ARG:DIM:S1,S2,S3)"
        )
    slope = (second.peak_bytes - first.peak_bytes) / (second.size - first.size)
    intercept = first.peak_bytes - slope * first.size
    return ScaleResult(
        spec=spec,
        argument=str(spec.argument),
        points=(first, second),
        check=check,
        predicted_check_bytes=round(intercept + slope * check.size),
        intercept=intercept,
        slope=slope,
        limit_bytes=limit_bytes,
        largest_size=_largest(intercept, slope, limit_bytes),
        backend=str(compiled.get("backend")),
        compiled_by=compiled.get("compiled_by"),
        compiled_for=compiled.get("compiled_for"),
        estimate_note=compiled.get("estimate_note"),
    )


def _largest(intercept: float, slope: float, limit_bytes: int) -> int | None:
    """The largest whole size whose predicted peak is at most ``limit_bytes``."""
    if slope <= 0:
        return None
    size = math.floor((limit_bytes - intercept) / slope)
    while size > 0 and intercept + slope * size > limit_bytes:  # floating point at the edge
        size -= 1
    return max(size, 0)
