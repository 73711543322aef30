"""The device registry: what hloscope knows about each chip, one row per chip, each figure
with its source.

A row (:class:`Device`) holds a chip's names (the ``--device`` name ``tpu-v5e``, aliases such
as ``v5litepod``, and JAX's ``device_kind`` ``TPU v5 lite``), its vendor peaks per element
type, its memory bandwidth and capacity, its interconnect, its MXU size and tiling, and how
libtpu names its slices. Every command's ``--device`` reads the same spelling into a
:class:`DeviceSpec` (:func:`parse_device`): a chip, and for a TPU a slice of chips
(``tpu-v5e:2x4``)::

    from hloscope import devices

    spec = devices.parse_device("tpu-v5e:2x4")
    spec.device.memory_bytes, spec.chips, spec.topology_name  # 17179869184, 8, 'v5e:2x4'
    devices.for_kind("TPU v5 lite").name  # 'tpu-v5e'

A new chip is one row: :func:`register` adds it for this process (``hloscope`` then takes it
in every ``--device``), and a row in ``chips.toml`` (read by :mod:`._table`) adds it for
everyone. When a TPU is meant and no chip is named, :func:`default_tpu`'s row answers
(:data:`DEFAULT_MXU`, :data:`DEFAULT_TILE`): every chip figure is read from a row, none is
written elsewhere. This package is the bottom layer: it knows no HLO and imports nothing else
of hloscope but its errors.
"""

from ._defaults import DEFAULT_MXU, DEFAULT_TILE, DEFAULT_TPU, default_tpu
from ._model import Device, Interconnect, Platform, TpuTopology
from ._registry import (
    devices,
    for_kind,
    is_tpu_kind,
    lookup,
    names,
    normalize,
    register,
    unregister,
)
from ._spec import DeviceSpec, parse_device
from .errors import UnknownDeviceError

__all__ = [
    "DEFAULT_MXU",
    "DEFAULT_TILE",
    "DEFAULT_TPU",
    "default_tpu",
    "is_tpu_kind",
    "Device",
    "DeviceSpec",
    "Interconnect",
    "Platform",
    "TpuTopology",
    "UnknownDeviceError",
    "devices",
    "for_kind",
    "lookup",
    "names",
    "normalize",
    "parse_device",
    "register",
    "unregister",
]
