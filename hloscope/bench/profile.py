"""Kernel times from a profiler trace of the whole program: XProf's op profile, measured here.

:func:`profile_program` runs a workload a few steps under ``jax.profiler.trace`` (each step
marked with ``jax.profiler.StepTraceAnnotation``), reads the trace back with the reader of
``hloscope profile`` (:func:`hloscope.profile.read_trace`, the ``*.xplane.pb``:
jax is here, and its times are exact where the Chrome file's are rounded to microseconds) and
joins it to the module that ran (:func:`hloscope.analysis.op_profile.op_profile`): every
kernel's device time per step, its share, its occurrences, its FLOPs and HBM bytes per step.

Where the events are depends on the platform. TPU and GPU runtimes put one event per executed
HLO op on the device planes (``/device:TPU:0``, ``/device:GPU:0``; a TPU event is named by the
op's HLO text, ``%fusion.2 = ...``). XLA's CPU runtime records each kernel (thunk) it runs on
the host plane's client threads, with the op and module in its arguments; those are wall times
of the kernel on the CPU, this platform's device. When a trace holds no op of the program (a
runtime that records none, a profiler plugin that is missing), :class:`ProgramProfile` says so
and why.

The device time per step (the kernels' self times summed) is set beside the program's wall time
per call: the difference is the time the device was not running a kernel of the program (the
host dispatching the call, launching, waiting for the result, idle gaps between kernels).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..json_fields import json_fields
from .compile import Workload
from .timing import block

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.op_profile import OpProfile
    from ..hlo.model import Module

__all__ = ["KernelProfile", "ProgramProfile", "kernel_times", "profile_program", "PROFILE_RUNS"]

PROFILE_RUNS = 5
#: The name of the steps :func:`profile_program` marks.
STEP_NAME = "hloscope_step"


@dataclass(slots=True)
class ProgramProfile:
    """The op profile of the program's traced steps, or why there is none.

    ``wall_s`` is the wall time per step while tracing (the profiler's own cost included), for
    reference: the program's untraced median is what the gap is taken against."""

    available: bool
    reason: str = ""
    profile: OpProfile | None = None
    steps: int = 0
    wall_s: float | None = None

    @property
    def device_time_s(self) -> float:
        """The kernels' time per step (0 without a profile)."""
        return self.profile.device_time_s if self.profile is not None else 0.0


@dataclass(slots=True)
class KernelProfile:
    """Kernel name -> seconds per program run, from a trace; or why there is none (the
    ``in program`` column beside kernels timed alone)."""

    available: bool
    reason: str = ""
    times: dict[str, float] = field(default_factory=dict)
    planes: list[str] = field(default_factory=list)
    runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "available reason runs planes times")


def _call(work: Workload) -> Any:
    return work.fn(*(work.prepare() if work.prepare else work.args))


def profile_program(
    work: Workload, module: Module | None, *, runs: int = PROFILE_RUNS
) -> ProgramProfile:
    """Run ``work`` ``runs`` steps under the profiler and read its op profile, joined to
    ``module`` (the optimized module that runs) when given."""
    try:
        import jax.profiler
    except ImportError as error:  # pragma: no cover - bench needs jax anyway
        return ProgramProfile(False, f"jax has no profiler here ({error})")
    from ..analysis.errors import OpProfileMismatch
    from ..analysis.op_profile import op_profile, read_trace
    from ..errors import HloscopeError
    from ..profile import TraceFormat

    block(_call(work))  # compiled and warm
    with tempfile.TemporaryDirectory(prefix="hloscope-trace-") as folder:
        try:
            with jax.profiler.trace(folder):
                started = time.perf_counter()
                for step in range(runs):
                    with jax.profiler.StepTraceAnnotation(STEP_NAME, step_num=step):
                        block(_call(work))
                wall = (time.perf_counter() - started) / runs
        except Exception as error:  # noqa: BLE001 - a profiler that cannot start is no crash
            return ProgramProfile(False, f"the profiler could not trace ({error})")
        try:
            trace = read_trace(folder, TraceFormat.XPLANE)
        except HloscopeError as error:
            return ProgramProfile(False, f"the trace cannot be read ({error.one_line()})")
    if not trace.ops:
        return ProgramProfile(
            False,
            "the trace holds no op of the program (the runtime of this platform records none)",
        )
    try:
        found = op_profile(trace, module)
    except OpProfileMismatch as error:
        return ProgramProfile(False, f"the trace is not of this module: {error.one_line()}")
    return ProgramProfile(True, "", found, found.steps, wall)


def kernel_times(
    work: Workload,
    kernel_names: Any,
    *,
    runs: int = PROFILE_RUNS,
    module: Module | None = None,
) -> KernelProfile:
    """Run ``work`` ``runs`` times under the profiler and read the times per run of the
    kernels named ``kernel_names`` (the ``in program`` column of kernels timed alone)."""
    names = set(kernel_names)
    if not names:
        return KernelProfile(False, "the program has no kernels to look for")
    found = profile_program(work, module, runs=runs)
    if not found.available or found.profile is None:
        return KernelProfile(False, found.reason)
    times = {k.name: k.time_s for k in found.profile.kernels if k.name in names}
    if not times:
        return KernelProfile(
            False,
            "the trace holds no event named after a kernel of this program (the runtime of "
            "this platform records none)",
        )
    return KernelProfile(True, "", times, [found.profile.device], found.steps)
