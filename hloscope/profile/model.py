"""What a profiler trace holds, in the terms of an op profile: ops, module runs and steps.

A trace (``jax.profiler.trace``'s ``*.trace.json.gz`` or ``*.xplane.pb``) is a list of timed
events on *processes* (the Chrome format's ``pid``; an XPlane's plane: ``/device:TPU:0``,
``/host:CPU``) and *threads* (``tid``; an XPlane's line: ``XLA Ops``, ``XLA Modules``,
``Steps``, a host thread). Both readers turn their file into :class:`RawEvent` objects and
:func:`hloscope.profile.build.build_trace` sorts those into a :class:`Trace`:

* :class:`OpEvent`: one execution of one HLO instruction (a kernel) on the device;
* :class:`ModuleRun`: one execution of a compiled module (the ``XLA Modules`` line);
* :class:`StepMark`: one training step the program marked (``jax.profiler.StepTraceAnnotation``
  on the host, or the device's ``Steps`` line).

Times are nanoseconds from the trace's own origin. Nothing here needs jax.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RawEvent", "OpEvent", "ModuleRun", "StepMark", "Trace"]


@dataclass(frozen=True, slots=True)
class RawEvent:
    """One complete event as a trace file holds it: where (process, thread), what, when."""

    process: str
    thread: str
    name: str
    start_ns: float
    duration_ns: float
    args: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class OpEvent:
    """One execution of an HLO instruction on the device.

    ``name`` is the instruction's name (``fusion.244``); ``text`` its HLO text when the trace
    carries it (XLA:TPU's ``%fusion.244 = bf16[...] fusion(...), kind=kOutput``), else ``""``.
    ``module`` names the HLO module (``jit_step``; ``""`` when the trace does not say), ``run``
    tells one execution of the module from another, ``line`` is the thread the op was recorded
    on (nested events of one line share time; see :func:`~hloscope.profile.build.self_times`).
    ``category``, ``source`` (``file:line``), ``op_name`` (JAX's name scope), ``flops`` and
    ``bytes_accessed`` are what the runtime attached, when it did (XLA:TPU attaches them all to
    the Chrome trace's events; the XPlane reader sees only the op's text).
    """

    name: str
    module: str
    start_ns: float
    duration_ns: float
    run: str = ""
    line: str = ""
    text: str = ""
    category: str = ""
    source: str = ""
    op_name: str = ""
    flops: float | None = None
    bytes_accessed: float | None = None

    @property
    def end_ns(self) -> float:
        return self.start_ns + self.duration_ns


@dataclass(frozen=True, slots=True)
class ModuleRun:
    """One execution of a compiled module on the device (``jit_step(6)``: module, program id;
    ``run`` the runtime's ``run_id`` when the event carries one)."""

    module: str
    program_id: str
    start_ns: float
    duration_ns: float
    run: str = ""


@dataclass(frozen=True, slots=True)
class StepMark:
    """One step the program marked: its ``name`` (``train``) and ``number`` (``step_num``)."""

    name: str
    number: str
    start_ns: float
    duration_ns: float


@dataclass(slots=True)
class Trace:
    """The device ops of one profiler trace, and the runs and steps that frame them.

    ``device`` is the process the ops ran on (``/device:TPU:0``; ``/host:CPU`` for XLA:CPU,
    which records its kernels on host threads), ``devices`` every device process that held ops
    in ordinal order (the first is read unless another was asked for), ``device_kind`` what the
    trace says the chip is (``TPU v5 lite``) when it says. ``busy_ns`` is each of ``devices``'
    op time over the whole trace, every module's ops counted (the sum of their self times, so
    the time its op line was busy): an SPMD program's chips side by side, a slow one stands
    out. ``path`` and ``format`` name the file read.
    """

    path: str
    format: str
    device: str
    ops: list[OpEvent]
    module_runs: list[ModuleRun] = field(default_factory=list)
    steps: list[StepMark] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    device_kind: str = ""
    busy_ns: dict[str, float] = field(default_factory=dict)

    def modules(self) -> list[str]:
        """The modules the ops belong to, in order of first appearance."""
        return list(dict.fromkeys(op.module for op in self.ops))
