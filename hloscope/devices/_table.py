"""The rows of the device registry: one per chip (TPU) or GPU model, each figure sourced.

TPU figures are Google's Cloud TPU pages (per chip); the v4 interconnect is the scaling book's.
GPU figures are NVIDIA's datasheets; their Tensor Core peaks are stated *with* 2:4 structured
sparsity, and the rows hold the dense figures (half of those), what a dense matmul can reach.
TPU pages state bf16 (and int8/fp8) peaks only: an f32 matmul on a TPU runs as several bf16
passes. Capacities are in binary units (``16 GiB`` is ``16 * 2**30`` bytes), as the runtimes
report them.

How an interconnect's figures are derived:

* **TPU ICI**: the page gives each chip's bidirectional ICI bandwidth and its ports; one link's
  one-way bandwidth is that total over ports and two directions, and a collective along one
  torus axis uses that axis' two directions, so the ring bandwidth is twice a link's one-way.
* **GPUs**: the per-GPU NVLink total (both directions) through NVSwitch, or PCIe (Gen5 x16 128
  GB/s, Gen4 x16 64 GB/s both directions); through a switch every GPU reaches every other at
  its full one-way bandwidth, which is the ring bandwidth.
* **Latency per hop** is an order of magnitude, not a measurement: about a microsecond on ICI,
  a few on NVLink and PCIe (NCCL's per-step latency).

A TPU's ``accelerator_type`` is one host's as Cloud TPU names it (``v5litepod-4`` counts chips,
``v4-8`` and ``v5p-8`` TensorCores): libtpu 0.0.42.1 looks its host bounds up by that name
(``v6e`` alone or ``v2-4`` get "Failed to find host bounds for accelerator type"), and its
compiles for every chip below were the same, byte for byte, whichever type it was told.

Order matters: a ``device_kind`` is matched against the rows in order and the first match wins,
so specific patterns (``A100 80GB PCIe``) come before general ones (``A100``).
"""

from __future__ import annotations

from ._model import Device, Interconnect, Platform, TpuTopology

__all__ = ["BUILT_IN"]

TERA = 1e12
GIGA = 1e9
GiB = 1 << 30

_CLOUD_TPU = "https://cloud.google.com/tpu/docs/"
_SCALING_BOOK = "https://jax-ml.github.io/scaling-book/tpus/"
_NV = "https://www.nvidia.com/en-us/data-center/"
_DENSE = "dense Tensor Core figures (the datasheet's with-sparsity figures halved)"
#: A 32-bit array's last two dimensions are stored in tiles of 8 sublanes x 128 lanes (what
#: the layouts of XLA:TPU's compiles for every chip with a libtpu topology print: T(8,128)).
_TPU_TILE = (8, 128)
_MXU_PAGE = _CLOUD_TPU + "system-architecture-tpu-vm (MXU size per generation)"


def _ici(ports: int, chip_bidi_gbps: float, topology: str, source: str) -> Interconnect:
    one_way = chip_bidi_gbps * GIGA / ports / 2
    return Interconnect(topology, ports, one_way, 2 * one_way, 1e-6, False, source)


def _switched(links: int, bidi_gbps: float, topology: str, source: str, latency_s: float = 3e-6):
    one_way = bidi_gbps * GIGA / 2
    return Interconnect(topology, links, one_way / links, one_way, latency_s, True, source)


def _tpu(
    name: str,
    kind: str,
    pattern: str,
    flops: dict[str, float],
    bandwidth_gbps: float,
    memory_gib: int,
    memory_kind: str,
    page: str,
    *,
    mxu: int,
    aliases: tuple[str, ...] = (),
    interconnect: Interconnect | None = None,
    topology: TpuTopology | None = None,
    note: str = "",
) -> Device:
    sources = {
        "flops_per_s": page,
        "memory_bytes_per_s": page,
        "memory_bytes": page,
        "mxu": _MXU_PAGE,
    }
    if interconnect is not None:
        sources["interconnect"] = interconnect.source
    return Device(
        name,
        Platform.TPU,
        kind,
        pattern,
        aliases,
        flops,
        bandwidth_gbps * GIGA,
        memory_gib * GiB,
        memory_kind,
        interconnect,
        mxu,
        _TPU_TILE,
        topology,
        sources,
        note,
    )


def _gpu(
    name: str,
    kind: str,
    pattern: str,
    flops: dict[str, float],
    bandwidth_gbps: float,
    memory_gib: int | None,
    memory_kind: str,
    page: str,
    *,
    aliases: tuple[str, ...] = (),
    interconnect: Interconnect | None = None,
    note: str = "",
) -> Device:
    sources = {"flops_per_s": page, "memory_bytes_per_s": page}
    if memory_gib is not None:
        sources["memory_bytes"] = page
    if interconnect is not None:
        sources["interconnect"] = interconnect.source
    return Device(
        name,
        Platform.GPU,
        kind,
        pattern,
        aliases,
        flops,
        bandwidth_gbps * GIGA,
        memory_gib * GiB if memory_gib is not None else None,
        memory_kind,
        interconnect,
        sources=sources,
        note=(note + "; " if note else "") + _DENSE,
    )


