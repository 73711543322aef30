"""XLA's out-of-memory reports (compile time on TPU, the buffer assignment on GPU/CPU)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...memory.oom_log import OOM_OPENING, BufferKind, read_oom
from ...unsupported.findings import Reason
from ..advice import AdviceKind, torch_xla_log
from ..build import Kind
from ..catalogue import words_of
from ..device import platform_of
from ..functions import jax_function
from ..log import Log
from ..memory_advice import derivative_matrix_fix, memory_fixes
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users, user_source

_RE, _TEXT = words_of(__name__)

# ---- out of memory ------------------------------------------------------------------------------

# GPU prints "Out of memory while trying to allocate" and, a line on, "BufferAssignment OOM
# Debugging.": one report, read from its first line.
_OOM_SAME_REPORT = 512
# TPU's report lists its largest allocations a few KiB after its first line.
_LIST_SAME_REPORT = 16 * 1024
# How far before the report the BFC allocator's own report is looked for.
_BFC_WINDOW = 1 << 20


def _oom_class(line: str) -> str | None:
    """The exception class that opens the message's line (``XlaRuntimeError: RESOURCE_EX...``);
    the opening words may sit mid-line (TPU: "...compile permanent error. Ran out of ...")."""
    found = _RE.line_class.match(line)
    return found["cls"].rsplit(".", 1)[-1] if found else None


def _out_of_memory(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """An out-of-memory report (:func:`~.memory.oom_log.read_oom`): the failure names the
    function from the op_names, the largest user line that made buffers, and the fixes."""
    if m.group(0).startswith("BufferAssignment") and OOM_OPENING.search(
        log.text, max(0, m.start() - _OOM_SAME_REPORT), m.start()
    ):
        return
    if (m["listed"] or m["scoped"] or m["peak"]) and OOM_OPENING.search(
        log.text, max(0, m.start() - _LIST_SAME_REPORT), m.start()
    ):
        return  # the list or the scoped sentence of a report read from its first line
    report = read_oom(log.text, m.start())
    if report is None:
        return
    if (
        not report.buffers
        and _RE.bfc_before.search(log.text, max(0, m.start() - _BFC_WINDOW), m.start())
        and not program_over_limit(log, m.start())
    ):
        return  # the runtime's allocator failed as the program ran: .device_allocation reads it
    if torch_xla_log(log.text):
        report.decide_fixes("torch_xla")  # its fixes in PyTorch/XLA's terms
    start = log.line_start(m.start())
    # The program's inputs are no line that computes: the line to fix made a temporary.
    inputs = {b.rank for b in report.buffers if b.kind is BufferKind.PARAMETER}
    groups = [
        g for g in report.by_source() if g.source is not None and not set(g.buffers) <= inputs
    ]
    user = [g.source for g in groups if g.user and g.source is not None]
    # (A runtime's line, logged before the exception that carries it up: its traceback after.)
    stack = log.traceback_before(start) or log.traceback_after(m.end())
    function = jax_function(log, m.start(), log.region_end(m.start()), stack)
    word = _RE.oom_platform.search(log.text, start, log.line_end(m.end()))
    tpu_words = m["space"] or m["listed"] or m["scoped"] or m["on"]
    device = word["word"].lower() if word else ("tpu" if tpu_words else None)
    if device is None and report.requested_bytes is not None:
        # "Out of memory while trying to allocate N bytes" is the GPU runtime's wording
        # (TPU reports "Ran out of memory in memory space hbm"; CPU allocates from the host).
        device = "gpu"
    named = _RE.allocated_for.search(log.headline(start))
    yield _KIND.failure(
        log,
        start,
        op="out of memory",
        node=named["name"] if named else "",
        fixes=_with_derivative(
            log, stack, memory_fixes(report, log.text[start : start + 16 * 1024])
        ),
        function=function,
        stack=stack,
        source=f"{user[0].file}:{user[0].line}" if user else user_source(stack),
        device=device,
        platform=platform_of(device),
        error_class=_oom_class(log.headline(start)),
        status="RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED: " in log.headline(start) else None,
        memory=report,
        hints=[_on_chip_hint(report.memory_space)] if report.on_chip else [],
    )


def program_over_limit(log: Log, pos: int) -> bool:
    """Whether XLA said, before ``pos``, that rematerialization could not bring the compiled
    program under the device's memory limit: an allocation that fails after it is the
    program's size, not memory something else holds."""
    window = log.text[max(0, pos - _BFC_WINDOW) : pos]
    return any(int(found["limit"]) != 0 for found in _RE.remat_over.finditer(window))


def _on_chip_hint(space: str | None) -> str:
    return _TEXT.scalar if (space or "").lower() in ("smem", "sflag") else _TEXT.on_chip


# A bare status code of this family's kind (read by .xla_status where no words of this
# module's are there) gives way to a failure this module read from the same message.
_KIND = Kind(Family.OUT_OF_MEMORY, Reason.OUT_OF_MEMORY)
RECOGNISER = Recogniser(
    Family.OUT_OF_MEMORY, OOM_OPENING, _out_of_memory, generic_ops=frozenset({"RESOURCE_EXHAUSTED"})
)


def _with_derivative(
    log: Log, stack: list[StackFrame], fixes: list[tuple[AdviceKind, str]]
) -> list[tuple[AdviceKind, str]]:
    """``fixes``, after the one for a whole Jacobian or Hessian the program's lines ask for
    (:func:`~..memory_advice.derivative_matrix_fix`): no batch or device fixes its size."""
    derivative = derivative_matrix_fix([log.code_of(f) for f in stack if is_users(f)])
    return fixes if derivative is None else [derivative, *fixes]
