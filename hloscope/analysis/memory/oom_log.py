"""Read XLA's out-of-memory report: what was asked for, what filled the memory, what would free it.

When a program does not fit, XLA says so in one of two shapes of text.

**GPU and CPU** (the runtime's allocator, then the buffer assignment's own report)::

    RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.
    BufferAssignment OOM Debugging.
    BufferAssignment stats:
                 parameter allocation:    6.00MiB
                  constant allocation:         0B
            maybe_live_out allocation:    6.00MiB
         preallocated temp allocation:         0B
                     total allocation:   12.00MiB
    Peak buffers:
            Buffer 1:
                    Size: 6.00MiB
                    Operator: op_name="jit(f)/concatenate" source_file="model.py" source_line=68
                    XLA Label: concatenate
                    Shape: f32[4096,128,3]
                    ==========================

            Buffer 2:
                    Size: 384.0KiB
                    Entry Parameter Subshape: f32[256,128,3]
                    ==========================

**TPU** (the compiler, before anything runs)::

    RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space
    hbm. Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G.
    ...
      Largest program allocations in hbm:

      1. Size: 32.00G
         Operator: op_type="FloorMod" op_name="cic_update/FloorMod"
         Shape: s32[8388608,8,4]{2,1,0:T(8,128)}
         Unpadded size: 1.00G
         Extra memory due to padding: 31.00G (32.0x expansion)
         XLA label: %copy.4 = s32[8388608,8,4]{2,1,0:T(8,128)} copy(...)
         Allocation type: HLO temp
         ==========================

:func:`read_oom` turns either into an :class:`OomReport`: the bytes requested (or used and
available, on TPU), the stats, and the buffers with their size, shape, op_name, source line and
kind; :meth:`OomReport.by_source` groups them by the line of code that made them, and
:func:`oom_fixes` says which fixes apply, each with the bytes it would free at most. Sizes are
XLA's human-readable ones (``6.00MiB``, ``32.00G``: powers of 1024), so a size is known to
the printed precision.

Only text is read: a log from a TPU machine is explained anywhere. Each field is read from its
own line with a bounded pattern, so a log of many megabytes costs one pass.
"""

from __future__ import annotations

import re

from ...hlo.metadata import StackFrame
from .oom_report import (
    BufferKind,
    FixKind,
    OomBuffer,
    OomFix,
    OomReport,
    SourceGroup,
    oom_fixes,
    parse_size,
)

__all__ = [
    "OOM_OPENING",
    "BufferKind",
    "FixKind",
    "OomBuffer",
    "OomReport",
    "SourceGroup",
    "OomFix",
    "parse_size",
    "read_oom",
    "oom_fixes",
]

#: The opening words of each out-of-memory message (one alternation, for a recogniser).
OOM_OPENING = re.compile(
    r"Out\s+of\s+memory\s+while\s+trying\s+to\s+allocate\s+(?:(?P<requested>\d+)\s+bytes"
    # Newer runtimes give the size in units ("... allocate 1.00GiB.").
    r"|(?P<requested_size>\d[\d.]*\s*[KMGTP]i?B)\b"
    # A size a user replaced before pasting ("X bytes", "xxxx bytes", "~140GB", "<N> bytes"):
    # the same report, its request unknown.
    r"|(?P<unstated>[^\s\d]\S*))"
    # TPU: "...space hbm. Used ...", "...space vmem while allocating on stack for %f.1 = ...".
    r"|Ran\s+out\s+of\s+memory\s+in\s+memory\s+space\s+(?P<space>\w+)(?=[.\s])"
    # XLA:TPU (libtpu 0.0.42) before assigning buffers: "Ran out of memory on HBM, the total
    # memory required for HLO temporaries (16.50G) exceeds available HBM (15.75G)."
    r"|Ran out of memory on (?P<on>HBM), the total memory required"
    r"|BufferAssignment OOM Debugging\."
    # TPU's list pasted without the report's first line.
    r"|Largest program allocations in (?P<listed>\w+):"
    # A kernel's scoped (on-chip) allocation, the second sentence of the vmem message, pasted
    # alone or after a cut first line.
    r"|Scoped allocation with size\s+(?P<scoped>[\d.]+[KMGTP]?i?B?)\s+and limit"
    # XLA:GPU's peak-buffer list pasted without the report's first lines: a buffer and its size.
    r"|Buffer (?P<peak>\d+):[ \t]*\n[ \t]*Size: "
)

# How far after the opening the report may run (characters): a report lists tens of buffers.
_REPORT_WINDOW = 256 * 1024
# Lines that end a report: another error, a traceback, a Python frame.
_REPORT_END = re.compile(
    r"^(?:Traceback \(most recent call last\):|The above exception|\s*File \"|\S+Error: )", re.M
)
# ---- reading ------------------------------------------------------------------------------------

