"""The errors of the device registry.

- :class:`UnknownDeviceError`: a ``--device`` name (or ``device=`` argument) that no row of
  the registry holds, or a slice shape the chip's topologies cannot take (exit status 2).
- :class:`DeviceTableError`: a chips file (``devices/chips.toml``) whose row cannot be read:
  a field missing, of the wrong type or unknown, said with the chip and the field.
"""

from __future__ import annotations

from ..errors import FileFormatError, UsageProblem

__all__ = ["DeviceTableError", "UnknownDeviceError"]


class UnknownDeviceError(UsageProblem):
    """A device name no row of the registry holds, or a slice it cannot be cut into."""


class DeviceTableError(FileFormatError):
    """A chips file that cannot be read into device rows: one line naming the chip and field."""
