"""The whole-module path: a module exactly as XLA's printer writes it, read in a few passes over
the whole text, none of them a loop in Python over bodies or lines.

A dump is one ``HloModule`` line, maybe the stack frame tables, and computations: a header
line (``%name (signature) -> shape {``), one plainly printed instruction a line, and a ``}``
line, with blank lines between. The bulk path (:mod:`._bulk`) reads such a body with one
regular expression pass; a module of a thousand small bodies (a Keras step: 1,170 bodies of
ten instructions) spent most of its parse on the work around those passes, body by body. Here
one pass finds every header and ``}`` line, one ``_BULK_LINE`` pass finds every instruction
line of the module, and the bulk path's tests (known opcodes, one ROOT, operands defined in
their body, unique names, plain attributes, called computations) run over the module's
columns at once. The bodies are rows of those columns (:class:`._bulk.BulkBody`), built into
instructions on first use as before.

It reads a module or declines, with None and nothing changed: anything it does not vouch for
(a comment, a blank line inside a body, a closer with an execution thread, two modules, a name
defined twice, an error of any kind) goes to the module parser (:mod:`._careful`), which reads
it as before and alone reports errors at their ``file:line:column``. The module it makes is the
one the module parser makes of the same text (``tests/test_parser_whole.py`` compares them).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import HloParseError
from ..model import Computation, Module, SourceText
from ._bulk import (
    _BULK_LINE,
    BulkBody,
    TextBody,
)
from ._careful import _COMMENT, _COMP_HEADER, ModuleParser, _maybe_unbalanced
from ._chunks import (
    _CHUNK_ROWS,
    _CLOSER,
    _FIRST_HEADER,
    _NEXT_HEADER,
    _Chunks,
    _chunks,
)
from ._forked import ForkedChecks, fork_checks, planned_children
from ._names import (
    NameFingerprint,
    NameSet,
    name_computations,
    name_fingerprint,
    names_distinct,
    uniquify_names,
)
from ._source import blank_comments
from ._statements import NAME_RUN, STACK_SECTIONS

if TYPE_CHECKING:  # pragma: no cover
    from ._early import EarlyChildren

# The module header, as _MODULE_HEADER reads a line with no '\r' (its lazy '(.*?)' before the
# trailing blanks tried the end at every character of a long layout; here they are stripped).
_MODULE_LINE = re.compile(r"[ \t]*HloModule[ \t]+%?(" + NAME_RUN + r")?:?[ \t]*(?:,[ \t]*(.*))?$")


def read_whole_module(source: SourceText, early: EarlyChildren | None = None) -> Module | None:
    """The module of ``source`` read by the whole-module path, or None to read it the usual
    way (see the module docstring). ``early``: children that read the file's stretches while
    this process read it (:mod:`._early`); their answers are used where they fit."""
    try:
        return _read(source, early)
    except HloParseError:
        return None  # the module parser reads it again and says where


def _read(source: SourceText, early: EarlyChildren | None = None) -> Module | None:
    text = source.text
    if not text.startswith("HloModule"):
        return None
    scan = text if text.endswith("\n") else text + "\n"
    header_end = scan.find("\n")
    module = _module_header(scan[:header_end], source)
    if module is None:
        return None
    bodies = _bodies(scan, header_end, source, module)
    if bodies is None:
        return None
    headers, ends, closes = bodies
    names = [m[1] for m in headers]
    n_bodies = len(names)
    if len(set(names)) != n_bodies or "HloModule" in names:
        return None  # the module parser says what is wrong
    entries = [n for n, m in enumerate(headers) if m[0]]
    if len(entries) > 1:
        return None
    last_line = scan.rfind("\n", 0, closes[-1])
    probe = _BULK_LINE.match(scan, last_line)
    if probe is None or probe.end() != closes[-1]:
        return None  # the entry's last line (long operand lists, shapes) says early: not plain
    known = dict.fromkeys(names)
    if early is not None and len(text) == early.size:
        made = _read_early(module, source, scan, headers, (ends, closes), known, early)
        if made is not None:
            return made
        # Their answers do not fit (the module is untouched): checked as if never started.
    counts = list(map(scan.count, repeat("\n"), ends, closes))  # lines of each body
    if 0 in counts:
        return None
    rows = [0, *accumulate(counts)]
    # Read and checked in chunks of whole bodies (small first: a module the path declines,
    # most often at its first body, costs little; then ~8k rows: the whole module's texts at
    # once took a tenth more peak memory). Each chunk's columns stay its own: its bodies are
    # rows of them (joining the chunks' columns into the module's cost a tenth of a parse).
    # Past the first chunk, a big module's chunks may be read and checked in forked children
    # (:mod:`._forked`), which send back what they counted of each body and a fingerprint of
    # its names; this process makes no columns of them (their bodies read their text on first
    # use) and meanwhile makes the module. A "no" from any declines the module.
    read = _Chunks(scan, ends, closes, rows, known)
    # Chunks of at most a quarter of a child's share where children will read them: the
    # shares are runs of whole chunks, and a few big chunks would make them uneven.
    planned = planned_children(rows[-1])
    if planned:  # what the children digest each body with, loaded once before they fork
        from .. import structure  # noqa: F401
    most = min(_CHUNK_ROWS, max(256, rows[-1] // (4 * planned))) if planned else _CHUNK_ROWS
    checked = _read_chunks(read, list(_chunks(rows, most)))
    if checked is None:
        return None
    children = checked[1]
    try:  # the module made while forked children (if any) still read and check
        return _assemble(module, source, read, headers, counts, checked)
    finally:
        if children is not None:
            children.close()


def _read_early(
    module: Module,
    source: SourceText,
    scan: str,
    headers: list[tuple[Any, ...]],
    bodies: tuple[list[int], list[int]],
    known: dict,
    early: EarlyChildren,
) -> Module | None:
    """The module made of the early children's answers (:mod:`._early`): every body read
    by them, its lines counted by them too; None where the answers do not fit."""
    ends, closes = bodies
    waiting = early.checked(ends, closes, known)
    try:
        answers = waiting.wait()
    finally:
        waiting.close()
    if answers is None:
        return None
    per_body, renames, counts = answers
    rows = [0, *accumulate(counts)]
    read = _Chunks(scan, ends, closes, rows, known)
    answered = _Answered(per_body, renames)
    return _assemble(module, source, read, headers, counts, ([], answered, False, None))


class _Answered:
    """Children's answers already taken (:func:`_read_early`), for :func:`_assemble`."""

    __slots__ = ("answers",)

    def __init__(self, per_body: list[Any], renames: bool) -> None:
        self.answers = per_body, renames

    def wait(self) -> tuple[list[Any], bool]:
        return self.answers

    def close(self) -> None:
        pass


