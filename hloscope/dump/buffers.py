"""XLA's buffer-assignment, live-range and memory-usage reports (not HLO syntax).

After optimization XLA assigns every array an *allocation* (a block of memory) and writes,
next to ``module_NNNN.<name>.cpu_after_optimizations.txt``:

``-buffer-assignment.txt``
    ``BufferAssignment::ToString()``: one ``allocation N: size S, <flags>:`` line per allocation
    followed by the values (HLO values, i.e. logical buffers) placed in it at an offset::

        allocation 2: size 10240, maybe-live-out:
         value: <97 ynn_fusion.2 @0> (size=1280,offset=0): f32[32,10]{1,0}

    Older XLA (the one in TensorFlow 2.21) appends ``Total bytes used``, the ``Used values``
    section and the ``HloLiveRange`` to this same file; newer XLA (jaxlib 0.10) writes those to
    ``-buffer-assignment-values.txt`` and ``-live-range.txt``. :func:`parse_buffer_assignment`
    reads any of the three and :meth:`BufferAssignment.merge` joins them.

``-live-range.txt`` (or the tail of the above)
    ``HloLiveRange::ToString()``: the instruction schedule, the ``[start, end)`` time at which
    each buffer lives, and the buffers live at the *peak*, with cumulative bytes.

``-memory-usage-report.txt``
    ``BufferAssignment::MemoryUsageReport()``: totals and the largest allocations with the
    shapes sharing each offset range. Sizes there are rounded (``32.0KiB``), so the exact numbers
    come from the buffer assignment.

**Peak memory.** hloscope reports the peak that XLA itself prints in the live-range section
(``Live ranges at T (peak)``: the most bytes simultaneously live in the schedule, entry
parameters included). When no live range is dumped it falls back to the total allocated bytes
(``Total bytes used``, the sum of all allocation sizes), and :attr:`MemorySummary.peak_source`
says which one was used.

Parsers here are tolerant: a truncated or foreign file gives whatever could be read plus
``warnings`` (``path:line: warning: ...``). The only exception is :class:`DumpFormatError`, for a
file that is not text at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..derived import Derived
from ..json_fields import json_fields
from .memory_report import MemoryUsageReport
from .report_text import _int, read_dump_text

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.shape import Shape

__all__ = [
    "BufferValue",
    "Allocation",
    "ValueInfo",
    "ValueUse",
    "LiveRange",
    "PeakBuffer",
    "StackBreakdown",
    "BufferAssignment",
    "MemorySummary",
    "parse_buffer_assignment",
    "load_buffer_assignment",
]

# --------------------------------------------------------------------------------------------
# Buffer assignment
# --------------------------------------------------------------------------------------------


def _parse_index(text: str | None) -> tuple[int, ...] | None:
    """``"{1,2}"`` -> ``(1, 2)``, ``"{}"`` -> ``()``, ``None`` (not a tuple value) -> ``None``."""
    if text is None:
        return None
    inner = text.strip()[1:-1].strip()
    return tuple(int(p) for p in inner.split(",")) if inner else ()


@dataclass(slots=True)
class BufferValue:
    """One value (XLA ``HloValue``) placed in an allocation.

    ``instruction`` defines it; ``index`` is the tuple index within that instruction's shape
    (``None`` when the shape is not a tuple); ``color`` is the memory space (0 = default).
    ``offset`` and ``size`` locate it inside its allocation.
    """

    id: int
    instruction: str
    index: tuple[int, ...] | None
    is_phi: bool
    color: int
    size: int
    offset: int
    shape_text: str
    line: int = 0

    @property
    def label(self) -> str:
        """``name`` or ``name{1,0}`` as XLA's live-range section names the buffer."""
        if self.index is None:
            return self.instruction
        return self.instruction + "{" + ",".join(map(str, self.index)) + "}"

    @property
    def shape(self) -> Shape:
        from ..hlo.shape import parse_shape  # late: keeps this module importable on its own

        return parse_shape(self.shape_text)


