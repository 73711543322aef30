"""Kernel times from a profiler trace of the whole program (where the runtime records them).

Isolated timings (``--per-kernel``) run each kernel alone, with cold caches and a launch of
its own; inside the program the same kernel may overlap others or find its inputs in cache.
The JAX profiler sees the program as it runs: :func:`kernel_times` runs a workload a few times
under ``jax.profiler.trace``, reads the trace back with ``jax.profiler.ProfileData`` and takes,
for every event named like one of the program's kernels, its duration per program run: the
durations of all its events (every execution, every run) summed and divided by the runs.

Where the events are depends on the platform. TPU and GPU runtimes put one event per executed
HLO op on the device planes (``/device:TPU:0``, ``/device:GPU:0``). XLA's CPU runtime records
each kernel (thunk) it runs on the host plane's client threads, under the kernel's name; those
are wall times of the kernel on the CPU, which is this platform's device. When a trace holds no
event named after any kernel (a runtime that records none, a profiler plugin that is missing),
:class:`KernelProfile` says so and why, and the reason is shown instead of the times.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .compile import Workload
from .timing import block

__all__ = ["KernelProfile", "kernel_times", "PROFILE_RUNS"]

PROFILE_RUNS = 5
_END_MARK = "end: "  # the CPU runtime's closing events ("end: fusion.3")


@dataclass(slots=True)
class KernelProfile:
    """Kernel name -> median seconds per program run, from a trace; or why there is none."""

    available: bool
    reason: str = ""
    times: dict[str, float] = field(default_factory=dict)
    planes: list[str] = field(default_factory=list)
    runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "reason": self.reason,
            "runs": self.runs,
            "planes": list(self.planes),
            "times": dict(self.times),
        }


def _trace_files(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "**", "*.xplane.pb"), recursive=True))


def _events(path: str) -> Iterable[tuple[str, str, float, float]]:
    """``(plane, event name, start ns, duration ns)`` of every event of a trace file (read by
    :mod:`hloscope.capture.xplane`, the reader ``hloscope profile`` uses too)."""
    from ..capture.xplane import xplane_events

    for event in xplane_events(path):
        yield event.process, event.name, event.start_ns, event.duration_ns


def kernel_times(
    work: Workload, kernel_names: Iterable[str], *, runs: int = PROFILE_RUNS
) -> KernelProfile:
    """Run ``work`` ``runs`` times under the profiler and read the kernels' times."""
    try:
        import jax.profiler
        from jax.profiler import ProfileData  # noqa: F401 - older jax lacks it: say so below
    except ImportError as error:
        return KernelProfile(False, f"this jax has no profile reader ({error})")
    names = set(kernel_names)
    if not names:
        return KernelProfile(False, "the program has no kernels to look for")
    block(work.fn(*(work.prepare() if work.prepare else work.args)))  # compiled and warm
    with tempfile.TemporaryDirectory(prefix="hloscope-trace-") as folder:
        try:
            with jax.profiler.trace(folder):
                for _ in range(runs):
                    block(work.fn(*(work.prepare() if work.prepare else work.args)))
        except Exception as error:  # noqa: BLE001 - a profiler that cannot start is no crash
            return KernelProfile(False, f"the profiler could not trace ({error})")
        files = _trace_files(folder)
        if not files:
            return KernelProfile(False, "the profiler wrote no trace (no xplane.pb file)")
        durations: dict[str, list[float]] = defaultdict(list)
        planes: set[str] = set()
        for path in files:
            for plane, name, _, duration in _events(path):
                if name.startswith(_END_MARK) or name not in names:
                    continue
                durations[name].append(duration * 1e-9)
                planes.add(plane)
    if not durations:
        return KernelProfile(
            False,
            "the trace holds no event named after a kernel of this program (the runtime of "
            "this platform records none)",
        )
    times = {name: sum(values) / runs for name, values in durations.items()}
    return KernelProfile(True, "", times, sorted(planes), runs)
