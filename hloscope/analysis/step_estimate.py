"""One step of an SPMD program on a chosen device: compute, plus the communication it cannot hide.

A *step* is one call of the module, on each of its devices (an SPMD module is the program
every device runs, on its own shard). Its estimate is

* **compute**: every kernel the module runs (each ``fusion`` and each op left unfused that
  does work, as ``hloscope fusions`` lists them; see
  :data:`~hloscope.analysis.fusions.NOT_KERNELS`) priced on the roofline of the device's
  peaks (:func:`~hloscope.analysis.roofline.roofline_seconds`: the slower of its FLOPs at
  the peak FLOP/s and its bytes at the memory bandwidth), times how often it runs per call
  (loop bodies times their trip counts, a branch as if taken, as the collectives count).
  Kernels run one after another on a device, so their seconds add up. The collectives
  themselves are not compute: they are the communication below. Each kernel's cost is the
  cost model's (:func:`~hloscope.analysis.cost.instruction_costs`, a fusion's made once from
  its fused body, then kept for the module and for every alike body): the fusion report's
  own, so after ``fusions`` or ``report`` nothing is costed again, and alone (``collectives
  --device``) the first costing of the fused bodies is most of what the estimate costs.
* **exposed communication**: each collective's estimate on the device's interconnect, less
  the compute scheduled between its start and done for an asynchronous one
  (:attr:`~hloscope.analysis.collectives.CollectivesResult.exposed_s`);
* **hidden communication**: the rest of the collectives' time, running under compute. It is
  not added to the step (the compute it hides under already is) but it says how much of
  the communication the schedule already overlaps.

``total_s = compute_s + exposed_s`` and the ``split`` gives each part as a fraction of it
(``compute`` and ``exposed`` add up to 1; ``hidden`` is a share of the total that lies
*inside* the compute share). The groups priced are the module's own: a module compiled for 32
devices and priced with ``--device tpu-v5e`` answers "what would this sharding cost on
v5e chips", whatever chips it was compiled on; comparing two ``--device`` runs of one dump
answers "v5e or v4". Everything is an estimate of an idle, bandwidth-bound machine: kernels
that reach their roof, collectives on one mesh axis (see
:mod:`hloscope.analysis.collectives._formulas`).

:func:`module_communication` is what the views that are not about collectives (``fusions``,
``report``, ``diff``) show of them: the collectives as flat rows, their totals, and the
step when a device is given (:class:`ModuleCommunication`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Any

from ..devices import Device, DeviceSpec
from ..hlo.model import Module
from ..json_fields import json_fields
from .collectives import (
    DONE_OPCODES,
    START_OPCODES,
    CollectivesResult,
    find_collectives,
    kind_of_opcode,
    price,
    priced_device,
)
from .cost import instruction_costs, placements
from .fusions import NOT_KERNELS
from .peaks import DevicePeak, device_peak
from .roofline import roofline_seconds

__all__ = [
    "ModuleCommunication",
    "StepEstimate",
    "communication_of",
    "compute_seconds",
    "has_collectives",
    "is_collective_opcode",
    "module_communication",
    "step_estimate",
]


def is_collective_opcode(opcode: str) -> bool:
    """Whether ``opcode`` is (half of) a collective: those are communication, not compute."""
    return kind_of_opcode(opcode) is not None or opcode in START_OPCODES or opcode in DONE_OPCODES


@dataclass(frozen=True, slots=True)
class StepEstimate:
    """The seconds of one step on one device (see the module doc for each part)."""

    device: str
    compute_peak: str
    compute_s: float
    exposed_s: float
    hidden_s: float
    kernels: int

    @property
    def communication_s(self) -> float:
        """All collectives' seconds, hidden or not."""
        return self.exposed_s + self.hidden_s

    @property
    def total_s(self) -> float:
        return self.compute_s + self.exposed_s

    @property
    def split(self) -> dict[str, float]:
        """Each part as a fraction of :attr:`total_s` (zeros for an empty step)."""
        total = self.total_s
        if total <= 0:
            return {"compute": 0.0, "exposed": 0.0, "hidden": 0.0}
        return {
            "compute": self.compute_s / total,
            "exposed": self.exposed_s / total,
            "hidden": self.hidden_s / total,
        }

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "device compute_peak kernels compute_s exposed_s hidden_s communication_s total_s "
            "split",
        )


