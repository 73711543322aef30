"""How a compile's time grows with a size: two fits through two measured compiles, judged by a
third.

Through the two points ``(n1, t1)``, ``(n2, t2)`` go a line ``t = a + b*n`` (a fixed cost and
a cost per unit of size) and a power law ``t = a * n**k`` (``k`` near 1: linear, above: faster
than linear, near 0: flat). Both pass through both points exactly. Beside them stands a
constant, the two times' mean: a compile whose time does not depend on the size (a scan's
length) differs between the two points by noise alone, and a line or power law drawn through
noise extrapolates it, most often as a time that falls with the size. The third compile, the
check, says which of the three extrapolates: the fit whose prediction there is nearest what
was measured is the one used for the prediction, and its error there is the honest measure of
how far to trust it.

The growth is named from the chosen fit's exponent ``d log t / d log n`` at the larger fitting
size (a power law's ``k``; a line's ``b*n / (a + b*n)``): below :data:`FLAT` the time does not
grow with the size; below ``-FLAT`` it fell (a larger size compiled faster: on a busy
machine, most often noise, which the check's error then shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "FitKind",
    "Growth",
    "Fit",
    "GrowthFit",
    "fit_constant",
    "fit_line",
    "fit_power",
    "fit_growth",
    "FLAT",
]

#: Below this exponent the compile time is called flat in the size.
FLAT = 0.25
_SUBLINEAR = 0.8
_LINEAR = 1.2


class FitKind(StrEnum):
    """The shapes of growth fitted."""

    CONSTANT = "constant"
    LINEAR = "linear"
    POWER = "power"


class Growth(StrEnum):
    """How fast the time grows, from the chosen fit's exponent."""

    FALLING = "falling"
    FLAT = "flat"
    SUBLINEAR = "sublinear"
    LINEAR = "linear"
    SUPERLINEAR = "superlinear"

    @classmethod
    def of(cls, exponent: float) -> Growth:
        if exponent <= -FLAT:
            return cls.FALLING  # a larger size compiled faster: rarely more than noise
        if exponent < FLAT:
            return cls.FLAT
        if exponent < _SUBLINEAR:
            return cls.SUBLINEAR
        return cls.LINEAR if exponent <= _LINEAR else cls.SUPERLINEAR


@dataclass(frozen=True, slots=True)
class Fit:
    """``a`` (:attr:`FitKind.CONSTANT`, ``b`` 0), ``a + b*n`` (:attr:`FitKind.LINEAR`) or
    ``a * n**b`` (:attr:`FitKind.POWER`)."""

    kind: FitKind
    a: float
    b: float

    def at(self, n: float) -> float:
        if self.kind is FitKind.CONSTANT:
            return self.a
        if self.kind is FitKind.LINEAR:
            return self.a + self.b * n
        return self.a * n**self.b

    def exponent(self, n: float) -> float:
        """``d log t / d log n`` at ``n``: how many times faster than the size the time grows."""
        if self.kind is FitKind.CONSTANT:
            return 0.0
        if self.kind is FitKind.POWER:
            return self.b
        value = self.at(n)
        return self.b * n / value if value > 0 else 0.0

    def formula(self) -> str:
        if self.kind is FitKind.CONSTANT:
            return f"{self.a:.3g} s"
        if self.kind is FitKind.LINEAR:
            return f"{self.a:.3g} s + {self.b:.3g} s * n"
        return f"{self.a:.3g} s * n^{self.b:.2f}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "a": self.a, "b": self.b, "formula": self.formula()}


def fit_constant(t1: float, t2: float) -> Fit:
    """The time that does not depend on the size: the mean of the two measured."""
    return Fit(FitKind.CONSTANT, (t1 + t2) / 2, 0.0)


def fit_line(n1: float, t1: float, n2: float, t2: float) -> Fit:
    """The line through two points."""
    b = (t2 - t1) / (n2 - n1)
    return Fit(FitKind.LINEAR, t1 - b * n1, b)


def fit_power(n1: float, t1: float, n2: float, t2: float) -> Fit | None:
    """The power law through two points (``None`` when a time or a size is not positive)."""
    if min(n1, n2, t1, t2) <= 0:
        return None
    k = math.log(t2 / t1) / math.log(n2 / n1)
    return Fit(FitKind.POWER, t1 / n1**k, k)


@dataclass(frozen=True, slots=True)
class GrowthFit:
    """Both fits through two compiles, the check at a third, and the fit chosen by it."""

    fits: tuple[Fit, ...]
    chosen: Fit
    check_size: float
    check_measured: float
    larger_size: float

    def predicted(self, fit: Fit | None = None) -> float:
        return (fit or self.chosen).at(self.check_size)

    def error(self, fit: Fit | None = None) -> float:
        """``(predicted - measured) / measured`` at the check (0 when nothing was measured)."""
        measured = self.check_measured
        return (self.predicted(fit) - measured) / measured if measured else 0.0

    @property
    def exponent(self) -> float:
        return self.chosen.exponent(self.larger_size)

    @property
    def growth(self) -> Growth:
        return Growth.of(self.exponent)

    def to_dict(self, at: float | None = None) -> dict[str, Any]:
        return {
            "fit": self.chosen.to_dict(),
            "growth": str(self.growth),
            "exponent": self.exponent,
            "check": {
                "size": self.check_size,
                "measured_s": self.check_measured,
                "predicted_s": self.predicted(),
                "error": self.error(),
            },
            "fits": [
                {
                    **f.to_dict(),
                    "check_predicted_s": self.predicted(f),
                    "check_error": self.error(f),
                }
                for f in self.fits
            ],
            "predicted_at_s": None if at is None else self.chosen.at(at),
        }


def fit_growth(
    first: tuple[float, float], second: tuple[float, float], check: tuple[float, float]
) -> GrowthFit:
    """Fit ``(size, seconds)`` ``first`` and ``second`` each way; choose by ``check``."""
    (n1, t1), (n2, t2) = first, second
    if n1 == n2:
        raise ValueError("the two fitting sizes must differ")
    fits: list[Fit] = [fit_constant(t1, t2), fit_line(n1, t1, n2, t2)]
    power = fit_power(n1, t1, n2, t2)
    if power is not None:
        fits.append(power)
    size, measured = check
    chosen = min(fits, key=lambda f: abs(f.at(size) - measured))
    return GrowthFit(tuple(fits), chosen, size, measured, max(n1, n2))
