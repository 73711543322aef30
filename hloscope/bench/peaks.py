"""How fast a device could go: peak FLOP/s per element type and peak memory bandwidth.

For TPUs and NVIDIA GPUs the figures are the vendors' own, per chip (TPU) or per GPU, in
:data:`PEAKS`, each with the page it comes from. NVIDIA's datasheets state Tensor Core
figures *with* 2:4 structured sparsity; the table holds the dense figures (half of those), what
a dense matmul can reach. TPU pages state bf16 (and int8/fp8) peaks only: an f32 matmul on a
TPU runs as several bf16 passes, so for f32 programs the bf16 figure is used with a note saying
so. A device is matched by its ``device_kind`` (``TPU v5 lite``, ``NVIDIA H100 80GB HBM3``).

A CPU has no datasheet figure hloscope could know, so its peaks are **measured** once by
:func:`calibrate_cpu`, through XLA, the path user programs take, each the best of several runs
(the fastest run is the one the machine's other work disturbed least):

* **compute**: f32 square matmuls of a few sides (:data:`CALIBRATION_MATMULS`; XLA's CPU
  matmul is its best-tuned kernel, and a small one that stays in cache can be the fastest);
  the best rate of any of them is the FLOP/s peak.
* **memory**: streams over an array :data:`LLC_MULTIPLE` times the size of the last-level
  cache, so that no level of cache can hold it: an elementwise scale-and-copy (bytes read
  plus bytes written per second; each run writes a fresh buffer) and a sum (bytes read, no
  big output); the faster is what a program streaming big arrays can reach.
* **cache**: the same over an array a quarter of the last-level cache, while it stays in
  cache: the roof of a program whose data all fits there.

The last-level cache is read from ``/sys/devices/system/cpu`` (every distinct instance of the
highest level, summed), else from ``lscpu``, else assumed to be
:data:`FALLBACK_LLC_BYTES`, a size larger than most CPUs' so that the memory roof's arrays are
beyond it all the same. The roofline (:mod:`.roofline`) judges a program whose working set fits
in the last-level cache against the cache roof, any other against the memory roof.

The result is cached as JSON under the hloscope cache folder (``$HLOSCOPE_CACHE/peaks/``, see
:func:`hloscope.capture.cache.cache_root`), keyed by the CPU model, the number of cores this
process may use and the jaxlib version, with how it was measured (runs, best-of, the runs'
spread, the last-level cache size used); ``refresh=True`` measures again. When a measured
program runs faster than a roof, the calibration underrated this machine (it ran while the
machine was busier): :func:`raise_cpu_peak` raises that roof in the cache to what the program
reached and records it, and the bench output says so. These are *achievable* peaks of XLA's
own kernels on this machine, not the silicon's theoretical ones, which is what a roofline of
XLA programs should be drawn against.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from enum import StrEnum
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
    "raise_cpu_peak",
    "last_level_cache",
    "LastLevelCache",
    "MemoryLevel",
    "MemoryRoof",
    "CALIBRATION_MATMULS",
    "LLC_MULTIPLE",
    "FALLBACK_LLC_BYTES",
]

TERA = 1e12
GIGA = 1e9


@dataclass(frozen=True, slots=True)
class DevicePeak:
    """Peak figures of one device kind.

    ``flops_per_s`` maps an HLO element type (``bf16``, ``f32``, ``f8e4m3fn``...; ``s8`` for
    int8 operations per second) to its peak; ``bytes_per_s`` is the memory bandwidth; ``source``
    names where the figures come from (a URL, or ``measured on this machine ...``). A measured
    CPU also has ``cache_bytes_per_s``, the bandwidth while the data fits in its last-level
    cache of ``cache_bytes``, and ``calibration``, the cached record of how it was measured.
    """

    name: str
    pattern: str
    flops_per_s: dict[str, float]
    bytes_per_s: float
    source: str
    note: str = ""
    measured: bool = False
    cache_bytes_per_s: float | None = None
    cache_bytes: int | None = None
    calibration: dict[str, Any] | None = None

    def memory_roofs(self) -> tuple[MemoryRoof, ...]:
        """The memory roofs, slowest first: main memory, then the cache when it was measured."""
        roofs = [MemoryRoof(MemoryLevel.MEMORY, self.bytes_per_s, None)]
        if self.cache_bytes_per_s and self.cache_bytes:
            roofs.append(MemoryRoof(MemoryLevel.CACHE, self.cache_bytes_per_s, self.cache_bytes))
        return tuple(roofs)

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
            "cache_bytes_per_s": self.cache_bytes_per_s,
            "cache_bytes": self.cache_bytes,
            "calibration": calibration_summary(self.calibration),
        }


class MemoryLevel(StrEnum):
    """Which memory a program's bytes are judged to come from."""

    MEMORY = "memory"  # main memory (DRAM, HBM)
    CACHE = "cache"  # the CPU's last-level cache and the levels above it


