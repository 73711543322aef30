"""An explained error log in words: what failed, where it would run, in which function,
where in your code, and what to do.

:func:`~hloscope.analysis.explain_error.explain_error` leaves the log as data (an
:class:`~hloscope.analysis.explain_error.ErrorExplanation`); this module says it,
one block per failure under a heading per family of messages::

    TensorFlow could not compile an op with XLA (tf2xla)

    AsString: no XLA kernel for the device
      device      XLA_CPU_JIT (cpu)
      function    as_string  (graph __inference_as_string_7)
      your code   model.py:22 in as_string
                  train.py:14 in main
      what to do  string ops never run under XLA: ...

Every string that came from the log goes through :func:`~hloscope.render.terminal.printable`
first: a log is text another program wrote, and a raw escape sequence in it must not reach
the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..analysis.explain_error import (
    FAMILY_TITLES,
    Allocation,
    ErrorExplanation,
    Failure,
    Family,
    UnreadError,
)
from ..analysis.memory.oom_log import FixKind, OomFix, OomReport, SourceGroup
from ..analysis.unsupported.findings import Reason
from ..hlo.metadata import StackFrame
from ..units import format_bytes
from .terminal import ELLIPSIS, printable

__all__ = [
    "render_explanation",
    "explanation_view",
    "unread_view",
    "not_recognised_line",
    "REASON_WORDS",
]

#: How each reason reads after the op's name.
REASON_WORDS: dict[Reason, str] = {
    Reason.NO_KERNEL: "no XLA kernel for the device",
    Reason.DTYPE: "not supported for this dtype",
    Reason.CUSTOM_CALL: "a custom call the platform does not provide",
    Reason.NO_LOWERING: "no lowering for the platform",
    Reason.HOST_CALLBACK: "a host callback",
    Reason.DYNAMIC_SHAPE: "a shape or size not known at compile time",
    Reason.TRACING: "JAX tracing error",
    Reason.EXPORT: "jax.export refuses it",
    Reason.COMPILE_ERROR: "the compiler refused it",
    Reason.OUT_OF_MEMORY: "the program needs more device memory than there is",
    Reason.SHARDING: "the shardings do not fit",
    Reason.RUNTIME: "it failed while the program ran",
}
_LABEL_WIDTH = 13
_FRAMES_SHOWN = 6
# Lines of code shown under "filled by" in an out-of-memory report, largest first.
_GROUPS_SHOWN = 6
_MESSAGE_SHOWN = 200


def not_recognised_line(source: str, lines: int, *, unread: bool = False) -> str:
    """The honest answer for a log no recogniser matched; ``unread`` where what the error it
    ends with shows was printed above."""
    if unread:
        return (
            f"{printable(source)}: not recognised: the error it ends with is no message "
            "hloscope knows (what its structure shows is above; 'hloscope explain-error "
            "--help' lists the messages it reads)"
        )
    return (
        f"{printable(source)}: not recognised: no TensorFlow, JAX or XLA compile error that "
        f"hloscope knows in {lines} line{'s' if lines != 1 else ''} (see 'hloscope "
        "explain-error --help' for the messages it reads)"
    )


def render_explanation(explanation: ErrorExplanation, console: Console) -> None:
    """Print :func:`explanation_view` to ``console``."""
    console.print(explanation_view(explanation), highlight=False)


def explanation_view(explanation: ErrorExplanation) -> Group:
    """The whole explanation: per family a heading, per failure a title and a two-column
    grid (label, value) whose values wrap inside their column."""
    parts: list[RenderableType] = []
    family = None
    for failure in explanation.failures:
        if failure.family != family:
            family = failure.family
            heading = Text("\n" if parts else "")
            heading.append(FAMILY_TITLES[family], style="bold cyan")
            heading.append(f" ({family})", style="dim")
            parts.append(heading)
        parts.append(Text())
        parts.append(_title(failure))
        parts.append(_grid(failure))
    return Group(*parts)


def _grid(failure: Failure) -> Table:
    return _labelled(_rows(failure))


def _labelled(rows: Iterator[tuple[str, list[str]]]) -> Table:
    """Labelled rows as a two-column grid whose values wrap inside their column."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", width=_LABEL_WIDTH, no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in rows:
        for number, line in enumerate(value):
            grid.add_row(f"  {label}" if number == 0 else "", Text(printable(line)))
    return grid


def unread_view(unread: UnreadError) -> Group:
    """What a log ends with where no family was read: a heading that says so, the error's
    class or status as the title, and the rows its structure gave."""
    heading = Text("No family recognised", style="bold yellow")
    heading.append(": what the log ends with, read by its structure", style="dim")
    title = Text(printable(unread.error_class or unread.status or "the last error line"))
    title.stylize("bold")
    title.append(": a message hloscope does not know")
    if unread.status and unread.error_class:
        title.append(f"  ({printable(unread.status)})", style="dim")
    return Group(heading, Text(), title, _labelled(_unread_rows(unread)))


