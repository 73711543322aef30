"""The fusion report's rows for output: filtering, sorting and CSV.

:meth:`~hloscope.analysis.fusions.FusionReport.rows` gives one flat dict per kernel (the keys
are :data:`~hloscope.analysis.fusions.COLUMNS`). What a user asks of them on the command line
happens here, after the analysis and before a table is drawn:

* :func:`filter_rows` keeps the rows matching ``COLUMN OP VALUE`` expressions
  (:func:`parse_filter`): ``kind=kLoop``, ``opcode=dot`` (a dot fused or not), ``flops>1e6``
  (numbers take ``k``/``M``/``G``/``T`` and ``KiB``/``MiB``/``GiB``), ``source~model.py``;
* :func:`sort_rows` orders them by a column (numbers largest first, text A-Z, ``-COL``
  flips);
* :func:`rows_to_csv` writes them as CSV (list cells joined with ``;``).

The summary's notes and its JSON form are analysis findings
(:mod:`hloscope.analysis.fusion_notes`): the tables print the notes they are given.

A bad expression or column raises :class:`ReportOptionError`, a user error the command line
shows as one line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..analysis.fusions import COLUMNS
from .errors import ReportOptionError

__all__ = [
    "RowFilter",
    "ReportOptionError",
    "parse_filter",
    "filter_rows",
    "sort_rows",
    "sort_column",
    "rows_to_csv",
]

_FILTER_RE = re.compile(r"^\s*([A-Za-z_]+)\s*(!=|>=|<=|=|>|<|~)\s*(.*?)\s*$")
_NUMBER_RE = re.compile(r"(-?[0-9.]+(?:e-?\d+)?)\s*([A-Za-z]*)")
# Short names people type for columns.
_ALIASES = {"op": "ops", "opcode": "opcode", "target": "backend_kind", "kernel": "name"}
# Columns whose cells are lists: "=" tests membership.
_LIST_COLUMNS = frozenset({"ops", "sources", "stack"})
# Unit suffixes a number in a filter may carry (decimal counts, binary bytes).
_SUFFIXES = {"k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "kib": 2**10, "mib": 2**20, "gib": 2**30}


# ------------------------------------------------------------------------------------------
# Filters
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowFilter:
    """``COLUMN OP VALUE`` with OP one of ``= != > < >= <= ~`` (``~``: contains, case-blind)."""

    column: str
    op: str
    value: str

    def __call__(self, row: Mapping[str, Any]) -> bool:
        column, op, value = self.column, self.op, self.value
        if column == "opcode" and op in ("=", "!="):
            # "opcode=dot" matches a kernel that is a dot or has a dot fused into it.
            wanted = value.casefold()
            hit = row["opcode"].casefold() == wanted or any(
                op_.casefold() == wanted for op_ in row["ops"]
            )
            return hit if op == "=" else not hit
        if column in _LIST_COLUMNS:
            return self._list_cell(row[column])  # every row has its list columns
        cell = row.get(column)
        if op == "~":
            return value.lower() in str(cell).lower()
        if op in ("=", "!="):
            hit = _equal(cell, value)
            return hit if op == "=" else not hit
        number = _number(value, self)
        if cell is None:  # no value (a kernel that moves no bytes has no intensity)
            return False
        if op == ">":
            return cell > number
        if op == "<":
            return cell < number
        if op == ">=":
            return cell >= number
        return cell <= number

    def _list_cell(self, cell: Sequence[Any]) -> bool:
        if self.op == "~":
            needle = self.value.lower()
            return any(needle in str(v).lower() for v in cell)
        if self.op not in ("=", "!="):
            raise ReportOptionError(
                f"filter {self}: column {self.column!r} holds lists; use = != or ~"
            )
        wanted = self.value.casefold()
        hit = any(str(v).casefold() == wanted for v in cell)
        return hit if self.op == "=" else not hit

    def __str__(self) -> str:
        return f"{self.column}{self.op}{self.value}"


def _equal(cell: Any, value: str) -> bool:
    """``cell == value`` with ``value`` read as a number when the cell holds one, and text
    compared without case (``kind=kloop`` finds the kLoop fusions, as the HTML filter does)."""
    if isinstance(cell, (int, float)) and not isinstance(cell, bool):
        try:
            return float(value) == cell
        except ValueError:
            return False
    return str(cell).casefold() == value.casefold()


def _number(value: str, f: RowFilter) -> float:
    """``1e6``, ``2.5M``, ``64KiB``... as a float; anything else is the user's mistake."""
    m = _NUMBER_RE.fullmatch(value)
    if m is not None:
        scale = _SUFFIXES.get(m.group(2).lower()) if m.group(2) else 1
        if scale is not None:
            try:
                return float(m.group(1)) * scale
            except ValueError:  # "1.2.3" matches the pattern but is no number
                pass
    raise ReportOptionError(f"filter {f}: {value!r} is not a number")


def parse_filter(expr: str) -> RowFilter:
    """Read ``kind=kLoop``, ``opcode=dot``, ``flops>1e6``, ``source~model.py``..."""
    m = _FILTER_RE.match(expr)
    if m is None:
        raise ReportOptionError(f"bad filter {expr!r}: expected COLUMN=VALUE (or != > < >= <= ~)")
    column, op, value = m.groups()
    column = column.lower()
    column = _ALIASES.get(column, column)
    if column not in COLUMNS:
        raise ReportOptionError(
            f"bad filter {expr!r}: unknown column {column!r} (columns: {', '.join(COLUMNS)})"
        )
    return RowFilter(column, op, value)


def filter_rows(rows: list[dict[str, Any]], exprs: Iterable[str]) -> list[dict[str, Any]]:
    """Rows matching every filter expression (see :func:`parse_filter`)."""
    filters = [parse_filter(e) for e in exprs]
    return [r for r in rows if all(f(r) for f in filters)]


# ------------------------------------------------------------------------------------------
# Sorting and CSV
# ------------------------------------------------------------------------------------------


def sort_column(spec: str) -> str:
    """The row key that a ``--sort`` value names (``-flops`` -> ``flops``, ``kernel`` ->
    ``name``)."""
    name = spec.lstrip("-+")
    return _ALIASES.get(name, name)


def sort_rows(
    rows: list[dict[str, Any]], column: str, *, descending: bool | None = None
) -> list[dict[str, Any]]:
    """Rows sorted by ``column`` (numbers largest first, text A-Z; ``-col`` flips it).

    The sort is stable, so ties keep report order; rows without a value (``None``) go last.
    """
    flip = column.startswith("-")
    column = sort_column(column)
    if not rows:
        return rows
    if column not in rows[0]:
        raise ReportOptionError(f"cannot sort by {column!r}: columns are {', '.join(rows[0])}")
    numeric = any(_is_number(r[column]) for r in rows)
    if descending is None:
        descending = numeric
    if flip:
        descending = not descending
    if numeric:
        missing = [r for r in rows if r[column] is None]
        present = [r for r in rows if r[column] is not None]
        present.sort(key=lambda r: r[column], reverse=descending)
        return present + missing
    return sorted(rows, key=lambda r: str(r[column]), reverse=descending)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def rows_to_csv(rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """CSV text of ``rows``; list cells are joined with ``;``, dict cells as ``k=v;k=v``."""
    if columns is None:
        columns = list(rows[0]) if rows else list(COLUMNS)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(c)) for c in columns])
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return value