@dataclass(frozen=True, slots=True)
class MemoryRoof:
    """One memory roof: its level, bandwidth and how much data fits in it (``None``: any)."""

    level: MemoryLevel
    bytes_per_s: float
    capacity: int | None


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

#: Sides of the square f32 matmuls the calibration times; the fastest rate is the peak.
CALIBRATION_MATMULS = (512, 1024)
#: The memory roof's array is this many times the last-level cache.
LLC_MULTIPLE = 4
#: The cache roof's array is this share of the last-level cache (read and written, it fits).
CACHE_SHARE = 0.25
#: The last-level cache assumed when none can be found: larger than most CPUs' (four times a
#: typical 32 MiB), so that the memory roof's arrays are beyond the cache all the same.
FALLBACK_LLC_BYTES = 128 << 20
# Runs per measurement at most, and the seconds one measurement may take at most.
_MATMUL_RUNS = 25
_STREAM_RUNS = 10
_PHASE_SECONDS = 0.75
#: How many raises by measured programs the cached calibration remembers (the latest).
RAISES_KEPT = 20
# Part of the cache key: a calibration measured another way is measured again.
_CALIBRATION_VERSION = 4
_SYSFS_CPUS = Path("/sys/devices/system/cpu")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown cpu"


def _usable_cpus() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return list(range(os.cpu_count() or 1))


def _usable_cores() -> int:
    return len(_usable_cpus())


# ---- the last-level cache ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LastLevelCache:
    """The last-level cache the calibration sized its arrays by, and where its size came from."""

    bytes: int
    source: str


