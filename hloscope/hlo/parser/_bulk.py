"""The bulk path: THE hot path of the parser, kept together in this one module.

What XLA's printer writes -- every instruction on one line, plainly -- is nearly all the text
the parser ever sees, and it is read here, one body at a time, without a loop in Python over
its lines: one regular expression (``_BULK_LINE``) finds every instruction line of a body in a
single pass in C, the tests that the body is what the printer writes run over whole columns of
the matches (:meth:`BulkBody.checked`), and the :class:`~hloscope.hlo.model.Instruction`
objects are made only when a body is first used (:meth:`BulkBody.build`). Any body the bulk
path cannot vouch for goes back, unchanged, to the careful path (:mod:`._careful`), which alone
gives the ``file:line:column`` of an error: so nothing here raises a parse error.

Keep it together: a change to speed it up or to what it accepts is a change to this module,
measured with ``benchmarks/bench_parse.py`` (benchmarks/RESULTS.md has the numbers). The checks
made once per module over the bulk bodies' columns (called computations, name uniquing) are
written in the same column-wise way in :mod:`._names`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, compress
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import HloscopeError
from .. import _lex
from ..model import Computation, Instruction, quick_location, quick_location_counts
from ..opcodes import OPCODES
from ._statements import NAME_RUN, PAYLOAD_OPCODES, RHS_START

if TYPE_CHECKING:  # pragma: no cover
    from ..structure import TextDigest
    from ._state import ParserState

T = TypeVar("T")

# One whole printed line: it starts at the '\n' before the line (so a match can only begin at a
# line start) and ends at the line's end; groups: ROOT, name, shape (an array or a tuple),
# opcode, operands (plain names, else any other text: a constant's literal), attributes. No
# class matches '\n'. Every run is possessive (``*+``): what follows it can never start with a
# character it takes, so giving some back could not make a match, and not keeping the positions
# to try makes the pass a third faster.
_BULK_LINE = re.compile(
    r"\n[ \t]*+(ROOT[ \t]+)?%?(" + NAME_RUN + r")[ \t]+=[ \t]*+"
    r"([a-z][a-z0-9_]*+\[[^\]\n]*+\](?:\{[^{}\n]*+\})?|\((?:[^()\n]++|\([^()\n]*+\))*+\))"
    r"[ \t]+(" + NAME_RUN + r")\(([^()\"\n]*+)\)(?:,[ \t]*+([^\n]*+))?(?=\n)"
)
_KNOWN_OPCODES = frozenset(OPCODES)
_IS_NOT_PAYLOAD = frozenset(OPCODES).difference(PAYLOAD_OPCODES).__contains__
_PLAIN_OPERANDS = re.compile(r"%?" + NAME_RUN + r"(?:, ?%?" + NAME_RUN + r")*+")  # possessive: 6x
_INDEX_COMMENTS = re.compile(r"/\*index=\d+\*/")


class CheckEachBody(HloscopeError):
    """Bodies read with their attribute checks put off did not pass them together. Caught by
    the driver (:mod:`._driver`), which reads the module again; under the one root all the
    same, so that it could never reach a user as a traceback."""


def _line_offset(parser: ParserState, i: int) -> int:
    """Offset of line ``i`` in the source text, or -1 if the lines no longer match it."""
    j, offset = parser.cursor
    if i < j:
        j, offset = 0, 0
    lines = parser.lines
    offset += sum(map(len, lines[j:i])) + (i - j)
    parser.cursor = (i, offset)
    return offset if parser.source.text.startswith(lines[i], offset) else -1


def read_bulk_body(parser: ParserState, comp: Computation, i: int) -> int | None:
    """Read a body whose every line is one plainly printed instruction (what XLA's printer
    writes) with one regex pass, in C; return the index after its '}' line, or None (having
    changed nothing) when any line needs the careful line-by-line path
    (:meth:`._careful.ModuleParser.parse_body`).

    The regex finds every line of that form; the body qualifies when it found as many as the
    body has lines, each starting at a line start (see ``_BULK_LINE``). What the regex cannot
    see -- balanced braces in the attributes, a second statement squeezed after them, unknown
    opcodes (async sugar), repeated names, undefined operands -- sends the body back too.
    """
    if i >= parser.end or parser.nested or parser.split_rest is not None:
        return None
    offset = _line_offset(parser, i)
    if offset <= 0:
        return None
    text = parser.source.text
    close = text.find("\n}", offset - 1)
    if close < 0:
        return None
    n_lines = text.count("\n", offset - 1, close)
    closer = i + n_lines
    if closer >= parser.end:
        return None
    found = _BULK_LINE.findall(text, offset - 1, close + 1)
    if len(found) != n_lines or n_lines == 0:
        return None
    body = BulkBody.checked(found, i + 1, parser.deferred_attributes)
    if body is None:
        return None
    parser.parse_closer(comp, closer, parser.lines[closer].strip())
    parser.cursor = (closer, close + 1)  # the '}' line: the next body's offset is near
    comp._body = body
    comp._instructions = []  # made by body.build on first use
    return closer + 1


# The careful path's test for a second statement in an attribute tail (_statement_in_tail),
# made for a whole module's attribute texts at once: '[ROOT] name =' and a shape or an opcode,
# right after ')', ']', '}' or a string, or after blanks that follow anything but ',' or '='
# (after those it is an attribute, 'replica_groups=mesh[...]', or a value). Brackets are not
# tracked, so it flags all the careful path would split; a false alarm only sends a body there.
# First a pre-filter that starts with a literal ('=' then what may follow it), then strings
# blanked (no statement hides in one, and op names such as 'conv[padding=((0, 0))]', what older
# JAX printed, looked like one), then the test itself.
_LINE_STRING = re.compile(_lex.quoted('"', newline=False))  # a string that ends on its line
_EQUALS_RHS = re.compile(r"=[ \t]*+(?:\(|" + NAME_RUN + r"[ \t]*+[\[(])")
_SQUEEZED = re.compile(
    r"(?:(?<=[)\]}\"])|(?<=[^,=\s])[ \t]++)(?:ROOT[ \t]+)?%?"
    + NAME_RUN
    + r"[ \t]*+=(?=[ \t]*"
    + RHS_START
    + ")"
)


def _plain_attributes(attrs: Sequence[str]) -> bool:
    """Whether these attribute texts (one per line) are each one instruction's attributes: no
    statement squeezed after them, and no bracket left open (or closed) for another line."""
    joined = "\n".join(attrs)
    if "ROOT" in joined or _equals_rhs(joined):
        unquoted = _LINE_STRING.sub('""', joined)
        if "ROOT" in unquoted or _SQUEEZED.search(unquoted) is not None:
            return False
    if "*" in joined and "/*" in joined and _has_comment(joined):  # '*' at memchr speed
        return False
    # As many of each bracket closing as opening on every line: what the careful path tests
    # before it would join a line to the next (_maybe_unbalanced). Each line's brackets paired
    # off, or else counted on the distinct bracket patterns of the lines (a module has a
    # handful). Pairs taken out cost ~10 ns a bracket, a line split off ~55 ns: pairing where
    # lines hold few brackets (a Keras module's '{}'), splitting where they hold many.
    brackets = joined.encode("utf-8", "surrogatepass").translate(None, _NOT_A_BRACKET)
    if len(brackets) < 4 * len(attrs) and _nested(brackets):
        return True  # each line's brackets pair off: as many closing as opening
    return all(map(_balanced_counts, set(brackets.split(b"\n"))))


def _equals_rhs(joined: str) -> bool:
    """Whether ``_EQUALS_RHS`` matches somewhere in ``joined``. A match ends at a '(' or '['
    and starts at the last '=' before it (only blanks and name characters lie between), so
    where those brackets are rare (a Keras module's attributes: 300 in 1.5 MB, and 40k '=')
    each is tested from that '=', both found at memchr speed, where the regex tried a match at
    every '='. Where they are dense (JAX's 'jit(f)/...' op names), the regex takes the rest."""
    find = joined.find
    rfind = joined.rfind
    fits = _EQUALS_RHS.fullmatch
    end = len(joined)
    paren = find("(")
    square = find("[")
    paren = end if paren < 0 else paren
    square = end if square < 0 else square
    after = 0  # no match holds a bracket: one ending at the next starts after the last
    tested = 0
    while True:
        if paren < square:
            bracket = paren
            paren = find("(", bracket + 1)
            paren = end if paren < 0 else paren
        elif square < end:
            bracket = square
            square = find("[", bracket + 1)
            square = end if square < 0 else square
        else:
            return False
        equals = rfind("=", after, bracket)
        if equals >= 0 and fits(joined, equals, bracket + 1) is not None:
            return True
        after = bracket + 1
        tested += 1
        if tested > (bracket >> 9) + 16:  # more than one per 512 characters: the regex
            return _EQUALS_RHS.search(joined, after) is not None


def _nested(brackets: bytes) -> bool:
    """Whether each line of ``brackets`` (only bracket characters and line breaks) is pairs
    properly nested, found by taking out adjacent pairs until none is left (a pair never
    spans a line break): the common case (``{}``, ``{[]}``) in a few passes in C, with no
    object made per line."""
    while True:
        fewer = brackets.replace(b"{}", b"").replace(b"[]", b"").replace(b"()", b"")
        if len(fewer) == len(brackets):
            return not brackets.strip(b"\n")
        brackets = fewer


# Read left to right as XLA's lexer does: a string that ends on its line, a printer's
# '/*index=N*/' counter (tuple shardings have them), or (group 1) any other comment's '/*'.
_COMMENT_START = re.compile(_lex.quoted('"', newline=False) + r"|/\*index=\d+\*/|(/\*)")


def _has_comment(joined: str) -> bool:
    """Whether ``joined`` holds a ``/*`` comment (outside strings) other than the printer's
    counters: the careful path makes it a blank (one left open swallows the lines after it up
    to the next ``*/``, wherever that is), where a line read alone would keep it as text."""
    return any(m.group(1) for m in _COMMENT_START.finditer(joined))


_NOT_A_BRACKET = bytes(c for c in range(256) if c not in b"()[]{}\n")


def _balanced_counts(pattern: bytes) -> bool:
    return (
        pattern.count(b"(") == pattern.count(b")")
        and pattern.count(b"[") == pattern.count(b"]")
        and pattern.count(b"{") == pattern.count(b"}")
    )


def all_plain(deferred: list[tuple[str, ...]] | None) -> bool:
    """Whether every body's attribute texts put off pass :func:`_plain_attributes`: all of them
    at once, and only if that fails (its tests then found things in two different bodies, say)
    body by body, which is the answer each body alone would have had."""
    if not deferred or _plain_attributes(list(chain.from_iterable(deferred))):
        return True
    return all(map(_plain_attributes, deferred))


def plain_operand_texts(texts: Sequence[str]) -> str | None:
    """The operand texts (of ops that take operands) joined by ``,``, with the printer's
    ``/*index=N*/`` counters dropped, if each is a plain list of names (``a, %b``, or empty);
    None if any holds anything else (operands with shapes, nested ops), which takes the careful
    path. Joined with ', ', non-empty lists are plain together exactly when each one is (a name
    holds no ',' nor blank), so one match in C tests them all."""
    joined = ", ".join(filter(None, texts))
    if "/*" in joined:
        joined = _INDEX_COMMENTS.sub("", joined)
    if joined and _PLAIN_OPERANDS.fullmatch(joined) is None:
        return None
    return joined.replace("%", "").replace(" ", "")


def all_plain_operands(texts: Sequence[str]) -> bool:
    """Whether :func:`plain_operand_texts` would take these texts."""
    joined = ", ".join(filter(None, texts))
    if "/*" in joined:
        joined = _INDEX_COMMENTS.sub("", joined)
    return not joined or _PLAIN_OPERANDS.fullmatch(joined) is not None


class BulkBody:
    """A plainly printed body, checked as a whole and built into Instructions on first use.

    It keeps the ``_BULK_LINE`` matches as columns, one tuple per group (ROOT, name, shape,
    opcode, operand text, attributes), so that opcodes, names and attribute texts are there
    without building anything. The columns may be a whole module's (the whole-module path,
    :mod:`._whole`): the body is then rows ``start:stop`` of them, and nothing is copied until
    asked for. :meth:`checked` refuses, with None, any body the careful path must read (it
    alone gives the file:line:column of an error), so building never fails.
    """

    __slots__ = ("table", "start", "stop", "first_line", "operand_texts")

    def __init__(
        self,
        table: Sequence[Sequence[str] | None],
        start: int,
        stop: int,
        first_line: int,
        operand_texts: Sequence[str] | None = None,
    ) -> None:
        self.table = table
        self.start = start
        self.stop = stop
        self.first_line = first_line
        # The body's own operand texts where the table has none: the instructions do not keep
        # them, so a body built lets go of them, as a body with columns of its own does.
        self.operand_texts = operand_texts

    @classmethod
    def checked(
        cls,
        found: list[tuple[str, ...]],
        first_line: int,
        deferred: list[tuple[str, ...]] | None = None,
    ) -> BulkBody | None:
        """The body, if every line is one instruction XLA's printer could have written: known
        opcodes, unique names, defined operands, at most one ROOT, and attributes with balanced
        brackets and no second statement squeezed after them (:func:`_plain_attributes`, put
        off to the end of the module when ``deferred`` collects them). Each test runs over a
        whole column in C: a loop in Python over the lines cost more than the regex that found
        them."""
        columns = list(zip(*found))
        roots, names, _, opcodes, operands, attrs = columns
        n = len(names)
        if not _KNOWN_OPCODES.issuperset(opcodes):
            return None  # async sugar and unknown opcodes take the careful path
        defined = set(names)
        if len(defined) != n:
            return None  # a name defined twice: the careful path says where
        if n - roots.count("") > 1:
            return None
        if deferred is not None:
            deferred.append(attrs)  # checked with every other body's at the end
        elif not _plain_attributes(attrs):
            return None
        if "parameter" in opcodes or "constant" in opcodes:
            operands = tuple(compress(operands, map(_IS_NOT_PAYLOAD, opcodes)))
        plain = plain_operand_texts(operands)
        if plain is None:
            return None
        if not defined.issuperset(filter(None, plain.split(","))):
            return None  # an undefined operand: the careful path says where
        return cls(columns, 0, n, first_line)

    @property
    def columns(self) -> list[Sequence[str]]:
        """This body's rows of each column (ROOT, name, shape, opcode, operands, attributes)."""
        return list(map(self.column, range(6)))

    def __len__(self) -> int:
        return self.stop - self.start

    def column(self, k: int) -> Sequence[str]:
        """This body's rows of column ``k`` (see :attr:`columns`)."""
        column = self.table[k]
        if column is None:
            assert self.operand_texts is not None
            return self.operand_texts
        if self.start == 0 and self.stop == len(column):
            return column
        return column[self.start : self.stop]

    def opcodes(self) -> list[str]:
        return list(self.column(3))

    def opcode_counts(self) -> Counter[str]:
        """How many instructions have each opcode, in the order each first appears."""
        return Counter(self.column(3))

    def opcode_set(self) -> AbstractSet[str]:
        """The distinct opcodes."""
        return set(self.column(3))

    def location_counts(self) -> Counter[tuple[int, str, int]] | None:
        """:func:`~hloscope.hlo.model.quick_location_counts` of the attribute texts."""
        return quick_location_counts(self.column(5))

    def attribute_texts(self) -> Sequence[str]:
        return self.column(5)

    def quick_locations(self) -> list[tuple[int, str, int] | None]:
        """:func:`~hloscope.hlo.model.quick_location` of each attribute text, in order."""
        return list(map(quick_location, self.attribute_texts()))

    def holds(self, char: str) -> bool:
        """Whether ``char`` may be in some instruction's text (True where unsure)."""
        return True

    def read_ahead(self, reader: Callable[[list[Sequence[str]]], Any]) -> tuple[Any] | None:
        """What ``reader`` made of this body's columns in a forked child: none read here."""
        return None

    def names(self) -> Sequence[str]:
        return self.column(1)

    def build(self, comp: Computation) -> None:
        """Make the Instruction objects (with :meth:`Instruction.from_parts`, the fast
        constructor), resolve operands, and install them, the name table and the root in
        ``comp``."""
        new = Instruction.from_parts
        payload_opcodes = PAYLOAD_OPCODES
        instructions: list[Instruction] = []
        by_name: dict[str, Instruction] = {}
        pending: list[tuple[Instruction, list[str]]] = []
        root: Instruction | None = None
        number = self.first_line
        columns = self.columns
        # The operand names of every op, '%', blanks and the printer's counters dropped in one
        # pass over the body's operand texts (no text holds a line break), not three per op.
        joined = "\n".join(columns[4])
        if "/" in joined:
            joined = _INDEX_COMMENTS.sub("", joined)
        plain = joined.replace("%", "").replace(" ", "").split("\n")
        for is_root, name, shape_text, opcode, inner, attr_text, listed in zip(*columns, plain):
            payload = None
            operands: list[Instruction] = []
            names: list[str] | None = None
            if opcode in payload_opcodes:
                payload = inner  # no operands
            elif listed:
                names = listed.split(",")
                try:
                    operands = list(map(by_name.__getitem__, names))
                    names = None
                except KeyError:  # used before its line (or by itself): resolved below
                    pass
            # The attributes' column (-1) is worked out only when an error message needs it.
            inst = new(
                name,
                opcode,
                shape_text,
                attr_text,
                -1 if attr_text else 0,
                payload,
                number,
                comp,
                operands,
            )
            number += 1
            by_name[name] = inst
            instructions.append(inst)
            if is_root:
                root = inst
            if names is not None:
                pending.append((inst, names))
        for inst, names in pending:
            inst.operands = list(map(by_name.__getitem__, names))
        comp._instructions = instructions
        comp._by_name = by_name
        comp._root = root if root is not None else instructions[-1]


class TextBody(BulkBody):
    """A plainly printed body whose checks ran in a forked child (:mod:`._forked`), read into
    columns from its text only when first asked for: its place in the text, its number of
    instructions, and what the child counted of it (opcodes, and locations where their quick
    count holds), which answer a summary without reading it. Its lines are the ones the child
    read, so the columns are the ones it checked."""

    __slots__ = (
        "text",
        "text_start",
        "text_stop",
        "_opcodes",
        "_locations",
        "digest",
        "_quick_locations",
        "_ahead",
    )

    def __init__(
        self,
        text: str,
        span: tuple[int, int],
        rows: int,
        first_line: int,
    ) -> None:
        super().__init__((), 0, rows, first_line)
        self.text = text
        self.text_start, self.text_stop = span  # from the '\n' before its first line
        self._opcodes: dict[str, int] | None = None
        self._locations: dict[tuple[int, str, int], int] | None = None
        # Its structure's key as the child read it (hlo.structure.text_digest), and each
        # instruction's quick location: a fusion report reads neither from the text.
        self.digest: TextDigest | None = None
        self._quick_locations: list[tuple[int, str, int] | None] | None = None
        # What each reader of send_structure made of its columns in the child: (answer,),
        # or None where it failed there.
        self._ahead: dict[Callable[..., Any], tuple[Any] | None] | None = None

    def counted(
        self,
        opcodes: dict[str, int],
        locations: dict[tuple[int, str, int], int] | None,
        digest: TextDigest | None = None,
        quick_locations: list[tuple[int, str, int] | None] | None = None,
        ahead: tuple[tuple[Any] | None, ...] | None = None,
    ) -> None:
        """What the child counted of it (:func:`body_counts`), once it said yes."""
        self._opcodes = opcodes
        self._locations = locations
        self.digest = digest
        self._quick_locations = quick_locations
        if ahead is not None:
            self._ahead = dict(zip(_SENDS_STRUCTURE["readers"], ahead))

    def read_ahead(self, reader: Callable[[list[Sequence[str]]], Any]) -> tuple[Any] | None:
        ahead = self._ahead
        return ahead.get(reader) if ahead is not None else None

    def quick_locations(self) -> list[tuple[int, str, int] | None]:
        known = self._quick_locations
        return list(known) if known is not None else super().quick_locations()

    def holds(self, char: str) -> bool:
        # str.find over the body's text: no column made.
        return self.text.find(char, self.text_start, self.text_stop) >= 0

    def column(self, k: int) -> Sequence[str]:
        if not self.table:
            found = _BULK_LINE.findall(self.text, self.text_start, self.text_stop)
            self.table = list(zip(*found))
        return super().column(k)

    def opcode_counts(self) -> Counter[str]:
        if self._opcodes is None:
            return super().opcode_counts()
        return _counter(self._opcodes)

    def opcode_set(self) -> AbstractSet[str]:
        if self._opcodes is None:
            return super().opcode_set()
        return self._opcodes.keys()

    def location_counts(self) -> Counter[tuple[int, str, int]] | None:
        if self._locations is None:
            return super().location_counts()
        return _counter(self._locations)


_NEW_COUNTER = Counter.__new__


def _counter(counts: dict[T, int]) -> Counter[T]:
    """A Counter holding ``counts``, made without Counter's own update (its loop and its test
    for a mapping: a fifth of the time of a copy, and a summary asks for 10,000 of them)."""
    out: Counter[T] = _NEW_COUNTER(Counter)
    dict.update(out, counts)
    return out


# Whether a forked parse's children also send each body's structure digest and quick
# locations: only where a fusion report follows (send_structure), for they cost the children
# about 0.5 s of CPU on a 400k-instruction module that a summary would pay for nothing; and
# the readers whose answers for each body they send with them.
_SENDS_STRUCTURE: dict[str, Any] = {"on": False, "readers": ()}


def send_structure(
    on: bool = True, readers: Sequence[Callable[[list[Sequence[str]]], Any]] = ()
) -> None:
    """Have the children of the parses after this call send what a fusion report reads of
    every body (:func:`body_counts`), so that the report reads one body per structure; with
    ``readers``, also what each makes of each body's columns (ROOT, name, shape, opcode,
    operand text, attributes; a picklable answer), which
    :meth:`~hloscope.hlo.model.Computation.read_ahead` gives back without reading the body
    here. The readers run in the children, which fork after this call: an analysis above the
    parser hands down its own functions (the cost of a fused body), which the parser never
    imports."""
    _SENDS_STRUCTURE["on"] = on
    _SENDS_STRUCTURE["readers"] = tuple(readers) if on else ()


def body_counts(columns: Sequence[Sequence[str]], rows: Sequence[int]) -> list[tuple[Any, ...]]:
    """What :class:`TextBody` keeps of each body ``rows[n]:rows[n + 1]`` of a chunk's columns:
    its opcode counts and its quick location counts (None where they do not hold); after
    :func:`send_structure`, its structure's digest and each op's quick location too (what a
    fusion report reads of each fused body: read by the children, in parallel, not by the
    parent on first use)."""
    # Here, not at the top: a serial parse never digests (structure imports hashlib, ~3 ms of
    # every command's start-up); a parse that forks loads it before the fork (see _whole).
    from ..structure import text_digest

    opcodes, texts = columns[3], columns[5]
    structure = _SENDS_STRUCTURE["on"]
    readers = _SENDS_STRUCTURE["readers"]
    out: list[tuple[Any, ...]] = []
    for start, stop in zip(rows, rows[1:]):
        body = texts[start:stop]
        locations = quick_location_counts(body)
        counts: tuple[Any, ...] = (
            dict(Counter(opcodes[start:stop])),
            dict(locations) if locations is not None else None,
        )
        if structure:
            counts += (text_digest(columns, start, stop), list(map(quick_location, body)))
            if readers:
                own = [column[start:stop] for column in columns]
                counts += (tuple(_read_ahead(reader, own) for reader in readers),)
        out.append(counts)
    return out


def _read_ahead(
    reader: Callable[[list[Sequence[str]]], Any], columns: list[Sequence[str]]
) -> tuple[Any] | None:
    """``(reader(columns),)``, or None where the reader fails on them: then the parent asks it
    again itself on first use, and fails there, where a failure would have come without
    the children, not in a child, where it would turn the whole module down."""
    try:
        return (reader(columns),)
    except Exception:  # any failure is the parent's to meet, as it is without children
        return None
