"""Two op profiles side by side: before and after a refactor, per kernel and per source line.

Kernels are paired by name (XLA names kernels after what they compute, so an unchanged part of
the program keeps its names); source lines pair across any renaming, which makes the per-line
view the one to read after a refactor that changed fusion decisions. Each row holds the time
per step in A and in B, the difference ``B - A`` and the ratio ``B / A`` (``None`` where one
side lacks the row). Rows are ordered by the size of the difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...json_fields import json_fields
from .table import OpProfile

__all__ = ["Delta", "ProfileComparison", "compare_profiles"]


@dataclass(frozen=True, slots=True)
class Delta:
    """One kernel's (or line's) time per step in A and in B (``None``: not there)."""

    key: str
    a_s: float | None
    b_s: float | None

    @property
    def delta_s(self) -> float:
        return (self.b_s or 0.0) - (self.a_s or 0.0)

    @property
    def ratio(self) -> float | None:
        if self.a_s is None or self.b_s is None or self.a_s <= 0:
            return None
        return self.b_s / self.a_s

    def row(self, label: str) -> dict[str, Any]:
        return {label: self.key, **json_fields(self, "a_s b_s delta_s ratio")}


@dataclass(slots=True)
class ProfileComparison:
    """Profile A against profile B: the device time per step and the per-row deltas."""

    a: OpProfile
    b: OpProfile
    kernels: list[Delta]
    by_source: list[Delta]

    @property
    def ratio(self) -> float | None:
        a, b = self.a.device_time_s, self.b.device_time_s
        return b / a if a > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": {"trace": self.a.trace, "module": self.a.module, **_totals(self.a)},
            "b": {"trace": self.b.trace, "module": self.b.module, **_totals(self.b)},
            "ratio": self.ratio,
            "kernels": [d.row("name") for d in self.kernels],
            "by_source": [d.row("source") for d in self.by_source],
        }


def _totals(profile: OpProfile) -> dict[str, Any]:
    return {
        "device": profile.device,
        "steps": profile.steps,
        "device_time_s": profile.device_time_s,
    }


def _deltas(a: Mapping[str, float], b: Mapping[str, float]) -> list[Delta]:
    keys = list(dict.fromkeys([*a, *b]))
    rows = [Delta(key, a.get(key), b.get(key)) for key in keys]
    rows.sort(key=lambda d: (-abs(d.delta_s), d.key))
    return rows


def compare_profiles(a: OpProfile, b: OpProfile) -> ProfileComparison:
    """Pair ``a``'s and ``b``'s kernels by name and their source lines by line."""
    return ProfileComparison(
        a,
        b,
        _deltas({k.name: k.time_s for k in a.kernels}, {k.name: k.time_s for k in b.kernels}),
        _deltas({g.key: g.time_s for g in a.by_source}, {g.key: g.time_s for g in b.by_source}),
    )
