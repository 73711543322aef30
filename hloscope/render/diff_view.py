"""Terminal and JSON output of the kernel diff (``hloscope diff A B``).

:func:`render_diff` prints, in order: what A and B are, a table of totals (kernels, bytes
through memory at kernel boundaries, FLOPs, transcendentals) with their change, one line per
change group (split, merged, regrouped, changed, added, removed; unchanged kernels are only
counted), the source lines whose ops now sit in different kernels, and a note that explains
what the kinds of change found cost. :func:`render_memory_diff` then prints the peak memory
of A and B, the buffers that left or joined the peak and the source lines whose bytes at the
peak changed.
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..analysis.diff import (
    STATUSES,
    ChangeStatus,
    KernelDiff,
    LineChange,
)
from ..analysis.memory_diff import MemoryDiff
from ..units import format_bytes, format_count
from .diff_text import (
    describe,
    peak_buffer_text,
    peak_text,
    replaced_lines_text,
    short_source,
    signed,
    source_lines_text,
)
from .terminal import printable

__all__ = ["render_diff", "render_memory_diff", "DEFAULT_LIMIT", "MEMORY_LIMIT"]

#: How many change groups and source lines the text output lists by default.
DEFAULT_LIMIT = 30
#: How many buffers (left, joined) and source lines the memory part lists at most.
MEMORY_LIMIT = 8

_STYLES = {
    "split": "bold red",
    "merged": "bold green",
    "regrouped": "bold yellow",
    "changed": "yellow",
    "added": "red",
    "removed": "green",
    "unchanged": "dim",
}
_ROWS = (
    ("kernels", "kernels", str),
    ("bytes", "bytes through memory", format_bytes),
    ("flops", "FLOPs", format_count),
    ("transcendentals", "transcendentals", format_count),
)
# Why each kind of change matters, printed once under the list when it occurs.
_NOTES = {
    "split": "a split kernel writes the values that passed between its parts inside one loop "
    "to memory, and the next kernel reads them back: more bytes moved and one more kernel "
    "launch. Look at what cuts the chain on the lines listed (a host callback, a custom call, "
    "an op XLA does not fuse, a reshape or layout change).",
    "merged": "merged kernels keep intermediate values in registers instead of memory: fewer "
    "bytes moved and fewer kernel launches.",
    "regrouped": "regrouped kernels: XLA drew the kernel boundaries differently through these ops; "
    "compare the bytes through memory to see which grouping moves less.",
}


def _percent(a: int, b: int) -> str:
    if a == b:
        return ""
    if a == 0:
        return " (new)"
    return f" ({100.0 * (b - a) / a:+.1f}%)"


def _line_label(source_a: str, source_b: str) -> str:
    """``model.py:48 (f) -> :56 (g)``: the file is said once when it did not change."""
    a, b = short_source(source_a), short_source(source_b)
    if not source_a:
        return b
    if not source_b or a == b:
        return a
    file_a, _, _ = a.partition(":")
    file_b, _, rest_b = b.partition(":")
    return f"{a} -> {':' + rest_b if file_a == file_b else b}"


def _line_text(row: LineChange, replaced: dict[str, list[str]] | None = None) -> str:
    """One row of the line table; ``replaced``: each line only one side has -> the lines of
    the other side that took its place (:attr:`KernelDiff.replaced_lines`)."""
    label = _line_label(row.source_a, row.source_b)
    other = (replaced or {}).get(row.source_a or row.source_b, [])
    if row.status == "added":
        ops = f"{row.ops_b} op{'s' if row.ops_b != 1 else ''}"
        instead = f", in place of {source_lines_text(other)}" if other else ""
        return f"{label}: new{instead}, {ops} in {', '.join(row.kernels_b[:4])}"
    if row.status == "removed":
        ops = f"its {row.ops_a} ops were" if row.ops_a != 1 else "its op was"
        head = f"replaced by {source_lines_text(other)}" if other else "gone"
        return f"{label}: {head} ({ops} in {', '.join(row.kernels_a[:4])})"
    n_a, n_b = len(row.kernels_a), len(row.kernels_b)
    if n_a == n_b:
        where = f"still in {n_b} kernel{'s' if n_b != 1 else ''}"
    else:
        where = f"in {n_a} -> {n_b} kernels"
    parts = [f"{label}: {row.ops_b} op{'s' if row.ops_b != 1 else ''}, {where}"]
    if row.separated_from:
        parts.append(
            "no longer shares a kernel with "
            + ", ".join(short_source(s) for s in row.separated_from[:3])
        )
    if row.joined_with:
        parts.append(
            "now shares a kernel with " + ", ".join(short_source(s) for s in row.joined_with[:3])
        )
    return "; ".join(parts)


def render_diff(result: KernelDiff, console: Any, *, limit: int = DEFAULT_LIMIT) -> None:
    """Print ``result`` on a rich console. ``limit`` caps the change and line lists (0: all)."""
    from rich.text import Text

    _render_totals(result, console)
    counts = result.counts
    if result.no_change:
        renamed = sum(1 for c in result.changes if c.a[0].name != c.b[0].name)
        extra = f" ({renamed} renamed)" if renamed else ""
        console.print(
            Text(
                f"no change: {counts[ChangeStatus.UNCHANGED]} kernels{extra}, "
                "the same ops, bytes and FLOPs in A and B",
                style="bold green",
            )
        )
        return
    console.print(Text(", ".join(f"{n} {s}" for s, n in counts.items() if n), style="bold"))
    _render_changes(result, console, limit)
    _render_replaced(result, console, limit)
    _render_lines(result, console, limit)
    notes = [_NOTES[s] for s in STATUSES if s in _NOTES and counts[s]]
    if notes:
        console.print()
    for note in notes:
        console.print(Text("note: " + note, style="yellow"))


def _render_totals(result: KernelDiff, console: Any) -> None:
    """The two sides' names, then the totals of A and B and their change."""
    from rich.table import Table
    from rich.text import Text

    for letter, side in (("A ", result.a), ("B ", result.b)):
        module = (
            side.module if len(side.module) <= 60 else side.module[:59] + "…"
        )  # TF names run long
        console.print(
            Text.assemble(
                (letter, "bold"), printable(side.label), (f"  ({printable(module)})", "dim")
            )
        )
    totals = result.totals
    table = Table(show_edge=False, pad_edge=False, box=None)
    for header, right in (("", False), ("A", True), ("B", True), ("change", True)):
        table.add_column(header, justify="right" if right else "left", no_wrap=True)
    for key, title, fmt in _ROWS:
        a, b = totals["a"][key], totals["b"][key]
        delta = signed(b - a, fmt) + _percent(a, b) if a != b else "="
        style = "" if a == b else ("red" if b > a else "green")
        table.add_row(title, fmt(a), fmt(b), Text(delta, style=style))
    console.print(table)
    console.print()


