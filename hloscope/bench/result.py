"""What a benchmark gives back: :class:`BenchResult` (one program, its kernels, its roofline)
and :class:`BenchComparison` (two programs timed interleaved), with the JSON contract of
``hloscope bench --json`` (:data:`CONTRACT_KEYS`, :data:`KERNEL_KEYS`).

:mod:`hloscope.bench.api` runs the benchmark and names these there too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.peaks import DevicePeak, calibration_summary
from ..analysis.roofline import (
    Roofline,
)
from ..dataframes import require_pandas
from .comparison import Comparison
from .extract import Skip
from .kernels import KernelTiming
from .peaks import pending_raises
from .profile import KernelProfile, ProgramProfile
from .timing import Timing
from .traced import TracedKernel

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "BenchResult",
    "BenchComparison",
    "CONTRACT_KEYS",
    "KERNEL_KEYS",
    "BenchProgress",
    "IN_PROGRAM",
    "ALONE",
]

#: The keys of :meth:`BenchResult.to_dict`, in order.
CONTRACT_KEYS = (
    "device",
    "module",
    "runs",
    "median_s",
    "min_s",
    "p10_s",
    "p90_s",
    "spread",
    "flops_per_s",
    "bytes_per_s",
    "roofline",
    "per_kernel",
    "kernels",
    "skipped",
)
#: The keys of one kernel of :meth:`BenchResult.to_dict`.
KERNEL_KEYS = (
    "name",
    "median_s",
    "share",
    "flops",
    "bytes",
    "bound",
    "source",
    "time_s",
    "executions",
    "flops_per_s",
    "bytes_per_s",
    "roofline_fraction",
    "timed",
    "below_s",
    "async",
)
#: How per-kernel times were measured.
IN_PROGRAM, ALONE = "in program", "alone"

#: ``progress(stage, fraction_done, note)``; stage is "program", "kernels", "compare"...
BenchProgress = Callable[[str, float, str], None]


def _finite(value: float | None) -> float | None:
    if value is None or isinstance(value, bool):
        return value
    return float(value) if math.isfinite(value) else None


@dataclass(slots=True)
class BenchResult:
    """One program timed: statistics, cost, roofline, and the kernels when asked for."""

    device: str
    module: str
    timing: Timing
    flops: int
    bytes: int
    roofline: Roofline
    peak: DevicePeak | None = None
    kernels: list[KernelTiming | TracedKernel] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    launch_s: float | None = None
    profile: KernelProfile | None = None
    per_kernel: bool = False
    timed: str = ""  # IN_PROGRAM or ALONE with per_kernel
    traced: ProgramProfile | None = None
    notes: list[str] = field(default_factory=list)
    recalibrated: list[dict[str, Any]] = field(default_factory=list)
    working_set: int = 0  # the largest kernel's bytes per execution: picks the memory roof

    # -- the numbers people ask for -----------------------------------------------------------
    @property
    def median_s(self) -> float:
        return self.timing.median_s

    @property
    def runs(self) -> int:
        return self.timing.runs

    @property
    def kernels_total_s(self) -> float:
        """The kernels' times summed per program run (executions counted)."""
        return sum(k.total_s for k in self.kernels)

    def per_kernel_summary(self) -> dict[str, Any] | None:
        """The ``per_kernel`` object of the JSON (see the module docstring)."""
        if not self.per_kernel:
            return None
        traced = self.traced
        wall = _finite(self.timing.median_s)
        device = self.kernels_total_s if self.kernels else None
        reason = ""
        if self.timed == IN_PROGRAM and traced is not None and not traced.available:
            reason = traced.reason
        return {
            "timed": self.timed,
            "steps": traced.steps if traced is not None and self.timed == IN_PROGRAM else None,
            "device_time_s": _finite(device),
            "wall_s": wall,
            "gap_s": _finite(wall - device) if wall is not None and device is not None else None,
            "reason": reason,
            "async": [o.row() for o in self.overlaps],
        }

    @property
    def overlaps(self) -> list[Any]:
        """The async pairs of the traced steps, most exposed first (none timed alone)."""
        traced = self.traced
        if self.timed != IN_PROGRAM or traced is None or traced.profile is None:
            return []
        return list(traced.profile.overlaps)

    # -- output -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON contract (see the module docstring), exactly those keys."""
        t = self.timing
        return {
            "device": self.device,
            "module": self.module,
            "runs": t.runs,
            "median_s": _finite(t.median_s),
            "min_s": _finite(t.min_s),
            "p10_s": _finite(t.p10_s),
            "p90_s": _finite(t.p90_s),
            "spread": _finite(t.spread),
            "flops_per_s": _finite(self.roofline.flops_per_s),
            "bytes_per_s": _finite(self.roofline.bytes_per_s),
            "roofline": self._roofline_dict(),
            "per_kernel": self.per_kernel_summary(),
            "kernels": [
                {k: (_finite(v) if isinstance(v, float) else v) for k, v in kt.contract().items()}
                for kt in self.kernels
            ],
            "skipped": [s.to_dict() for s in self.skipped],
        }

    def _roofline_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            k: _finite(v) if isinstance(v, float) else v
            for k, v in self.roofline.contract().items()
        }
        data["fraction"] = _finite(self.roofline.fraction)
        data["calibration"] = calibration_summary(self.peak.calibration) if self.peak else None
        data["recalibrated"] = [dict(r) for r in self.recalibrated]
        data["pending"] = pending_raises(self.peak)
        return data

    def program_row(self) -> dict[str, Any]:
        """The program as one flat row (the CSV of a run without ``--per-kernel``)."""
        data = self.to_dict()
        row = {
            k: data[k]
            for k in CONTRACT_KEYS
            if k not in ("roofline", "per_kernel", "kernels", "skipped")
        }
        row.update(
            {
                f"roofline_{k}": v
                for k, v in data["roofline"].items()
                if k not in ("calibration", "recalibrated", "pending", "fraction")
            }
        )
        row["recalibrated"] = ", ".join(r["roof"] for r in self.recalibrated) or None
        row.update(
            flops=self.flops,
            bytes=self.bytes,
            mean_s=_finite(self.timing.mean_s),
            precision=_finite(self.timing.precision),
            roofline_fraction=_finite(self.roofline.fraction),
            kernels_total_s=self.kernels_total_s if self.kernels else None,
        )
        return row

    def kernel_rows(self) -> list[dict[str, Any]]:
        rows = [k.row() for k in self.kernels]
        for row in rows:
            for key, value in row.items():
                if isinstance(value, float):
                    row[key] = _finite(value)
        return sorted(rows, key=lambda r: -(r["total_s"] or 0.0))

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per kernel, slowest first, when kernels were timed; else one row for the
        program. ``df.attrs["program"]`` holds the program's row, ``df.attrs["skipped"]`` the
        skipped kernels."""
        pd = require_pandas()

        if self.kernels:
            frame = pd.DataFrame(self.kernel_rows())
        else:
            frame = pd.DataFrame([self.program_row()])
        frame.attrs["program"] = self.program_row()
        frame.attrs["skipped"] = [s.to_dict() for s in self.skipped]
        return frame


@dataclass(slots=True)
class BenchComparison:
    """A against B, timed interleaved."""

    a: BenchResult
    b: BenchResult
    comparison: Comparison

    @property
    def verdict(self) -> str:
        return self.comparison.verdict

    @property
    def ratio(self) -> float:
        """B's time over A's."""
        return self.comparison.ratio

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "comparison": self.comparison.to_dict(),
        }

    def to_dataframe(self) -> pandas.DataFrame:
        """Two rows, A and B, with the comparison on ``df.attrs["comparison"]``."""
        pd = require_pandas()

        frame = pd.DataFrame([self.a.program_row(), self.b.program_row()], index=["A", "B"])
        frame.attrs["comparison"] = self.comparison.to_dict()
        return frame