def _assemble(
    module: Module,
    source: SourceText,
    read: _Chunks,
    headers: list[tuple[Any, ...]],
    counts: list[int],
    checked: _Checked,
) -> Module | None:
    """The module's computations, from the bodies' header groups, line counts and what
    :func:`_read_chunks` made of them: the bodies of the chunks read here rows of their
    columns, the others (read by forked children) their text, once the children said yes."""
    chunks, children, renames, op_names = checked
    scan, ends, closes, rows = read.scan, read.ends, read.closes, read.rows
    names = [m[1] for m in headers]
    entries = [n for n, m in enumerate(headers) if m[0]]
    # 0-based line index of each header: the line breaks before the first, then for each next
    # one the previous body's lines and those between its '}' and the header (short spans: the
    # bodies' lines are counted already).
    first_line = scan.count("\n", 0, ends[0])
    gaps = map(scan.count, repeat("\n"), closes[:-1], ends[1:])
    header_lines = list(accumulate(map(operator.add, counts, gaps), initial=first_line))
    signatures = [signature or None for _, _, signature in headers]
    for n, signature in enumerate(signatures):
        if signature is not None and "/*" in signature:
            signatures[n] = _header_signature(scan[scan.rfind("\n", 0, ends[n]) + 1 : ends[n]])
    # The bodies and computations made by map, a call each without a loop in Python around it.
    made: list[BulkBody] = []
    for first, last, table in chunks:
        # Each body keeps its own operand texts (see BulkBody), the other columns are shared.
        shared: list[Sequence[str] | None] = [*table[:4], None, table[5]]
        base = rows[first]
        starts = [row - base for row in rows[first : last + 1]]
        spans = list(map(slice, starts[:-1], starts[1:]))
        first_lines = [line + 2 for line in header_lines[first:last]]
        operands = map(table[4].__getitem__, spans)
        made += map(BulkBody, repeat(shared), starts[:-1], starts[1:], first_lines, operands)
    text_bodies: list[TextBody] = []
    if children is not None:  # the bodies the children read: their text and lines
        done = len(made)
        text_spans = zip(ends[done:], map(operator.add, closes[done:], repeat(1)))
        first_lines = [line + 2 for line in header_lines[done:]]
        text = source.text  # the same offsets as in scan (at most a '\n' added at its end)
        text_bodies = list(map(TextBody, repeat(text), text_spans, counts[done:], first_lines))
        made += text_bodies
    is_entry = [bool(entry) for entry, _, _ in headers]
    lines = [line + 1 for line in header_lines]
    new = Computation.from_parts
    computations = list(map(new, names, is_entry, lines, signatures, made, repeat(module)))
    if children is not None:
        # While the children work: the entry's columns, which nearly every reader asks for
        # (built into instructions only on first use, once the children vouched for it:
        # building it here took three times as long, objects made beside the children's
        # copy-on-write pages).
        entry_body = made[entries[0] if entries else -1]
        if isinstance(entry_body, TextBody):
            entry_body.column(0)
        answers = children.wait()
        if answers is None:
            return None
        per_body, renames = answers
        if len(per_body) != len(text_bodies):
            return None  # not seen: each child counts every body of its chunks
        for body, body_counts in zip(text_bodies, per_body):
            body.counted(*body_counts)
    module.computations = computations
    module.computations_by_name = dict(zip(names, computations))
    module.entry = computations[entries[0]] if entries else computations[-1]
    module.entry.is_entry = True
    if not module.name:
        module.name = "module_" + module.entry.name
    name_computations(module, {})
    if renames:
        uniquify_names(module, op_names)
    return module