def _render_changes(result: KernelDiff, console: Any, limit: int) -> None:
    """Each kernel change, one clause a line: what happened, then bytes, then which arrays go
    through memory."""
    from rich.table import Table
    from rich.text import Text

    changed = result.changed()
    shown = changed if limit <= 0 else changed[:limit]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for change in shown:
        grid.add_row(
            Text(change.status, style=_STYLES[change.status]),
            Text(printable(describe(change)).replace("; ", "\n")),
        )
    console.print()
    console.print(grid)
    if len(shown) < len(changed):
        console.print(
            Text(
                f"({len(changed) - len(shown)} more changes; "
                "--limit 0 lists all, --json gives everything)",
                style="dim",
            )
        )


def _render_lines(result: KernelDiff, console: Any, limit: int) -> None:
    """The source lines whose ops changed kernels."""
    from rich.table import Table
    from rich.text import Text

    if not result.lines:
        return
    rows = result.lines if limit <= 0 else result.lines[:limit]
    console.print()
    console.print(Text("source lines whose ops changed kernels", style="bold"))
    lines = Table.grid(padding=(0, 1))
    lines.add_column(no_wrap=True)
    lines.add_column(overflow="fold")
    replaced: dict[str, list[str]] = {}
    for old, new in result.replaced_lines:
        replaced.update(dict.fromkeys(old, new))
        replaced.update(dict.fromkeys(new, old))
    for row in rows:
        text = _line_text(row, replaced)
        lines.add_row(Text(row.status, style="cyan"), Text(printable(text)))
    console.print(lines)
    if len(rows) < len(result.lines):
        console.print(Text(f"({len(result.lines) - len(rows)} more lines)", style="dim"))