_A100 = {
    "f64": 9.7 * TERA,
    "f32": 19.5 * TERA,
    "tf32": 156 * TERA,
    "bf16": 312 * TERA,
    "f16": 312 * TERA,
    "s8": 624 * TERA,
}
_H100_SXM = {
    "f64": 34 * TERA,
    "f32": 67 * TERA,
    "tf32": 494.5 * TERA,
    "bf16": 989.5 * TERA,
    "f16": 989.5 * TERA,
    "f8": 1979 * TERA,
    "s8": 1979 * TERA,
}
_H100_PCIE = {
    "f64": 26 * TERA,
    "f32": 51 * TERA,
    "tf32": 378 * TERA,
    "bf16": 756 * TERA,
    "f16": 756 * TERA,
    "f8": 1513 * TERA,
    "s8": 1513 * TERA,
}
_NVLINK3 = _switched(
    12, 600, "NVLink 3 + NVSwitch", _NV + "a100/ (NVLink 600 GB/s per GPU, 12 links)"
)
_NVLINK4 = _switched(
    18, 900, "NVLink 4 + NVSwitch", _NV + "h100/ (NVLink 900 GB/s per GPU, 18 links)"
)
_PCIE4 = _switched(1, 64, "PCIe Gen4 x16", _NV + "a100/ (PCIe Gen4 64 GB/s)", 5e-6)
_PCIE5 = _switched(1, 128, "PCIe Gen5 x16", _NV + "h100/ (PCIe Gen5 128 GB/s)", 5e-6)

