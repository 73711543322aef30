"""Tables that fit the terminal: the one table engine of every command that prints rows.

A table that wraps a kernel name over three lines is unreadable, so rows never wrap: the
columns that matter most are always shown, the others join while they fit, and long names are
shortened in the middle (``wrapped_red…dow.1``) to what the width allows (:func:`fit_columns`).
A column whose cells say nothing once cut (a list of kernel names) folds instead (``wrap``).
``wide=True`` shows every column at full width. Every cell goes through
:func:`~hloscope.render.terminal.printable`; widths are computed here from the cell texts, since
rich would measure every cell of a thousand-row table again, which takes seconds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .terminal import printable, shorten_middle

__all__ = ["Column", "fit_columns", "fitted_table", "print_table", "fold", "GAP"]


@dataclass(frozen=True, slots=True)
class Column:
    """One table column: its header, how a row becomes its text, and how it may be fitted.

    ``min_width`` is how narrow a shrinkable column may be cut (0: never cut), and
    ``comfortable`` how narrow it may be cut to make room for an optional column; ``shorten``
    cuts a cell to a width (by default in the middle). A ``wrap`` column is never cut: its
    cells fold onto more lines, for lists whose every item matters (the kernels a line ended
    in), where a cut one says nothing; they fold at spaces, and a name too long for the line
    after one of ``_ . / ( , : = [`` (:func:`fold`), never in the middle of a word.
    ``compact`` gives a cell's short form that still says what it must (a source line without
    its function): such a column is narrowed to its compact cells before any other is cut.
    """

    header: str
    cell: Callable[[Mapping[str, Any]], str]
    right: bool = False
    min_width: int = 0
    shorten: Callable[[str, int], str] = shorten_middle
    comfortable: int = 0
    wrap: bool = False
    compact: Callable[[str], str] | None = None


# How wide a text column is before fitting: past this a name is shortened even on a wide screen.
_NATURAL_MAX = 48
# How narrow a folding column may get when nothing else can give.
_FOLD_FLOOR = 10
# Between two columns: a space, the rule, a space.
GAP = 3


def fit_columns(
    names: Sequence[str],
    natural: Mapping[str, int],
    columns: Mapping[str, Column],
    available: int,
    optional: Sequence[str] = (),
    compact: Mapping[str, int] | None = None,
    expendable: Sequence[str] = (),
) -> list[tuple[str, int]]:
    """Choose the columns and their widths for a table ``available`` characters wide.

    ``compact`` (column -> the width of its compact cells) is cut first: a source column
    drops its functions before a kernel name is shortened. ``names`` are always shown. Each
    of ``optional`` joins, in order, when it fits at its
    natural width, making room by cutting the shrinkable columns no further than their
    ``comfortable`` width. Then, if the table is still too wide, shrinkable columns are cut,
    widest first, down to their ``min_width``. A table still too wide then leaves out the
    ``expendable`` columns, in order, until it fits: a number cut by the terminal
    (``384.0 `` for ``384.0 MiB``) would say something false, a missing column says nothing.
    Returns ``(name, width)`` in display order.
    """
    widths = {n: natural[n] for n in names}
    if compact:
        _shrink(widths, _total(widths) - available, {n: w for n, w in compact.items() if w})
    comfortable = {n: max(columns[n].min_width, columns[n].comfortable) for n in columns}
    _shrink(widths, _total(widths) - available, comfortable)
    for name in optional:
        excess = _total(widths) + GAP + natural[name] - available
        slack = sum(max(0, widths[n] - comfortable[n]) for n in widths if columns[n].min_width)
        if excess <= slack:
            _shrink(widths, excess, comfortable)
            widths[name] = natural[name]
    _shrink(widths, _total(widths) - available, {n: c.min_width for n, c in columns.items()})
    # Still too wide (long file names): a folding column folds onto more lines rather than
    # push the table past the width.
    folding = {n: _FOLD_FLOOR for n, c in columns.items() if c.wrap and c.min_width > _FOLD_FLOOR}
    _shrink(widths, _total(widths) - available, folding)
    for name in expendable:
        if _total(widths) <= available:
            break
        widths.pop(name, None)
    order = {n: i for i, n in enumerate(columns)}
    return sorted(widths.items(), key=lambda item: order[item[0]])


def _total(widths: Mapping[str, int]) -> int:
    return sum(widths.values()) + GAP * (len(widths) - 1)


def _shrink(widths: dict[str, int], excess: int, floor: Mapping[str, int]) -> None:
    """Cut ``excess`` characters from the columns that have a floor, the one with the most
    room above its floor first (a kind column twice its floor gives before a kernel name just
    over its own), so that the cut is shared as the columns can bear it."""
    while excess > 0:
        cuttable = [n for n in widths if floor.get(n, 0) > 0 and widths[n] > floor[n]]
        if not cuttable:
            return
        room = {n: widths[n] - floor[n] for n in cuttable}
        most = max(cuttable, key=lambda n: room[n])
        second = max((room[n] for n in cuttable if n != most), default=0)
        cut = min(excess, max(1, room[most] - second))
        widths[most] -= cut
        excess -= cut


def fitted_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Mapping[str, Column],
    essential: Sequence[str],
    optional: Sequence[str],
    width: int,
    wide: bool,
    styles: Callable[[Mapping[str, Any], str], str | None] = lambda row, name: None,
    end_section: Callable[[int], bool] = lambda index: False,
    expendable: Sequence[str] = (),
) -> tuple[Any, int]:
    """A rich table of ``rows``, fitted to ``width`` characters unless ``wide``.

    ``essential`` columns are always shown and ``optional`` ones join while they fit (see
    :func:`fit_columns`); ``styles(row, column)`` gives a cell's style, ``end_section(i)``
    draws a rule under row ``i``; ``expendable`` essential columns are left out, in order, when
    the table cannot fit otherwise. Returns the table and the width it needs, which
    :func:`print_table` takes so that a ``wide`` table is not squeezed back to the console.
    """
    from rich.table import Table

    shown = [*essential, *optional]
    cells = {n: [printable(columns[n].cell(r)) for r in rows] for n in shown}
    if wide:
        natural = _natural_widths(cells, columns)
        chosen = [(n, natural[n]) for n in columns if n in natural]
    else:
        chosen = _fitted_widths(cells, columns, essential, optional, width, expendable)
    table = Table(show_edge=False, pad_edge=False, expand=False)
    for name, w in chosen:
        table.add_column(
            columns[name].header,
            width=w,
            justify="right" if columns[name].right else "left",
            no_wrap=not columns[name].wrap,
            overflow="fold" if columns[name].wrap else "crop",
        )
    for i, row in enumerate(rows):
        table.add_row(
            *_row_texts(row, i, cells, columns, chosen, styles), end_section=end_section(i)
        )
    return table, sum(w for _, w in chosen) + GAP * (len(chosen) - 1)


def _natural_widths(
    cells: Mapping[str, list[str]], columns: Mapping[str, Column]
) -> dict[str, int]:
    """Each column's width with nothing cut: its header's or its longest cell's."""
    return {n: max([len(columns[n].header), *map(len, cells[n])]) for n in cells}


def _fitted_widths(
    cells: Mapping[str, list[str]],
    columns: Mapping[str, Column],
    essential: Sequence[str],
    optional: Sequence[str],
    width: int,
    expendable: Sequence[str],
) -> list[tuple[str, int]]:
    """The columns shown and their widths within ``width`` (see :func:`fit_columns`): a
    column with a minimum width starts from at most ``_NATURAL_MAX``, one with a compact form
    may fall back to its compact cells' width."""
    natural = _natural_widths(cells, columns)
    capped = {n: min(w, _NATURAL_MAX) if columns[n].min_width else w for n, w in natural.items()}
    compact = {
        n: max([len(columns[n].header), *(len(c(cell)) for cell in cells[n])])
        for n in cells
        if (c := columns[n].compact) is not None
    }
    return fit_columns(essential, capped, columns, width, optional, compact, expendable)


def _row_texts(
    row: Mapping[str, Any],
    index: int,
    cells: Mapping[str, list[str]],
    columns: Mapping[str, Column],
    chosen: Sequence[tuple[str, int]],
    styles: Callable[[Mapping[str, Any], str], str | None],
) -> list[Any]:
    """Row ``index``'s cells as rich texts, each cut or folded to its column's width and
    styled by ``styles``."""
    from rich.text import Text

    texts = []
    for name, w in chosen:
        cell = cells[name][index]
        text = Text(fold(cell, w) if columns[name].wrap else columns[name].shorten(cell, w))
        style = styles(row, name)
        if style:
            text.stylize(style)
        texts.append(text)
    return texts


# A name too long for its line breaks after one of these (``broadcast_subtract_`` /
# ``fusion.1``), the way a reader splits an identifier.
_BREAK_AFTER = re.compile(r"[^_./(,:=\[]*[_./(,:=\[]?")


def fold(text: str, width: int) -> str:
    """``text`` folded into lines of at most ``width`` characters: at spaces, and a word too
    long for a whole line after ``_ . / ( , : = [`` (a piece still longer is cut at the width)."""
    if width <= 0 or len(text) <= width:
        return text
    tokens: list[str] = []  # a word whole, or the pieces of one too long for a line
    for n, word in enumerate(text.split(" ")):
        pieces = [word] if len(word) <= width else [p for p in _BREAK_AFTER.findall(word) if p]
        own: list[str] = []
        for piece in pieces:
            while len(piece) > width:
                own.append(piece[:width])
                piece = piece[width:]
            own.append(piece)
        if n:
            own = [" " + own[0], *own[1:]] if own else [" "]
        tokens += own
    lines: list[str] = []
    line = ""
    for token in tokens:
        if len(line) + len(token) <= width:
            line += token
        else:
            if line:
                lines.append(line)
            line = token.lstrip(" ")
    if line:
        lines.append(line)
    return "\n".join(lines)


def print_table(console: Any, table: Any, width: int) -> None:
    """Print ``table``, at least ``width`` columns wide (rich would squeeze it to the console)."""
    if width <= console.width:
        console.print(table)
        return
    narrow = console.width
    console.width = width
    try:
        console.print(table)
    finally:
        console.width = narrow
