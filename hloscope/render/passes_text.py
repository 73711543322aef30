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
from collections.abc import Sequence
from typing import Any

from ..analysis.passes import Follow, FollowEventKind, PassDiff, PassRow, PassTimeline
from .fusion_table import Column, fit_columns
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


def render_timeline(timeline: PassTimeline, console: Any) -> None:
    """The summary, the table of snapshots and the passes that changed nothing."""
    _summary(timeline, console)
    console.print()
    rows = [_row_cells(row) for row in timeline.rows]
    _print_rows(console, _TIMELINE_COLUMNS, rows)
    _quiet(timeline, console)


# (header, right-aligned, shrinkable down to) of the timeline's columns.
_TIMELINE_COLUMNS: tuple[tuple[str, bool, int], ...] = (
    ("step", True, 0),
    ("pass", False, 10),
    ("pipeline", False, 8),
    ("instr", True, 0),
    ("\u0394", True, 0),
    ("fusions", True, 0),
    ("\u0394 ", True, 0),
    ("kernels", True, 0),
    ("\u0394  ", True, 0),
    ("note", False, 6),
)


def _print_rows(
    console: Any, spec: Sequence[tuple[str, bool, int]], rows: Sequence[Sequence[Any]]
) -> None:
    """A table of ``rows`` (rich Texts) whose shrinkable columns are cut to fit the console."""
    from rich.table import Table

    columns = {
        header: Column(header, lambda r, i=i: r[i].plain, right, floor, _end_cut)
        for i, (header, right, floor) in enumerate(spec)
    }
    natural = {
        header: max([len(header), *(len(row[i].plain) for row in rows)])
        for i, (header, _, _) in enumerate(spec)
    }
    widths = dict(fit_columns(list(columns), natural, columns, console.width))
    table = Table(show_edge=False, pad_edge=False, expand=False)
    for header, right, _ in spec:
        justify = "right" if right else "left"
        table.add_column(header, width=widths[header], justify=justify, no_wrap=True)
    for row in rows:
        cells = []
        for (header, _, _), cell in zip(spec, row):
            cut = _end_cut(cell.plain, widths[header])
            cells.append(cell if cut == cell.plain else _text(cut, str(cell.style) or None))
        table.add_row(*cells)
    console.print(table)


def _end_cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + ELLIPSIS


def _row_cells(row: PassRow) -> list[Any]:
    dim = None if row.changed else "dim"
    if row.next_pass is None:
        what = f"{row.pipeline}: {row.pass_name}"
    else:
        what = row.ran or "(start)"
    note = row.error or ("" if row.changed else "same text")
    return [
        _text(f"{row.step:04d}", "dim"),
        _text(what, dim or ("bold" if row.ran else None)),
        _text(row.pipeline if row.next_pass is not None else "", "dim"),
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


def render_follow(follow: Follow, console: Any) -> None:
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
    spec = (("step", True, 0), ("pass", False, 8), ("event", False, 0), ("now", False, 8))
    _print_rows(console, (*spec, ("text", False, 12)), rows)
