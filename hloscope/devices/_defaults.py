"""The chip a question about "a TPU" is answered for when no chip is named, and the figures
read from its row: the MXU size and the tile a TPU check or a padded size assumes.

They are read from the built-in row, so that registering or unregistering rows at run time
cannot change what "a TPU" means, and no other module writes those figures again.
"""

from __future__ import annotations

from ._model import Device
from ._table import BUILT_IN

__all__ = ["DEFAULT_TPU", "DEFAULT_MXU", "DEFAULT_TILE", "default_tpu"]

#: The TPU assumed when none is named: the v5e, the chip hloscope's TPU figures were measured
#: on (TPU v2 to v5 share its 128 x 128 MXU and its (8, 128) tiles).
DEFAULT_TPU = "tpu-v5e"


def default_tpu() -> Device:
    """The built-in row of :data:`DEFAULT_TPU`."""
    return next(row for row in BUILT_IN if row.name == DEFAULT_TPU)


def _mxu(row: Device) -> int:
    if row.mxu is None:  # pragma: no cover - the table's row states it
        raise ValueError(f"the default TPU {row.name} has no MXU size")
    return row.mxu


def _tile(row: Device) -> tuple[int, int]:
    if row.tile is None:  # pragma: no cover - the table's row states it
        raise ValueError(f"the default TPU {row.name} has no tile")
    return row.tile


#: The MXU side a TPU check measures against when no chip is named (the default TPU's).
DEFAULT_MXU: int = _mxu(default_tpu())
#: The (sublanes, lanes) tile of a 32-bit array on a TPU when no chip is named.
DEFAULT_TILE: tuple[int, int] = _tile(default_tpu())
