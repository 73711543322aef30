"""How fast a device could go: peak FLOP/s per element type and peak memory bandwidth.

For TPUs and NVIDIA GPUs the figures are the vendors' own, per chip (TPU) or per GPU, in
:data:`PEAKS`, each with the page it comes from. NVIDIA's datasheets state Tensor Core
figures *with* 2:4 structured sparsity; the table holds the dense figures (half of those), what
a dense matmul can reach. TPU pages state bf16 (and int8/fp8) peaks only: an f32 matmul on a
TPU runs as several bf16 passes, so for f32 programs the bf16 figure is used with a note saying
so. A device is matched by its ``device_kind`` (``TPU v5 lite``, ``NVIDIA H100 80GB HBM3``).

A CPU has no datasheet figure hloscope could know, so its peak is **measured** once by
:func:`calibrate_cpu`: a large f32 matmul (FLOP/s) and an elementwise scale-and-copy of
4, 16 and 64 MiB (bytes read plus bytes written per second; the fastest size is the peak,
usually one that fits in the last-level cache, since that is the fastest memory a program can
stream from), all through XLA, best of a few runs each, in well under five seconds. The
result is cached as JSON under the hloscope cache folder (``$HLOSCOPE_CACHE/peaks/``, see
:func:`hloscope.capture.cache.cache_root`), keyed by the CPU model, the number of cores this
process may use and the jaxlib version; ``refresh=True`` measures again. These are
*achievable* peaks of XLA's own kernels on this machine, not the silicon's theoretical ones,
which is what a roofline of XLA programs should be drawn against.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DevicePeak",
    "PeakChoice",
    "PEAKS",
    "peak_for",
    "calibrate_cpu",
    "cpu_peak",
    "cpu_cache_path",
    "CALIBRATION_MATMUL",
    "CALIBRATION_COPY_SIZES",
]

TERA = 1e12
GIGA = 1e9


@dataclass(frozen=True, slots=True)
class DevicePeak:
    """Peak figures of one device kind.

    ``flops_per_s`` maps an HLO element type (``bf16``, ``f32``, ``f8e4m3fn``...; ``s8`` for
    int8 operations per second) to its peak; ``bytes_per_s`` is the memory bandwidth; ``source``
    names where the figures come from (a URL, or ``measured on this machine ...``).
    """

    name: str
    pattern: str
    flops_per_s: dict[str, float]
    bytes_per_s: float
    source: str
    note: str = ""
    measured: bool = False

    def matches(self, device_kind: str) -> bool:
        return re.search(self.pattern, device_kind, re.IGNORECASE) is not None

    def choose(self, element_type: str | None) -> PeakChoice:
        """The FLOP/s peak for a program whose work is mostly in ``element_type``."""
        wanted = element_type or "f32"
        table = self.flops_per_s
        if wanted in table:
            return PeakChoice(self, table[wanted], wanted)
        family = _FAMILY.get(wanted)
        for candidate in family or ():
            if candidate in table:
                return PeakChoice(
                    self, table[candidate], candidate, _fallback_note(wanted, candidate, self)
                )
        best = max(table, key=table.__getitem__)
        return PeakChoice(self, table[best], best, _fallback_note(wanted, best, self))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "flops_per_s": dict(self.flops_per_s),
            "bytes_per_s": self.bytes_per_s,
            "source": self.source,
            "note": self.note,
            "measured": self.measured,
        }


@dataclass(frozen=True, slots=True)
class PeakChoice:
    """The peak a roofline is drawn against: which entry, which element type's figure."""

    device: DevicePeak
    flops_per_s: float
    element_type: str
    note: str = ""

    @property
    def bytes_per_s(self) -> float:
        return self.device.bytes_per_s

    @property
    def ridge(self) -> float:
        """FLOPs per byte where memory-bound turns into compute-bound."""
        return self.flops_per_s / self.bytes_per_s if self.bytes_per_s > 0 else float("inf")


# What stands in for an element type a table has no figure for, nearest first.
_FAMILY: dict[str, tuple[str, ...]] = {
    "f32": ("tf32", "bf16"),
    "f16": ("bf16",),
    "bf16": ("f16",),
    "f64": ("f32",),
    "c64": ("f32", "bf16"),
    "c128": ("f64", "f32"),
    "f8e4m3fn": ("f8", "bf16"),
    "f8e5m2": ("f8", "bf16"),
    "f8e4m3": ("f8", "bf16"),
    "s8": ("bf16",),
    "u8": ("s8", "bf16"),
    "s32": ("f32", "bf16"),
    "pred": ("f32", "bf16"),
}


