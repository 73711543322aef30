"""The words a recogniser's regex cannot match without, checked before it runs over a log.

Python's ``re`` tries every branch of an alternation at every position of the text: a
recogniser of many branches costs as many passes over the log as it has branches, seconds on a
few megabytes of training log that hold no error at all. But each branch has text any match of
it must contain (``Barrier timed out`` in ``Barrier timed out\\. Id: (\\S+)``), and a substring
search for it is fast: where no branch's text is anywhere in the log, the regex cannot match and
need not run. The gate is exact, never a guess: it is read from the regex's own parse tree, and
where some branch has no such text (or ignores case), there is no gate and the regex runs.
"""

from __future__ import annotations

import re
from functools import cache

# The parser the ``re`` module itself uses (public as ``sre_parse`` until Python 3.11, which
# deprecated that name): its tree says exactly what every match must contain.
from re import _constants as _sre  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["literal_gate", "may_match"]

#: The shortest text worth a gate: one or two letters stand nearly everywhere.
_SHORTEST = 3
#: Ops that match nothing themselves: the text on either side of them stands together.
_ZERO_WIDTH = frozenset({_sre.AT, _sre.ASSERT_NOT})

# A gate: texts one of which every match contains (None: no such texts are known).
Gate = tuple[str, ...] | None


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
    gate = literal_gate(pattern)
    return gate is None or any(word in text for word in gate)


def _sequence(items: list[tuple[Any, Any]]) -> Gate:
    """The best gate of a sequence: every item of it is in every match, so any one item's gate
    (or a run of literal characters) will do; the one whose shortest text is longest."""
    candidates: list[tuple[str, ...]] = []
    run = ""
    for op, value in _inlined(items):
        if op is _sre.LITERAL:
            run += chr(value)
            continue
        if op in _ZERO_WIDTH:
            continue  # the characters on both sides stand together in the match
        if run:
            candidates.append((run,))
        run = ""
        inner = _item(op, value)
        if inner is not None:
            candidates.append(inner)
    if run:
        candidates.append((run,))
    good = [gate for gate in candidates if min(map(len, gate)) >= _SHORTEST]
    return max(good, key=lambda gate: min(map(len, gate))) if good else None


def _inlined(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``items`` with each group that matches once and keeps the case spliced in: a group's
    text runs on from the text before it (``!(?P<op>= )`` holds ``!= ``)."""
    flat: list[tuple[Any, Any]] = []
    for op, value in items:
        if op is _sre.SUBPATTERN and not value[1] & re.IGNORECASE:
            flat += _inlined(list(value[3]))
        else:
            flat.append((op, value))
    return flat


def _item(op: Any, value: Any) -> Gate:
    """The gate of one item that every match holds once or more."""
    if op is _sre.SUBPATTERN:
        _group, add_flags, _del_flags, inner = value
        return None if add_flags & re.IGNORECASE else _sequence(list(inner))
    if op is _sre.BRANCH:
        gates = [_sequence(list(branch)) for branch in value[1]]
        if any(gate is None for gate in gates):
            return None
        return tuple(dict.fromkeys(word for gate in gates if gate for word in gate))
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and value[0] >= 1:
        return _sequence(list(value[2]))
    if op is _sre.ASSERT and value[0] == 1:
        return _sequence(list(value[1]))  # a lookahead's text stands in the log too
    return None
