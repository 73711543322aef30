"""A :class:`~hloscope.analysis.passes.PassTimeline` on a terminal: the pipeline as a table,
one pass's diff, one instruction's story.

The timeline is one row per snapshot, with the module's size after the pass and how it moved
(a growing count in yellow, a shrinking one in green; snapshots that changed nothing dim)::

    step  pass                 pipeline                  instr     Δ  fusions   Δ  kernels   Δ
    0013  fusion               HLO_passes_after_layo…       15    +3        1  +1        1  -4

then the passes that ran and changed nothing. A diff is coloured like ``git diff``; a follow
is one row per event (created, changed, fused, renamed, removed). Strings from the dump go
through :func:`~hloscope.render.terminal.printable`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..analysis.passes import Follow, FollowEventKind, PassDiff, PassRow, PassTimeline
from .table_fit import Column, fitted_table, print_table
from .terminal import ELLIPSIS, printable

__all__ = ["render_timeline", "render_diffs", "render_follow"]

_EVENT_STYLES = {
    FollowEventKind.PRESENT: "dim",
    FollowEventKind.CREATED: "green",
    FollowEventKind.CHANGED: "yellow",
    FollowEventKind.FUSED: "cyan bold",
    FollowEventKind.MOVED: "cyan",
    FollowEventKind.RENAMED: "cyan",
    FollowEventKind.REMOVED: "red",
}
# Quiet passes named in the summary line before "+N more".
_QUIET_SHOWN = 24


def _text(value: str, style: str | None = None) -> Any:
    from rich.text import Text

    return Text(printable(value), style=style or "")


def _count(value: int) -> str:
    return "?" if value < 0 else f"{value:,}"


def _delta(value: int) -> Any:
    if value == 0:
        return _text("", None)
    return _text(f"{value:+,}", "yellow" if value > 0 else "green")


def _summary(timeline: PassTimeline, console: Any) -> None:
    from rich.text import Text

    rows = [r for r in timeline.rows if not r.error]
    first, last = (rows[0], rows[-1]) if rows else (None, None)
    line = Text.assemble(
        ("module ", "dim"),
        (printable(timeline.module), "bold"),
        f"  {len(timeline.rows)} snapshots",
    )
    if first is not None and last is not None:
        for label, a, b in (
            ("instructions", first.instructions, last.instructions),
            ("fusions", first.fusions, last.fusions),
            ("kernels", first.kernels, last.kernels),
        ):
            line.append(f"  {label} ", style="dim")
            line.append(f"{a:,} \u2192 {b:,}")
    console.print(line)


def render_timeline(timeline: PassTimeline, console: Any, *, wide: bool = False) -> None:
    """The summary, the table of snapshots and the passes that changed nothing. The table
    fits the console (pass and pipeline names wrap, never cut); ``wide`` prints it whole."""
    _summary(timeline, console)
    console.print()
    rows = [_row_cells(row) for row in timeline.rows]
    optional = _TIMELINE_OPTIONAL
    if any(row.error for row in timeline.rows):
        optional = ("pipeline",)  # an unreadable snapshot's error is always shown
    shown = _print_rows(console, _TIMELINE_COLUMNS, rows, optional=optional, wide=wide)
    if "note" not in shown and any(not row.changed for row in timeline.rows):
        console.print(_text("(dim: the same text as the snapshot before)", "dim"))
    _quiet(timeline, console)


# (header, right-aligned, narrowest width: 0 never narrowed, wrap: folds instead of being cut)
# of the timeline's columns. A pass name cut to `copy-inse…` says nothing: names wrap. The
# pipeline and the note join when they fit (an unchanged snapshot is dim in any case).
_TIMELINE_COLUMNS: tuple[tuple[str, bool, int, bool], ...] = (
    ("step", True, 0, False),
    ("pass", False, 12, True),
    ("pipeline", False, 12, True),
    ("instr", True, 0, False),
    ("\u0394", True, 0, False),
    ("fusions", True, 0, False),
    ("\u0394 ", True, 0, False),
    ("kernels", True, 0, False),
    ("\u0394  ", True, 0, False),
    ("note", False, 9, True),
)
_TIMELINE_OPTIONAL: tuple[str, ...] = ("note", "pipeline")
# How narrow the pass column may get to make room for an optional one: most names fit whole.
_COMFORTABLE = {"pass": 26}


def _plain_text_of(header: str) -> Callable[[Mapping[str, Any]], str]:
    """How a keyed row of rich Texts becomes the plain text of its ``header`` cell."""
    return lambda row: row[header].plain


def _print_rows(
    console: Any,
    spec: Sequence[tuple[str, bool, int, bool]],
    rows: Sequence[Sequence[Any]],
    *,
    optional: Sequence[str] = (),
    wide: bool = False,
) -> list[str]:
    """A table of ``rows`` (rich Texts, one per column of ``spec``) fitted to the console by
    the table engine every command shares (:func:`~hloscope.render.table_fit.fitted_table`):
    the ``optional`` columns join while they fit. Returns the headers shown."""
    columns = {
        header: Column(
            header,
            _plain_text_of(header),
            right,
            floor,
            _end_cut,
            comfortable=max(floor, _COMFORTABLE.get(header, 0)),
            wrap=wrap,
        )
        for header, right, floor, wrap in spec
    }
    keyed = [{header: cell for (header, *_), cell in zip(spec, row)} for row in rows]
    table, width = fitted_table(
        keyed,
        columns,
        [header for header, *_ in spec if header not in optional],
        optional,
        console.width,
        wide,
        styles=lambda row, header: str(row[header].style) or None,
    )
    print_table(console, table, width)
    return [column.header for column in table.columns]


def _end_cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + ELLIPSIS


def _row_cells(row: PassRow) -> list[Any]:
    dim = None if row.changed else "dim"
    if row.next_pass is None or not row.ran:
        what = row.label  # `PIPELINE: PASS` while it ran, or `start of PIPELINE`
    else:
        what = row.ran
    note = row.error or ("" if row.changed else "same text")
    return [
        _text(f"{row.step:04d}", "dim"),
        _text(what, dim or ("bold" if row.ran else None)),
        _text(row.pipeline if row.next_pass is not None and row.ran else "", "dim"),
        _text(_count(row.instructions), dim),
        _delta(row.d_instructions),
        _text(_count(row.fusions), dim),
        _delta(row.d_fusions),
        _text(_count(row.kernels), dim),
        _delta(row.d_kernels),
        _text(note, "red" if row.error else "dim"),
    ]


def _quiet(timeline: PassTimeline, console: Any) -> None:
    from rich.text import Text

    quiet = Counter(q.pass_name for q in timeline.unchanged)
    if not quiet:
        return
    named = [f"{name} \u00d7{n}" if n > 1 else name for name, n in quiet.items()]
    shown = ", ".join(named[:_QUIET_SHOWN])
    if len(named) > _QUIET_SHOWN:
        shown += f", +{len(named) - _QUIET_SHOWN} more"
    console.print()
    console.print(Text.assemble(("ran and changed nothing: ", "dim"), printable(shown)))
    if not timeline.every_pass:
        console.print(_text("(only passes with a snapshot; not every pass was dumped)", "dim"))


def render_diffs(diffs: Sequence[PassDiff], console: Any) -> None:
    """Each diff, coloured: headers bold, hunks cyan, removed lines red, added lines green."""
    from rich.text import Text

    for diff in diffs:
        if not diff.diff:
            console.print(
                _text(f"{diff.row.step:04d} {diff.row.label}: same text as the snapshot before")
            )
            continue
        for line in diff.diff.splitlines():
            if line.startswith(("---", "+++")):
                style = "bold"
            elif line.startswith("@@"):
                style = "cyan"
            elif line.startswith("-"):
                style = "red"
            elif line.startswith("+"):
                style = "green"
            else:
                style = ""
            # Whole lines, never wrapped by rich: a diff is copied and searched.
            console.print(Text(printable(line), style=style), soft_wrap=True)


def render_follow(follow: Follow, console: Any, *, wide: bool = False) -> None:
    """One row per event of the followed instruction."""
    from rich.text import Text

    console.print(Text.assemble(("instruction ", "dim"), (printable(follow.instruction), "bold")))
    rows = []
    for event in follow.events:
        where = event.name
        if event.fusion:
            where += f" in {event.fusion}"
        elif event.computation:
            where += f" in {event.computation}"
        text = event.after or event.before
        rows.append(
            [
                _text(f"{event.step:04d}", "dim"),
                _text(event.ran or event.pass_label),
                _text(str(event.kind), _EVENT_STYLES.get(event.kind)),
                _text(where),
                _text(" ".join(text.split()), "dim"),
            ]
        )
    spec = (
        ("step", True, 0, False),
        ("pass", False, 8, True),
        ("event", False, 0, False),
        ("now", False, 8, True),
        ("text", False, 12, False),  # the instruction's text: its start says what it is
    )
    _print_rows(console, spec, rows, wide=wide)
