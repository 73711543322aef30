"""The words a recogniser's regex cannot match without, checked before it runs over a log.

Python's ``re`` tries every branch of an alternation at every position of the text: a
recogniser of many branches costs as many passes over the log as it has branches, seconds on a
few megabytes of training log that hold no error at all. But each branch has text any match of
it must contain (``Barrier timed out`` in ``Barrier timed out\\. Id: (\\S+)``), and a substring
search for it is fast: where no branch's text is anywhere in the log, the regex cannot match and
need not run. The gate is exact, never a guess: it is read from the regex's own parse tree, and
where some branch has no such text (or ignores case), there is no gate and the regex runs.

A text may open at a line's start (``^``, ``(?<![^\\n])``): it is written with a ``\\n`` first,
found after a line end or at the log's start (``\\nF`` for glog's fatal line ``F0912 ...``).

Where the regex runs, :func:`narrowed` drops the branches whose text the log lacks. That is
more than a branch saved: ``re`` skips quickly to the positions where some branch's first
character stands only while every branch opens with a literal character, and one branch that
opens otherwise (at a line's start, with a case-folded word) makes it try every branch at every
position of the log. Dropped, the rest is scanned as fast as a literal; a dropped branch could
match nowhere in this log, so the matches are the same, their groups numbered and named alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

# The parser and compiler the ``re`` module itself uses (public as ``sre_parse`` and
# ``sre_compile`` until Python 3.11, which deprecated those names): the parser's tree says
# exactly what every match must contain, and the compiler makes a regex of a pruned tree.
from re import _compiler as _sre_compiler  # type: ignore[attr-defined]
from re import _constants as _sre  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any

from .line_scan import Finder, LineStartScan

__all__ = ["literal_gate", "may_match", "narrowed"]

#: The shortest text worth a gate: one or two letters stand nearly everywhere (a line's start
#: counts as one: ``\nF`` is a line that opens with an F).
_SHORTEST = 3
#: Ops that match nothing themselves: the text on either side of them stands together.
_ZERO_WIDTH = frozenset({_sre.AT, _sre.ASSERT_NOT})
#: Anchors that hold only at the text's or a line's start (``^``, ``\A``).
_LINE_STARTS = frozenset({_sre.AT_BEGINNING, _sre.AT_BEGINNING_LINE, _sre.AT_BEGINNING_STRING})
_NEWLINE = ord("\n")

# A gate: texts one of which every match contains (None: no such texts are known).
Gate = tuple[str, ...] | None
Items = list[tuple[Any, Any]]


@cache
def literal_gate(pattern: re.Pattern[str]) -> Gate:
    """Texts one of which every match of ``pattern`` contains; ``None`` where some match
    need contain none of at least :data:`_SHORTEST` characters."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    except (re.error, TypeError, ValueError):  # pragma: no cover - compiled already
        return None
    return _sequence(list(tree))


def may_match(pattern: re.Pattern[str], text: str) -> bool:
    """False only where ``pattern`` cannot match anywhere in ``text``."""
    return _holds(literal_gate(pattern), text)


def narrowed(pattern: re.Pattern[str], text: str) -> Finder | None:
    """``pattern`` as it can match in ``text``: ``None`` where it cannot match anywhere; else
    what finds the same matches and groups in ``text``: ``pattern`` without the branches that
    open with no literal character and whose text ``text`` lacks, those left that open at a
    line's start tried only at the lines they can open (see the module docstring)."""
    if not may_match(pattern, text):
        return None
    shape = _shape(pattern)
    if shape is None:
        return pattern
    return _finder(pattern, frozenset(i for i in shape.slow if not _holds(shape.gates[i], text)))


def _holds(gate: Gate, text: str) -> bool:
    """Whether some text of ``gate`` is in ``text`` (one opening at a line's start also at the
    start of ``text``); always where there is no gate."""
    if gate is None:
        return True
    # A text with a character the log lacks is not in it: known without a search (the most of
    # them, on a training log of few characters).
    chars = _characters(text)
    return any(
        chars.issuperset(word[1:] if word[0] == "\n" else word)
        and (word in text or (word[0] == "\n" and text.startswith(word[1:])))
        for word in gate
    )


@lru_cache(maxsize=1)
def _characters(text: str) -> frozenset[str]:
    """The characters of ``text`` (kept for the last text: every recogniser asks of one log)."""
    return frozenset(text)


@dataclass(frozen=True, slots=True)
class _Shape:
    """A regex that is one alternation: each branch's gate, and which branches open with
    something other than a literal character (the ones that slow the scan)."""

    gates: tuple[Gate, ...]
    slow: tuple[int, ...]


@cache
def _shape(pattern: re.Pattern[str]) -> _Shape | None:
    """The branches of ``pattern`` worth dropping where a log lacks their text; ``None`` where
    there are none (or ``pattern`` is not one alternation, or folds case everywhere)."""
    branches = _top_branches(pattern)
    if branches is None:
        return None
    slow = tuple(i for i, items in enumerate(branches) if not _opens_with_literal(items))
    if not slow:
        return None
    return _Shape(tuple(_sequence(list(items)) for items in branches), slow)


def _top_branches(pattern: re.Pattern[str]) -> list[Items] | None:
    """The branches of ``pattern``'s top alternation; ``None`` where it is not one."""
    if pattern.flags & re.IGNORECASE:
        return None
    tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    if len(tree.data) != 1 or tree.data[0][0] is not _sre.BRANCH:
        return None
    return [list(items) for items in tree.data[0][1][1]]


def _opens_with_literal(items: Any) -> bool:
    # What ``re``'s compiler asks of every branch before it scans for their first characters.
    return bool(items) and items[0][0] is _sre.LITERAL


