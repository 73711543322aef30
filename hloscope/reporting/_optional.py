"""An optional part of a page: made, or a note on the page saying why it was left out."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol, TypeVar

from ..errors import HloscopeError

__all__ = ["optional", "DEBUG_ENV"]

DEBUG_ENV = "HLOSCOPE_DEBUG"

T = TypeVar("T")


class _Noted(Protocol):
    notes: list[str]


def optional(report: _Noted, what: str, build: Callable[[], T]) -> T | None:
    """``build()``, or ``None`` with a note on the report when it fails: an optional section
    that cannot be made must not cost the user the rest of the page (``HLOSCOPE_DEBUG=1``
    lets the error through)."""
    try:
        return build()
    except Exception as error:  # noqa: BLE001 - reported as a note, see above
        if os.environ.get(DEBUG_ENV):
            raise
        if isinstance(error, HloscopeError):
            text = error.one_line()
        else:
            first = str(error).splitlines()[0] if str(error) else ""
            text = f"{type(error).__name__}: {first}" if first else type(error).__name__
        report.notes.append(f"{what} left out: {text}")
        return None