#: The rows hloscope ships with (:func:`hloscope.devices.register` adds more).
BUILT_IN: tuple[Device, ...] = (
    _tpu(
        "tpu-v2",
        "TPU v2",
        r"\bTPU v2\b",
        {"bf16": 45 * TERA},
        600,
        16,
        "HBM",
        _CLOUD_TPU + "v2 (peak compute per chip 45 TFLOPs bf16; HBM 16 GiB, 600 GBps)",
        aliases=("v2",),
        mxu=128,
        topology=TpuTopology("v2", 2, "v2-8", cores_per_chip=2),
    ),
    _tpu(
        "tpu-v3",
        "TPU v3",
        r"\bTPU v3\b",
        {"bf16": 123 * TERA},
        900,
        32,
        "HBM2",
        _CLOUD_TPU + "v3 (peak compute per chip 123 TFLOPs bf16; HBM2 32 GiB, 900 GBps)",
        aliases=("v3",),
        mxu=128,
        topology=TpuTopology("v3", 2, "v3-8", cores_per_chip=2),
    ),
    _tpu(
        "tpu-v4",
        "TPU v4",
        r"\bTPU v4\b",
        {"bf16": 275 * TERA, "s8": 275 * TERA},
        1200,
        32,
        "HBM2",
        _CLOUD_TPU + "v4 (peak compute per chip 275 TFLOPs bf16 or int8; HBM2 32 GiB, 1200 GBps)",
        aliases=("v4",),
        mxu=128,
        interconnect=Interconnect(
            "3D torus",
            6,
            45 * GIGA,
            90 * GIGA,
            1e-6,
            False,
            _SCALING_BOOK
            + " (v4p ICI: 4.5e10 bytes/s one way per link, 6 links); "
            + _CLOUD_TPU
            + "v4 (3D mesh / torus)",
        ),
        topology=TpuTopology("v4", 3, "v4-8", cores_per_chip=2),
    ),
    _tpu(
        "tpu-v5e",
        "TPU v5 lite",
        r"\bTPU v5 ?(lite|e)\b",
        {"bf16": 197 * TERA, "s8": 393 * TERA},
        819,
        16,
        "HBM2",
        _CLOUD_TPU + "v5e (peak compute per chip 197 TFLOPs bf16, 393 TOPs int8; HBM2 16 GB, "
        "819 GBps)",
        aliases=("v5e", "tpu-v5-lite", "tpu-v5litepod", "v5litepod", "v5-lite"),
        mxu=128,
        interconnect=_ici(
            4,
            400,
            "2D torus",
            _CLOUD_TPU + "v5e (bidirectional ICI 400 GBps per chip, 4 ICI ports, 2D torus)",
        ),
        topology=TpuTopology("v5e", 2, "v5litepod-4"),
    ),
    _tpu(
        "tpu-v5p",
        "TPU v5",
        r"\bTPU v5p?$|\bTPU v5p\b",
        {"bf16": 459 * TERA, "s8": 918 * TERA},
        2765,
        95,
        "HBM2e",
        _CLOUD_TPU + "v5p (peak compute per chip 459 TFLOPs bf16, 918 TOPs int8; HBM2e 95 GiB, "
        "2765 GBps)",
        aliases=("v5p", "tpu-v5"),
        mxu=128,
        interconnect=_ici(
            6,
            1200,
            "3D torus",
            _CLOUD_TPU + "v5p (bidirectional ICI 1200 GBps per chip, 3D torus: 6 neighbours)",
        ),
        topology=TpuTopology("v5p", 3, "v5p-8"),
    ),
    _tpu(
        "tpu-v6e",
        "TPU v6 lite",
        r"\bTPU v6 ?(lite|e)\b",
        {"bf16": 918 * TERA, "s8": 1836 * TERA},
        1640,
        32,
        "HBM",
        _CLOUD_TPU + "v6e (Trillium: peak compute per chip 918 TFLOPs bf16, 1836 TOPs int8; "
        "HBM 32 GB, 1640 GBps)",
        aliases=("v6e", "trillium", "tpu-v6-lite"),
        interconnect=_ici(
            4,
            800,
            "2D torus",
            _CLOUD_TPU + "v6e (bidirectional ICI 800 GBps per chip, 4 ICI ports, 2D torus)",
        ),
        mxu=256,
        topology=TpuTopology("v6e", 2, "v6e-4"),
    ),
    _tpu(
        "tpu-v7",
        "TPU7x",
        r"\bTPU ?v?7x?\b",
        {"bf16": 2307 * TERA, "f8": 4614 * TERA},
        7380,
        192,
        "HBM",
        _CLOUD_TPU + "tpu7x (Ironwood: peak compute per chip 2307 TFLOPs bf16, 4614 TFLOPs fp8; "
        "HBM 192 GiB, 7380 GBps)",
        aliases=("v7", "tpu7x", "ironwood"),
        mxu=256,
        note="the libtpu the tpu extra installs does not compile for this chip",
    ),
    _gpu(
        "a100-80gb-pcie",
        "NVIDIA A100 80GB PCIe",
        r"A100.*80GB.*PCIe|A100.*PCIe.*80GB",
        _A100,
        1935,
        80,
        "HBM2e",
        _NV + "a100/ (A100 datasheet: 80GB PCIe, 1,935 GB/s)",
        aliases=("a100-pcie",),
        interconnect=_PCIE4,
    ),
    _gpu(
        "a100-80gb",
        "NVIDIA A100-SXM4-80GB",
        r"A100.*80GB",
        _A100,
        2039,
        80,
        "HBM2e",
        _NV + "a100/ (A100 datasheet: 80GB SXM, 2,039 GB/s, 80GB HBM2e)",
        aliases=("a100-sxm",),
        interconnect=_NVLINK3,
    ),
    _gpu(
        "a100-40gb",
        "NVIDIA A100-SXM4-40GB",
        r"A100",
        _A100,
        1555,
        40,
        "HBM2",
        _NV + "a100/ (A100 datasheet: 40GB, 1,555 GB/s, 40GB HBM2)",
        aliases=("a100",),
        interconnect=_NVLINK3,
        note="a bare 'a100' is the 40 GB model: pass a100-80gb for the larger one",
    ),
    _gpu(
        "h100-pcie",
        "NVIDIA H100 PCIe",
        r"H100.*PCIe",
        _H100_PCIE,
        2000,
        80,
        "HBM2e",
        _NV + "h100/ (H100 datasheet: PCIe, 80GB, 2 TB/s)",
        interconnect=_PCIE5,
    ),
    _gpu(
        "h100-nvl",
        "NVIDIA H100 NVL",
        r"H100.*NVL",
        _H100_SXM,
        3350,
        94,
        "HBM3",
        _NV + "h100/ (H100 datasheet: NVL, 94GB; SXM figures for compute and bandwidth)",
        interconnect=_NVLINK4,
    ),
    _gpu(
        "h100",
        "NVIDIA H100 80GB HBM3",
        r"H100",
        _H100_SXM,
        3350,
        80,
        "HBM3",
        _NV + "h100/ (H100 datasheet: SXM, 80GB, 3.35 TB/s)",
        aliases=("h100-sxm",),
        interconnect=_NVLINK4,
    ),
    _gpu(
        "h200",
        "NVIDIA H200",
        r"H200",
        _H100_SXM,
        4800,
        141,
        "HBM3e",
        _NV + "h200/ (H200 datasheet: SXM, 141 GB HBM3e, 4.8 TB/s)",
        interconnect=_NVLINK4,
    ),
    _gpu(
        "b200",
        "NVIDIA B200",
        r"B200",
        {
            "f64": 40 * TERA,
            "f32": 80 * TERA,
            "tf32": 1100 * TERA,
            "bf16": 2250 * TERA,
            "f16": 2250 * TERA,
            "f8": 4500 * TERA,
            "s8": 4500 * TERA,
        },
        8000,
        None,
        "HBM3e",
        _NV + "hgx/ (HGX B200 datasheet, per GPU: 8 TB/s HBM3e)",
    ),
    _gpu(
        "l4",
        "NVIDIA L4",
        r"\bL4\b",
        {
            "f32": 30.3 * TERA,
            "tf32": 60 * TERA,
            "bf16": 121 * TERA,
            "f16": 121 * TERA,
            "f8": 242.5 * TERA,
            "s8": 242.5 * TERA,
        },
        300,
        24,
        "GDDR6",
        _NV + "l4/ (L4 datasheet: 24 GB GDDR6, 300 GB/s)",
    ),
)