@dataclass(slots=True)
class Allocation:
    """One ``allocation N: size S, <flags>:`` block.

    Flags as XLA prints them: ``parameter`` (entry parameter number, with its shape and
    ``parameter_index`` into it), ``output_shape`` (this allocation holds the entry's result),
    ``constant``, ``thread_local`` (a scalar kept on the stack of a thread, not in the heap),
    ``maybe_live_out`` (may be part of the result), ``preallocated_temp`` (the one big temp
    buffer the CPU runtime carves values out of). Flags this parser does not know are kept in
    ``other_flags``.
    """

    index: int
    size: int
    color: int = 0
    parameter: int | None = None
    parameter_shape: str | None = None
    parameter_index: tuple[int, ...] | None = None
    output_shape: str | None = None
    constant: bool = False
    thread_local: bool = False
    maybe_live_out: bool = False
    preallocated_temp: bool = False
    other_flags: list[str] = field(default_factory=list)
    values: list[BufferValue] = field(default_factory=list)
    line: int = 0

    @property
    def is_parameter(self) -> bool:
        return self.parameter is not None

    @property
    def is_output(self) -> bool:
        return self.output_shape is not None

    @property
    def kind(self) -> str:
        """One word for tables: parameter, constant, thread-local, output, live-out, temp
        (the preallocated temp buffer) or other."""
        if self.is_parameter:
            return "parameter"
        if self.constant:
            return "constant"
        if self.thread_local:
            return "thread-local"
        if self.is_output:
            return "output"
        if self.maybe_live_out:
            return "live-out"
        if self.preallocated_temp:
            return "temp"
        return "other"

    def as_row(self) -> dict:
        """A flat, JSON-ready row (no nested objects) for tables."""
        return {
            **json_fields(
                self,
                "index size kind color parameter parameter_shape output_shape constant "
                "thread_local maybe_live_out preallocated_temp",
            ),
            "values": len(self.values),
        }


@dataclass(slots=True)
class ValueUse:
    """``  add.3, operand 1 {0}``: ``instruction`` reads the value as operand ``operand``."""

    instruction: str
    operand: int
    index: tuple[int, ...] | None = None


@dataclass(slots=True)
class ValueInfo:
    """An entry of the ``Used values:`` section: where a value lives and who reads it.

    ``positions`` are ``(instruction, index)`` pairs whose output *is* this value (a tuple or a
    bitcast forwards it); ``from_instruction`` is the defining instruction as HLO text.
    """

    id: int
    instruction: str
    index: tuple[int, ...] | None
    is_phi: bool
    color: int
    positions: list[tuple[str, tuple[int, ...] | None]] = field(default_factory=list)
    uses: list[ValueUse] = field(default_factory=list)
    from_instruction: str | None = None
    line: int = 0


@dataclass(slots=True)
class PeakBuffer:
    """A buffer live at the peak: ``dot{}: 65536 bytes (cumulative: 65536 bytes)``."""

    buffer: str
    size: int
    cumulative: int


@dataclass(slots=True)
class StackBreakdown:
    """One node of the ``Stack trace breakdown for peak usage`` tree (``depth`` 0 = root)."""

    depth: int
    label: str
    percent: float
    total: int
    current: int
    remaining: int


@dataclass(slots=True)
class LiveRange:
    """``HloLiveRange::ToString()``: schedule, buffer lifetimes and the peak.

    ``ranges`` maps a buffer (``name{index}``) to its ``(start, end)`` logical times;
    ``peak_bytes`` is the cumulative size of the buffers live at ``peak_time``.
    """

    max_time: int | None = None
    sequence: list[str] = field(default_factory=list)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    peak_time: int | None = None
    peak_buffers: list[PeakBuffer] = field(default_factory=list)
    breakdown_total: int | None = None
    breakdown: list[StackBreakdown] = field(default_factory=list)

    @property
    def peak_bytes(self) -> int | None:
        if self.peak_buffers:
            return self.peak_buffers[-1].cumulative
        return self.breakdown_total


class _BytesOf(Derived["BufferAssignment", int]):
    """The total size of an assignment's allocations of one kind (``which`` says if one is)."""

    __slots__ = ("which",)

    def __init__(self, which: Callable[[Allocation], bool]) -> None:
        self.which = which

    def of(self, obj: BufferAssignment) -> int:
        return sum(a.size for a in obj.allocations if self.which(a))