_TPU_USED = re.compile(
    r"Used (?P<used>[\d.]+\s*[KMGTP]?i?B?) of (?P<capacity>[\d.]+\s*[KMGTP]?i?B?) (?P<space>\w+)\."
    # The period after the excess is sometimes cut (a pasted line, a wrapped message).
    r"(?:\s*Exceeded \w+ capacity by (?P<exceeded>[\d.]+\s*[KMGTP]?i?B?)\b)?"
)
_TPU_REQUIRED = re.compile(
    r"Ran out of memory on HBM, the total memory required for HLO temporaries "
    r"\((?P<used>[\d.]+\s*[KMGTP]?i?B?)\) exceeds available HBM "
    r"\((?P<capacity>[\d.]+\s*[KMGTP]?i?B?)\)"
)
# XLA:TPU's scoped (per-kernel, on-chip) allocation: "Scoped allocation with size 64.00M and
# limit 16.00M exceeded scoped vmem limit by 48.00M."
_SCOPED = re.compile(
    r"Scoped\s+allocation\s+with\s+size\s+(?P<used>[\d.]+\s*[KMGTP]?i?B?)\s+and\s+limit\s+"
    r"(?P<capacity>[\d.]+\s*[KMGTP]?i?B?)\s+exceeded\s+scoped\s+(?P<space>\w+)\s+limit\s+by\s+"
    r"(?P<exceeded>[\d.]+\s*[KMGTP]?i?B?)\b"
)
# What the scoped allocation was for: "...while allocating on stack for %f.1 = f32[16384,1024]
# {1,0:T(8,128)} custom-call(%x.1), custom_call_target="tpu_custom_call", ...".
_STACK_FOR = re.compile(
    r"while allocating on stack for %(?P<instr>[\w.-]+) = (?P<shape>[a-z]\w*\[[\d,]*\])"
)
_CUSTOM_TARGET = re.compile(r'custom_call_target="(?P<target>[^"\n]+)"')
# The memory spaces inside a TPU core (vector, scalar, common memory): a kernel's working set,
# not the program's arrays in HBM.
_STAT = re.compile(
    r"^[ \t]*(?P<name>[a-z_][a-z_ ]*[a-z]):[ \t]+(?P<size>[\d.]+\s*[KMGTP]?i?B)", re.M
)
# `Buffer 3:` (GPU) or `3. Size: 32.00G` (TPU) opens one buffer.
# A logger's prefix may come first (``E0603 ... xla_util.cc:72] ``, ``[core.py:1184] ``).
_BUFFER_HEAD = re.compile(
    r"^(?:[^\n]*?\][ \t])?[ \t]*(?:Buffer (?P<gpu>\d+):|(?P<tpu>\d+)\. (?=Size:))", re.M
)
_FIELD = re.compile(r"(?P<key>[A-Z][A-Za-z ]*?): (?P<value>[^\n]*)")
_QUOTED = re.compile(r'(?P<key>op_type|op_name|source_file)="(?P<value>[^"\n]*)"')
_SOURCE_LINE = re.compile(r"source_line=(?P<line>\d+)")
_BUFFER_END = "=========================="
_STATS_HEAD = "BufferAssignment stats:"
_PEAK_HEADS = ("Peak buffers:", "Largest program allocations in ")


def _report_end(text: str, start: int) -> int:
    """Where the report opening at ``start`` ends: at the first line after its opening line
    that starts a traceback or another error, or :data:`_REPORT_WINDOW` characters on."""
    end = min(len(text), start + _REPORT_WINDOW)
    newline = text.find("\n", start, end)
    if newline < 0:
        return end
    found = _REPORT_END.search(text, newline + 1, end)
    return found.start() if found else end


def read_oom(text: str, start: int = 0) -> OomReport | None:
    """The out-of-memory report that opens at or after ``start`` in ``text``; ``None`` when
    there is none. Reads up to the next traceback or error line (a few hundred KiB at most)."""
    opening = OOM_OPENING.search(text, start)
    if opening is None:
        return None
    end = _report_end(text, opening.start())
    report = OomReport()
    requested = opening if opening["requested"] or opening["requested_size"] else None
    requested = requested or OOM_OPENING.search(text, opening.start(), end)
    if requested is not None and requested["requested"]:
        report.requested_bytes = int(requested["requested"])
    elif requested is not None and requested["requested_size"]:
        report.requested_bytes = parse_size(requested["requested_size"])
    used = _TPU_USED.search(text, opening.start(), min(end, opening.start() + 2048))
    required = _TPU_REQUIRED.match(text, opening.start())
    if required is not None:
        report.memory_space = "hbm"
        report.used_bytes = parse_size(required["used"])
        report.capacity_bytes = parse_size(required["capacity"])
        if report.used_bytes is not None and report.capacity_bytes is not None:
            report.exceeded_bytes = report.used_bytes - report.capacity_bytes
    elif used is not None:
        report.memory_space = used["space"]
        report.used_bytes = parse_size(used["used"])
        report.capacity_bytes = parse_size(used["capacity"])
        report.exceeded_bytes = parse_size(used["exceeded"]) if used["exceeded"] else None
    elif opening["space"] or opening["listed"]:
        report.memory_space = opening["space"] or opening["listed"]
    _read_scoped(text, opening.start(), min(end, opening.start() + 4096), report)
    _read_stats(text, opening.start(), end, report)
    _read_buffers(text, opening.start(), end, report)
    return report.decide_fixes()


