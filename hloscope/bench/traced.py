"""Kernels measured inside the program: each kernel's row from a profiler trace of the whole.

:func:`traced_kernels` turns the op profile of the program's traced steps
(:func:`~.profile.profile_program`) into :class:`TracedKernel` rows beside the kernel table of
the optimized module: time per step (the device's own clock, the program's launch paid once
per step as in real use), share, occurrences, FLOPs and bytes per execution from the module
(on a TPU module, bytes through HBM: :func:`hloscope.analysis.hbm.kernel_roof_bytes`), the
achieved rates and the roofline position under the bench's peak (a measured CPU's included,
with its cache roof for a kernel whose bytes fit in the last-level cache).

An op the device ran that is no kernel of the fusion report (a loop's control, an async
wrapper, a prefetch) keeps its row: the device spent that time on it. An async start or done
(``copy-start``, ``slice-done``...) has no rate, bound or roofline position: its event is the
issue of a transfer or the wait for it, and the transfer is shown as overlap instead
(:attr:`hloscope.analysis.op_profile.OpProfile.overlaps`). A kernel whose bytes all stay on chip
and that does no FLOP is bound ``on-chip``, with no position. A kernel whose time in
the trace is zero ran below the trace's resolution: it has no time, only ``below_s``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis.hbm import kernel_roof_bytes
from ..analysis.peaks import DevicePeak
from ..analysis.roofline import (
    NO_ROOFLINE,
    element_type_of,
    on_chip_roofline,
    roofline,
)
from ..json_fields import json_fields
from .kernel_contract import TimedKernel, kernel_contract

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.op_profile import OpProfile
    from ..hlo.model import Module

__all__ = ["TracedKernel", "traced_kernels", "TRACE_RESOLUTION_S"]

#: The resolution of a trace's times (the XPlane's nanoseconds).
TRACE_RESOLUTION_S = 1e-9


@dataclass(slots=True, kw_only=True)
class TracedKernel(TimedKernel):
    """One kernel's time inside the program, from a trace (see the module docstring)."""

    executions: float  # per step
    occurrences: int  # in the whole trace
    time_s: float  # per step
    joined: bool = True
    asynchronous: bool = False  # an async start/done: no roofline, its transfer is overlap

    @property
    def measurable(self) -> bool:
        return self.time_s > 0

    @property
    def median_s(self) -> float | None:
        """One execution's device time (the mean over the trace's executions)."""
        if not self.measurable or self.executions <= 0:
            return None
        return self.time_s / self.executions

    @property
    def below_s(self) -> float | None:
        return None if self.measurable else TRACE_RESOLUTION_S

    @property
    def total_s(self) -> float:
        return self.time_s

    def contract(self) -> dict[str, Any]:
        return kernel_contract(
            self,
            time_s=self.time_s,
            executions=self.executions,
            rates=(self.roofline.flops_per_s, self.roofline.bytes_per_s),
            timed="in program",
            asynchronous=self.asynchronous,
        )

    def row(self) -> dict[str, Any]:
        return {
            **self.contract(),
            **json_fields(self, "kind where occurrences total_s"),
            "profile_s": None,
            "joined": self.joined,
        }


def traced_kernels(
    found: OpProfile, module: Module | None, peak: DevicePeak | None
) -> list[TracedKernel]:
    """The rows of ``found`` (an op profile joined to ``module``) under ``peak``."""
    from ..analysis.fusions import fusion_report

    report = {k.name: k for k in fusion_report(module).kernels} if module is not None else {}
    steps = max(1, found.steps)
    out = []
    for timed in found.kernels:
        kernel = report.get(timed.name)
        executions = timed.occurrences / steps
        all_bytes = 0
        if kernel is not None:
            flops_each, bytes_each = kernel.cost.flops, kernel_roof_bytes(kernel)
            all_bytes = kernel.cost.bytes_accessed
            element = element_type_of(kernel.shape)
            flops_step = float(timed.flops if timed.flops is not None else 0.0)
            bytes_step = float(timed.hbm_bytes if timed.hbm_bytes is not None else 0.0)
        else:
            each = max(executions, 1e-12)
            flops_step = float(timed.flops or 0.0)
            bytes_step = float(timed.hbm_bytes or 0.0)
            flops_each, bytes_each = int(flops_step / each), int(bytes_step / each)
            element = ""
        choice = peak.choose(element or None) if peak is not None else None
        if timed.asynchronous:
            line = NO_ROOFLINE
        elif flops_step <= 0 and bytes_step <= 0 and all_bytes > 0 and choice is not None:
            line = on_chip_roofline(choice)
        else:
            line = roofline(flops_step, bytes_step, timed.time_s, choice, working_set=bytes_each)
        out.append(
            TracedKernel(
                name=timed.name,
                kind=timed.kind,
                where=kernel.where if kernel is not None else "",
                executions=executions,
                occurrences=timed.occurrences,
                flops=int(flops_each),
                bytes=int(bytes_each),
                source=timed.source,
                time_s=timed.time_s,
                roofline=line,
                share=timed.share,
                joined=timed.joined,
                asynchronous=timed.asynchronous,
            )
        )
    return out
