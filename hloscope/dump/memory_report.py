"""XLA's ``-memory-usage-report.txt`` (``BufferAssignment::MemoryUsageReport()``): totals per
memory space and the largest allocations with the shapes sharing each offset range (either
XLA generation's layout). Sizes there are rounded (``32.0KiB``), so the exact numbers come
from the buffer assignment (:mod:`hloscope.dump.buffers`, which names these here too).

The reader is tolerant: lines it cannot place go to ``.warnings``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    pass
from .report_text import parse_human_bytes, read_dump_text

__all__ = [
    "OffsetRange",
    "ReportAllocation",
    "MemorySpace",
    "MemoryUsageReport",
    "parse_memory_report",
    "load_memory_report",
]


@dataclass(slots=True)
class OffsetRange:
    """A row of a per-allocation table: an offset range and the values that share it.

    Sizes in the report are rounded for humans (``1.2KiB``); ``size`` is that text turned back
    into bytes, so it is approximate. ``shapes`` lists ``(count, shape text)`` as printed
    (``2×f32[32,256]`` -> ``(2, "f32[32,256]")``).
    """

    offset: int
    size: int | None
    size_text: str
    cumulative: int | None
    cumulative_text: str
    percent: int | None
    value_count: int
    shapes: list[tuple[int, str]] = field(default_factory=list)


@dataclass(slots=True)
class ReportAllocation:
    """An allocation in the report: a header line (older XLA) and/or a table of offset ranges.

    Newer XLA prints the tables without headers, one per allocation in decreasing size; then
    ``index`` and ``size`` are ``None`` and only :attr:`used_bytes` is known.
    """

    index: int | None
    size: int | None
    size_text: str
    flags: str = ""
    ranges: list[OffsetRange] = field(default_factory=list)
    hidden_values: int = 0
    cumulative: int | None = None
    percent: int | None = None
    remaining: int | None = None
    line: int = 0

    @property
    def used_bytes(self) -> int | None:
        """The table's last cumulative size: the sizes of the listed offset ranges added up
        (rounded as printed; ranges of differently sized values may overlap, hidden values are
        left out), so it is not the allocation's size."""
        return self.ranges[-1].cumulative if self.ranges else None


@dataclass(slots=True)
class MemorySpace:
    """``Memory Space: default (color=0)`` and what follows it."""

    name: str | None
    color: int
    total_bytes: int | None = None
    allocations: list[ReportAllocation] = field(default_factory=list)


@dataclass(slots=True)
class MemoryUsageReport:
    """A parsed ``-memory-usage-report.txt``.

    ``total_bytes`` is the exact total the report states (``Total bytes used`` in older XLA,
    the sum of the per-memory-space ``Total bytes`` in newer XLA). ``largest`` is the
    "Allocations sorted by size" top list (older XLA only) and ``hidden_allocations`` the count
    it leaves out.
    """

    path: str | None = None
    total_bytes: int | None = None
    spaces: list[MemorySpace] = field(default_factory=list)
    largest: list[ReportAllocation] = field(default_factory=list)
    hidden_allocations: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def allocations(self) -> list[ReportAllocation]:
        """Every per-allocation entry, over all memory spaces, in file order."""
        return [a for s in self.spaces for a in s.allocations]

    def largest_rows(self) -> list[dict]:
        """The top list as flat dicts (falls back to the per-allocation tables)."""
        source = self.largest or self.allocations
        return [
            {
                "allocation": a.index,
                "size": a.size,
                "size_text": a.size_text,
                "used_bytes": a.used_bytes,
                "flags": a.flags,
                "cumulative": a.cumulative,
                "percent": a.percent,
                "values": sum(r.value_count for r in a.ranges) or None,
            }
            for a in source
        ]


_SPACE = re.compile(r"^Memory Space: (?P<name>.*?) \(color=(?P<color>\d+)\)\s*$")
_TOTAL = re.compile(r"^Total bytes(?: used)?: (?P<bytes>\d+)")
_TOP_ROW = re.compile(
    r"^\s*(?P<cum>[\d.]+\s*\w+)\(\s*(?P<pct>\d+)%\);\s*(?P<rem>[\d.]+\s*\w+);\s*"
    r"allocation (?P<index>\d+): size (?P<size>[^,:]+)(?P<flags>.*?):?\s*$"
)
_REPORT_ALLOC = re.compile(
    r"^\s*allocation (?P<index>\d+): size (?P<size>[^,:]+)(?P<flags>.*?):?\s*$"
)
_RANGE_ROW = re.compile(
    r"^\s*(?P<cum>[\d.]+\s*\w+)\(\s*(?P<pct>\d+)%\);\s*(?P<size>[\d.]+\s*\w+);\s*(?P<offset>\d+);"
    r"\s*(?P<n>\d+);\s*(?P<shapes>.*)$"
)
_REST_ALLOCS = re.compile(r"^\s*The rest (?P<n>\d+) allocations? ")
_REST_VALUES = re.compile(r"^\s*The rest (?P<n>\d+) values? ")
_SHAPE_COUNT = re.compile(r"^(?P<n>\d+)×(?P<shape>.*)$")


def parse_memory_report(text: str, path: str | None = None) -> MemoryUsageReport:
    """Parse the text of a ``-memory-usage-report.txt`` (either XLA generation's layout).

    Never raises; lines it cannot place go to ``.warnings``."""
    reader = _ReportReader(path)
    for lineno, raw in enumerate(text.splitlines(), 1):
        reader.line(lineno, raw.rstrip())
    out = reader.out
    if out.total_bytes is None and any(s.total_bytes is not None for s in out.spaces):
        out.total_bytes = sum(s.total_bytes or 0 for s in out.spaces)
    if not reader.totals_seen:
        reader.warn(1, "no 'Total bytes' line: not a memory-usage report, or truncated")
    return out