@dataclass(slots=True)
class BufferAssignment:
    """A parsed ``-buffer-assignment.txt`` (possibly merged with its ``-values`` and
    ``-live-range`` companions).

    ``total_bytes`` is XLA's ``Total bytes used`` line when present; :attr:`allocated_bytes` is
    the same number recomputed from the allocations (the two agree on every corpus file).
    """

    path: str | None = None
    allocations: list[Allocation] = field(default_factory=list)
    total_bytes: int | None = None
    values: list[ValueInfo] = field(default_factory=list)
    live_range: LiveRange | None = None
    warnings: list[str] = field(default_factory=list)

    # ---- totals ------------------------------------------------------------------------------
    # argument/output/alias/temp follow XLA's CompiledMemoryStats::
    # PopulateBufferStatsFromAllocations, i.e. what jax's `compiled.memory_analysis()` reports
    # as argument_size_in_bytes, output_size_in_bytes, alias_size_in_bytes, temp_size_in_bytes.
    #: Sum of all allocation sizes (parameters, constants and thread-locals included).
    allocated_bytes = _BytesOf(lambda a: True)
    #: Entry-parameter allocations.
    argument_bytes = _BytesOf(lambda a: a.is_parameter)
    #: Allocations that may hold (part of) the result: every ``maybe-live-out`` one.
    output_bytes = _BytesOf(lambda a: a.maybe_live_out)
    #: Parameters that may also be live out (donated buffers reused for the result).
    alias_bytes = _BytesOf(lambda a: a.is_parameter and a.maybe_live_out)
    #: The preallocated temp buffer(s) the executable carves intermediates out of.
    temp_bytes = _BytesOf(lambda a: a.preallocated_temp)
    constant_bytes = _BytesOf(lambda a: a.constant)
    thread_local_bytes = _BytesOf(lambda a: a.thread_local)

    @property
    def peak_bytes(self) -> int | None:
        """XLA's own peak from the live-range section, if it was dumped."""
        return self.live_range.peak_bytes if self.live_range is not None else None

    # ---- lookups and tables --------------------------------------------------------------------
    def allocation(self, index: int) -> Allocation:
        for a in self.allocations:
            if a.index == index:
                return a
        raise KeyError(index)

    def buffer_values(self) -> Iterator[tuple[Allocation, BufferValue]]:
        for a in self.allocations:
            for v in a.values:
                yield a, v

    def allocation_of(self, instruction: str) -> list[tuple[Allocation, BufferValue]]:
        """Where the values defined by ``instruction`` were placed."""
        return [(a, v) for a, v in self.buffer_values() if v.instruction == instruction]

    def allocation_rows(self) -> list[dict]:
        """One flat dict per allocation (ready for ``pandas.DataFrame`` or JSON)."""
        return [a.as_row() for a in self.allocations]

    def value_rows(self) -> list[dict]:
        """One flat dict per value placed in an allocation."""
        return [
            {
                "allocation": a.index,
                "allocation_kind": a.kind,
                "value": v.id,
                "instruction": v.instruction,
                "index": v.index,
                "shape": v.shape_text,
                "offset": v.offset,
                "size": v.size,
                "phi": v.is_phi,
                "color": v.color,
            }
            for a, v in self.buffer_values()
        ]

    def merge(self, other: BufferAssignment) -> BufferAssignment:
        """Fold in what a companion file (``-values``, ``-live-range``) adds; returns self."""
        if not self.allocations:
            self.allocations = other.allocations
        if self.total_bytes is None:
            self.total_bytes = other.total_bytes
        if not self.values:
            self.values = other.values
        if self.live_range is None:
            self.live_range = other.live_range
        self.warnings.extend(other.warnings)
        return self


