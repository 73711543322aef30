"""Human-readable quantities: bytes in binary units (``1.5 KiB``) and counts (``12.3M``).

One place for every report, message and table, so that the same number reads the same way in
``summary``, ``fusions``, ``diff`` and ``ls``.
"""

from __future__ import annotations

__all__ = ["format_bytes", "format_count"]


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