def _fallback_note(wanted: str, used: str, device: DevicePeak) -> str:
    if device.name.startswith("TPU") and wanted == "f32":
        return f"{device.name} lists no f32 peak; f32 matmuls run as bf16 passes: {used} peak used"
    return f"{device.name} lists no {wanted} peak; the {used} figure is used"


_CLOUD_TPU = "https://cloud.google.com/tpu/docs/"
_NV = "https://www.nvidia.com/en-us/data-center/"
_DENSE = "dense Tensor Core figures (the datasheet's with-sparsity figures halved)"

#: Vendor figures, per chip (TPU) or per GPU. Order matters: the first match wins, so more
#: specific patterns (``H100 PCIe``) come before general ones (``H100``).
PEAKS: tuple[DevicePeak, ...] = (
    DevicePeak(
        "TPU v2",
        r"\bTPU v2\b",
        {"bf16": 45 * TERA},
        600 * GIGA,
        _CLOUD_TPU + "v2 (peak compute per chip 45 TFLOPs bf16; HBM 16 GiB, 600 GBps)",
    ),
    DevicePeak(
        "TPU v3",
        r"\bTPU v3\b",
        {"bf16": 123 * TERA},
        900 * GIGA,
        _CLOUD_TPU + "v3 (peak compute per chip 123 TFLOPs bf16; HBM2 32 GiB, 900 GBps)",
    ),
    DevicePeak(
        "TPU v4",
        r"\bTPU v4\b",
        {"bf16": 275 * TERA, "s8": 275 * TERA},
        1200 * GIGA,
        _CLOUD_TPU + "v4 (peak compute per chip 275 TFLOPs bf16 or int8; HBM2 32 GiB, 1200 GBps)",
    ),
    DevicePeak(
        "TPU v5e",
        r"\bTPU v5 ?(lite|e)\b",
        {"bf16": 197 * TERA, "s8": 393 * TERA},
        819 * GIGA,
        _CLOUD_TPU + "v5e (peak compute per chip 197 TFLOPs bf16, 393 TOPs int8; HBM2 16 GB, "
        "819 GBps)",
    ),
    DevicePeak(
        "TPU v5p",
        r"\bTPU v5p?$|\bTPU v5p\b",
        {"bf16": 459 * TERA, "s8": 918 * TERA},
        2765 * GIGA,
        _CLOUD_TPU + "v5p (peak compute per chip 459 TFLOPs bf16, 918 TOPs int8; HBM2e 95 GiB, "
        "2765 GBps)",
    ),
    DevicePeak(
        "TPU v6e",
        r"\bTPU v6 ?(lite|e)\b",
        {"bf16": 918 * TERA, "s8": 1836 * TERA},
        1640 * GIGA,
        _CLOUD_TPU + "v6e (Trillium: peak compute per chip 918 TFLOPs bf16, 1836 TOPs int8; "
        "HBM 32 GB, 1640 GBps)",
    ),
    DevicePeak(
        "TPU v7",
        r"\bTPU ?v?7x?\b",
        {"bf16": 2307 * TERA, "f8": 4614 * TERA},
        7380 * GIGA,
        _CLOUD_TPU + "tpu7x (Ironwood: peak compute per chip 2307 TFLOPs bf16, 4614 TFLOPs fp8; "
        "HBM 192 GiB, 7380 GBps)",
    ),
    DevicePeak(
        "A100 80GB PCIe",
        r"A100.*80GB.*PCIe|A100.*PCIe.*80GB",
        {
            "f64": 9.7 * TERA,
            "f32": 19.5 * TERA,
            "tf32": 156 * TERA,
            "bf16": 312 * TERA,
            "f16": 312 * TERA,
            "s8": 624 * TERA,
        },
        1935 * GIGA,
        _NV + "a100/ (A100 datasheet: 80GB PCIe, 1,935 GB/s)",
        _DENSE,
    ),
    DevicePeak(
        "A100 80GB",
        r"A100.*80GB",
        {
            "f64": 9.7 * TERA,
            "f32": 19.5 * TERA,
            "tf32": 156 * TERA,
            "bf16": 312 * TERA,
            "f16": 312 * TERA,
            "s8": 624 * TERA,
        },
        2039 * GIGA,
        _NV + "a100/ (A100 datasheet: 80GB SXM, 2,039 GB/s)",
        _DENSE,
    ),
    DevicePeak(
        "A100 40GB",
        r"A100",
        {
            "f64": 9.7 * TERA,
            "f32": 19.5 * TERA,
            "tf32": 156 * TERA,
            "bf16": 312 * TERA,
            "f16": 312 * TERA,
            "s8": 624 * TERA,
        },
        1555 * GIGA,
        _NV + "a100/ (A100 datasheet: 40GB, 1,555 GB/s)",
        _DENSE,
    ),
    DevicePeak(
        "H100 PCIe",
        r"H100.*PCIe",
        {
            "f64": 26 * TERA,
            "f32": 51 * TERA,
            "tf32": 378 * TERA,
            "bf16": 756 * TERA,
            "f16": 756 * TERA,
            "f8": 1513 * TERA,
            "s8": 1513 * TERA,
        },
        2000 * GIGA,
        _NV + "h100/ (H100 datasheet: PCIe, 2 TB/s)",
        _DENSE,
    ),
    DevicePeak(
        "H100 SXM",
        r"H100",
        {
            "f64": 34 * TERA,
            "f32": 67 * TERA,
            "tf32": 494.5 * TERA,
            "bf16": 989.5 * TERA,
            "f16": 989.5 * TERA,
            "f8": 1979 * TERA,
            "s8": 1979 * TERA,
        },
        3350 * GIGA,
        _NV + "h100/ (H100 datasheet: SXM, 3.35 TB/s)",
        _DENSE,
    ),
    DevicePeak(
        "H200 SXM",
        r"H200",
        {
            "f64": 34 * TERA,
            "f32": 67 * TERA,
            "tf32": 494.5 * TERA,
            "bf16": 989.5 * TERA,
            "f16": 989.5 * TERA,
            "f8": 1979 * TERA,
            "s8": 1979 * TERA,
        },
        4800 * GIGA,
        _NV + "h200/ (H200 datasheet: SXM, 141 GB HBM3e, 4.8 TB/s)",
        _DENSE,
    ),
    DevicePeak(
        "B200",
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
        8000 * GIGA,
        _NV + "hgx/ (HGX B200 datasheet, per GPU: 8 TB/s HBM3e)",
        _DENSE,
    ),
    DevicePeak(
        "L4",
        r"\bL4\b",
        {
            "f32": 30.3 * TERA,
            "tf32": 60 * TERA,
            "bf16": 121 * TERA,
            "f16": 121 * TERA,
            "f8": 242.5 * TERA,
            "s8": 242.5 * TERA,
        },
        300 * GIGA,
        _NV + "l4/ (L4 datasheet: 24 GB GDDR6, 300 GB/s)",
        _DENSE,
    ),
)

