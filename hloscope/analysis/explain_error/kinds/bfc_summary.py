"""A BFC allocator's memory dump pasted without the error that printed it (read by the
:mod:`.device_allocation` recogniser: the same family, one recogniser per family).

When TensorFlow's (or JAX's, with ``XLA_PYTHON_CLIENT_ALLOCATOR=bfc``) GPU allocator cannot
place a request, ``bfc_allocator.cc`` dumps its state before the error::

    Bin (256):   Total Chunks: 12, Chunks in use: 11. 3.0KiB allocated for chunks. ...
    Bin for 512.00MiB was 512.00MiB, Chunk State:
    Chunk at 0x3a60e2a00 of size 135274496
    InUse at 0x7f3bdf000b00 next 5 of size 256
         Summary of in-use Chunks by size:
    124 Chunks of size 3964928 totalling 468.88MiB
    Sum Total of in-use chunks: 479.76MiB
    Stats:
    Limit:                   503270604
    InUse:                   503061248
    MaxInUse:                503061248
    MaxAllocSize:              4219136

Users often paste only this dump (the OOM line is thousands of lines further up or down). The
dump is a GPU memory report in its own right: the allocator's **limit** (what it may use of the
GPU), what was **in use**, the **largest request** it saw (``Bin for X``, ``MaxAllocSize``) and
which chunk sizes hold the memory. The advice follows those numbers: memory full of in-use
chunks means the step's tensors do not fit (a smaller batch, with the bytes that must go);
room left in the limit but not in one piece means fragmentation or memory held elsewhere.

A dump next to an out-of-memory message is left to that message's recogniser (it reads the
same numbers); each dump is read once, from its first line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....units import format_bytes
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind
from ..catalogue import words_of
from ..device import named_accelerator, platform_of
from ..log import Log
from ..record import Failure, Family
from ..sizes import SIZE, bytes_of

__all__ = ["ABSURD", "DUMP_LINE", "NO_DEVICE_HOLDS", "read_dump"]

_RE, _TEXT = words_of(__name__)
# Any line of a dump (the log prefix before it does not matter).
DUMP_LINE = _RE.dump_line
# Lines of one dump lie this close together; a dump further on is another one.
_SAME_DUMP = 4096
# How far a dump may run (a dump lists every chunk: tens of thousands of lines).
_DUMP_WINDOW = 4 << 20
# Built on sizes.SIZE, a size as every allocator prints it, so they stay beside it in code.
_SUM_TOTAL = re.compile(rf"Sum Total of in-use chunks: (?P<size>{SIZE})")
_BIN_FOR = re.compile(rf"Bin for (?P<asked>{SIZE}) was (?P<bin>{SIZE}), Chunk State:")
_TRYING = re.compile(
    rf"[Rr]an out of memory trying to allocate (?P<asked>{SIZE})(?: \(rounded to (?P<n>\d+)\))?"
)
_CHUNKS_OF = re.compile(rf"(?P<count>\d+) Chunks of size (?P<size>\d+) totalling (?P<total>{SIZE})")
#: One buffer this big is more than any accelerator holds: a shape bug, not a batch to trim.
NO_DEVICE_HOLDS = 1 << 40
#: The advice for such a buffer (also :mod:`.device_allocation`'s).
ABSURD = _TEXT.absurd
# In use at or past this share of the limit, the memory is full of live tensors.
_FULL = 0.9


def _dump_end(log: Log, start: int) -> int:
    """Where the dump that opens at ``start`` ends: after its last line that lies within
    :data:`_SAME_DUMP` of the one before."""
    end, limit = log.line_end(start), min(len(log.text), start + _DUMP_WINDOW)
    for found in DUMP_LINE.finditer(log.text, end, limit):
        if found.start() - end > _SAME_DUMP:
            break
        end = log.line_end(found.end())
        stats = _RE.stat.search(log.text, end, end + 512)
        while stats is not None and stats.start() - end < 64:  # the Stats block's lines
            end = stats.end()
            stats = _RE.stat.search(log.text, end, end + 512)
    return end


def _beside_an_error(log: Log, start: int, end: int, failure: re.Pattern[str]) -> bool:
    """Whether an out-of-memory message (``failure``, or XLA's) sits next to the dump: its
    recogniser reads the same numbers."""
    before = log.text[max(0, start - _SAME_DUMP) : start]
    after = log.text[end : end + _SAME_DUMP]
    near = before + "\n" + after
    return bool(_RE.oom_message.search(near) or failure.search(near))


def _numbers(text: str) -> dict[str, int]:
    """The dump's Stats (bytes), its in-use total and the largest request it names."""
    numbers = {found["name"]: int(found["n"]) for found in _RE.stat.finditer(text)}
    total = _SUM_TOTAL.search(text)
    if total is not None and (size := bytes_of(total["size"])) is not None:
        numbers.setdefault("InUse", size)
    asked = [bytes_of(found["asked"]) or 0 for found in _BIN_FOR.finditer(text)]
    if asked:
        numbers["Asked"] = max(asked)
    return numbers


def _biggest_group(text: str) -> str | None:
    """The chunk size that holds the most in-use bytes (``124 chunks of 3.8 MiB``)."""
    groups = [(bytes_of(f["total"]) or 0, f) for f in _CHUNKS_OF.finditer(text)]
    if not groups:
        return None
    _, best = max(groups, key=lambda group: group[0])
    return f"{best['count']} chunks of {format_bytes(int(best['size']))} ({best['total']} in all)"


def _fixes(numbers: dict[str, int], group: str | None) -> list[tuple[AdviceKind, str]]:
    """The fixes, best first, by what the dump's numbers show."""
    limit, in_use, asked = numbers.get("Limit"), numbers.get("InUse"), numbers.get("Asked")
    held = f"; most of it is {group}" if group else ""
    room = limit - in_use if limit is not None and in_use is not None else None
    must_go = asked - room if asked is not None and room is not None and asked > room else None
    why = f"the live tensors of the step fill the allocator{held}"
    if in_use is None and asked is not None:
        why = f"the step asked for {format_bytes(asked)} in one piece and found no room"
    smaller = (
        AdviceKind.SMALLER_BATCH,
        f"a smaller batch (or shorter inputs, gradient accumulation): {why}"
        + (f" (at least {format_bytes(must_go)} must go)" if must_go else ""),
    )
    limit_words = f"the allocator may use {format_bytes(limit)}" if limit else "its limit"
    free = (AdviceKind.FREE_MEMORY, _TEXT.free.format(limit=limit_words))
    if asked is not None and asked >= NO_DEVICE_HOLDS:
        return [(AdviceKind.FIX_SHAPES, ABSURD.format(asked=format_bytes(asked))), smaller]
    if limit and in_use is not None and in_use < _FULL * limit:
        return [free, smaller]
    return [smaller, free]


def _hints(numbers: dict[str, int]) -> list[str]:
    said = [
        f"{label} {format_bytes(numbers[key])}"
        for key, label in (
            ("Limit", "allocator limit"),
            ("InUse", "in use"),
            ("MaxInUse", "most in use"),
            ("Asked", "request that failed"),
            ("MaxAllocSize", "largest allocation"),
        )
        if key in numbers
    ]
    return ["BFC allocator dump: " + ", ".join(said)] if said else []


def read_dump(log: Log, m: re.Match[str], failure: re.Pattern[str]) -> Iterator[Failure]:
    """The failure a dump whose line ``m`` matched describes, read once from the dump's first
    line, and only where no allocation-failure message (``failure``) sits beside it."""
    start = log.line_start(m.start())
    if DUMP_LINE.search(log.text, max(0, start - _SAME_DUMP), start):
        return  # not the dump's first line: the dump was read from there
    end = _dump_end(log, m.start())
    if _beside_an_error(log, start, end, failure):
        return
    dump = log.text[max(0, start - 1024) : end]
    numbers = _numbers(dump)
    trying = _TRYING.search(dump)
    if trying is not None:
        numbers["Asked"] = int(trying["n"]) if trying["n"] else bytes_of(trying["asked"]) or 0
    name = named_accelerator(log.text[:start])
    device = f"gpu ({name})" if name else "gpu"
    yield _KIND.failure(
        log,
        m.start(),
        op="device buffer",
        fixes=_fixes(numbers, _biggest_group(dump)),
        device=device,
        platform=platform_of(device),
        headline_at=start,
        hints=_hints(numbers),
        source=None,
    )


_KIND = Kind(Family.DEVICE_ALLOCATION, Reason.OUT_OF_MEMORY)