def _cache_size(text: str) -> int | None:
    """``32768K`` / ``1M`` / ``33554432`` (sysfs and lscpu spellings) in bytes."""
    found = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.IGNORECASE)
    if found is None:
        return None
    return int(found.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[found.group(2).upper()]


def _llc_from_sysfs(cpus: list[int], root: Path = _SYSFS_CPUS) -> LastLevelCache | None:
    """The highest cache level of the CPUs this process may use, its distinct instances
    summed (two sockets have two L3s; two cores sharing one L3 count it once)."""
    instances: dict[tuple[int, str], int] = {}
    for cpu in cpus:
        for index in sorted((root / f"cpu{cpu}" / "cache").glob("index*")):
            try:
                if (index / "type").read_text().strip() == "Instruction":
                    continue
                level = int((index / "level").read_text())
                size = _cache_size((index / "size").read_text())
                shared = (index / "shared_cpu_list").read_text().strip()
            except (OSError, ValueError):
                continue
            if size:
                instances[(level, shared)] = size
    if not instances:
        return None
    top = max(level for level, _ in instances)
    total = sum(size for (level, _), size in instances.items() if level == top)
    return LastLevelCache(total, f"L{top}, {root}")


def _llc_from_lscpu() -> LastLevelCache | None:
    tool = shutil.which("lscpu")
    if tool is None:
        return None
    try:
        text = subprocess.run(
            [tool, "-B", "-C=LEVEL,TYPE,ALL-SIZE"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    best: tuple[int, int] | None = None
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) != 3 or parts[1] == "Instruction" or not parts[0].isdigit():
            continue
        size = _cache_size(parts[2])
        if size and (best is None or int(parts[0]) > best[0]):
            best = (int(parts[0]), size)
    return LastLevelCache(best[1], f"L{best[0]}, lscpu") if best else None


def last_level_cache() -> LastLevelCache:
    """This machine's last-level cache (see the module docstring for where it is read)."""
    found = _llc_from_sysfs(_usable_cpus()) or _llc_from_lscpu()
    if found is not None:
        return found
    return LastLevelCache(FALLBACK_LLC_BYTES, "not found: a large cache assumed")


# ---- measuring -----------------------------------------------------------------------------------


def cpu_cache_path() -> Path:
    """Where the CPU calibration of this machine (and jaxlib) is cached."""
    from ..capture.cache import cache_root
    from ..capture.jaxlib_adapter import jaxlib_version

    key = json.dumps(
        [_CALIBRATION_VERSION, _cpu_model(), _usable_cores(), jaxlib_version(), platform.machine()]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_root() / "peaks" / f"cpu-{digest}.json"


@dataclass(frozen=True, slots=True)
class _Runs:
    """Timed runs of one calibration kernel: the best, how many, and how much they varied."""

    best_s: float
    runs: int
    spread: float  # (p90 - p10) / median of the runs' times, as bench reports a program's

    def record(self, amount: float, unit: str) -> dict[str, Any]:
        return {unit: amount / self.best_s, "best_of": self.runs, "spread": self.spread}


def _best_of(fn: Any, args: tuple[Any, ...], runs: int, *, warm_up: bool = True) -> _Runs:
    import numpy as np

    from .timing import block

    if warm_up:
        block(fn(*args))  # compile and warm up
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < runs and (len(times) < 3 or time.perf_counter() - started < _PHASE_SECONDS):
        start = time.perf_counter()
        block(fn(*args))
        times.append(time.perf_counter() - start)
    p10, median, p90 = np.percentile(times, [10, 50, 90])
    return _Runs(min(times), len(times), float((p90 - p10) / median) if median > 0 else 0.0)


def _measure_compute(jax: Any, cpu: Any) -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    matmul = jax.jit(lambda x, y: x @ y)
    by_size: dict[int, dict[str, Any]] = {}
    for n in CALIBRATION_MATMULS:
        a = jax.device_put(rng.standard_normal((n, n), dtype=np.float32), cpu)
        b = jax.device_put(rng.standard_normal((n, n), dtype=np.float32), cpu)
        by_size[n] = _best_of(matmul, (a, b), _MATMUL_RUNS).record(2.0 * n**3, "flops_per_s")
    best = max(by_size, key=lambda n: by_size[n]["flops_per_s"])
    return {
        "kernel": "f32 matmul",
        "best_size": best,
        **by_size[best],
        "flops_per_s_by_size": {str(n): r["flops_per_s"] for n, r in by_size.items()},
    }


def _measure_stream(jax: Any, cpu: Any, array_bytes: int) -> dict[str, Any]:
    """The best rate of two streams over one f32 array of ``array_bytes``: a scale-and-copy
    (bytes read plus written; each run writes a fresh output buffer, whose pages the system
    hands out anew) and a sum (bytes read: no big output, so no fresh pages). A program may
    be of either kind, and the roof is the faster; both are recorded."""
    import numpy as np

    elements = max(1, array_bytes // 4)
    with jax.default_device(cpu):  # made on the device: no host copy of a big array
        x = jax.numpy.ones(elements, dtype=np.float32)
    kernels = {
        "scale-and-copy": (lambda v: v * np.float32(1.5), 2.0 * elements * 4),
        "sum": (lambda v: jax.numpy.sum(v), elements * 4 + 4.0),
    }
    by_kernel: dict[str, dict[str, Any]] = {}
    for name, (fn, traffic) in kernels.items():
        # Compiled ahead, and no warm-up run: every run of these pays the same costs (page
        # faults included), so the first one counts as well; a big array's runs are slow.
        compiled = jax.jit(fn).lower(x).compile()
        runs = _best_of(compiled, (x,), _STREAM_RUNS, warm_up=False)
        by_kernel[name] = runs.record(traffic, "bytes_per_s")
    best = max(by_kernel, key=lambda k: by_kernel[k]["bytes_per_s"])
    return {
        "array_bytes": elements * 4,
        "kernel": best,
        **by_kernel[best],
        "bytes_per_s_by_kernel": {k: r["bytes_per_s"] for k, r in by_kernel.items()},
    }


def _measure_cpu() -> dict[str, Any]:
    """The calibration record's measured part (see the module docstring)."""
    from ..capture.frameworks import require_jax

    jax = require_jax()
    started = time.perf_counter()
    cpu = jax.devices("cpu")[0]
    llc = last_level_cache()
    compute = _measure_compute(jax, cpu)
    cache = _measure_stream(jax, cpu, int(llc.bytes * CACHE_SHARE))
    memory = _measure_stream(jax, cpu, llc.bytes * LLC_MULTIPLE)
    return {
        "flops_per_s": {"f32": compute["flops_per_s"]},
        "bytes_per_s": memory["bytes_per_s"],
        "cache_bytes_per_s": max(cache["bytes_per_s"], memory["bytes_per_s"]),
        "llc_bytes": llc.bytes,
        "llc_source": llc.source,
        "compute": compute,
        "memory": memory,
        "cache": cache,
        "seconds": time.perf_counter() - started,
    }


def _write_record(record: dict[str, Any]) -> None:
    path = cpu_cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=2))
        os.replace(tmp, path)
    except OSError:  # a read-only cache: the measurement still counts for this run
        pass


def calibrate_cpu() -> DevicePeak:
    """Measure this CPU's peaks now (see the module docstring), cache and return them."""
    record = {
        "cpu": _cpu_model(),
        "cores": _usable_cores(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        **_measure_cpu(),
        "raised": [],
    }
    _write_record(record)
    return _cpu_entry(record)


def raise_cpu_peak(
    peak: DevicePeak,
    *,
    flops: tuple[str, float] | None = None,
    bytes_per_s: float | None = None,
    cache_bytes_per_s: float | None = None,
    by: str = "",
) -> tuple[DevicePeak, list[dict[str, Any]]]:
    """``peak`` (a measured CPU's) with the roofs a program beat raised to what it reached:
    ``flops`` as (element type, FLOP/s), the memory or cache bandwidth, and the raises made.
    Each raise is recorded in the cached calibration (``raised``, the latest
    :data:`RAISES_KEPT`) and the cache rewritten."""
    record = json.loads(json.dumps(peak.calibration or {}))  # a deep copy of plain JSON
    record.setdefault("flops_per_s", dict(peak.flops_per_s))
    record.setdefault("bytes_per_s", peak.bytes_per_s)
    raised: list[dict[str, Any]] = []
    at = time.strftime("%Y-%m-%dT%H:%M:%S")

    def lift(path: tuple[str, ...], value: float | None, roof: str) -> None:
        holder = record
        for key in path[:-1]:
            holder = holder.setdefault(key, {})
        before = float(holder.get(path[-1]) or 0.0)
        if value is not None and value > before:
            holder[path[-1]] = value
            raised.append({"roof": roof, "from": before, "to": value, "by": by, "at": at})

    if flops is not None:
        lift(("flops_per_s", flops[0]), flops[1], f"compute {flops[0]}")
    lift(("bytes_per_s",), bytes_per_s, "memory")
    lift(("cache_bytes_per_s",), cache_bytes_per_s, "cache")
    record["cache_bytes_per_s"] = max(
        float(record.get("cache_bytes_per_s") or 0.0), float(record["bytes_per_s"])
    )
    record["raised"] = [*(record.get("raised") or []), *raised][-RAISES_KEPT:]
    _write_record(record)
    return _cpu_entry(record), raised


def calibration_summary(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """How a measured peak was measured, for the JSON: per roof its rate, best-of and spread,
    the last-level cache size used, and the raises programs caused."""
    if not record:
        return None

    def roof(part: str, unit: str, extra: tuple[str, ...]) -> dict[str, Any]:
        data = record.get(part) or {}
        return {k: data.get(k) for k in (unit, "best_of", "spread", *extra)}

    return {
        "measured_at": record.get("measured_at"),
        "seconds": record.get("seconds"),
        "llc_bytes": record.get("llc_bytes"),
        "llc_source": record.get("llc_source"),
        "compute": roof("compute", "flops_per_s", ("kernel", "best_size")),
        "memory": roof("memory", "bytes_per_s", ("kernel", "array_bytes")),
        "cache": roof("cache", "bytes_per_s", ("kernel", "array_bytes")),
        "raised": list(record.get("raised") or []),
    }


def _describe(record: dict[str, Any]) -> str:
    compute = record.get("compute") or {}
    memory = record.get("memory") or {}
    llc = int(record.get("llc_bytes") or 0) >> 20
    text = (
        f"measured on this machine ({record.get('cpu', '?')}, {record.get('cores', '?')} cores) "
        f"at {record.get('measured_at', '?')}: f32 {compute.get('best_size', '?')}² matmul, "
        f"best of {compute.get('best_of', '?')} (spread {compute.get('spread') or 0:.0%}); "
        f"{memory.get('kernel', 'stream')} of {int(memory.get('array_bytes') or 0) >> 20} MiB, "
        f"{LLC_MULTIPLE}x the {llc} MiB last-level cache, best of {memory.get('best_of', '?')} "
        f"(spread {memory.get('spread') or 0:.0%})"
    )
    raised = record.get("raised") or []
    if raised:
        roofs = ", ".join(dict.fromkeys(r["roof"] for r in raised))
        text += f"; raised since by measured programs ({roofs})"
    return text


def _cpu_entry(record: dict[str, Any]) -> DevicePeak:
    cache_rate = record.get("cache_bytes_per_s")
    llc = record.get("llc_bytes")
    return DevicePeak(
        "CPU (measured)",
        r".*",
        {str(k): float(v) for k, v in record["flops_per_s"].items()},
        float(record["bytes_per_s"]),
        _describe(record),
        "XLA's own matmul and elementwise kernels on this machine, not a datasheet figure",
        measured=True,
        cache_bytes_per_s=float(cache_rate) if cache_rate else None,
        cache_bytes=int(llc) if llc else None,
        calibration=record,
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
