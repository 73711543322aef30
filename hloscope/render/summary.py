"""Terminal rendering of :class:`~hloscope.analysis.summary.ModuleSummary` with rich."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..analysis.summary import ModuleSummary
from ..units import format_bytes
from .terminal import printable

__all__ = ["render_summary", "format_bytes"]


def _section(title: str) -> Text:
    return Text("\n" + title, style="bold cyan")


def _counts_table(title: str, counts: dict[str, int], key: str) -> Group:
    table = Table(show_edge=False, pad_edge=False, box=None, show_header=False)
    table.add_column(key)
    table.add_column("count", justify="right")
    for name, count in counts.items():
        table.add_row(Text(printable(name)), str(count))
    return Group(_section(title), table)


def render_summary(
    summary: ModuleSummary,
    console: Console,
    *,
    source: str | None = None,
    max_rows: int = 12,
    wide: bool = False,
) -> None:
    """The summary in a panel as wide as the console; ``wide``: as wide as its longest line
    (long tuple shapes on one line), whatever the console's width."""
    panel = Panel(
        Group(*_parts(summary, max_rows)),
        title=Text(printable(source or summary.name)),
        title_align="left",
        expand=not wide,
    )
    if not wide:
        console.print(panel)
        return
    narrow = console.width
    console.width = max(
        narrow, console.measure(panel, options=console.options.update_width(10**5)).maximum
    )
    try:
        console.print(panel)
    finally:
        console.width = narrow


def _parts(summary: ModuleSummary, max_rows: int) -> list[RenderableType]:
    """The panel's contents, top to bottom."""
    head = Text.assemble(
        ("module ", "dim"),
        (printable(summary.name), "bold"),
        ("  entry ", "dim"),
        printable(summary.entry),
        ("  computations ", "dim"),
        f"{summary.computations} ({summary.fused_computations} fused)",
        ("  instructions ", "dim"),
        f"{summary.instructions} ({summary.instructions_outside_fusions} outside fusions)",
    )
    parts: list[RenderableType] = [head]
    parts.append(_counts_table("instructions by category", summary.by_category, "category"))
    if summary.fusions_by_kind:
        parts.append(_counts_table("fusions by kind", summary.fusions_by_kind, "kind"))
    parts.append(
        _section(
            f"entry parameters ({len(summary.parameters)}, {format_bytes(summary.parameter_bytes)})"
        )
    )
    parts.append(_parameters(summary, max_rows))
    parts.append(_section("output"))
    parts.append(
        Text.assemble(Text(summary.output_shape), "  ", format_bytes(summary.output_bytes))
    )
    if summary.custom_call_targets:
        parts.append(_counts_table("custom-call targets", summary.custom_call_targets, "target"))
    if summary.source_files:
        files = dict(list(summary.source_files.items())[:max_rows])
        parts.append(_counts_table("source files (instructions)", files, "file"))
    if summary.unknown_opcodes:
        parts.append(
            Text(
                "unknown opcodes (kept as is): "
                + ", ".join(map(printable, summary.unknown_opcodes)),
                style="yellow",
            )
        )
    return parts


def _parameters(summary: ModuleSummary, max_rows: int) -> Table:
    params = Table(show_edge=False, pad_edge=False, box=None)
    params.add_column("#", justify="right")
    params.add_column("name")
    params.add_column("shape")
    params.add_column("bytes", justify="right")
    for p in summary.parameters[:max_rows]:
        params.add_row(str(p.number), Text(printable(p.name)), Text(p.shape), format_bytes(p.bytes))
    if len(summary.parameters) > max_rows:
        params.add_row(
            "", Text(f"... {len(summary.parameters) - max_rows} more", style="dim"), "", ""
        )
    return params