def _unread_rows(unread: UnreadError) -> Iterator[tuple[str, list[str]]]:
    if unread.op:
        yield "op", [unread.op]
    raised = unread.raised_in
    if raised is not None:
        yield "raised in", [f"{_installed(raised)}  (installed code)"]
    yield "device", [_unread_device(unread)]
    if unread.framework:
        through = f"  (through {', '.join(unread.libraries)})" if unread.libraries else ""
        yield "framework", [f"{unread.framework}{through}"]
    frames = unread.user_stack
    where = [_frame(frame) for frame in frames[:_FRAMES_SHOWN]]
    if not where and unread.source:
        where = [unread.source]
    yield "your code", where or ["not in the message (paste the whole traceback to see it)"]
    if unread.closest is not None and unread.closest_probability is not None:
        yield "closest", [_closest_line(unread.closest, unread.closest_probability, unread)]
    yield "message", [_short(unread.message)]


# Where installed packages live: the path after it is the package's own (jax/_src/...).
_PACKAGES = re.compile(r"^.*[\\/](?:site|dist)-packages[\\/]")


def _installed(frame: StackFrame) -> str:
    """An installed module's frame from its package down: the folder above is the machine's."""
    return _frame(StackFrame(_PACKAGES.sub("", frame.file), frame.line, frame.function))


def _unread_device(unread: UnreadError) -> str:
    if unread.device and unread.platform and unread.device.lower() != unread.platform:
        return f"{unread.device} ({unread.platform})"
    if unread.device or unread.platform:
        return str(unread.device or unread.platform)
    return "not named in the log"


def _closest_line(family: Family, probability: float, unread: UnreadError) -> str:
    """The family the words come closest to, said to be a lead and no answer."""
    threshold = f" (a family is named from {unread.threshold:.0%})" if unread.threshold else ""
    return (
        f"{family} ({FAMILY_TITLES[family]}) by the words alone, "
        f"{probability:.0%} sure{threshold}: a lead, not an answer"
    )


def _title(failure: Failure) -> Text:
    finding = failure.finding
    title = Text()
    title.append(printable(finding.op or "(the message names no op)"), style="bold")
    if finding.warning:  # the reason's words say it failed; a warning did not
        title.append(": a warning, not a failure (the program went on)")
    else:
        title.append(f": {_reason_words(failure)}")
    extras = []
    # The exception's class where the op is another name (jnp.nonzero's ConcretizationTypeError):
    # the word users search for. A status code says it already where there is one.
    if failure.error_class and failure.error_class != finding.op and not failure.status:
        extras.append(failure.error_class)
    if failure.status:
        extras.append(failure.status)
    if finding.dtype:
        extras.append(f"dtype {finding.dtype}")
    if failure.count is not None:
        extras.append(f"count {failure.count}")
    if failure.occurrences > 1:
        extras.append(f"{failure.occurrences}\u00d7 in the log")
    if extras:
        title.append(f"  ({printable(', '.join(extras))})", style="dim")
    return title


def _reason_words(failure: Failure) -> str:
    """How the reason reads; an XLA status error that is not about a dtype or a missing
    target was refused by XLA (at compile time or by a handler when it ran), not always by
    the compiler."""
    reason = failure.finding.reason
    if failure.family == "xla_status" and reason is Reason.COMPILE_ERROR:
        return "XLA refused it"
    if failure.family == "tf_op":
        # (TensorFlow's own checks, not XLA's or JAX's: as a graph was built, or as it ran.)
        return "TensorFlow refused its inputs" + (" as it ran" if reason is Reason.RUNTIME else "")
    return REASON_WORDS[reason]


def _rows(failure: Failure) -> Iterator[tuple[str, list[str]]]:
    """The labelled lines of a failure's block, each label with one or more lines."""
    finding = failure.finding
    if failure.read_from == "words" and failure.confidence is not None:
        yield "read from", [_words_line(failure.confidence)]
    if finding.node and finding.node != finding.op:
        label = "culprit" if failure.family == "jax_tracing" else "node"
        yield label, [finding.node]
    if failure.layer:
        yield "layer", [failure.layer]
    yield "device", [_device(failure)]
    if failure.framework:
        through = f"  (through {', '.join(failure.libraries)})" if failure.libraries else ""
        yield "framework", [f"{failure.framework}{through}"]
    function = _function(failure)
    if function:
        yield "function", [function]
    if len(failure.chain) > 1:
        names = " \u2190 ".join(ref.name for ref in failure.chain)
        yield "chain", [f"{names}  (innermost first)"]
    yield "your code", _where(failure)
    if failure.source_in_library and finding.source:
        yield "in library", [f"{finding.source}  (installed code, called from yours)"]
    if failure.allocation is not None and failure.memory is None:
        yield "allocation", [_allocation_line(failure.allocation)]
    if failure.memory is not None:
        yield from _memory_rows(failure.memory)
    elif finding.suggestion:
        yield "what to do", [finding.suggestion]
    for hint in failure.hints:
        yield "note", [hint]
    yield "message", [_short(failure.message)]


