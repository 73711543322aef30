"""Regressions: a fleet against a baseline fleet (``--vs BASELINE.parquet``), model by model.

Modules are paired by ``label`` and ``function``: the same model (or host) compiling the same
function in both runs. A function may compile several times (one module per shape), so each
side of a pair adds its modules up: kernels, bytes and FLOPs summed over the compiles, peak
memory the largest of them (the compiles do not run at once), and ``compiles`` the number of
modules. Modules that failed on a side are left out of its sums and counted in ``failed``.

A metric *regresses* when it grows by more than the threshold, in percent of the baseline;
:meth:`Regressions.failures` lists them for the metrics a CI job cares about
(``--fail-on bytes,peak --threshold 5``). A metric that was 0 and is not any more grew by an
infinite percentage. Functions only in one run are listed (``added``, ``removed``) but fail no
check: a new model is not a regression of an old one.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .errors import FleetError, FleetUsageError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Metric", "PairStatus", "PairDelta", "Regressions", "regressions", "read_fleet"]


class Metric(StrEnum):
    """What ``--fail-on`` can check, each a sum (or, for the peak, a maximum) over a pair's
    modules."""

    KERNELS = "kernels"
    BYTES = "bytes"
    FLOPS = "flops"
    PEAK = "peak"
    COMPILES = "compiles"

    @classmethod
    def parse_list(cls, text: str) -> list[Metric]:
        """``"bytes,peak"`` as metrics, or :class:`FleetUsageError` naming the valid ones."""
        out = []
        for word in (w.strip() for w in text.split(",")):
            if not word:
                continue
            try:
                out.append(cls(word.lower()))
            except ValueError:
                valid = ", ".join(m.value for m in cls)
                raise FleetUsageError(f"--fail-on: unknown metric {word!r} ({valid})") from None
        if not out:
            raise FleetUsageError("--fail-on: name at least one metric")
        return out


# The fleet column each metric adds up (compiles count modules instead).
_COLUMN = {Metric.KERNELS: "kernels", Metric.BYTES: "bytes", Metric.FLOPS: "flops"}


class PairStatus(StrEnum):
    """How a (label, function) pair compares."""

    SAME = "same"
    CHANGED = "changed"
    ADDED = "added"  # only in the new fleet
    REMOVED = "removed"  # only in the baseline


@dataclass(slots=True)
class PairDelta:
    """One (label, function) pair: each metric in the baseline (``old``) and now (``new``);
    ``None`` on the side where the pair is missing."""

    label: str
    function: str
    old: dict[Metric, int] | None
    new: dict[Metric, int] | None
    failed: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.label, self.function)

    @property
    def status(self) -> PairStatus:
        if self.old is None:
            return PairStatus.ADDED
        if self.new is None:
            return PairStatus.REMOVED
        return PairStatus.SAME if self.old == self.new else PairStatus.CHANGED

    def percent(self, metric: Metric) -> float | None:
        """How much ``metric`` grew, in percent of the baseline (negative: it shrank);
        ``None`` when the pair is on one side only."""
        if self.old is None or self.new is None:
            return None
        before, after = self.old[metric], self.new[metric]
        if before == after:
            return 0.0
        if before == 0:
            return math.inf
        return 100.0 * (after - before) / before

    def to_dict(self) -> dict[str, Any]:
        def side(values: dict[Metric, int] | None) -> dict[str, int] | None:
            return None if values is None else {m.value: v for m, v in values.items()}

        return {
            "label": self.label,
            "function": self.function,
            "status": self.status.value,
            "old": side(self.old),
            "new": side(self.new),
            "percent": {m.value: _json_number(self.percent(m)) for m in Metric},
            "failed": self.failed,
        }


def _json_number(value: float | None) -> float | str | None:
    # JSON has no infinity: a metric that grew from 0 says so in words.
    return "inf" if value == math.inf else value


@dataclass(slots=True)
class Regressions:
    """Every pair of two fleets (in label, function order) and the check's settings."""

    pairs: list[PairDelta] = field(default_factory=list)

    @property
    def changed(self) -> list[PairDelta]:
        return [p for p in self.pairs if p.status is not PairStatus.SAME]

    def failures(
        self, metrics: Iterable[Metric], threshold: float
    ) -> list[tuple[PairDelta, Metric, float]]:
        """Each (pair, metric, percent) where ``metric`` grew by more than ``threshold``
        percent, pairs in order and metrics in ``metrics``' order."""
        chosen = list(dict.fromkeys(metrics))
        out = []
        for pair in self.pairs:
            for metric in chosen:
                pct = pair.percent(metric)
                if pct is not None and pct > threshold:
                    out.append((pair, metric, pct))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"pairs": [p.to_dict() for p in self.pairs]}


def regressions(new: pandas.DataFrame, baseline: pandas.DataFrame) -> Regressions:
    """Pair the fleets ``new`` and ``baseline`` (DataFrames of fleet rows) by label and
    function (see the module docstring)."""
    now, before = _sides(new), _sides(baseline)
    pairs = []
    for key in sorted(now.keys() | before.keys()):
        new_side, failed = now.get(key, (None, 0))
        old_side, _ = before.get(key, (None, 0))
        pairs.append(PairDelta(key[0], key[1], old_side, new_side, failed))
    return Regressions(pairs)


def _sides(frame: pandas.DataFrame) -> dict[tuple[str, str], tuple[dict[Metric, int], int]]:
    """Each (label, function)'s metrics added up over its modules, and its failed modules."""
    out: dict[tuple[str, str], tuple[dict[Metric, int], int]] = {}
    for row in frame.to_dict("records"):
        key = (str(row["label"]), str(row["function"]))
        values, failed = out.get(key) or (dict.fromkeys(Metric, 0), 0)
        if _missing(row.get("error")):
            for metric, column in _COLUMN.items():
                values[metric] += _int(row[column])
            values[Metric.PEAK] = max(values[Metric.PEAK], _int(row["peak_bytes"]))
            values[Metric.COMPILES] += 1
        else:
            failed += 1
        out[key] = (values, failed)
    return out


def _missing(value: Any) -> bool:
    from ..dataframes import require_pandas  # the rows came from a DataFrame: pandas is there

    return value is None or bool(require_pandas().isna(value))


def _int(value: Any) -> int:
    return 0 if _missing(value) else int(value)


def read_fleet(location: str) -> pandas.DataFrame:
    """A fleet written with ``-o FILE.parquet`` (a local path or a URL), or
    :class:`FleetError` saying why it is not one."""
    from ..dataframes import require_pandas
    from ..dump.storage import read_bytes
    from ._analyse import COLUMNS
    from ._api import to_frame

    pd = require_pandas()
    data = read_bytes(location)  # DumpFormatError naming the location when unreadable
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except ImportError as e:
        raise FleetError(f"{location}: error: reading parquet needs pyarrow ({e})") from None
    except Exception as e:  # noqa: BLE001 - pyarrow's errors have no common base we can name
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise FleetError(f"{location}: error: not a parquet file ({first})") from None
    lacking = [c for c in COLUMNS if c not in frame.columns]
    if lacking:
        raise FleetError(
            f"{location}: error: not a fleet (no column {', '.join(lacking)}; write one with "
            "hloscope fleet ... -o FILE.parquet)"
        )
    return to_frame(frame[list(COLUMNS)].to_dict("records"))
