"""How fast this machine could go: a device's peaks, and a CPU's measured.

For TPUs and GPUs the figures are the vendors' own, read from the device registry
(:mod:`hloscope.devices`, by the ``device_kind`` JAX reports) as a
:class:`~hloscope.analysis.peaks.DevicePeak` (:func:`peak_for`). This module measures what no
datasheet gives.

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
highest level, summed), else from ``lscpu``, else assumed to be :data:`FALLBACK_LLC_BYTES`, a size
larger than most CPUs' so that the memory roof's arrays are beyond it all the same. The roofline
(:mod:`hloscope.analysis.roofline`) judges a program whose working set fits in the last-level cache
against the cache roof, any other against the memory roof.

The result is cached as JSON under the hloscope cache folder (``$HLOSCOPE_CACHE/peaks/``, see
:func:`hloscope.capture.cache.cache_root`), keyed by the CPU model, the number of cores this
process may use and the jaxlib version, with how it was measured (runs, best-of, the runs'
spread, the last-level cache size used); ``refresh=True`` measures again. When a measured
program runs faster than a roof, the calibration underrated this machine (it ran while the
machine was busier): :func:`raise_cpu_peak` raises that roof in the cache to what the program
reached once a second measurement confirms it (one noisy run moves nothing; kernels timed
alone, whose net times are differences of two noisy medians, never raise it), records it, and
the bench output says so. These are *achievable* peaks of XLA's
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
from pathlib import Path
from typing import Any

from ..analysis.peaks import DevicePeak, vendor_peak

__all__ = [
    "peak_for",
    "calibrate_cpu",
    "cpu_peak",
    "cpu_cache_path",
    "raise_cpu_peak",
    "pending_raises",
    "last_level_cache",
    "LastLevelCache",
    "CALIBRATION_MATMULS",
    "LLC_MULTIPLE",
    "FALLBACK_LLC_BYTES",
]


def peak_for(device: Any, *, calibrate: bool = True, refresh: bool = False) -> DevicePeak | None:
    """The peak figures of ``device`` (a ``jax.Device``): the device registry's for its kind
    (:func:`hloscope.analysis.peaks.vendor_peak`), a measured one for a CPU
    (``calibrate=False``: only a cached measurement), else ``None``."""
    if getattr(device, "platform", "") == "cpu":
        return cpu_peak(refresh=refresh) if calibrate else _cached_cpu_peak()
    return vendor_peak(str(getattr(device, "device_kind", "") or ""))


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
    from ..backends import jaxlib_version
    from ..capture.cache import PEAKS_FOLDER, cache_root

    key = json.dumps(
        [_CALIBRATION_VERSION, _cpu_model(), _usable_cores(), jaxlib_version(), platform.machine()]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_root() / PEAKS_FOLDER / f"cpu-{digest}.json"


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
    from ..backends.frameworks import require_jax

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
    """``peak`` (a measured CPU's) with the roofs a program beat raised, once confirmed:
    ``flops`` as (element type, FLOP/s), the memory or cache bandwidth; and the raises made.

    One measurement above a roof is not enough: a single noisy run would move every later
    program's position (measured: 61%, 36%, 39% for one program across identical runs). The
    first beat of a roof is recorded as *pending* in the cached calibration (``pending``) and
    changes nothing; a later measurement that beats the roof again confirms it, and the roof is
    raised to the lower of the two rates (the one both measurements support). Each raise is
    recorded (``raised``, the latest :data:`RAISES_KEPT`) and the cache rewritten."""
    record = json.loads(json.dumps(peak.calibration or {}))  # a deep copy of plain JSON
    record.setdefault("flops_per_s", dict(peak.flops_per_s))
    record.setdefault("bytes_per_s", peak.bytes_per_s)
    pending: dict[str, Any] = dict(record.get("pending") or {})
    raised: list[dict[str, Any]] = []
    at = time.strftime("%Y-%m-%dT%H:%M:%S")

    def lift(path: tuple[str, ...], value: float | None, roof: str) -> None:
        holder = record
        for key in path[:-1]:
            holder = holder.setdefault(key, {})
        before = float(holder.get(path[-1]) or 0.0)
        if value is None or value <= before:
            return
        earlier = pending.pop(roof, None)
        if earlier is None or float(earlier.get("rate") or 0.0) <= before:
            pending[roof] = {"rate": value, "by": by, "at": at}
            return
        to = min(value, float(earlier["rate"]))
        holder[path[-1]] = to
        raised.append({"roof": roof, "from": before, "to": to, "by": by, "at": at})

    if flops is not None:
        lift(("flops_per_s", flops[0]), flops[1], f"compute {flops[0]}")
    lift(("bytes_per_s",), bytes_per_s, "memory")
    lift(("cache_bytes_per_s",), cache_bytes_per_s, "cache")
    record["cache_bytes_per_s"] = max(
        float(record.get("cache_bytes_per_s") or 0.0), float(record["bytes_per_s"])
    )
    record["pending"] = pending
    record["raised"] = [*(record.get("raised") or []), *raised][-RAISES_KEPT:]
    _write_record(record)
    return _cpu_entry(record), raised


def pending_raises(peak: DevicePeak | None) -> dict[str, Any]:
    """The roofs a single measurement beat, waiting for another to confirm them."""
    if peak is None or not peak.calibration:
        return {}
    return dict(peak.calibration.get("pending") or {})


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