def compute_seconds(module: Module, peak: DevicePeak) -> tuple[float, int]:
    """The roofline seconds of every compute kernel of ``module`` per call on ``peak``, and
    how many kernels that is (each counted once, however often it runs)."""
    cost_of = instruction_costs(module)
    seconds = 0.0
    kernels = 0
    for placement in placements(module).values():
        for inst in placement.computation.instructions:
            op = inst.opcode
            if op in NOT_KERNELS or is_collective_opcode(op):
                continue
            seconds += roofline_seconds(cost_of(inst), peak) * placement.executions
            kernels += 1
    return seconds, kernels


def step_estimate(
    module: Module, result: CollectivesResult, device: str | Device | DeviceSpec
) -> StepEstimate | None:
    """The step estimate of ``module`` (whose collectives are ``result``) on ``device`` (a
    registry row with interconnect figures); ``result`` is priced on it first if no device
    priced it yet. ``None`` when the row has no peaks to price compute with."""
    spec = priced_device(device)
    row = spec.device
    peak = device_peak(row)
    if peak is None:
        return None
    if result.device is None:
        price(result, spec)
    compute, kernels = compute_seconds(module, peak)
    communication = result.estimate_s or 0.0
    exposed = result.exposed_s or 0.0
    return StepEstimate(
        device=row.name,
        compute_peak=peak.name,
        compute_s=compute,
        exposed_s=exposed,
        hidden_s=max(0.0, communication - exposed),
        kernels=kernels,
    )


def has_collectives(module: Module) -> bool:
    """Whether any computation of ``module`` holds a collective (read from the opcodes alone,
    without building instructions: most modules have none, and views skip them quickly)."""
    # Each distinct opcode once: a call per op of a 400k-op module cost a tenth of a second.
    # Each body's set: a forked parse's children counted them, and no body's text is read.
    opcodes = set(chain.from_iterable(comp.opcode_set() for comp in module.computations))
    return any(map(is_collective_opcode, opcodes))


@dataclass(frozen=True, slots=True)
class ModuleCommunication:
    """A module's collectives as another view shows them: ``result`` (priced when ``step``
    is there) and the ``step`` estimate on the chosen device."""

    result: CollectivesResult
    step: StepEstimate | None = None

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per collective, in program order (``executed_bytes`` is ``bytes``
        times ``executions``; the seconds are ``None`` without a device)."""
        return [c.flat_row() for c in self.result.collectives]

    def totals(self) -> dict[str, Any]:
        r = self.result
        return {
            "count": len(r.collectives),
            "devices": r.devices,
            "bytes": r.total_bytes,
            "executed_bytes": r.executed_bytes,
            "estimate_s": r.estimate_s,
            "exposed_s": r.exposed_s,
            "device": r.device["name"] if r.device is not None else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"collectives": [rows], "communication": totals, "step": step or None}``."""
        return {
            "collectives": self.rows(),
            "communication": self.totals(),
            "step": self.step.to_dict() if self.step is not None else None,
        }


def module_communication(
    module: Module, device: str | Device | DeviceSpec | None = None
) -> ModuleCommunication | None:
    """:func:`communication_of`, or ``None`` when the module has no collective and no device
    is given: nothing to show."""
    if device is None and not has_collectives(module):
        return None
    return communication_of(module, device)


def communication_of(
    module: Module, device: str | Device | DeviceSpec | None = None
) -> ModuleCommunication:
    """``module``'s collectives, priced on ``device`` with the step estimate when given."""
    found, mesh, devices = find_collectives(module)
    result = CollectivesResult(module.name, devices, mesh, found, [])
    if device is None:
        return ModuleCommunication(result)
    price(result, device)
    return ModuleCommunication(result, step_estimate(module, result, device))
