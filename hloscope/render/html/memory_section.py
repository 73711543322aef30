"""The report's memory section: the peak, what fills it, what is live there by source line
and scope, the savings, and the timeline picture, from a
:class:`~hloscope.analysis.memory.MemoryResult`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from .escape import clean_svg

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.memory import LiveBuffer, MemoryResult, Saving

__all__ = [
    "MemoryGroup",
    "MemorySection",
    "memory_section",
    "MEMORY_SOURCES",
    "MEMORY_TOP",
    "MemoryFill",
    "MemoryFillRow",
]


#: What each memory ``source`` means, in the words the page says it with.
MEMORY_SOURCES: dict[str, str] = {
    "buffer_assignment": "XLA's own buffer assignment and live range, read from the dump's "
    "side files: exact",
    "memory_analysis": "XLA's buffer assignment and live range of the compiled function, "
    "with memory_analysis()'s sizes as the breakdown: exact",
    "simulated": "hloscope's live-range simulation of the module text (no XLA buffer "
    "assignment was there to read): an estimate, within 10% of XLA's peak on real modules",
    "xla_tpu": "XLA:TPU's peak_memory_in_bytes of this compile: what the chip reserves for "
    "the program, its fit figure",
}
#: Buffers live at the peak, and groups by source line or scope, that the page lists.
MEMORY_TOP = 25


@dataclass(slots=True)
class MemoryGroup:
    """The bytes live at the peak that one source line (or one op_name scope) holds, in how
    many buffers."""

    key: str
    bytes: int
    buffers: int


@dataclass(frozen=True, slots=True)
class MemoryFillRow:
    """One named part of what fills the peak: its whole ``label``, the ``short`` one shown
    (files without their folders), its bytes and buffers."""

    label: str
    short: str
    bytes: int
    buffers: int


@dataclass(frozen=True, slots=True)
class MemoryFill:
    """A group of what fills the peak (arguments, outputs, temporaries...) and its rows."""

    title: str
    bytes: int
    rows: list[MemoryFillRow]


@dataclass(slots=True)
class MemorySection:
    """The memory section: the peak and where its numbers come from (``source``, one of
    :data:`MEMORY_SOURCES`' keys, with ``source_text`` saying it in words), the breakdown as
    ``(part, bytes)``, the point of the schedule where the peak is, the largest buffers live
    there (:data:`MEMORY_TOP` of them, ``more`` says how many others), the same bytes grouped
    by source line and by scope, what would free memory (the :data:`MEMORY_TOP` largest,
    ``savings_more`` the others), and the timeline picture (``svg``, a checked ``<svg>``
    element, see :func:`~.escape.clean_svg`)."""

    module: str
    source: str
    source_text: str
    peak_bytes: int
    breakdown: list[tuple[str, int]]
    peak_index: int | None
    peak_instruction: str | None
    peak_kernel: str | None
    buffers: list[LiveBuffer]
    more: int
    by_source: list[MemoryGroup]
    by_scope: list[MemoryGroup]
    savings: list[Saving]
    svg: Markup
    savings_more: int = 0
    notes: list[str] = field(default_factory=list)
    #: What fills the peak: named groups (arguments, outputs, temporaries, XLA:TPU's own
    #: reservation) that sum to it, each with its rows (:mod:`hloscope.analysis.memory.fill`).
    fills: list[MemoryFill] = field(default_factory=list)

    @property
    def simulated(self) -> bool:
        """Whether the numbers are hloscope's estimate rather than XLA's own."""
        return self.source == "simulated"

    def to_dict(self) -> dict[str, Any]:
        """The section's numbers for the page's machine-readable part: what ``hloscope memory
        --json`` says of the source, the peak, its breakdown and its place."""
        return {
            "source": self.source,
            "peak_bytes": self.peak_bytes,
            "breakdown": dict(self.breakdown),
            "peak_at": {
                "index": self.peak_index,
                "instruction": self.peak_instruction,
                "kernel": self.peak_kernel,
            },
        }


def memory_section(result: MemoryResult, top: int = MEMORY_TOP) -> MemorySection:
    """:class:`MemorySection` of a :class:`~hloscope.analysis.memory.MemoryResult` (the very
    result ``hloscope memory`` prints), with its timeline drawn and checked like every other
    picture on the page (names in it are free text from HLO)."""
    from ..memory_svg import render_memory_svg
    from ..memory_text import without_folders

    at = result.peak_at
    return MemorySection(
        module=result.module,
        source=str(result.source),
        source_text=MEMORY_SOURCES.get(str(result.source), str(result.source)),
        peak_bytes=result.peak_bytes,
        breakdown=list(result.breakdown.items()),
        peak_index=at.get("index"),
        peak_instruction=at.get("instruction"),
        peak_kernel=at.get("kernel"),
        buffers=list(result.live_at_peak[:top]),
        more=max(len(result.live_at_peak) - top, 0),
        by_source=_groups(result.by_source(), "source", top),
        by_scope=_groups(result.by_scope(), "scope", top),
        savings=list(result.savings[:top]),
        svg=Markup(clean_svg(render_memory_svg(result), "hsm-")),  # checked: drawing only
        savings_more=max(len(result.savings) - top, 0),
        notes=list(result.notes),
        fills=[
            MemoryFill(
                g.title,
                g.bytes,
                [
                    MemoryFillRow(r.label, without_folders(r.label), r.bytes, r.buffers)
                    for r in g.rows
                ],
            )
            for g in result.fills
        ],
    )


def _groups(rows: Sequence[Mapping[str, Any]], key: str, top: int) -> list[MemoryGroup]:
    return [MemoryGroup(str(r[key]), int(r["bytes"]), int(r["buffers"])) for r in rows[:top]]
