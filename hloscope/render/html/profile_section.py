"""The report's profile section (``hloscope report TARGET --profile TRACE``): the op profile of
a trace of the module the page is about, as rows ready for the template.

Only words and numbers already formatted; the template escapes every value (names and source
lines come from the trace and the HLO).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..bench_text import format_seconds

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.op_profile import OpProfile

__all__ = ["ProfileSection", "ProfileRow", "profile_section", "PROFILE_ROWS"]

#: The most kernel rows and source rows the page lists (slowest first).
PROFILE_ROWS = 50


@dataclass(frozen=True, slots=True)
class ProfileRow:
    """One kernel (or source line) row: its name, time per step, share and what else is known."""

    name: str
    time: str
    time_s: float
    share: float
    occurrences: int
    kind: str = ""
    bound: str = ""
    source: str = ""


@dataclass(slots=True)
class ProfileSection:
    """The head's ``(label, value)`` rows, the slowest kernels and source lines, the notes."""

    head: list[tuple[str, str]]
    kernels: list[ProfileRow]
    by_source: list[ProfileRow]
    total_kernels: int
    notes: list[str] = field(default_factory=list)


def _bound(bound: str | None, fraction: float | None) -> str:
    if not bound:
        return ""
    return f"{bound} {fraction:.0%}" if fraction is not None else bound


def profile_section(profile: OpProfile) -> ProfileSection:
    """:class:`ProfileSection` of an :class:`~hloscope.analysis.op_profile.OpProfile`."""
    head = [
        ("trace", profile.trace),
        ("device", profile.device + (f" ({profile.chip})" if profile.chip else "")),
        ("module", profile.module),
        ("steps", f"{profile.steps} ({profile.step_rule})"),
        ("device time per step", format_seconds(profile.device_time_s)),
    ]
    kernels = [
        ProfileRow(
            k.name,
            format_seconds(k.time_s),
            k.time_s,
            k.share,
            k.occurrences,
            k.kind,
            _bound(k.bound, k.fraction),
            k.source,
        )
        for k in profile.kernels[:PROFILE_ROWS]
    ]
    lines = [
        ProfileRow(g.key, format_seconds(g.time_s), g.time_s, g.share, g.occurrences)
        for g in profile.by_source[:PROFILE_ROWS]
    ]
    return ProfileSection(head, kernels, lines, len(profile.kernels), list(profile.notes))
