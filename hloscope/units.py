"""Human-readable quantities: bytes in binary units (``1.5 KiB``) and counts (``12.3M``).

One place for every report, message and table, so that the same number reads the same way in
``summary``, ``fusions``, ``diff`` and ``ls``.
"""

from __future__ import annotations

__all__ = ["format_bytes", "format_count"]


def format_bytes(n: float | None) -> str:
    """1536 -> '1.5 KiB'; -2048 -> '-2.0 KiB'; None -> '?' (e.g. an unbounded dynamic shape)."""
    if n is None:
        return "?"
    sign = "-" if n < 0 else ""
    value = float(abs(n))
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{sign}{int(value)} B" if unit == "B" else f"{sign}{value:.1f} {unit}"
        value /= 1024
    return f"{sign}{value:.1f} TiB"


def format_count(n: float | None) -> str:
    """12_345_678 -> '12.3M'; 0 -> '0'; None -> '-'."""
    if n is None:
        return "-"
    sign = "-" if n < 0 else ""
    value = float(abs(n))
    for unit in ("", "k", "M", "G"):
        if value < 1000:
            return f"{sign}{int(value)}" if unit == "" else f"{sign}{value:.1f}{unit}"
        value /= 1000
    return f"{sign}{value:.1f}T"