def _render_replaced(result: KernelDiff, console: Any, limit: int) -> None:
    """``code replaced (old lines -> new lines)``: each set of lines only A has, and the
    lines only B has that took their place, joined through the kernels their ops went to."""
    from rich.text import Text

    groups = result.replaced_lines
    if not groups:
        return
    shown = groups if limit <= 0 else groups[:limit]
    console.print()
    console.print(Text("code replaced (old lines -> new lines)", style="bold"))
    width = max(console.width, 40)
    for a, b in shown:
        text = printable(replaced_lines_text(a, b))
        for line in textwrap.wrap(
            text,
            width,
            initial_indent="  ",
            subsequent_indent="      ",
            break_on_hyphens=False,
            break_long_words=False,
        ):
            console.print(Text(line))
    if len(shown) < len(groups):
        console.print(Text(f"({len(groups) - len(shown)} more)", style="dim"))


def _growth_style(delta: int) -> str:
    return "red" if delta > 0 else "green"


def render_memory_diff(
    result: MemoryDiff | None, console: Any, *, limit: int = DEFAULT_LIMIT, note: str = ""
) -> None:
    """Print the memory part of the diff: the peaks and their change (green when B needs
    less), where each number comes from, then the largest buffers that left and joined the
    peak and the source lines whose bytes at the peak changed, at most :data:`MEMORY_LIMIT`
    of each (``limit`` lowers it; 0 lists all). ``result`` ``None``: ``note`` says why."""
    from rich.text import Text

    console.print()
    if result is None:
        console.print(Text(f"memory: not compared ({note})", style="yellow"), markup=False)
        return
    delta = result.delta_bytes
    style = "bold" if not delta else ("bold red" if delta > 0 else "bold green")
    console.print(Text(peak_text(result), style=style))
    sources = {result.a.source, result.b.source}
    said = result.a.source if len(sources) == 1 else f"{result.a.source} -> {result.b.source}"
    console.print(Text(f"source: {said}", style="dim"))
    if limit <= 0:
        shown = max(len(result.left), len(result.joined), len(result.by_source))
    else:
        shown = min(limit, MEMORY_LIMIT)
    for title, buffers in (
        ("left the peak", result.left),
        ("joined the peak", result.joined),
    ):
        if not buffers:
            continue
        total = format_bytes(sum(b.bytes for b in buffers))
        console.print(Text(f"{title}: {len(buffers)} buffers, {total}", style="bold"))
        for buffer in buffers[:shown]:
            console.print(Text("  " + printable(peak_buffer_text(buffer))))
        if len(buffers) > shown:
            console.print(Text(f"  ({len(buffers) - shown} more; --json lists all)", style="dim"))
    if result.by_source:
        _render_peak_lines(result, console, shown)


def _render_peak_lines(result: MemoryDiff, console: Any, shown: int) -> None:
    """The source lines whose bytes at the peak changed: A's, B's, and the change."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text("bytes at the peak by source line", style="bold"))
    grid = Table.grid(padding=(0, 1))
    # The numbers keep their width; a long line label (a moved line says both places)
    # folds instead of squeezing them to "…".
    grid.add_column(overflow="fold")
    for _ in range(3):
        grid.add_column(justify="right", no_wrap=True, min_width=9)
    for share in result.by_source[:shown]:
        if share.key == "(unknown)":
            label = share.key
        else:
            label = _line_label(share.key_a, share.key) if share.key_a else short_source(share.key)
        grid.add_row(
            Text("  " + printable(label)),
            format_bytes(share.a),
            format_bytes(share.b),
            Text(signed(share.delta, format_bytes), style=_growth_style(share.delta)),
        )
    console.print(grid)