_ALLOC = re.compile(r"^allocation (?P<index>\d+): size (?P<size>\d+)(?P<flags>.*):\s*$")
_PARAM_FLAG = re.compile(
    r", parameter (?P<num>\d+), shape \|(?P<shape>.*?)\| at ShapeIndex (?P<index>\{[\d,\s]*\})"
)
_OUTPUT_FLAG = re.compile(r", output shape is \|(?P<shape>.*?)\|")
_COLOR_FLAG = re.compile(r", color (?P<color>\d+)")
_VALUE_ID = (
    r"<(?P<id>\d+) (?P<name>[^\s{}<>]+)(?P<index>\{[\d,]*\})?(?P<phi> \(phi\))?"
    r"(?: @(?P<color>\d+))?>"
)
_VALUE = re.compile(
    rf"^ value: {_VALUE_ID} \(size=(?P<size>\d+),offset=(?P<offset>\d+)\): (?P<shape>.*)$"
)
_USED_VALUE = re.compile(rf"^{_VALUE_ID}\s*$")
_TOTAL_USED = re.compile(r"^Total bytes used: (?P<bytes>\d+)")
_POSITION = re.compile(r"^  (?P<name>[^\s{}]+)(?: (?P<index>\{[\d,]*\}))?\s*$")
_USE = re.compile(
    r"^  (?P<name>[^\s,{}]+), operand (?P<operand>\d+)(?: (?P<index>\{[\d,]*\}))?\s*$"
)

# The headings that open a part of a used value and of the live range, and the part they open.
_VALUE_PARTS = {"positions:": "positions", "uses:": "uses"}
_LIVE_PARTS = {"InstructionSequence:": "sequence", "BufferLiveRange:": "ranges"}
_LIVE_HEADER = re.compile(r"^HloLiveRange \(max (?P<max>\d+)\):")
_SEQ = re.compile(r"^    (?P<time>\d+):(?P<name>\S+)\s*$")
_RANGE = re.compile(r"^    (?P<buffer>\S+):(?P<start>\d+)-(?P<end>\d+)\s*$")
_PEAK_HEADER = re.compile(r"^  Live ranges at (?P<time>\d+) \(peak\):")
_PEAK = re.compile(
    r"^    (?P<buffer>\S+): (?P<size>\d+) bytes \(cumulative: (?P<cum>\d+) bytes\)\s*$"
)
_BREAKDOWN_HEADER = re.compile(
    r"^  Stack trace breakdown for peak usage: (?P<total>[\d  ,]+) bytes"
)
_BREAKDOWN = re.compile(
    r"^(?P<lead>[\s│├└─]*)(?P<label>.*) \((?P<pct>[\d.]+)%, total: (?P<total>[\d  ,]+) bytes, "
    r"current: (?P<current>[\d  ,]+) bytes, remaining: (?P<remaining>[\d  ,]+) bytes\)\s*$"
)


def parse_buffer_assignment(text: str, path: str | None = None) -> BufferAssignment:
    """Parse a ``-buffer-assignment.txt``, ``-buffer-assignment-values.txt`` or
    ``-live-range.txt`` file's text. Never raises; problems go to ``.warnings``."""
    return _BufferAssignmentReader(text, path).read()


def load_buffer_assignment(path: str | Path) -> BufferAssignment:
    """Read and parse a buffer-assignment file (:class:`DumpFormatError` if it is not text)."""
    return parse_buffer_assignment(read_dump_text(path), str(path))