def _read_scoped(text: str, start: int, end: int, report: OomReport) -> None:
    """A kernel's scoped allocation over its limit (XLA:TPU's vmem message): the size, the
    limit and the excess as printed, and the instruction it was for as the one buffer."""
    scoped = _SCOPED.search(text, start, end)
    if scoped is None:
        return
    report.memory_space = scoped["space"]
    report.used_bytes = parse_size(scoped["used"])
    report.capacity_bytes = parse_size(scoped["capacity"])
    report.exceeded_bytes = parse_size(scoped["exceeded"])
    owner = _STACK_FOR.search(text, start, scoped.start())
    if report.used_bytes is None or owner is None:
        return
    statement = text[owner.start() : scoped.start()]
    buffer = OomBuffer(1, report.used_bytes, BufferKind.OTHER, shape=owner["shape"])
    buffer.label, buffer.allocation_type = owner["instr"], "scoped"
    _read_operator(statement, buffer)
    target = _CUSTOM_TARGET.search(statement)
    buffer.op_type = target["target"] if target else None
    report.buffers.append(buffer)


def _read_stats(text: str, start: int, end: int, report: OomReport) -> None:
    head = text.find(_STATS_HEAD, start, end)
    if head < 0:
        return
    stop = min((p for p in (text.find(h, head, end) for h in _PEAK_HEADS) if p >= 0), default=end)
    for found in _STAT.finditer(text, head + len(_STATS_HEAD), stop):
        size = parse_size(found["size"])
        if size is not None:
            report.stats[found["name"].strip()] = size


def _peak_start(text: str, start: int, end: int) -> int:
    heads = [p for p in (text.find(h, start, end) for h in _PEAK_HEADS) if p >= 0]
    return min(heads) if heads else -1


def _read_buffers(text: str, start: int, end: int, report: OomReport) -> None:
    peak = _peak_start(text, start, end)
    if peak < 0:  # the list's heading was cut from the paste: its numbered buffers remain
        # (from the opening's own line: a head is matched from its line's start)
        first = _BUFFER_HEAD.search(text, text.rfind("\n", 0, start) + 1, end)
        if first is None:
            return
        peak = first.start()
    heads = list(_BUFFER_HEAD.finditer(text, peak, end))
    for index, head in enumerate(heads):
        stop = heads[index + 1].start() if index + 1 < len(heads) else end
        closing = text.find(_BUFFER_END, head.end(), stop)
        body = text[head.end() : closing if closing >= 0 else stop]
        buffer = _buffer(int(head["gpu"] or head["tpu"]), body)
        if buffer is not None:
            report.buffers.append(buffer)


def _buffer(rank: int, body: str) -> OomBuffer | None:
    """One buffer from its ``Key: value`` lines; ``None`` without a size."""
    fields: dict[str, str] = {}
    for line in body.splitlines():
        found = _FIELD.search(line)
        if found is not None:
            fields.setdefault(found["key"].strip().lower(), found["value"].strip())
    size = parse_size(fields.get("size", ""))
    if size is None:
        return None
    buffer = OomBuffer(rank, size)
    if "entry parameter subshape" in fields:
        buffer.kind, buffer.shape = BufferKind.PARAMETER, fields["entry parameter subshape"]
    else:
        buffer.shape = fields.get("shape")
    buffer.label = fields.get("xla label")
    buffer.allocation_type = fields.get("allocation type")
    buffer.kind = _kind(buffer)
    if "unpadded size" in fields:
        buffer.unpadded_bytes = parse_size(fields["unpadded size"])
    if "extra memory due to padding" in fields:
        buffer.padding_bytes = parse_size(fields["extra memory due to padding"])
    _read_operator(fields.get("operator", ""), buffer)
    return buffer


def _kind(buffer: OomBuffer) -> BufferKind:
    if buffer.kind is BufferKind.PARAMETER:
        return buffer.kind
    allocation = (buffer.allocation_type or "").lower()
    if "parameter" in allocation or "argument" in allocation:
        return BufferKind.PARAMETER
    if "constant" in allocation or buffer.label == "constant":
        return BufferKind.CONSTANT
    if allocation and "temp" not in allocation and "output" not in allocation:
        return BufferKind.OTHER
    return BufferKind.TEMPORARY


def _read_operator(operator: str, buffer: OomBuffer) -> None:
    quoted = {found["key"]: found["value"] for found in _QUOTED.finditer(operator)}
    buffer.op_name = quoted.get("op_name")
    buffer.op_type = quoted.get("op_type")
    line = _SOURCE_LINE.search(operator)
    if "source_file" in quoted and line is not None:
        buffer.source = StackFrame(quoted["source_file"], int(line["line"]), "")
