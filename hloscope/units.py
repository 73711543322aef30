"""Human-readable quantities: bytes in binary units (``1.5 KiB``), counts (``12.3M``) and
durations (``1.23 ms``).

One place for every report, message and table, so that the same number reads the same way in
``summary``, ``fusions``, ``diff``, ``ls``, ``bench`` and ``profile``.
"""

from __future__ import annotations

import math

__all__ = ["format_bytes", "format_count", "format_duration", "TIME_UNITS"]

#: The units durations are written in, largest first: (seconds per unit, unit).
TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "\u00b5s"), (1e-9, "ns"))


def _scaled(n: float, base: int, units: tuple[str, ...], top: str) -> str:
    """``n`` in the largest unit that keeps it below ``base``; the first unit is whole numbers."""
    sign = "-" if n < 0 else ""
    value = float(abs(n))
    for i, unit in enumerate(units):
        if value < base:
            return f"{sign}{int(value)}{unit}" if i == 0 else f"{sign}{value:.1f}{unit}"
        value /= base
    return f"{sign}{value:.1f}{top}"


def format_bytes(n: float | None) -> str:
    """1536 -> '1.5 KiB'; -2048 -> '-2.0 KiB'; None -> '?' (e.g. an unbounded dynamic shape)."""
    if n is None:
        return "?"
    return _scaled(n, 1024, (" B", " KiB", " MiB", " GiB"), " TiB")


def format_count(n: float | None) -> str:
    """12_345_678 -> '12.3M'; 0 -> '0'; None -> '-'."""
    if n is None:
        return "-"
    return _scaled(n, 1000, ("", "k", "M", "G"), "T")


def _three_figures(value: float) -> str:
    """``24.0``, ``1.23``, ``812``: three significant figures, trailing zeros kept, so times in
    a column read alike (``.3g`` would write ``24`` beside ``22.9``)."""
    size = abs(value)
    if size >= 99.95:
        return f"{value:.0f}"
    if size >= 9.995:
        return f"{value:.1f}"
    if size >= 0.9995:
        return f"{value:.2f}"
    return f"{value:.3g}"  # below 1 of the smallest unit: as many places as it needs


def format_duration(seconds: float | None) -> str:
    """A duration in the unit that keeps three figures: ``0.00123`` -> ``1.23 ms``,
    ``0.024`` -> ``24.0 ms``, ``0.0009996`` -> ``1.00 ms`` (a value that rounds to 1000 of a
    unit is written in the next one, never ``1e+03 µs`` or ``1000 µs``), ``4321.0`` ->
    ``4321 s``; ``None`` or NaN -> ``-``."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds == 0:
        return "0 s"
    size = abs(seconds)
    if size >= 999.5:  # past the largest unit: whole seconds, never an exponent
        return f"{seconds:.0f} s"
    for index, (scale, unit) in enumerate(TIME_UNITS):
        if size >= scale or index == len(TIME_UNITS) - 1:
            if index and size / scale >= 999.5:  # rounds to 1000 of it: 1.00 of the next unit
                scale, unit = TIME_UNITS[index - 1]
            return f"{_three_figures(seconds / scale)} {unit}"
    raise AssertionError("unreachable: the last unit takes every duration")
