"""The report's "what if" section: ``hloscope try``'s variants of the function, each a real
compile for the target chip or slice, ranked (:class:`~hloscope.analysis.variants.TryResult`),
as rows ready for the template.

Only words and numbers already formatted, with the raw numbers beside them for sorting; the
template escapes every value (variant names hold the user's rules, regular expressions and
flags; errors are XLA's words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...units import format_bytes, format_count, format_duration
from ..try_text import proof_words, warning_words

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.variants import TryResult

__all__ = ["TrySection", "TryRow", "AuditRow", "try_section"]


@dataclass(frozen=True, slots=True)
class TryRow:
    """One compile, ranked: its figures as text (``-``: not known) and as numbers (``None``)."""

    rank: int
    name: str
    winner: bool
    state: str  # compiled, refused, cannot apply
    fits: str  # yes, no, ?, n/a
    peak: str
    flops: str
    hbm: str
    collectives: str
    exposed: str
    step: str
    no_effect: str  # "" or what it is the same as
    details: list[str]
    peak_bytes: int | None = None
    flops_count: float | None = None
    hbm_bytes: int | None = None
    collective_bytes: int | None = None
    exposed_s: float | None = None
    step_s: float | None = None


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One flag of a flag audit: its verdict (unknown, no effect, compile, changes the module),
    the words that say it, and the variant compiled without it (``""``: none)."""

    flag: str
    verdict: str
    words: str
    without: str


@dataclass(slots=True)
class TrySection:
    """The head (what was compiled, for what, by what, ranked how), the ranked rows, the code
    change that gives the best, the notes, and a flag audit's rows when it was one."""

    head: str
    rows: list[TryRow]
    winner: str | None
    change: list[str]
    notes: list[str] = field(default_factory=list)
    audit: list[AuditRow] = field(default_factory=list)


def _text(value: Any, say: Any) -> str:
    return "-" if value is None else str(say(value))


def _state(row: Mapping[str, Any]) -> tuple[str, str]:
    if not row["applicable"]:
        return "cannot apply", "n/a"
    fits = "?" if row["fits"] is None else ("yes" if row["fits"] else "no")
    return ("compiled" if row["compiled"] else "refused"), fits


def _details(row: Mapping[str, Any]) -> list[str]:
    lines = []
    if row.get("effect"):
        lines.append(
            f"its {row['effect_of']} changed the module of {row['compared_to']}: {row['effect']}"
        )
    if row["error"]:
        lines.append(row["error"] if row["applicable"] else f"cannot apply: {row['error']}")
    for warning in row.get("sharding_warnings") or []:
        proof = proof_words(warning) if "proven_by" in warning else ""
        lines.append(warning_words(warning) + proof)
    return lines


def _row(rank: int, row: Mapping[str, Any], winner: str | None) -> TryRow:
    state, fits = _state(row)
    same = f"as {row['same_as']} (its {row['no_effect_of']})" if row["no_effect"] else ""
    return TryRow(
        rank=rank,
        name=row["name"],
        winner=row["name"] == winner,
        state=state,
        fits=fits,
        peak=_text(row["peak_bytes"], format_bytes),
        flops=_text(row["flops"], format_count),
        hbm=_text(row["hbm_bytes"], format_bytes),
        collectives=_text(row["collective_bytes"], format_bytes),
        exposed=_text(row["exposed_comm_s"], format_duration),
        step=_text(row["step_s"], format_duration),
        no_effect=same,
        details=_details(row),
        peak_bytes=row["peak_bytes"],
        flops_count=row["flops"],
        hbm_bytes=row["hbm_bytes"],
        collective_bytes=row["collective_bytes"],
        exposed_s=row["exposed_comm_s"],
        step_s=row["step_s"],
    )


def try_section(result: TryResult) -> TrySection:
    """The section of ``result``."""
    data = result.to_dict()
    rows = {r["name"]: r for r in [data["baseline"], *data["variants"]]}
    head = f"{data['target']} compiled for {data['device']}"
    if data.get("compiled_by"):
        head += f" by {data['compiled_by']}"
    if data.get("memory_bytes"):
        head += f" ({format_bytes(data['memory_bytes'])} of HBM per chip)"
    head += f", as the script gives it and as each variant changes it, ranked by {data['goal']}"
    ranked = [_row(i, rows[name], data["winner"]) for i, name in enumerate(data["ranking"], 1)]
    audit = [
        AuditRow(v["flag"], v["verdict"], v["words"], v["without"] or "")
        for v in data.get("audit") or []
    ]
    notes = list(data["notes"])
    return TrySection(head, ranked, data["winner"], list(data["change"]), notes, audit)
