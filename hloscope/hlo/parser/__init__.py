"""The HLO text parser.

Reads what ``HloModule::ToString()`` prints (every print style XLA has used: long format with
``%`` names and operand shapes, ShortParsable dumps, headerless computation snippets, several
modules per text) into :mod:`hloscope.hlo.model` objects, and what XLA's own parser accepts
besides (statements spread over lines, comments between tokens, syntax sugar).

How it stays fast: stock printers put each instruction on one line, plainly, and nearly every
body is read by the bulk path with one regular expression pass in C; shapes, attributes,
metadata and literals are kept as text and decoded only when asked for. Other bodies are read
line by line, and lines the line pattern cannot read by a bracket-aware path. Errors are
always :class:`~hloscope.hlo.errors.HloParseError` with ``path:line:column``.

The parts, by job:

- ``_driver``: :func:`parse` and :func:`parse_modules`, and the second chances for text XLA's
  lexer reads but the line-based paths do not (statements re-flowed, a single instruction).
- ``_source``: reading the source (paths, bytes, decoding), one chunk per module, the
  characters XLA refuses, comments made blanks, the text flattened and re-flowed.
- ``_bulk``: the bulk path, THE hot path, kept together.
- ``_careful``: the module parser and its careful, line-by-line path.
- ``_sugar``: syntax sugar expanded as XLA expands it (async ``X-start``/``X-done``, inline
  bodies).
- ``_names``: XLA's name uniquing, and the check that called computations exist.
- ``_statements``: the statement patterns all of them share.
"""

from __future__ import annotations

from ._bulk import send_structure
from ._driver import parse, parse_modules
from ._source import Source

__all__ = ["parse", "parse_modules", "Source", "send_structure"]