def _words_line(confidence: float) -> str:
    """How a family read from the message's words alone was read, and how far to trust it."""
    return (
        f"the message's words alone ({confidence:.0%} sure): no reader knows this wording, "
        "so the family is a likely one, not a certain one"
    )


def _memory_rows(report: OomReport) -> Iterator[tuple[str, list[str]]]:
    """What an out-of-memory report said: the request, the memory used against what there is
    (TPU), which lines of code filled it, the padding, and every fix that applies."""
    if report.requested_bytes is not None:
        yield (
            "requested",
            [f"{format_bytes(report.requested_bytes)} ({report.requested_bytes} bytes)"],
        )
    if report.used_bytes is not None and report.capacity_bytes is not None:
        used = f"used {format_bytes(report.used_bytes)} of {format_bytes(report.capacity_bytes)}"
        if report.exceeded_bytes is not None:
            used += f" (over by {format_bytes(report.exceeded_bytes)})"
        yield report.memory_space or "memory", [used]
    groups = report.by_source()
    if groups:
        lines = [_group_line(group) for group in groups[:_GROUPS_SHOWN]]
        if len(groups) > _GROUPS_SHOWN:
            lines.append(f"{ELLIPSIS} {len(groups) - _GROUPS_SHOWN} more lines")
        listed = f"{len(report.buffers)} buffers, {format_bytes(report.buffer_bytes)}"
        yield "filled by", [*lines, f"(the report's peak buffers: {listed})"]
    padded = [b for b in report.buffers if b.padding_bytes]
    if padded:
        yield (
            "padding",
            [
                f"buffer {b.rank} {b.shape or ''}: {format_bytes(b.padding_bytes)} of tile padding"
                for b in padded
            ],
        )
    yield "what to do", [_fix_line(fix) for fix in report.fixes]


def _allocation_line(allocation: Allocation) -> str:
    """The numbers of a failed allocation in one line: what was asked for against what was
    free, reservable, in use, or the limit."""
    parts = [f"{label} {format_bytes(value)}" for label, value in allocation.figures()]
    if allocation.memory_space:
        parts.append(f"in {allocation.memory_space}")
    line = ", ".join(parts)
    if allocation.fragmented:
        line += " (free memory in pieces: less can be reserved at once than is free)"
    return line


def _fix_line(fix: OomFix) -> str:
    if not fix.bytes:
        return f"{fix.kind}: {fix.fix}"
    if fix.kind is FixKind.SMALLER_BATCH:
        return f"{fix.kind}: {fix.fix} (at least {format_bytes(fix.bytes)} must go)"
    return f"{fix.kind}: {fix.fix} (frees up to {format_bytes(fix.bytes)})"


def _group_line(group: SourceGroup) -> str:
    numbers = ", ".join(map(str, group.buffers))
    where = f"{group.source.file}:{group.source.line}" if group.source else "(no source line)"
    library = "" if group.user or group.source is None else "  (library code)"
    plural = "s" * (len(group.buffers) > 1)
    return f"{format_bytes(group.bytes):>10}  {where}{library}  buffer{plural} {numbers}"


def _device(failure: Failure) -> str:
    if failure.device and failure.platform and failure.device.lower() != failure.platform:
        return f"{failure.device} ({failure.platform})"
    if failure.device:
        return failure.device
    if failure.platform:
        return str(failure.platform)
    if failure.family == "jax_tracing":
        return "any (tracing happens before a platform is chosen)"
    return "not named in the message"


def _function(failure: Failure) -> str:
    if failure.graph and failure.chain and failure.chain[0].id != failure.graph.id:
        return f"{failure.chain[0].name}  (inside graph {failure.graph.id})"
    if failure.graph:
        return f"{failure.graph.name}  (graph {failure.graph.id})"
    if failure.chain:
        return failure.chain[0].name
    return failure.finding.function


def _where(failure: Failure) -> list[str]:
    frames = failure.user_stack
    lines = [_frame(frame) for frame in frames[:_FRAMES_SHOWN]]
    if len(frames) > _FRAMES_SHOWN:
        lines.append(f"{ELLIPSIS} {len(frames) - _FRAMES_SHOWN} more frames (outer calls)")
    source = failure.finding.source
    if not lines and source and not failure.source_in_library:
        lines.append(source)  # a line the message names outside a traceback (a location)
    if failure.defined_at is not None:
        lines.append(f"traced function defined at {_frame(failure.defined_at)}")
    if not lines:
        lines.append(
            "not in the message (TensorFlow keeps no Python stack for this graph)"
            if failure.family.startswith("tf")
            else "not in the message (paste the whole traceback to see it)"
        )
    return lines


def _frame(frame: StackFrame) -> str:
    where = f"{frame.file}:{frame.line}"
    return f"{where} in {frame.function}" if frame.function else where


def _short(message: str) -> str:
    return message if len(message) <= _MESSAGE_SHOWN else message[: _MESSAGE_SHOWN - 1] + ELLIPSIS
