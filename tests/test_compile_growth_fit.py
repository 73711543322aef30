"""The fits of ``compile-time --scale``: a constant, a line and a power law through two points,
chosen by a third (synthetic numbers: the maths alone)."""

from __future__ import annotations

import math

import pytest

from hloscope.analysis.compile_growth_fit import (
    FitKind,
    Growth,
    fit_constant,
    fit_growth,
    fit_line,
    fit_power,
)


def test_the_line_through_two_points_has_their_intercept_and_slope() -> None:
    fit = fit_line(10, 7.0, 30, 13.0)  # t = 4 + 0.3 n
    assert fit.kind is FitKind.LINEAR
    assert fit.a == pytest.approx(4.0)
    assert fit.b == pytest.approx(0.3)
    assert fit.at(100) == pytest.approx(34.0)


def test_the_power_law_through_two_points_recovers_its_exponent() -> None:
    fit = fit_power(4, 2 * 4**1.5, 16, 2 * 16**1.5)
    assert fit is not None and fit.kind is FitKind.POWER
    assert fit.b == pytest.approx(1.5)
    assert fit.a == pytest.approx(2.0)
    assert fit.exponent(1000) == pytest.approx(1.5)


def test_a_power_law_needs_positive_times() -> None:
    assert fit_power(1, 0.0, 2, 1.0) is None
    only_line = fit_growth((1, 0.0), (2, 1.0), (3, 2.0))
    assert [f.kind for f in only_line.fits] == [FitKind.CONSTANT, FitKind.LINEAR]


def test_linear_growth_is_fitted_by_the_line_and_checked_exactly() -> None:
    def t(n: float) -> float:
        return 1.5 + 0.25 * n

    growth = fit_growth((8, t(8)), (16, t(16)), (32, t(32)))
    assert growth.chosen.kind is FitKind.LINEAR
    assert growth.error() == pytest.approx(0.0, abs=1e-12)
    assert growth.chosen.at(64) == pytest.approx(t(64))
    # a fixed cost of 1.5 s against 4 s of growth at 16: sublinear there, not flat
    assert growth.growth is Growth.SUBLINEAR
    assert growth.exponent == pytest.approx(0.25 * 16 / t(16))


def test_superlinear_growth_is_fitted_by_the_power_law() -> None:
    def t(n: float) -> float:
        return 0.01 * n**2

    growth = fit_growth((8, t(8)), (16, t(16)), (32, t(32)))
    assert growth.chosen.kind is FitKind.POWER
    assert growth.error() == pytest.approx(0.0, abs=1e-12)
    assert growth.growth is Growth.SUPERLINEAR
    line = next(f for f in growth.fits if f.kind is FitKind.LINEAR)
    assert growth.error(line) < -0.2  # the line would have under-predicted by far
    assert growth.to_dict(at=64)["predicted_at_s"] == pytest.approx(t(64))


def test_a_flat_compile_is_called_flat_despite_noise() -> None:
    growth = fit_growth((2, 1.00), (16, 1.08), (32, 0.97))
    assert growth.growth is Growth.FLAT
    assert abs(growth.chosen.at(1024) - 1.0) < 0.5


def test_the_check_chooses_the_fit_nearer_the_measured_third() -> None:
    # both fits go through (10, 10) and (20, 20 * 1.2); the check at 40 decides
    line = fit_line(10, 10, 20, 24)
    power = fit_power(10, 10, 20, 24)
    assert power is not None
    near_power = fit_growth((10, 10), (20, 24), (40, power.at(40) * 1.01))
    near_line = fit_growth((10, 10), (20, 24), (40, line.at(40) * 0.99))
    assert near_power.chosen.kind is FitKind.POWER
    assert near_line.chosen.kind is FitKind.LINEAR
    assert near_line.error() == pytest.approx(1 / 0.99 - 1)


def test_the_fitting_sizes_must_differ() -> None:
    with pytest.raises(ValueError):
        fit_growth((4, 1.0), (4, 2.0), (8, 3.0))


def test_the_json_says_the_check_and_both_fits() -> None:
    growth = fit_growth((1, 2.0), (2, 3.0), (4, 5.5))
    payload = growth.to_dict(at=8)
    assert payload["check"]["measured_s"] == 5.5
    assert payload["check"]["predicted_s"] == pytest.approx(growth.chosen.at(4))
    assert {f["kind"] for f in payload["fits"]} == {"constant", "linear", "power"}
    assert math.isfinite(payload["predicted_at_s"])


def test_a_time_that_fell_with_the_size_is_said_to_fall() -> None:
    growth = fit_growth((4, 1.4), (8, 0.9), (16, 0.55))
    assert growth.chosen.kind is FitKind.POWER
    assert growth.exponent < 0
    assert growth.growth is Growth.FALLING


def test_noise_between_two_flat_compiles_is_not_extrapolated() -> None:
    # A scan compiled at 25, 200 and 400 steps on a busy 2-core machine (CI, 2026-12-06): the
    # first size's compile was the slowest. A power law through the first two predicts the
    # time falling by a third at 400; the time does not depend on the length, and the mean of
    # the two does not fall.
    growth = fit_growth((25, 0.306), (200, 0.210), (400, 0.268))
    assert growth.chosen == fit_constant(0.306, 0.210)
    assert growth.growth is Growth.FLAT and growth.exponent == 0.0
    assert abs(growth.error()) < 0.05
    power = next(f for f in growth.fits if f.kind is FitKind.POWER)
    assert growth.error(power) < -0.25
    assert growth.to_dict(at=10_000)["predicted_at_s"] == pytest.approx(0.258)
    assert growth.chosen.formula() == "0.258 s"
