"""The registry: every device row, found by ``--device`` name, alias or JAX ``device_kind``.

Rows are kept in one list, the built-in ones first; :func:`register` adds a row (a new chip is
one row, and every command's ``--device`` then knows it) and :func:`unregister` takes it out
again. Names are compared without case, with ``_`` and blanks read as ``-``, and a TPU's
``tpu-`` may be left off (``v5e`` is ``tpu-v5e``).
"""

from __future__ import annotations

import re

from ._model import Device, Platform
from ._table import BUILT_IN
from .errors import UnknownDeviceError

__all__ = ["devices", "lookup", "for_kind", "register", "unregister", "names", "normalize"]

_ROWS: list[Device] = list(BUILT_IN)


def normalize(name: str) -> str:
    """``"TPU_v5e "`` -> ``"tpu-v5e"``: how names are compared."""
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def devices(platform: Platform | str | None = None) -> tuple[Device, ...]:
    """Every row, in matching order; of one ``platform`` when given."""
    if platform is None:
        return tuple(_ROWS)
    wanted = Platform(platform)
    return tuple(row for row in _ROWS if row.platform is wanted)


def names(platform: Platform | str | None = None) -> list[str]:
    """The ``--device`` names of every row (of one ``platform``)."""
    return [row.name for row in devices(platform)]


def _by_name(key: str) -> Device | None:
    for row in _ROWS:
        if key == row.name or key in row.aliases:
            return row
    for row in _ROWS:  # "v5e" for "tpu-v5e"
        if row.is_tpu and f"tpu-{key}" == row.name:
            return row
    return None


def for_kind(device_kind: str) -> Device | None:
    """The first row whose pattern matches JAX's ``device_kind`` (``TPU v5 lite``), or ``None``."""
    return next((row for row in _ROWS if row.matches_kind(device_kind)), None)


def lookup(name: str) -> Device:
    """The row for ``name``: a ``--device`` name or alias, else a ``device_kind`` JAX reports
    (``TPU v5 lite``, ``NVIDIA A100-SXM4-40GB``). Raises :class:`UnknownDeviceError` naming
    the rows there are."""
    found = _by_name(normalize(name)) if name.strip() else None
    if found is None and name.strip():
        found = for_kind(name)
    if found is None:
        raise UnknownDeviceError(f"unknown device {name!r}: hloscope knows {', '.join(names())}")
    return found


def register(device: Device) -> Device:
    """Add ``device`` to the registry, before the built-in rows (so its ``device_kind``
    pattern is tried first). Its name and aliases must be new."""
    taken = {n for row in _ROWS for n in (row.name, *row.aliases)}
    clash = sorted({device.name, *device.aliases} & taken)
    if clash:
        raise ValueError(f"device names already in the registry: {', '.join(clash)}")
    _ROWS.insert(0, device)
    return device


def unregister(name: str) -> None:
    """Take the row named ``name`` out of the registry (tests that add one take it out again)."""
    row = lookup(name)
    _ROWS.remove(row)


def is_tpu_kind(device_kind: str | None) -> bool:
    """Whether JAX's ``device_kind`` names a TPU (``TPU v5 lite``, ``TPU7x``)."""
    return bool(device_kind) and str(device_kind).upper().startswith("TPU")