class _BufferAssignmentReader:
    """A line-by-line state machine over the sections of the buffer-assignment text."""

    def __init__(self, text: str, path: str | None) -> None:
        self.lines = text.splitlines()
        self.path = path or "<string>"
        self.out = BufferAssignment(path=path)
        self.section: str | None = None
        self.alloc: Allocation | None = None
        self.value: ValueInfo | None = None
        self.value_part: str | None = None  # "positions" | "uses"
        self.live: LiveRange | None = None
        self.live_part: str | None = None

    def warn(self, lineno: int, message: str) -> None:
        if len(self.out.warnings) < 50:  # a foreign file should not produce 100k warnings
            self.out.warnings.append(f"{self.path}:{lineno}: warning: {message}")
        elif len(self.out.warnings) == 50:
            self.out.warnings.append(f"{self.path}: warning: further warnings suppressed")

    def read(self) -> BufferAssignment:
        for lineno, line in enumerate(self.lines, 1):
            if not line.strip():
                continue
            if not self._header(line, lineno):
                self._body(line, lineno)
        out = self.out
        if not (out.allocations or out.values or out.live_range or out.total_bytes is not None):
            self.warn(1, "no buffer assignment, values or live range found")
        # XLA never prints an allocation without values, except an empty one: XLA:TPU lists
        # its preallocated temporary region (`size 0, color 1, preallocated-temp:`) bare.
        for alloc in out.allocations:
            if not alloc.values and alloc.size:
                self.warn(alloc.line, f"allocation {alloc.index} lists no values (truncated file?)")
        if (
            out.total_bytes is not None
            and out.allocations
            and out.total_bytes != out.allocated_bytes
        ):
            self.warn(
                1,
                f"'Total bytes used: {out.total_bytes}' but the allocations add up to "
                f"{out.allocated_bytes}",
            )
        return out

    def _header(self, line: str, lineno: int) -> bool:
        """Lines that start a section; returns True when ``line`` was one."""
        if line.startswith("BufferAssignment:"):
            self.section = "allocations"
            return True
        m = _TOTAL_USED.match(line)
        if m:
            self.out.total_bytes = int(m.group("bytes"))
            self.section = None
            return True
        if line.startswith("Used values:"):
            self.section = "values"
            return True
        m = _LIVE_HEADER.match(line)
        if m:
            self.live = self.out.live_range = LiveRange(max_time=int(m.group("max")))
            self.section, self.live_part = "live", None
            return True
        m = _ALLOC.match(line)
        if m:
            self.section = "allocations"
            self.alloc = _allocation(m, lineno)
            self.out.allocations.append(self.alloc)
            return True
        return False

    def _body(self, line: str, lineno: int) -> None:
        if self.section == "allocations":
            m = _VALUE.match(line)
            if m and self.alloc is not None:
                self.alloc.values.append(
                    BufferValue(
                        id=int(m.group("id")),
                        instruction=m.group("name"),
                        index=_parse_index(m.group("index")),
                        is_phi=bool(m.group("phi")),
                        color=int(m.group("color") or 0),
                        size=int(m.group("size")),
                        offset=int(m.group("offset")),
                        shape_text=m.group("shape").strip(),
                        line=lineno,
                    )
                )
                return
        elif self.section == "values":
            if self._value_line(line, lineno):
                return
        elif self.section == "live" and self._live_line(line):
            return
        self.warn(lineno, f"unexpected line: {line.strip()[:80]!r}")

    def _value_line(self, line: str, lineno: int) -> bool:
        m = _USED_VALUE.match(line)
        if m:
            self.value = ValueInfo(
                id=int(m.group("id")),
                instruction=m.group("name"),
                index=_parse_index(m.group("index")),
                is_phi=bool(m.group("phi")),
                color=int(m.group("color") or 0),
                line=lineno,
            )
            self.out.values.append(self.value)
            self.value_part = None
            return True
        if self.value is None:
            return False
        stripped = line.strip()
        part = _VALUE_PARTS.get(stripped)
        if part is not None:
            self.value_part = part
            return True
        if line.startswith(" from instruction: "):
            self.value.from_instruction = line[len(" from instruction: ") :]
            self.value_part = None
            return True
        if self.value_part == "positions":
            m = _POSITION.match(line)
            if m:
                self.value.positions.append((m.group("name"), _parse_index(m.group("index"))))
                return True
        if self.value_part == "uses":
            if stripped == "(none)":
                return True
            m = _USE.match(line)
            if m:
                self.value.uses.append(
                    ValueUse(
                        m.group("name"), int(m.group("operand")), _parse_index(m.group("index"))
                    )
                )
                return True
        return False

    def _live_line(self, line: str) -> bool:
        live = self.live
        assert live is not None
        part = _LIVE_PARTS.get(line.strip())
        if part is not None:
            self.live_part = part
            return True
        m = _PEAK_HEADER.match(line)
        if m:
            live.peak_time = int(m.group("time"))
            self.live_part = "peak"
            return True
        m = _BREAKDOWN_HEADER.match(line)
        if m:
            live.breakdown_total = _int(m.group("total"))
            self.live_part = "breakdown"
            return True
        return self._live_row(live, line)

    def _live_row(self, live: LiveRange, line: str) -> bool:
        """A row of the live range's part the lines are in."""
        if self.live_part == "sequence":
            m = _SEQ.match(line)
            if m:
                live.sequence.append(m.group("name"))
                return True
        elif self.live_part == "ranges":
            m = _RANGE.match(line)
            if m:
                live.ranges[m.group("buffer")] = (int(m.group("start")), int(m.group("end")))
                return True
        elif self.live_part == "peak":
            m = _PEAK.match(line)
            if m:
                live.peak_buffers.append(
                    PeakBuffer(m.group("buffer"), int(m.group("size")), int(m.group("cum")))
                )
                return True
        elif self.live_part == "breakdown":
            m = _BREAKDOWN.match(line)
            if m:
                live.breakdown.append(_breakdown_row(m))
                return True
        return False


