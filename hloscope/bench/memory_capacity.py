"""How much memory a device has, and whether a program's peak fits in it.

:data:`CAPACITIES` holds the memory of each accelerator hloscope knows, per chip (TPU) or per
GPU, as the vendor states it, with the page it comes from (the pages :mod:`.peaks` cites for
the same devices' speeds). Vendors print these sizes as "GB" or "GiB"; the memory stacks are
built in powers of two, and the table holds each figure in binary units (``32 GiB`` is
``32 * 2**30`` bytes), as the runtimes report them.

:func:`fits` compares a peak with a device: a program should not plan to use all of it (the
runtime, the compiled code and fragmentation take their share), so the verdict is against a
fraction, :data:`DEFAULT_LIMIT` (80%, the TPU guides' rule of thumb), and ``headroom_bytes``
says how far under (or, negative, over) that limit the peak is.

A device is named the way ``hloscope memory --device`` takes it (``tpu-v5e``, ``h100``,
``a100-80gb``), or by the ``device_kind`` JAX reports (``TPU v5 lite``,
``NVIDIA A100-SXM4-40GB``). A bare ``a100`` is the 40 GB model: of the two sizes, the one a
"fits" verdict holds for on both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import UsageProblem
from .errors import UnknownDeviceError

__all__ = [
    "DeviceMemory",
    "CAPACITIES",
    "DEFAULT_LIMIT",
    "UnknownDeviceError",
    "device_memory",
    "parse_limit",
    "FitResult",
    "fits",
]

GiB = 1 << 30
#: The fraction of device memory a program is judged against by default.
DEFAULT_LIMIT = 0.8

_CLOUD_TPU = "https://cloud.google.com/tpu/docs/"
_NV = "https://www.nvidia.com/en-us/data-center/"


@dataclass(frozen=True, slots=True)
class DeviceMemory:
    """One device's memory: its ``name`` (as ``--device`` takes it), other names it goes by,
    a pattern of the ``device_kind`` strings it matches, the bytes, and where the figure comes
    from."""

    name: str
    memory_bytes: int
    kind: str
    source: str
    pattern: str
    aliases: tuple[str, ...] = ()
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "memory_bytes": self.memory_bytes,
            "kind": self.kind,
            "source": self.source,
            "note": self.note,
        }


#: Device memory per chip (TPU) or per GPU. Order matters for ``device_kind`` matching: the
#: first pattern that matches wins, so specific ones (``A100 80GB``) come before general ones.
CAPACITIES: tuple[DeviceMemory, ...] = (
    DeviceMemory("tpu-v2", 16 * GiB, "HBM", _CLOUD_TPU + "v2 (HBM 16 GiB per chip)", r"\bTPU v2\b"),
    DeviceMemory(
        "tpu-v3", 32 * GiB, "HBM2", _CLOUD_TPU + "v3 (HBM2 32 GiB per chip)", r"\bTPU v3\b"
    ),
    DeviceMemory(
        "tpu-v4", 32 * GiB, "HBM2", _CLOUD_TPU + "v4 (HBM2 32 GiB per chip)", r"\bTPU v4\b"
    ),
    DeviceMemory(
        "tpu-v5e",
        16 * GiB,
        "HBM2",
        _CLOUD_TPU + "v5e (HBM2 16 GB per chip)",
        r"\bTPU v5 ?(lite|e)\b",
        ("tpu-v5-lite", "tpu-v5litepod"),
    ),
    DeviceMemory(
        "tpu-v5p",
        95 * GiB,
        "HBM2e",
        _CLOUD_TPU + "v5p (HBM2e 95 GB per chip)",
        r"\bTPU v5p?$|\bTPU v5p\b",
        ("tpu-v5",),
    ),
    DeviceMemory(
        "tpu-v6e",
        32 * GiB,
        "HBM",
        _CLOUD_TPU + "v6e (Trillium: HBM 32 GB per chip)",
        r"\bTPU v6 ?(lite|e)\b",
        ("trillium", "tpu-v6-lite"),
    ),
    DeviceMemory(
        "tpu-v7",
        192 * GiB,
        "HBM",
        _CLOUD_TPU + "tpu7x (Ironwood: HBM 192 GiB per chip)",
        r"\bTPU ?v?7x?\b",
        ("tpu7x", "ironwood"),
    ),
    DeviceMemory(
        "a100-80gb",
        80 * GiB,
        "HBM2e",
        _NV + "a100/ (A100 datasheet: 80GB HBM2e)",
        r"A100.*80GB",
    ),
    DeviceMemory(
        "a100-40gb",
        40 * GiB,
        "HBM2",
        _NV + "a100/ (A100 datasheet: 40GB HBM2)",
        r"A100",
        ("a100",),
        "a bare 'a100' is the 40 GB model: pass a100-80gb for the larger one",
    ),
    DeviceMemory(
        "h100-nvl", 94 * GiB, "HBM3", _NV + "h100/ (H100 datasheet: NVL, 94GB)", r"H100.*NVL"
    ),
    DeviceMemory(
        "h100",
        80 * GiB,
        "HBM3",
        _NV + "h100/ (H100 datasheet: SXM and PCIe, 80GB)",
        r"H100",
        ("h100-sxm", "h100-pcie"),
    ),
    DeviceMemory("h200", 141 * GiB, "HBM3e", _NV + "h200/ (H200 datasheet: 141GB HBM3e)", r"H200"),
    DeviceMemory("l4", 24 * GiB, "GDDR6", _NV + "l4/ (L4 datasheet: 24GB GDDR6)", r"\bL4\b"),
)


def _key(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def device_memory(name: str) -> DeviceMemory:
    """The table's entry for ``name``: a ``--device`` name or alias (``tpu-v5e``, ``h100``,
    case and ``_``/space for ``-`` ignored), else the first entry whose pattern matches it as a
    ``device_kind`` (``TPU v5 lite``). Raises :class:`UnknownDeviceError` naming the choices."""
    key = _key(name)
    for entry in CAPACITIES:
        if key == entry.name or key in entry.aliases:
            return entry
    for entry in CAPACITIES:
        if re.search(entry.pattern, name, re.IGNORECASE):
            return entry
    known = ", ".join(entry.name for entry in CAPACITIES)
    raise UnknownDeviceError(f"unknown device {name!r}: hloscope knows {known}")


def parse_limit(text: str | float) -> float:
    """A limit as a fraction of device memory: ``"80%"`` -> 0.8, ``"0.8"`` -> 0.8, ``0.8``.
    Raises :class:`~hloscope.errors.UsageProblem` outside (0, 1]."""
    if isinstance(text, str):
        raw = text.strip()
        try:
            value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            raise UsageProblem(f"--limit {text!r}: give a percentage (80%) or a fraction") from None
    else:
        value = float(text)
    if not 0 < value <= 1:
        raise UsageProblem(f"--limit {text!r}: must be above 0% and at most 100%")
    return value


@dataclass(frozen=True, slots=True)
class FitResult:
    """A peak against a device: the device's ``memory_bytes``, the ``limit_bytes`` the peak is
    judged against (``limit`` of it), whether it ``fits``, and the ``headroom_bytes`` left
    under the limit (negative: that much over)."""

    device: DeviceMemory
    peak_bytes: int
    memory_bytes: int
    limit: float
    limit_bytes: int
    fits: bool
    headroom_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """The ``device`` object of ``hloscope memory --json``."""
        return {
            "name": self.device.name,
            "memory_bytes": self.memory_bytes,
            "limit_bytes": self.limit_bytes,
            "fits": self.fits,
            "limit": self.limit,
            "headroom_bytes": self.headroom_bytes,
            "source": self.device.source,
        }


def fits(peak_bytes: int, device: str | DeviceMemory, limit: float = DEFAULT_LIMIT) -> FitResult:
    """Whether a program peaking at ``peak_bytes`` fits ``device`` under ``limit`` (a
    fraction of its memory): fits when the peak is at most ``limit_bytes``."""
    entry = device if isinstance(device, DeviceMemory) else device_memory(device)
    fraction = parse_limit(limit)
    limit_bytes = int(entry.memory_bytes * fraction)
    return FitResult(
        entry,
        peak_bytes,
        entry.memory_bytes,
        fraction,
        limit_bytes,
        peak_bytes <= limit_bytes,
        limit_bytes - peak_bytes,
    )
