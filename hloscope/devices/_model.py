"""One row of the device registry: what hloscope knows about a chip, each figure sourced."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum, auto
from typing import Any

from ..json_fields import json_fields

__all__ = ["Platform", "Interconnect", "TpuTopology", "Device"]


class Platform(StrEnum):
    """Which XLA backend compiles for a device: the one vocabulary of platforms (a device row's,
    ``check --device cpu|gpu|tpu``'s, a finding's, an error's)."""

    CPU = auto()
    GPU = auto()
    TPU = auto()

    @classmethod
    def parse(cls, value: str | Platform) -> Platform:
        """``"TPU"``, ``"cuda"``, ``"rocm"``, ``"XLA_GPU_JIT"`` ... -> a :class:`Platform`."""
        name = str(value).strip().lower()
        name = name.removeprefix("xla_").removesuffix("_jit")
        if name in ("cuda", "rocm", "gpu"):
            return cls.GPU
        try:
            return cls(name)
        except ValueError:
            choices = ", ".join(p.value for p in cls)
            raise ValueError(f"unknown platform {value!r} (choose one of {choices})") from None


@dataclass(frozen=True, slots=True)
class Interconnect:
    """How one chip talks to the others: ``links`` per chip of ``link_bytes_per_s`` each way,
    the ``topology`` they form, the ring bandwidth ``ring_bytes_per_s`` one chip has into a
    collective, ``latency_s`` per hop, and whether the links go through a ``switch`` (every
    chip reaches every other at full bandwidth) or neighbour to neighbour (a torus)."""

    topology: str
    links: int
    link_bytes_per_s: float
    ring_bytes_per_s: float
    latency_s: float
    switch: bool
    source: str


@dataclass(frozen=True, slots=True)
class TpuTopology:
    """How libtpu names a chip's slices: ``v5e:2x4`` (``prefix`` ``v5e``, ``dims`` 2), the
    accelerator type Cloud TPU gives one host of ``host_bounds`` chips (``accelerator_type``:
    ``v5litepod-4``; ``v4-8``, ``v5p-8`` count TensorCores), which libtpu is told it runs on
    when it compiles for the chip on a machine without one, how many TensorCores each chip
    shows as a JAX device (``cores_per_chip``), and the chips one host holds by default
    (``host_bounds``)."""

    prefix: str
    dims: int
    accelerator_type: str
    cores_per_chip: int = 1
    host_bounds: tuple[int, ...] = (2, 2, 1)

    def single_chip(self) -> str:
        """The one-chip topology name (``v5e:1x1``, ``v5p:1x1x1``)."""
        return f"{self.prefix}:" + "x".join(["1"] * self.dims)


@dataclass(frozen=True, slots=True)
class Device:
    """What hloscope knows about one chip (TPU) or GPU, per chip.

    ``name`` is what ``--device`` takes (``tpu-v5e``); ``aliases`` other names for it
    (``v5litepod``, ``tpu-v5-lite``); ``device_kind`` the ``device_kind`` JAX reports for it
    (``TPU v5 lite``), and ``kind_pattern`` a regular expression that matches every
    ``device_kind`` string of it. Figures, each ``None`` when not known:

    * ``flops_per_s``: peak per HLO element type (``bf16``; ``s8`` for int8 operations);
    * ``memory_bytes_per_s``: main-memory (HBM) bandwidth; ``memory_bytes``: its capacity in
      bytes, binary units as the runtimes report them; ``memory_kind``: ``HBM2e``...;
    * ``interconnect``: :class:`Interconnect` (ICI, NVLink, PCIe);
    * ``mxu``: the side of a TPU's matrix unit (128 or 256);
    * ``tile``: the (sublanes, lanes) tile a TPU stores a 32-bit array's last two dimensions in;
    * ``tpu_topology``: how libtpu names its slices (:class:`TpuTopology`), for compiling with
      XLA:TPU on a machine without the chip.

    ``sources`` maps each figure's name (``flops_per_s``, ``memory_bytes``...) to the page it
    comes from; ``note`` is said wherever the row's figures are used.
    """

    name: str
    platform: Platform
    device_kind: str
    kind_pattern: str
    aliases: tuple[str, ...] = ()
    flops_per_s: dict[str, float] = field(default_factory=dict)
    memory_bytes_per_s: float | None = None
    memory_bytes: int | None = None
    memory_kind: str = "HBM"
    interconnect: Interconnect | None = None
    mxu: int | None = None
    tile: tuple[int, int] | None = None
    tpu_topology: TpuTopology | None = None
    sources: dict[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def is_tpu(self) -> bool:
        return self.platform is Platform.TPU

    def matches_kind(self, device_kind: str) -> bool:
        """Whether JAX's ``device_kind`` string names this device."""
        return re.search(self.kind_pattern, device_kind, re.IGNORECASE) is not None

    def source(self, figure: str) -> str:
        """Where ``figure`` comes from (``""`` when the row does not say)."""
        return self.sources.get(figure, "")

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready values (what ``--json`` outputs name a device by)."""
        return {
            **json_fields(
                self,
                "name platform device_kind aliases flops_per_s memory_bytes_per_s memory_bytes "
                "memory_kind mxu tile",
            ),
            "topology": self.tpu_topology.prefix if self.tpu_topology else None,
            **json_fields(self, "sources note"),
        }