@lru_cache(maxsize=64)
def _finder(pattern: re.Pattern[str], dead: frozenset[int]) -> Finder | None:
    """``pattern`` without the branches ``dead`` (``None`` where none is left), compiled from
    its parse tree, which keeps every group: their numbers and names stay those of
    ``pattern``. Where the branches left that open with no literal character all open at a
    line's start, a :class:`~.line_scan.LineStartScan` of them."""
    tree = _sre_parse.parse(pattern.pattern, pattern.flags)
    state = tree.state

    def compiled(*data: tuple[Any, Any]) -> re.Pattern[str]:
        regex: re.Pattern[str] = _sre_compiler.compile(
            _sre_parse.SubPattern(state, list(data)), pattern.flags
        )
        return regex

    def branches(items: list[Any]) -> tuple[Any, Any]:
        return (_sre.BRANCH, (None, items))

    def width(items: Any) -> tuple[int, int]:
        low, high = items.getwidth()  # each branch is a tree of its own
        return low, high

    live = [items for i, items in enumerate(tree.data[0][1][1]) if i not in dead]
    if not live:
        return None
    slow = [items for items in live if not _opens_with_literal(items)]
    # A branch that may match an empty text or not is read after an empty match as ``re``
    # alone can: no scan of line starts then.
    one_width = all(low > 0 or high == 0 for low, high in map(width, live))
    if not slow or not all(map(_opens_at_line_start, slow)) or not one_width:
        return pattern if not dead else compiled(branches(live))
    fast = [items for items in live if _opens_with_literal(items)]
    starting = [items for items in live if width(items)[0] > 0]
    lookahead = _sre_parse.SubPattern(state, [branches(slow)])
    return LineStartScan(
        whole=compiled(branches(live)),
        rest=compiled(branches(fast)) if fast else None,
        lines=compiled((_sre.LITERAL, _NEWLINE), (_sre.ASSERT, (1, lookahead))),
        starting=compiled(branches(starting)) if starting else None,
    )


def _opens_at_line_start(items: Any) -> bool:
    return bool(items) and _line_start(*items[0])


def _sequence(items: Items) -> Gate:
    """The best gate of a sequence: every item of it is in every match, so any one item's gate
    (or a run of literal characters) will do; the one whose shortest text is longest."""
    candidates: list[tuple[str, ...]] = []
    run = ""
    for op, value in _inlined(items):
        if op is _sre.LITERAL:
            run += chr(value)
            continue
        if _line_start(op, value):
            # What stands before this is no text of the match's line: a new run, from a line
            # end (or the text's start, which :func:`_holds` also accepts).
            if run:
                candidates.append((run,))
            run = "\n"
            continue
        if op in _ZERO_WIDTH:
            continue  # the characters on both sides stand together in the match
        if op is _sre.ASSERT and value[0] == 1:
            # A lookahead's text stands in the log right after the run, and so does what
            # follows the lookahead: the run goes on.
            inner = _sequence(_literals(run) + list(value[1]))
            if inner is not None:
                candidates.append(inner)
            continue
        if op is _sre.BRANCH and run:
            # Each branch runs on from the text before it ("\nF" of "^(?:F\d|...)").
            inner = _branch(value, _literals(run))
        else:
            inner = _item(op, value)
        if run:
            candidates.append((run,))
        run = ""
        if inner is not None:
            candidates.append(inner)
    if run:
        candidates.append((run,))
    good = [gate for gate in candidates if min(map(_worth, gate)) >= _SHORTEST]
    return max(good, key=lambda gate: min(map(_worth, gate))) if good else None


def _worth(word: str) -> int:
    """How long a text counts: a line's start is rare enough to count as a character."""
    return len(word) + (word[0] == "\n")


def _literals(run: str) -> Items:
    return [(_sre.LITERAL, ord(c)) for c in run]


def _line_start(op: Any, value: Any) -> bool:
    """Whether the op holds only at the text's start or after a line end: ``^``, ``\\A``, or a
    lookbehind that no character but a line end stands before (``(?<![^\\n])``)."""
    if op is _sre.AT:
        return value in _LINE_STARTS
    return (
        op is _sre.ASSERT_NOT
        and value[0] == -1
        and list(value[1]) == [(_sre.NOT_LITERAL, _NEWLINE)]
    )


def _inlined(items: Items) -> Items:
    """``items`` with each group that matches once and keeps the case spliced in: a group's
    text runs on from the text before it (``!(?P<op>= )`` holds ``!= ``)."""
    flat: Items = []
    for op, value in items:
        if op is _sre.SUBPATTERN and not value[1] & re.IGNORECASE:
            flat += _inlined(list(value[3]))
        else:
            flat.append((op, value))
    return flat


def _branch(value: Any, prefix: Items) -> Gate:
    """An alternation's gate: a text of each branch's gate (each read after ``prefix``)."""
    gates = [_sequence(prefix + list(branch)) for branch in value[1]]
    if any(gate is None for gate in gates):
        return None
    return tuple(dict.fromkeys(word for gate in gates if gate for word in gate))


def _item(op: Any, value: Any) -> Gate:
    """The gate of one item that every match holds once or more."""
    if op is _sre.SUBPATTERN:
        _group, add_flags, _del_flags, inner = value
        return None if add_flags & re.IGNORECASE else _sequence(list(inner))
    if op is _sre.BRANCH:
        return _branch(value, [])
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and value[0] >= 1:
        return _sequence(list(value[2]))
    if op is _sre.ASSERT and value[0] == 1:
        return _sequence(list(value[1]))  # a lookahead's text stands in the log too
    return None
