"""What to do: the fixes table's row for an offender."""

from __future__ import annotations

from collections.abc import Iterable

from ..unsupported.findings import Reason
from ..unsupported.fixes import suggest


def advise(names: Iterable[str], reason: Reason) -> str:
    """The first fixes row for any of ``names`` (most specific first), else the generic
    advice for ``reason``."""
    names = [n for n in names if n]
    for name in names:
        advice = suggest(name)
        if advice:
            return advice
    return suggest(names[0] if names else "", reason)
