"""The report's collectives section: each collective of an SPMD module with its bytes and
groups, priced on a chosen device when one is, and the step on every device of the
interconnect table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.collectives import CollectivesResult


__all__ = [
    "CollectiveRow",
    "DeviceStep",
    "CollectivesSection",
    "collectives_section",
]


@dataclass(frozen=True, slots=True)
class CollectiveRow:
    """One collective as the section lists it; ``estimate`` and ``exposed`` are words
    (``12.3 us``, ``-`` without a device), ``estimate_s`` the number to sort by."""

    name: str
    kind: str
    is_async: bool
    bytes: int
    groups: str
    executions: int
    where: str
    source: str
    op_name: str
    estimate_s: float | None
    estimate: str
    exposed: str


@dataclass(frozen=True, slots=True)
class DeviceStep:
    """The step estimate of the module on one device of the interconnect table, in words
    (seconds) and shares of the step (``compute_share``...)."""

    device: str
    topology: str
    compute_peak: str
    total_s: float
    total: str
    compute: str
    exposed: str
    hidden: str
    compute_share: float
    exposed_share: float


@dataclass(slots=True)
class CollectivesSection:
    """The collectives section: the module's ``devices``, its collectives (``rows``), their
    totals in bytes (``bytes`` per device, ``executed_bytes`` per call), the ``device``
    the rows were priced on (``None``: not priced, the step table still is) and the step
    on every device of the table (``steps``)."""

    devices: int
    rows: list[CollectiveRow]
    bytes: int
    executed_bytes: int
    device: str | None
    estimate: str
    exposed: str
    steps: list[DeviceStep]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The page's machine-readable part: counts, bytes and the step per device."""
        return {
            "devices": self.devices,
            "count": len(self.rows),
            "bytes": self.bytes,
            "executed_bytes": self.executed_bytes,
            "device": self.device,
            "steps": {
                s.device: {
                    "total_s": s.total_s,
                    "compute": s.compute_share,
                    "exposed": s.exposed_share,
                }
                for s in self.steps
            },
        }


def _device_step(step: Mapping[str, Any]) -> DeviceStep:
    from ..collectives_text import format_seconds

    split = step["split"]
    return DeviceStep(
        device=step["device"],
        topology=step.get("topology", ""),
        compute_peak=step["compute_peak"],
        total_s=step["total_s"],
        total=format_seconds(step["total_s"]),
        compute=format_seconds(step["compute_s"]),
        exposed=format_seconds(step["exposed_s"]),
        hidden=format_seconds(step["hidden_s"]),
        compute_share=split["compute"],
        exposed_share=split["exposed"],
    )


def collectives_section(
    result: CollectivesResult, steps: Sequence[Mapping[str, Any]]
) -> CollectivesSection:
    """:class:`CollectivesSection` of a module's collectives (priced when a device priced
    ``result``) and of its step on each device (``steps``: each a step estimate's JSON form,
    :meth:`~hloscope.analysis.step_estimate.StepEstimate.to_dict`, with the device's
    ``topology``)."""
    from ..collectives_text import format_seconds

    rows = [
        CollectiveRow(
            name=c.name,
            kind=c.kind.value,
            is_async=c.is_async,
            bytes=c.bytes,
            groups=f"{c.group_size}x{c.num_groups}",
            executions=c.executions,
            where=c.where,
            source=c.source,
            op_name=c.op_name,
            estimate_s=c.estimate_s,
            estimate=format_seconds(c.estimate_s),
            exposed=format_seconds(c.exposed_s),
        )
        for c in result.collectives
    ]
    return CollectivesSection(
        devices=result.devices,
        rows=rows,
        bytes=result.total_bytes,
        executed_bytes=result.executed_bytes,
        device=result.device["name"] if result.device is not None else None,
        estimate=format_seconds(result.estimate_s),
        exposed=format_seconds(result.exposed_s),
        steps=[_device_step(step) for step in steps],
    )
