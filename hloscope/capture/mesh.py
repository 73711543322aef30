"""The ``--mesh`` option's text, read as named axis sizes.

Its own module so that the target (which checks a ``--mesh`` before any child starts), the
child runner (which builds the mesh) and ``hloscope try`` (its ``--mesh`` variants) read it the
same way without importing each other.
"""

from __future__ import annotations

from .errors import CaptureUsageError

__all__ = ["parse_mesh"]


def parse_mesh(text: str) -> dict[str, int]:
    """``"data=8,model=4"`` as ``{"data": 8, "model": 4}`` (``--mesh``)."""
    shape: dict[str, int] = {}
    for part in text.split(","):
        name, _, size = part.partition("=")
        if not name.strip() or not size.strip().isdigit() or int(size) < 1:
            raise CaptureUsageError(f"--mesh {text!r}: give AXIS=SIZE pairs, like data=8,model=4")
        if name.strip() in shape:
            raise CaptureUsageError(f"--mesh {text!r}: axis {name.strip()!r} given twice")
        shape[name.strip()] = int(size)
    return shape