class _Children:
    """The forked children reading and checking a module's chunks past the first."""

    __slots__ = ("checks", "names", "rows")

    def __init__(self, checks: ForkedChecks, names: Sequence[str], rows: int) -> None:
        self.checks = checks
        self.names = names  # those of the chunk read here
        self.rows = rows  # of the whole module

    def wait(self) -> tuple[list[Any], bool] | None:
        """What the children counted of each body, in order, and whether any instruction
        might be renamed (then :func:`uniquify_names` tests the names themselves); None if
        any child said no. Their names' fingerprints are merged as each child answers."""
        names = NameSet()
        names.add(name_fingerprint(self.names))

        def take(answer: list[tuple[list[Any], NameFingerprint]]) -> None:
            for _, fingerprint in answer:
                names.add(fingerprint)

        answers = self.checks.results(take)
        if answers is None:
            return None
        renames = not names.distinct(self.rows)
        return list(chain.from_iterable(counts for counts, _ in answers)), renames

    def close(self) -> None:
        self.checks.close()


class _Waits(Protocol):
    """Children whose answers :func:`_assemble` waits on (:class:`_Children`, or the early
    children's, :mod:`._early`): None where they said no or do not fit."""

    def wait(self) -> tuple[list[Any], bool] | None: ...

    def close(self) -> None: ...


_Checked = tuple[list[tuple[int, int, list[Sequence[str]]]], _Waits | None, bool, list[str] | None]


