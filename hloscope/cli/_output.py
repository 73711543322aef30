"""What a command prints: its text for a person, or the same data as JSON or CSV for a machine.

Every command that offers ``--json`` (and ``--csv``) chooses its output with
:func:`output_format` and writes it with :func:`show`, so the machine forms are written one
way everywhere: JSON indented by two with a final newline, CSV by
:func:`hloscope.render.rows.rows_to_csv`, and ``--json`` with ``--csv`` refused in the same
words. A command hands over how to make each form; only the chosen one is made.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

import click

from ._app import CliError

__all__ = [
    "Format",
    "output_format",
    "json_text",
    "write_json",
    "write_csv",
    "per_module",
    "show",
    "wide_tables_option",
    "json_option",
]

#: Rows and their columns (``None``: the first row's keys), as a CSV is made of.
CsvRows = tuple[Sequence[dict[str, Any]], Sequence[str] | None]


class Format(StrEnum):
    """What a command prints."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"


def wide_tables_option(wrapping: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--wide``: a command's tables at full width instead of fitted to the terminal, where
    its ``wrapping`` (``cells``, ``names``) wrap."""
    return click.option(
        "--wide",
        is_flag=True,
        help=f"Print the tables at full width (by default they fit the terminal; {wrapping} wrap).",
    )


def json_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--json``, handed to the command as ``as_json``; ``help`` says what it prints."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def output_format(as_json: bool, as_csv: bool = False) -> Format:
    """The output ``--json``/``--csv`` ask for (text when neither); both at once is a usage
    error."""
    if as_json and as_csv:
        raise CliError("--json and --csv exclude each other")
    return Format.JSON if as_json else Format.CSV if as_csv else Format.TEXT


def json_text(data: Any, default: Callable[[Any], Any] | None = None) -> str:
    """``data`` as the JSON every command prints: indented by two, one final newline."""
    return json.dumps(data, indent=2, default=default) + "\n"


def write_json(data: Any, default: Callable[[Any], Any] | None = None) -> None:
    """Print ``data`` as JSON (:func:`json_text`)."""
    sys.stdout.write(json_text(data, default))


def write_csv(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
    """Print ``rows`` as CSV, with ``columns`` in that order (the first row's keys when
    ``None``)."""
    from ..render.rows import rows_to_csv

    sys.stdout.write(rows_to_csv(list(rows), list(columns) if columns is not None else None))


def per_module(payloads: list[Any], all_modules: bool, **beside: Any) -> Any:
    """The JSON of a command that reads one module or, with ``--all-modules``, several: the one
    module's object, or ``{"modules": [...], **beside}``."""
    return {"modules": payloads, **beside} if all_modules else payloads[0]


def show(
    chosen: Format,
    *,
    text: Callable[[], None],
    json: Callable[[], Any] | None = None,
    csv: Callable[[], CsvRows] | None = None,
) -> None:
    """Print the ``chosen`` form: ``json()`` as JSON, the ``csv()`` rows as CSV, or the text
    ``text()`` prints itself. A form the command does not offer is never chosen (its option
    does not exist), so a missing maker is a bug."""
    if chosen is Format.JSON:
        assert json is not None, "a command without --json was asked for JSON"
        write_json(json())
    elif chosen is Format.CSV:
        assert csv is not None, "a command without --csv was asked for CSV"
        write_csv(*csv())
    else:
        text()
