"""A debugger's backtrace of a crash whose innermost frame of code is XLA's.

Where a process segfaults with no check's message, the people who chase it paste gdb's
backtrace: ``#0  0x00007fbb63893850 in xla::HloInstruction::operand(long) const () from
.../jaxlib/xla_extension.so``, ``#1 ... in xla::MoveCollectivePermutes(...)``. The innermost
frame of code (past the C library's, C++'s and absl's machinery) names whose code crashed: where
it is XLA's (its namespaces, or a library XLA's frameworks ship it in: jaxlib's
``xla_extension.so``, a PJRT plugin, libtpu), XLA crashed -- a bug to report; where it is
another library's (a custom call's, cuDNN's, MIOpen's), this reader says nothing. A compiler
pass among the frames says it crashed while compiling. Kind :attr:`~.record.Family.XLA_CRASH`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How much of the backtrace is read (its innermost frames are what decide).
_WINDOW = 16 * 1024
# How many frames are read.
_FRAMES = 40
# How far before a frame another frame's line says it is not the first (a frame's arguments
# may wrap onto a few lines of their own).
_LOOK_BACK = 1024


def _frames(log: Log, start: int) -> list[re.Match[str]]:
    """The backtrace's frames, innermost first, until its numbers stop running on (from the
    first the log shows: a paste may keep only the frames from #4 on)."""
    found: list[re.Match[str]] = []
    first = -1
    for frame in _RE.frame.finditer(log.text, start, min(len(log.text), start + _WINDOW)):
        first = int(frame["n"]) if first < 0 else first
        if int(frame["n"]) != first + len(found):
            break
        found.append(frame)
        if len(found) == _FRAMES:
            break
    return found


def _machinery(frame: re.Match[str]) -> bool:
    return bool(
        _RE.machinery.search(frame["fn"])
        or (frame["lib"] and _RE.system_library.search(frame["lib"]))
    )


def _debugger_stack(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if _RE.earlier_frame.search(log.text, max(0, m.start() - _LOOK_BACK), m.start()):
        return  # a later frame of a backtrace already read from its first
    frames = _frames(log, m.start())
    code = next((f for f in frames if not _machinery(f)), None)
    if code is None or not _RE.xla_code.search(f"{code['fn']} {code['lib'] or ''}"):
        return  # no frame of code, or another library's: not XLA's crash
    # (each frame whole: its source path names the backend, at .../third_party/nvidia/...)
    everything = " ".join(f.group(0) for f in frames)
    compiling = _RE.compiler.search(everything) is not None
    name = re.sub(r"\(.*", "", code["fn"]).strip()
    platform = (
        Platform.TPU
        if _RE.tpu.search(everything)
        else Platform.GPU
        if _RE.gpu.search(everything)
        else None
    )
    text = _TEXT.crash.format(frame=name, when=_TEXT.compiling if compiling else _TEXT.running)
    yield _KIND.failure(
        log,
        m.start(),
        op="SIGSEGV",
        node=name,
        reason=Reason.COMPILE_ERROR if compiling else Reason.RUNTIME,
        advice=(text, AdviceKind.REPORT_BUG),
        device=str(platform) if platform else None,
        platform=platform,
        hints=[f"crashed in {name}"],
    )


_KIND = Kind(Family.XLA_CRASH, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _debugger_stack)