# Every f8 flavour looks up the table's one "f8" figure.
for _name in ("f8e4m3fn", "f8e5m2", "f8e4m3", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz"):
    _FAMILY.setdefault(_name, ("f8", "bf16"))


def peak_for(device: Any, *, calibrate: bool = True, refresh: bool = False) -> DevicePeak | None:
    """The peak figures of ``device`` (a ``jax.Device``): the table's entry for its kind, a
    measured one for a CPU (``calibrate=False``: only a cached measurement), else ``None``."""
    kind = str(getattr(device, "device_kind", "") or "")
    if getattr(device, "platform", "") == "cpu":
        return cpu_peak(refresh=refresh) if calibrate else _cached_cpu_peak()
    for entry in PEAKS:
        if entry.matches(kind):
            return entry
    return None


# ---- the CPU, measured ---------------------------------------------------------------------------

#: Side of the square f32 matmul the calibration times.
CALIBRATION_MATMUL = 1024
#: Sizes of the f32 arrays the calibration reads and writes: from cache-sized to well past
#: the last-level cache; the fastest is the peak.
CALIBRATION_COPY_SIZES = (4 << 20, 16 << 20, 64 << 20)
_CALIBRATION_RUNS = 5
# Part of the cache key: a calibration measured another way is measured again.
_CALIBRATION_VERSION = 2
_PHASE_SECONDS = 1.5


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown cpu"


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cpu_cache_path() -> Path:
    """Where the CPU calibration of this machine (and jaxlib) is cached."""
    from ..capture.cache import cache_root
    from ..capture.jaxlib_adapter import jaxlib_version

    key = json.dumps(
        [_CALIBRATION_VERSION, _cpu_model(), _usable_cores(), jaxlib_version(), platform.machine()]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_root() / "peaks" / f"cpu-{digest}.json"


def _best_time(fn: Any, args: tuple[Any, ...]) -> float:
    from .timing import block

    block(fn(*args))  # compile and warm up
    best = float("inf")
    started = time.perf_counter()
    for _ in range(_CALIBRATION_RUNS):
        start = time.perf_counter()
        block(fn(*args))
        best = min(best, time.perf_counter() - start)
        if time.perf_counter() - started > _PHASE_SECONDS:
            break
    return best


@dataclass(slots=True)
class _Calibration:
    flops_per_s: float
    bytes_per_s: float
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


def _measure_cpu() -> _Calibration:
    from ..capture.frameworks import require_jax

    jax = require_jax()
    import numpy as np

    started = time.perf_counter()
    cpu = jax.devices("cpu")[0]
    n = CALIBRATION_MATMUL
    rng = np.random.default_rng(0)
    a = jax.device_put(rng.standard_normal((n, n), dtype=np.float32), cpu)
    b = jax.device_put(rng.standard_normal((n, n), dtype=np.float32), cpu)
    matmul = jax.jit(lambda x, y: x @ y)
    matmul_s = _best_time(matmul, (a, b))
    scale = jax.jit(lambda v: v * np.float32(1.5))
    rates = {}
    for size in CALIBRATION_COPY_SIZES:
        x = jax.device_put(np.ones(size // 4, dtype=np.float32), cpu)
        rates[size] = 2.0 * size / _best_time(scale, (x,))
    best = max(rates, key=rates.__getitem__)
    return _Calibration(
        flops_per_s=2.0 * n**3 / matmul_s,
        bytes_per_s=rates[best],
        seconds=time.perf_counter() - started,
        details={
            "matmul_s": matmul_s,
            "copy_bytes": best,
            "bytes_per_s_by_size": {str(k): v for k, v in rates.items()},
        },
    )


def calibrate_cpu() -> DevicePeak:
    """Measure this CPU's peaks now (see the module docstring), cache and return them."""
    measured = _measure_cpu()
    model, cores = _cpu_model(), _usable_cores()
    record = {
        "cpu": model,
        "cores": cores,
        "flops_per_s": {"f32": measured.flops_per_s},
        "bytes_per_s": measured.bytes_per_s,
        "seconds": measured.seconds,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "matmul": CALIBRATION_MATMUL,
        **measured.details,
    }
    path = cpu_cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=2))
        os.replace(tmp, path)
    except OSError:  # a read-only cache: the measurement still counts for this run
        pass
    return _cpu_entry(record)


def _cpu_entry(record: dict[str, Any]) -> DevicePeak:
    n = record.get("matmul", CALIBRATION_MATMUL)
    size = int(record.get("copy_bytes", CALIBRATION_COPY_SIZES[-1])) >> 20
    source = (
        f"measured on this machine ({record.get('cpu', '?')}, {record.get('cores', '?')} "
        f"cores) at {record.get('measured_at', '?')}: f32 {n}x{n} matmul; scale-and-copy, "
        f"fastest at {size} MiB; best of runs"
    )
    return DevicePeak(
        "CPU (measured)",
        r".*",
        {str(k): float(v) for k, v in record["flops_per_s"].items()},
        float(record["bytes_per_s"]),
        source,
        "XLA's own matmul and elementwise kernels on this machine, not a datasheet figure",
        measured=True,
    )


def _cached_cpu_peak() -> DevicePeak | None:
    try:
        record = json.loads(cpu_cache_path().read_text())
        return _cpu_entry(record)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cpu_peak(refresh: bool = False) -> DevicePeak:
    """This CPU's peaks: the cached calibration, else a fresh one (also when ``refresh``)."""
    if not refresh:
        cached = _cached_cpu_peak()
        if cached is not None:
            return cached
    return calibrate_cpu()