class _ReportReader:
    """The state of one report's reading: the memory space and section the lines are in,
    and the allocation whose offset ranges they list."""

    def __init__(self, path: str | None) -> None:
        self.where = path or "<string>"
        self.out = MemoryUsageReport(path=path)
        self.space: MemorySpace | None = None
        self.section: str | None = None  # "top" | "values"
        self.current: ReportAllocation | None = None
        self.totals_seen = False

    def warn(self, lineno: int, message: str) -> None:
        if len(self.out.warnings) < 50:
            self.out.warnings.append(f"{self.where}:{lineno}: warning: {message}")

    def ensure_space(self) -> MemorySpace:
        if self.space is None:
            self.space = MemorySpace(name=None, color=0)
            self.out.spaces.append(self.space)
        return self.space

    def line(self, lineno: int, line: str) -> None:
        stripped = line.strip()
        if not stripped or set(stripped) <= {"-"}:
            return
        placed = self._heading(lineno, line, stripped)
        if not placed and self.section == "top":
            placed = self._top_row(lineno, line)
        if not placed and self.section == "values":
            placed = self._values_row(lineno, line)
        if not placed:
            self.warn(lineno, f"unexpected line: {stripped[:80]!r}")

    def _heading(self, lineno: int, line: str, stripped: str) -> bool:
        """A memory space, a total, or the start of a section or of a table."""
        m = _SPACE.match(line)
        if m:
            self.space = MemorySpace(name=m.group("name"), color=int(m.group("color")))
            self.out.spaces.append(self.space)
            self.section, self.current = "values", None
            return True
        m = _TOTAL.match(line)
        if m:
            total = int(m.group("bytes"))
            self.totals_seen = True
            if line.startswith("Total bytes used"):
                self.out.total_bytes = total
            else:
                self.ensure_space().total_bytes = total
            return True
        if stripped.startswith("Allocations sorted by size with their values"):
            self.section, self.current = "values", None
            return True
        if stripped.startswith("Allocations sorted by size"):
            self.section = "top"
            return True
        if stripped.startswith("cumulative_size;"):
            if self.section == "values" and (self.current is None or self.current.ranges):
                # Newer XLA: a header-less table per allocation.
                self.current = ReportAllocation(index=None, size=None, size_text="", line=lineno)
                self.ensure_space().allocations.append(self.current)
            return True
        return False

    def _top_row(self, lineno: int, line: str) -> bool:
        """A row of the largest allocations, or the count of those left out."""
        m = _TOP_ROW.match(line)
        if m:
            self.out.largest.append(
                _report_allocation(
                    m,
                    lineno,
                    cumulative=parse_human_bytes(m.group("cum")),
                    percent=int(m.group("pct")),
                    remaining=parse_human_bytes(m.group("rem")),
                )
            )
            return True
        m = _REST_ALLOCS.match(line)
        if m:
            self.out.hidden_allocations = int(m.group("n"))
            return True
        return False

    def _values_row(self, lineno: int, line: str) -> bool:
        """An allocation's heading, one of its offset ranges, or the count of values left out."""
        m = _REPORT_ALLOC.match(line)
        if m:
            self.current = _report_allocation(m, lineno)
            self.ensure_space().allocations.append(self.current)
            return True
        m = _RANGE_ROW.match(line)
        if m and self.current is not None:
            self.current.ranges.append(_offset_range(m))
            return True
        m = _REST_VALUES.match(line)
        if m and self.current is not None:
            self.current.hidden_values = int(m.group("n"))
            return True
        return False


def load_memory_report(path: str | Path) -> MemoryUsageReport:
    """Read and parse a memory-usage report (:class:`DumpFormatError` if it is not text)."""
    return parse_memory_report(read_dump_text(path), str(path))


def _report_allocation(
    m: re.Match[str],
    lineno: int,
    cumulative: int | None = None,
    percent: int | None = None,
    remaining: int | None = None,
) -> ReportAllocation:
    """An allocation's ``allocation N: size S, flags`` as both tables print it, with what the
    table of the largest adds (cumulative, percent, remaining)."""
    return ReportAllocation(
        index=int(m.group("index")),
        size=parse_human_bytes(m.group("size")),
        size_text=m.group("size").strip(),
        flags=m.group("flags").lstrip(", "),
        cumulative=cumulative,
        percent=percent,
        remaining=remaining,
        line=lineno,
    )


def _offset_range(m: re.Match[str]) -> OffsetRange:
    shapes: list[tuple[int, str]] = []
    for part in _split_shapes(m.group("shapes")):
        c = _SHAPE_COUNT.match(part)
        shapes.append((int(c.group("n")), c.group("shape")) if c else (1, part))
    return OffsetRange(
        offset=int(m.group("offset")),
        size=parse_human_bytes(m.group("size")),
        size_text=m.group("size").strip(),
        cumulative=parse_human_bytes(m.group("cum")),
        cumulative_text=m.group("cum").strip(),
        percent=int(m.group("pct")),
        value_count=int(m.group("n")),
        shapes=shapes,
    )


def _split_shapes(text: str) -> list[str]:
    """Split ``f32[2], (f32[], s32[3]), 2×f32[4,4]`` at top-level commas only."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]
