"""An :class:`~hloscope.analysis.explain.Explanation` on a terminal: each line of code beside
what every compiler stage made of it.

Without a focus, one row per source line: its code, how many jaxpr equations, StableHLO ops
and HLO instructions came from it, how many ops are left after optimization and the kernels
they sit in::

    source                 code                             jaxpr  shlo  hlo  after  kernels
    model.py:33 (norm)     return (x - mean) * rsqrt(...)      96   147  184    323  45: add_…

With a focus (``--line FILE:N``, ``--kernel NAME``), each line gets a side-by-side table, one
row per primitive (the last part of the ``op_name``, which every stage keeps), so a ``mul``
can be followed from its equation to its StableHLO op, its HLO instruction and its kernel::

    op    jaxpr               StableHLO              HLO before        kernels
    mul   c = mul a b         %0 = stablehlo.mul…    mul.1             fusion.3 (kLoop)

Columns share the terminal's width and every cell stays on its lines (cut with an ellipsis);
every string from the HLO and the source files goes through
:func:`~hloscope.render.terminal.printable`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..analysis.explain import STAGE_ORDER, ExplainedKernel, Explanation, LinkedOp, SourceLine
from ..stages import Stage
from .sources import short_source, shorten_source
from .table_fit import Column, fitted_table, print_table
from .terminal import printable, shorten_middle

__all__ = ["render_explanation", "STAGE_TITLES"]

#: Column titles of the stages.
STAGE_TITLES: dict[Stage, str] = {
    Stage.JAXPR: "jaxpr",
    Stage.STABLEHLO: "StableHLO",
    Stage.HLO: "HLO before",
    Stage.OPTIMIZED_HLO: "kernels",
}
_SHORT_TITLES = {
    Stage.JAXPR: "jaxpr",
    Stage.STABLEHLO: "shlo",
    Stage.HLO: "hlo",
    Stage.OPTIMIZED_HLO: "after",
}
# In a side-by-side cell, at most this many ops, then "+N more".
_CELL_ITEMS = 4
# Kernel names in the overview's last column before "+N".
_KERNELS_SHOWN = 3
# The share of the width each column of a line's detail gets (the others: 3). The kernels
# column holds `op → kernel`: the kernel's whole name should fit on its own line.
_RATIOS = {STAGE_TITLES[Stage.HLO]: 2, "after: op \u2192 kernel": 4}


def _text(value: str, style: str | None = None) -> Any:
    from rich.text import Text

    return Text(printable(value), style=style or "")


def render_explanation(explanation: Explanation, console: Any, *, wide: bool = False) -> None:
    """Print ``explanation``: the header, then the overview or (with a focus) the detail.

    Tables fit the console: the overview's source and code are shortened, its kernel lists and
    every cell of the detail wrap (a cut op or kernel name says nothing); ``wide`` prints
    each table at its full width instead."""
    _header(explanation, console)
    if explanation.focus.startswith("kernel "):
        for kernel in explanation.kernels:
            _kernel_header(kernel, console)
    if explanation.focus:
        for line in explanation.lines:
            console.print()
            _line_detail(explanation, line, console, wide)
        if not explanation.lines:
            console.print(_text("no source line is linked to this kernel", "yellow"))
    else:
        console.print()
        _overview(explanation, console, wide)
    _footer(explanation, console)


def _header(e: Explanation, console: Any) -> None:
    from rich.text import Text

    title = Text.assemble(("module ", "dim"), (printable(e.module), "bold"), f" ({e.frontend})")
    if e.focus:
        title.append(f"  {printable(e.focus)}", style="cyan")
    console.print(title)
    stages = Text("stages ", style="dim")
    for stage in STAGE_ORDER:
        present = stage in e.stages
        stages.append(STAGE_TITLES[stage], style="green" if present else "dim strike")
        stages.append("  ")
    n_kernels = len(e.kernels)
    stages.append(f"{len(e.lines)} lines, {n_kernels} kernel{'s' if n_kernels != 1 else ''}")
    console.print(stages)
    by_reason: dict[str, list[str]] = {}
    for missing_stage, why in e.missing.items():
        by_reason.setdefault(why, []).append(missing_stage)
    for why, stages_missing in by_reason.items():
        console.print(_text(f"missing {', '.join(stages_missing)}: {why}", "yellow"))


def _footer(e: Explanation, console: Any) -> None:
    if e.unattributed:
        parts = ", ".join(f"{stage} {n}" for stage, n in e.unattributed.items())
        console.print(_text(f"ops with no source line (constants, XLA's own): {parts}", "dim"))
    for note in e.notes:
        console.print(_text(f"note: {note}", "yellow"))
    if not e.focus and e.lines:
        console.print(
            _text("--line FILE:N shows one line stage by stage; --kernel NAME one kernel", "dim")
        )


# ---- the overview ----------------------------------------------------------------------------


def _kernel_list(line: SourceLine) -> str:
    names = list(line.kernels) + [f"{k}*" for k in line.inferred_kernels]
    if not names:
        return "optimized away" if line.optimized_away else ""
    shown = ", ".join(names[:_KERNELS_SHOWN])
    return shown + (f", +{len(names) - _KERNELS_SHOWN}" if len(names) > _KERNELS_SHOWN else "")


def _overview(e: Explanation, console: Any, wide: bool) -> None:
    shown = [s for s in STAGE_ORDER if s in e.stages]
    has_kernels = Stage.OPTIMIZED_HLO in e.stages
    rows = []
    for line in e.lines:
        row: dict[str, Any] = {"source": short_source(line.source), "code": line.code}
        row.update({_SHORT_TITLES[s]: str(len(line.stage_ops(s))) for s in shown})
        if has_kernels:
            n = len(line.kernels) + len(line.inferred_kernels)
            row["kernels"] = f"{n}: {_kernel_list(line)}" if n else _kernel_list(line)
        row["away"] = line.optimized_away
        rows.append(row)
    columns = {
        "source": Column(
            "source",
            lambda r: r["source"],
            min_width=16,
            shorten=shorten_source,
            comfortable=24,
            compact=lambda text: text.partition(" (")[0],
        ),
        # Code cut short says nothing either: it folds too, and gets its share of the width.
        "code": Column("code", lambda r: r["code"], min_width=12, comfortable=24, wrap=True),
        **{
            _SHORT_TITLES[s]: Column(_SHORT_TITLES[s], _row_key(_SHORT_TITLES[s]), True)
            for s in shown
        },
    }
    if has_kernels:
        # A list of kernel names cut short says nothing: it folds onto more lines.
        columns["kernels"] = Column("kernels", lambda r: r["kernels"], min_width=20, wrap=True)

    def style(row: Mapping[str, Any], name: str) -> str | None:
        if name == "code":
            return "cyan"
        return "yellow" if name == "kernels" and row["away"] else None

    table, width = fitted_table(rows, columns, list(columns), (), console.width, wide, style)
    print_table(console, table, width)
    if any(line.inferred_kernels for line in e.lines):
        console.print(_text("* inferred: the kernel has no source line of its own", "dim"))


def _row_key(key: str) -> Callable[[Mapping[str, Any]], str]:
    """A column's reader of one key of a row (a function per key: a lambda in a loop would
    see only the last key)."""
    return lambda row: row[key]


# ---- one line, side by side -------------------------------------------------------------------


def _primitive(op: LinkedOp) -> str:
    """The primitive an op stands for: the last part of its op_name (a jaxpr equation's own)."""
    if op.stage is Stage.JAXPR:
        return op.op
    name = op.op_name.split(";")[0].rsplit("/", 1)[-1] if op.op_name else ""
    return name or op.op.rsplit(".", 1)[-1]


# The type signature that ends a StableHLO op (` : (tensor<4xf32>, ...) -> tensor<4xf32>`):
# the jaxpr column shows the same types, shorter.
_MLIR_TYPES = re.compile(r" : (?:\(|tensor<|![\w.]+|[if]\d+\b).*$")


def _op_cell(op: LinkedOp) -> str:
    if op.stage is Stage.JAXPR:
        text = op.text.strip()
    elif op.stage is Stage.STABLEHLO:
        text = _MLIR_TYPES.sub("", op.text)
    else:
        text = f"{op.name} {op.op}"
    if op.stage is not Stage.OPTIMIZED_HLO and not op.kernels and op.fate:
        fate = "no kernel" if op.fate == "removed" else f"{op.fate}, no kernel"
        text += f"  \u2192 {fate}"
    return text


def _cell(ops: Sequence[LinkedOp]) -> list[str]:
    items = [_op_cell(op) for op in ops[:_CELL_ITEMS]]
    if len(ops) > _CELL_ITEMS:
        items.append(f"+{len(ops) - _CELL_ITEMS} more")
    return items


def _kernel_cell(ops: Iterable[LinkedOp], kinds: dict[str, str]) -> list[str]:
    names: list[str] = []
    for op in ops:
        for kernel in op.kernels or ([op.kernel] if op.kernel else []):
            if kernel not in names:
                names.append(kernel)
    items = [f"{n} ({kinds[n]})" if kinds.get(n) else n for n in names[:_CELL_ITEMS]]
    if len(names) > _CELL_ITEMS:
        items.append(f"+{len(names) - _CELL_ITEMS} more")
    return items


def _groups(line: SourceLine) -> dict[str, dict[Stage, list[LinkedOp]]]:
    """The line's ops by primitive, in the order primitives first appear (jaxpr first)."""
    groups: dict[str, dict[Stage, list[LinkedOp]]] = {}
    for stage in STAGE_ORDER:
        for op in line.stage_ops(stage):
            groups.setdefault(_primitive(op), {}).setdefault(stage, []).append(op)
    return groups


def _line_detail(e: Explanation, line: SourceLine, console: Any, wide: bool) -> None:
    from rich.text import Text

    console.print(Text(printable(line.source), style="bold"))
    if line.code:
        console.print(Text("  " + printable(line.code), style="cyan"))
    if not _groups(line):
        # A kernel traced here through a loop or a copy: no op of the line is in it.
        console.print(_text("  no op of this line ended in it (its line is inferred)", "dim"))
        _line_kernels(line, console)
        return
    headers, rows = _stage_rows(e, line)
    # Cells wrap instead of ending in an ellipsis: the end of an op's text (its operands, the
    # kernel after the arrow) is what a reader came for. Wide, each column takes its longest
    # item.
    widths = [
        max([len(h), *(len(printable(i)) for r in rows for i in r[c])])
        for c, h in enumerate(headers)
    ]
    if not wide and _too_narrow(widths, console.width):
        _stacked(headers, rows, console)
    else:
        _stage_table(headers, rows, widths, console, wide)
    _line_kernels(line, console)


def _stage_rows(e: Explanation, line: SourceLine) -> tuple[list[str], list[list[list[str]]]]:
    """The headers, and one row per primitive of the line: its ops in each stage, and after
    optimization the kernel each went to."""
    kinds = {k.name: k.kind for k in e.kernels}
    shown = [s for s in STAGE_ORDER if s in e.stages and s is not Stage.OPTIMIZED_HLO]
    headers = ["op", *(STAGE_TITLES[s] for s in shown)]
    if Stage.OPTIMIZED_HLO in e.stages:
        headers.append("after: op \u2192 kernel")
    rows = []
    for primitive, by_stage in _groups(line).items():
        cells = [[primitive]]
        for stage in shown:
            cells.append(_cell(by_stage.get(stage, [])))
        if Stage.OPTIMIZED_HLO in e.stages:
            after = by_stage.get(Stage.OPTIMIZED_HLO, [])
            if after:
                cells.append([f"{op.name} \u2192 {op.kernel}" for op in after[:_CELL_ITEMS]])
            else:
                earlier = [op for s in shown for op in by_stage.get(s, [])]
                cells.append(_kernel_cell(earlier, kinds) or ["(none)"])
        rows.append(cells)
    return headers, rows


def _stage_table(
    headers: list[str], rows: list[list[list[str]]], widths: list[int], console: Any, wide: bool
) -> None:
    """The rows side by side, a column per stage."""
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, expand=not wide, show_lines=True)
    for column, header in enumerate(headers):
        width: int | None
        ratio: int | None
        if wide:
            width, ratio = widths[column], None
        elif column == 0:  # the primitive: short, and read first (an eighth of the width)
            width, ratio = min(widths[column], max(12, console.width // 8)), None
        else:
            width, ratio = None, _RATIOS.get(header, 3)
        table.add_column(
            header,
            style="magenta" if column == 0 else None,
            no_wrap=wide,
            overflow="fold",
            min_width=min(widths[column], 6),
            width=width,
            ratio=ratio,
        )
    for cells in rows:
        table.add_row(
            *(_lines_text(items, "dim" if items == ["(none)"] else None) for items in cells)
        )
    print_table(console, table, sum(widths) + 3 * (len(widths) - 1) if wide else 0)


# Side by side, a stage's column narrower than this cuts code every few characters; the
# stages are then stacked under each primitive instead, each op's text on lines of its own.
_NARROWEST_STAGE = 28


def _too_narrow(widths: Sequence[int], width: int) -> bool:
    """Whether the side-by-side table would squeeze a stage's text: it is wider than
    ``width`` and its stage columns would get fewer than :data:`_NARROWEST_STAGE` each."""
    natural = sum(widths) + 3 * (len(widths) - 1)
    if natural <= width:
        return False
    stages = len(widths) - 1
    return (width - widths[0] - 3 * stages) // max(1, stages) < _NARROWEST_STAGE


def _stacked(headers: Sequence[str], rows: Sequence[Sequence[Sequence[str]]], console: Any) -> None:
    """A line's detail for a narrow terminal: each primitive, then under it one labelled
    block per stage, each op's text whole on its own line (a text longer than the terminal
    wraps between words, under its own start)."""
    import textwrap

    from rich.text import Text

    labels = ["op \u2192 kernel" if h.startswith("after") else h for h in headers[1:]]
    indent = 2 + max(len(label) for label in labels) + 2
    room = max(20, console.width - indent)
    for cells in rows:
        console.print(Text(printable(cells[0][0]), style="magenta bold"))
        for label, items in zip(labels, cells[1:]):
            lines: list[str] = []
            for item in items:
                lines += textwrap.wrap(
                    printable(item),
                    width=room,
                    break_on_hyphens=False,
                    subsequent_indent=" ",
                    break_long_words=False,
                ) or [""]
            for number, text in enumerate(lines):
                shown = Text(f"  {label:<{indent - 4}}  " if number == 0 else " " * indent)
                shown.stylize("dim")
                shown.append(text, style="dim" if items == ["(none)"] else "")
                console.print(shown)


def _line_kernels(line: SourceLine, console: Any) -> None:
    from rich.text import Text

    if line.kernels or line.inferred_kernels:
        names = ", ".join([*line.kernels, *(f"{k}*" for k in line.inferred_kernels)])
        console.print(Text.assemble(("kernels ", "dim"), printable(names)))
    elif line.optimized_away:
        console.print(_text("no kernel: XLA removed or folded every op of this line", "yellow"))


def _lines_text(items: Sequence[str], style: str | None = None) -> Any:
    from rich.text import Text

    return Text("\n".join(printable(item) for item in items), style=style or "")


# ---- one kernel ---------------------------------------------------------------------------------


def _kernel_header(kernel: ExplainedKernel, console: Any) -> None:
    from rich.text import Text

    kind = kernel.kind + (f" {kernel.backend_kind}" if kernel.backend_kind else "")
    console.print()
    console.print(
        Text.assemble(
            ("kernel ", "dim"),
            (printable(kernel.name), "bold"),
            f"  {printable(kind)}  ",
            (printable(shorten_middle(kernel.signature, 60)), "magenta"),
            (f"  {kernel.n_ops} ops  in {printable(kernel.where)}", "dim"),
        )
    )
    if kernel.sources:
        lines = ", ".join(f"{short_source(s)} ({n} ops)" for s, n in kernel.sources)
        console.print(Text.assemble(("from ", "dim"), printable(lines)))
    elif kernel.inferred_sources:
        lines = ", ".join(short_source(s) for s in kernel.inferred_sources)
        console.print(
            Text.assemble(
                ("from (inferred: ", "dim"),
                (printable(kernel.inferred_how), "dim"),
                (") ", "dim"),
                printable(lines),
            )
        )
    else:
        console.print(_text("no source line: XLA made it and nothing links it back", "yellow"))
