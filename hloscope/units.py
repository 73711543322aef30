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


def format_duration(seconds: float | None) -> str:
    """A duration in the unit that keeps three figures: ``0.00123`` -> ``1.23 ms``,
    ``0.0009996`` -> ``1 ms`` (a value that rounds to 1000 of a unit is written in the next
    one, never ``1e+03 µs``), ``4321.0`` -> ``4321 s``; ``None`` or NaN -> ``-``."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds == 0:
        return "0 s"
    size = abs(seconds)
    if size >= 999.5:  # past the largest unit: whole seconds, never an exponent
        return f"{seconds:.0f} s"
    for index, (scale, unit) in enumerate(TIME_UNITS):
        if size >= scale or index == len(TIME_UNITS) - 1:
            text = f"{seconds / scale:.3g}"
            if "e" in text:  # 999.7 of a unit rounds to 1e+03: the next unit up says 1
                larger_scale, larger = TIME_UNITS[index - 1]
                return f"{seconds / larger_scale:.3g} {larger}"
            return f"{text} {unit}"
    raise AssertionError("unreachable: the last unit takes every duration")