def _breakdown_row(m: re.Match[str]) -> StackBreakdown:
    """One row of the live range's stack breakdown, its depth from its indent."""
    lead = len(m.group("lead"))
    # Root at column 4; children's labels at 10, 14, 18... ("      ├── ", "│   ").
    depth = 0 if lead <= 4 else (lead - 6) // 4
    return StackBreakdown(
        depth=depth,
        label=m.group("label"),
        percent=float(m.group("pct")),
        total=_int(m.group("total")),
        current=_int(m.group("current")),
        remaining=_int(m.group("remaining")),
    )


def _allocation(m: re.Match[str], lineno: int) -> Allocation:
    alloc = Allocation(index=int(m.group("index")), size=int(m.group("size")), line=lineno)
    flags = m.group("flags")
    p = _PARAM_FLAG.search(flags)
    if p:
        alloc.parameter = int(p.group("num"))
        alloc.parameter_shape = p.group("shape")
        alloc.parameter_index = _parse_index(p.group("index"))
        flags = flags[: p.start()] + flags[p.end() :]
    o = _OUTPUT_FLAG.search(flags)
    if o:
        alloc.output_shape = o.group("shape")
        flags = flags[: o.start()] + flags[o.end() :]
    c = _COLOR_FLAG.search(flags)
    if c:
        alloc.color = int(c.group("color"))
        flags = flags[: c.start()] + flags[c.end() :]
    for flag in (f.strip() for f in flags.split(",")):
        if not flag:
            continue
        if flag == "constant":
            alloc.constant = True
        elif flag == "thread-local":
            alloc.thread_local = True
        elif flag == "maybe-live-out":
            alloc.maybe_live_out = True
        elif flag == "preallocated-temp":
            alloc.preallocated_temp = True
        else:
            alloc.other_flags.append(flag)
    return alloc


# --------------------------------------------------------------------------------------------
# One number per module
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class MemorySummary:
    """The memory numbers ``hloscope ls`` shows for one module.

    ``peak_bytes`` is XLA's live-range peak when dumped (``peak_source == "live-range"``),
    otherwise the total allocated bytes (``"total-allocated"``); ``None`` if neither exists.
    The live-range peak is a value-level figure and can differ from jax's
    ``memory_analysis().peak_memory_in_bytes``, which XLA computes from heap-simulator traces
    that text dumps do not contain. ``argument_bytes``/``output_bytes``/``alias_bytes``/
    ``temp_bytes`` equal jax's ``*_size_in_bytes`` fields exactly.
    """

    peak_bytes: int | None = None
    peak_source: str | None = None
    allocated_bytes: int | None = None
    argument_bytes: int | None = None
    output_bytes: int | None = None
    alias_bytes: int | None = None
    temp_bytes: int | None = None

    @classmethod
    def of(
        cls, assignment: BufferAssignment | None, report: MemoryUsageReport | None
    ) -> MemorySummary:
        s = cls()
        if assignment is not None and assignment.allocations:
            s.allocated_bytes = assignment.total_bytes or assignment.allocated_bytes
            s.argument_bytes = assignment.argument_bytes
            s.output_bytes = assignment.output_bytes
            s.alias_bytes = assignment.alias_bytes
            s.temp_bytes = assignment.temp_bytes
        elif assignment is not None and assignment.total_bytes is not None:
            s.allocated_bytes = assignment.total_bytes
        if s.allocated_bytes is None and report is not None:
            s.allocated_bytes = report.total_bytes
        peak = assignment.peak_bytes if assignment is not None else None
        if peak is not None:
            s.peak_bytes, s.peak_source = peak, "live-range"
        elif s.allocated_bytes is not None:
            s.peak_bytes, s.peak_source = s.allocated_bytes, "total-allocated"
        return s

    def as_dict(self) -> dict:
        return json_fields(
            self,
            "peak_bytes peak_source allocated_bytes argument_bytes output_bytes alias_bytes "
            "temp_bytes",
        )
