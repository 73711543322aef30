"""Communication compared: what two shardings of one model make the devices send each other.

Change a sharding (data parallel to tensor parallel, a weight column- instead of row-sharded)
and the kernels barely move, but the collectives do: a gradient all-reduce becomes an
activation all-reduce, an all-gather appears. :func:`communication_diff` compares the
collectives of A and B (:class:`~hloscope.analysis.collectives.CollectivesResult`, each
module's own) per kind and in total: how many there are, their bytes per device, the bytes
executed per call (loop bodies times their trip counts), and, when both sides were priced on
one device, the estimated and exposed seconds per call. Collectives are not matched one to
one: two shardings need not have any collective in common, and the totals per kind are what
the question "what does B cost in communication" needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...json_fields import json_fields
from ..collectives import CollectivesResult

__all__ = ["CommunicationDiff", "KindTotals", "communication_diff", "kind_totals"]


@dataclass(slots=True)
class KindTotals:
    """The collectives of one kind (or all of them) on one side. The seconds are per call
    (each collective times its executions), ``None`` when no device priced the side."""

    count: int = 0
    bytes: int = 0
    executed_bytes: int = 0
    estimate_s: float | None = None
    exposed_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "count bytes executed_bytes estimate_s exposed_s")


def kind_totals(result: CollectivesResult) -> dict[str, KindTotals]:
    """Per kind, in the order each kind first runs: the :class:`KindTotals` of ``result``."""
    out: dict[str, KindTotals] = {}
    priced = result.device is not None
    for c in result.collectives:
        totals = out.setdefault(c.kind.value, KindTotals())
        totals.count += 1
        totals.bytes += c.bytes
        totals.executed_bytes += c.executed_bytes
        if priced:
            totals.estimate_s = (totals.estimate_s or 0.0) + (c.estimate_s or 0.0) * c.executions
            totals.exposed_s = (totals.exposed_s or 0.0) + (c.exposed_s or 0.0) * c.executions
    return out


def _total(result: CollectivesResult) -> KindTotals:
    return KindTotals(
        len(result.collectives),
        result.total_bytes,
        result.executed_bytes,
        result.estimate_s,
        result.exposed_s,
    )


def _delta(a: KindTotals, b: KindTotals) -> dict[str, Any]:
    def minus(x: float | None, y: float | None) -> float | None:
        return None if x is None or y is None else x - y

    return {
        "count": b.count - a.count,
        "bytes": b.bytes - a.bytes,
        "executed_bytes": b.executed_bytes - a.executed_bytes,
        "estimate_s": minus(b.estimate_s, a.estimate_s),
        "exposed_s": minus(b.exposed_s, a.exposed_s),
    }


@dataclass(slots=True)
class CommunicationDiff:
    """A's and B's collectives per kind (``kinds``: kind -> (A's, B's), every kind either
    side has, A's first) and in total; ``device`` the name both were priced on, if any."""

    a: KindTotals
    b: KindTotals
    kinds: dict[str, tuple[KindTotals, KindTotals]] = field(default_factory=dict)
    devices: tuple[int, int] = (1, 1)
    device: str | None = None

    @property
    def no_change(self) -> bool:
        """True when every kind has the same count, bytes and executed bytes on both sides."""
        return all(
            (a.count, a.bytes, a.executed_bytes) == (b.count, b.bytes, b.executed_bytes)
            for a, b in self.kinds.values()
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "devices": {"a": self.devices[0], "b": self.devices[1]},
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "delta": _delta(self.a, self.b),
            "no_change": self.no_change,
            "kinds": [
                {"kind": kind, "a": a.to_dict(), "b": b.to_dict(), "delta": _delta(a, b)}
                for kind, (a, b) in self.kinds.items()
            ],
        }


def communication_diff(a: CollectivesResult, b: CollectivesResult) -> CommunicationDiff:
    """A's collectives against B's, per kind and in total. The seconds are compared only
    when both sides were priced on the same device (else they are left ``None``)."""
    device_a = a.device["name"] if a.device is not None else None
    device_b = b.device["name"] if b.device is not None else None
    same = device_a is not None and device_a == device_b
    kinds_a, kinds_b = kind_totals(a), kind_totals(b)
    kinds = {
        kind: (kinds_a.get(kind, _zero(same)), kinds_b.get(kind, _zero(same)))
        for kind in [*kinds_a, *(k for k in kinds_b if k not in kinds_a)]
    }
    total_a, total_b = _total(a), _total(b)
    if not same:
        for totals in (total_a, total_b, *(t for pair in kinds.values() for t in pair)):
            totals.estimate_s = totals.exposed_s = None
    return CommunicationDiff(
        total_a, total_b, kinds, (a.devices, b.devices), device_a if same else None
    )


def _zero(priced: bool) -> KindTotals:
    """The totals of a kind a side does not have: zero seconds when the side was priced."""
    return KindTotals(estimate_s=0.0 if priced else None, exposed_s=0.0 if priced else None)
