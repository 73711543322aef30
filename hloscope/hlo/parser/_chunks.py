"""Where a module's bodies are and how a chunk of them is checked: the header and ``}`` lines
as XLA's printer writes them, and the columns of whole bodies' lines with the bulk path's tests
over them (:class:`_Chunks`). The whole-module path (:mod:`._whole`) reads a module with them in
this process; the early children (:mod:`._early`) read a big file's stretches with them before
this process has read it, so both sit here, below the two.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from itertools import chain, compress, repeat
from typing import Any

from ._bulk import _BULK_LINE, _INDEX_COMMENTS, _KNOWN_OPCODES, _plain_attributes, body_counts
from ._names import NameFingerprint, calls_unknown, name_fingerprint
from ._statements import NAME_RUN, PAYLOAD_OPCODES

# A computation header as the printer writes it: at the line start, the signature in
# parentheses, '{' ending the line; groups: ENTRY, name, signature. What ModuleParser reads of
# a header (_COMP_HEADER) is the same on such a line. The first is searched for; each next one
# must follow the '}' of the body before, after blank lines only.
_HEADER = r"\n(ENTRY[ \t]+)?%?(" + NAME_RUN + r")[ \t]*+(\([^\n]*[^ \t\n])?[ \t]*\{(?=\n)"
_FIRST_HEADER = re.compile(_HEADER)
_NEXT_HEADER = re.compile(r"(?:\n[ \t]*+(?=\n))*+" + _HEADER)
_CLOSER = re.compile(r"\n\}\n")
_PLAIN_LIST = r"%?" + NAME_RUN + r"(?:, ?%?" + NAME_RUN + r")*+"
_PLAIN_LISTS = re.compile(r"(?:" + _PLAIN_LIST + r")?+(?:[\n\0](?:" + _PLAIN_LIST + r")?+)*+")


class _Chunks:
    """Reading and checking chunks of whole bodies ``first:last`` of a module's text: the
    columns of their lines, and the bulk path's checks of them."""

    __slots__ = ("scan", "ends", "closes", "rows", "known")

    def __init__(
        self, scan: str, ends: list[int], closes: list[int], rows: list[int], known: dict | None
    ) -> None:
        self.scan = scan
        self.ends = ends
        self.closes = closes
        self.rows = rows
        self.known = known  # None: the callees are sent (see ._early), not checked

    def columns(self, first: int, last: int) -> list[Sequence[str]] | None:
        """The columns of the bodies' lines, or None if some line is not one instruction."""
        rows = self.rows
        found = _BULK_LINE.findall(self.scan, self.ends[first], self.closes[last - 1] + 1)
        if len(found) != rows[last] - rows[first]:
            return None
        return list(zip(*found))

    def passes(self, columns: list[Sequence[str]], first: int, last: int) -> bool:
        """Whether the bodies pass the bulk path's checks (known callees among them)."""
        rows = self.rows
        if not _columns_pass(columns, [r - rows[first] for r in rows[first : last + 1]]):
            return False
        # An unknown callee: the module parser says which computation is missing, and where.
        return self.known is None or not calls_unknown(columns[3], columns[5], self.known)

    def check_and_count(self, bounds: tuple[int, int]) -> tuple[list[Any], NameFingerprint] | None:
        """What a forked child runs for the bodies ``first:last``: their columns and checks as
        above, then what :class:`._bulk.TextBody` keeps of each (:func:`._bulk.body_counts`)
        and the fingerprint of their instruction names (for :func:`uniquify_names`' test over
        the whole module, :class:`._names.NameSet`); None if they fail."""
        first, last = bounds
        columns = self.columns(first, last)
        if columns is None or not self.passes(columns, first, last):
            return None
        rows = [r - self.rows[first] for r in self.rows[first : last + 1]]
        return body_counts(columns, rows), name_fingerprint(columns[1])


def _columns_pass(table: list[Sequence[str]], rows: list[int]) -> bool:
    """The bulk path's tests of each body (:meth:`BulkBody.checked`) over the columns (ROOT,
    name, shape, opcode, operands, attributes) of a chunk of whole bodies, ``rows`` their
    bounds: each test over all of them at once, in C, where it can be."""
    roots, names, _, opcodes, operands, attrs = table
    if not _KNOWN_OPCODES.issuperset(opcodes):
        return False
    root_rows = list(compress(range(len(names)), roots))
    if len(set(map(bisect_right, repeat(rows), root_rows))) != len(root_rows):
        return False  # two ROOTs in one body
    if not _plain_attributes(attrs):
        return False
    body_rows = list(map(slice, rows[:-1], rows[1:]))
    return _operands_defined(names, opcodes, operands, body_rows)


_CHUNK_ROWS = 8192


def _chunks(rows: list[int], most: int = _CHUNK_ROWS) -> Iterator[tuple[int, int]]:
    """Ranges of bodies (first, last + 1) of about ``most`` rows, a big body alone; the
    first ones smaller (the first body alone, then 64 rows, 128...): a module the path
    declines, most often for its first body, costs little. Each chunk ends at the first body
    that reaches its size (found by bisection in the rising row bounds)."""
    first = 0
    size = 0
    end = len(rows) - 1
    while first < end:
        last = min(bisect_left(rows, rows[first] + size, first + 1), end)
        yield first, last
        first = last
        size = min(max(2 * size, 64), most)


def _operands_defined(
    names: Sequence[str], opcodes: Sequence[str], operands: Sequence[str], body_rows: list[slice]
) -> bool:
    """Whether every operand list of these bodies is plain (names, or empty) and names only
    ops of its own body, whose names are each defined once."""
    texts = list(map(_PAYLOADS_BLANK.get, opcodes, operands))  # "" for payloads
    # Each body's operand texts, one a line, the bodies split by NUL (no text holds either):
    # every text is a plain list of names, or empty, exactly when the whole matches.
    joined = "\0".join(map("\n".join, map(texts.__getitem__, body_rows)))
    if "/*" in joined:
        joined = _INDEX_COMMENTS.sub("", joined)
    if _PLAIN_LISTS.fullmatch(joined) is None:
        return False  # operands with shapes, nested ops: the careful path
    operand_lists = joined.replace("%", "").replace(" ", "").replace("\n", ",").split("\0")
    # Each body's names and "" (what an op without operands leaves between the commas), the
    # sets made and tested by map, without a loop in Python over the bodies.
    defined = list(map(set, map(chain, map(names.__getitem__, body_rows), repeat(("",)))))
    if list(map(len, defined)) != [row.stop - row.start + 1 for row in body_rows]:
        return False  # a name defined twice: the careful path says where
    # Every operand a name of its body (an undefined one: the careful path says where).
    return all(map(set.issuperset, defined, map(str.split, operand_lists, repeat(","))))


# An op's operand text, or "" for a payload (a parameter number, a literal): one dict lookup
# per op with the text as the default.
_PAYLOADS_BLANK = dict.fromkeys(PAYLOAD_OPCODES, "")
