"""The errors of the device registry.

- :class:`UnknownDeviceError`: a ``--device`` name (or ``device=`` argument) that no row of
  the registry holds, or a slice shape the chip's topologies cannot take (exit status 2).
"""

from __future__ import annotations

from ..errors import UsageProblem

__all__ = ["UnknownDeviceError"]


class UnknownDeviceError(UsageProblem):
    """A device name no row of the registry holds, or a slice it cannot be cut into."""