def _read_chunks(read: _Chunks, bounds: list[tuple[int, int]]) -> _Checked | None:
    """The chunks ``bounds`` read and checked, or None if any fails: the columns of those read
    here; the forked children reading and checking the others (None if none forked: all were
    read here); whether any instruction would be renamed and every instruction name, where
    they were all read here (else False and None: the children say, see :class:`_Children`)."""
    first, last = bounds[0]
    columns = read.columns(first, last)
    if columns is None or not read.passes(columns, first, last):
        return None  # some line is not one plain instruction, or a check failed
    chunks = [(first, last, columns)]
    rest = bounds[1:]
    rows = read.rows
    # Shares of about equal text: a row of the entry (long operand lists) weighs many of a
    # fused body's, and the share that held it took twice as long as the others.
    weights = [read.closes[b - 1] - read.ends[a] for a, b in rest]
    forked = fork_checks(read.check_and_count, rest, weights, rows=rows[-1] - rows[last])
    if forked is not None:
        return chunks, _Children(forked, columns[1], rows[-1]), False, None
    for first, last in rest:
        columns = read.columns(first, last)
        if columns is None or not read.passes(columns, first, last):
            return None
        chunks.append((first, last, columns))
    names = list(chain.from_iterable(table[1] for _, _, table in chunks))
    return chunks, None, not names_distinct(names), names


def _bodies(
    scan: str, header_end: int, source: SourceText, module: Module
) -> tuple[list[tuple[Any, ...]], list[int], list[int]] | None:
    """Each body's header groups, the '\n' ending its header line and the '\n' before its
    '}' line, if the text after the module header is blank lines and stack frame tables (read
    into ``module``), then bodies separated by blank lines, then the same again."""
    m = _FIRST_HEADER.search(scan, header_end)
    if m is None or not _outside_bodies(scan[header_end : m.start()], module, source):
        return None
    headers: list[tuple[Any, ...]] = []
    ends = []
    closes = []
    find_closer = _CLOSER.search  # a regex: twice the speed of str.find here
    next_header = _NEXT_HEADER.match
    close = -1
    while m is not None:
        headers.append(m.groups())
        end = m.end()
        ends.append(end)
        closer = find_closer(scan, end)  # a '}' line of its own; any other ends in a refusal
        if closer is None:
            return None
        close = closer.start()
        closes.append(close)
        m = next_header(scan, close + 2)
    if not _outside_bodies(scan[close + 2 :], module, source):
        return None
    return headers, ends, closes


def _header_signature(line: str) -> str | None:
    """The signature ModuleParser reads in a header line with comments: each made blanks
    (``/*index=5*/`` counters too), as :meth:`ModuleParser._header_text` does."""
    blanked = _COMMENT.sub(lambda m: " " * len(m.group()), line)
    header = _COMP_HEADER.match(blanked)
    if header is None:
        raise HloParseError("not a computation header")  # not seen: the line matched before
    return header.group(3)


def _module_header(line: str, source: SourceText) -> Module | None:
    """The module of an ``HloModule`` line that ModuleParser reads as this one line."""
    if "/*" in line and blank_comments(line) is not line:
        return None  # a comment other than the printer's '/*index=N*/' counters
    if line.rstrip().endswith(",") or _maybe_unbalanced(line):
        return None
    m = _MODULE_LINE.match(line)
    if m is None:
        return None
    module = Module(m.group(1) or "")
    module.source = source
    module.header_line = 1
    module.header_attr_text = (m.group(2) or "").rstrip(" \t")
    return module


def _outside_bodies(text: str, module: Module, source: SourceText) -> bool:
    """Read the stack frame tables in ``text`` (lines outside the bodies) into ``module``;
    False if it holds anything else but blank lines."""
    if not text.strip():
        return True
    lines = text.split("\n")
    parser = ModuleParser(lines, 0, len(lines), source)
    parser.module = module
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped:
            i += 1
        elif stripped in STACK_SECTIONS:
            i = parser._parse_stack_section(i, stripped)
        else:
            return False
    return True
