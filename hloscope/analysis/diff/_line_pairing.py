"""Which source line of B each source line of A became: one to one, by what the line is.

A refactor moves code: helpers change places, one is renamed, lines are inserted above
others. Every line of A then has a new number in B, yet most are the same line, moved. The
ops' pairing alone cannot say which: a layer-norm line and a softmax line both hold a
``reduce`` and an ``exp``-free ``subtract``, and their ops can land in each other's kernels.
So lines are paired on what identifies a line of code, one to one (a line of B is the
continuation of at most one line of A), each step working on the lines the previous ones left:

1. the same function and the same code text (the line as the file holds it, stripped);
2. the same code text alone, when one line on each side has it (the function was renamed,
   or the line moved into another);
3. within one function (a function of A counts as the one of B most of its lines paired with
   in steps 1 and 2 went to: a renamed helper), the lines most alike, in order: the op names
   they share (their :func:`provenance_name`, the op_name scope without JAX's outer
   ``jit(f)/``) plus how alike their code texts are; the pairing keeps the lines' order on
   both sides (a line edited in place stays between its neighbours) and has the largest sum;
4. within one function, the lines left in order, when both sides have as many.

Equal keys in steps 1 and 2 pair in line order. A line left over was added (B) or removed
(A). Code text is each side's own: the capture's snapshot of the file as it was when that
side ran, else the file as it is now (:func:`~hloscope.analysis.source_code.code_line`); a
line whose file cannot be read has no text and is paired by steps 3 and 4 only.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

from ..source_code import code_line
from ._names import line_sort_key, parse_where

__all__ = ["SourceLine", "pair_lines", "source_lines"]

# Code texts at least this alike (difflib's ratio) count as the same line edited, when the
# lines share no op name.
_TEXT_ALIKE = 0.6
# A function with more line pairs than this to align is paired in order only (step 4).
_MAX_ALIGNED = 250_000


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One source line of a side, with what pairing compares: ``where`` is
    ``file:line (function)``, ``code`` the line's text ("" when unknown), ``names`` the
    normalized op names of its ops."""

    where: str
    file: str
    line: int
    function: str
    code: str
    names: frozenset[str]


def source_lines(
    names_by_where: Mapping[str, Iterable[str]], snapshot: Mapping[str, str] | None = None
) -> list[SourceLine]:
    """:class:`SourceLine` records for ``{"file:line (function)": op names}``, in file and
    line order, each with its code text (from ``snapshot``, the side's files as they ran,
    else the file as it is now)."""
    out = []
    for where in sorted(names_by_where, key=line_sort_key):
        parsed = parse_where(where)
        file, line, function = parsed if parsed is not None else (where, 0, "")
        code = code_line(file, line, snapshot)
        out.append(SourceLine(where, file, line, function, code, frozenset(names_by_where[where])))
    return out


def pair_lines(a: Iterable[SourceLine], b: Iterable[SourceLine]) -> dict[str, str]:
    """``{where in A: where in B}`` for the lines of A that continue in B (see the module
    docstring for the rule)."""
    a, b = list(a), list(b)
    free_a = sorted(a, key=lambda s: line_sort_key(s.where))
    free_b = sorted(b, key=lambda s: line_sort_key(s.where))
    pairs: dict[str, str] = {}
    free_a, free_b = _pair_equal(free_a, free_b, _function_and_code, pairs)
    free_a, free_b = _pair_equal(free_a, free_b, _code, pairs, unique=True)
    rename = _function_map(pairs, a, b)
    # Step 3, the lines most alike in order (a line edited in place keeps its place among its
    # neighbours), then step 4, the lines left in order.
    free_a, free_b = _pair_per_function(free_a, free_b, pairs, rename, _aligned)
    _pair_per_function(free_a, free_b, pairs, rename, _in_order)
    return pairs


def _function_and_code(line: SourceLine) -> Hashable | None:
    return (line.function, line.code) if line.code else None


def _code(line: SourceLine) -> Hashable | None:
    return line.code or None


def _pair_equal(
    free_a: list[SourceLine],
    free_b: list[SourceLine],
    key: Callable[[SourceLine], Hashable | None],
    pairs: dict[str, str],
    *,
    unique: bool = False,
) -> tuple[list[SourceLine], list[SourceLine]]:
    """Pair lines with equal keys in line order (``unique``: only keys one line on each side
    has); return the lines left."""
    waiting: dict[Hashable, list[SourceLine]] = {}
    for line in free_b:
        k = key(line)
        if k is not None:
            waiting.setdefault(k, []).append(line)
    if unique:
        counts_a = Counter(key(line) for line in free_a)
        waiting = {k: q for k, q in waiting.items() if len(q) == 1 and counts_a[k] == 1}
    rest_a = []
    for line in free_a:
        k = key(line)
        queue = waiting.get(k) if k is not None else None
        if queue:
            pairs[line.where] = queue.pop(0).where
        else:
            rest_a.append(line)
    taken = set(pairs.values())
    return rest_a, [line for line in free_b if line.where not in taken]


def _function_map(
    pairs: dict[str, str], a: list[SourceLine], b: list[SourceLine]
) -> dict[str, str]:
    """Each function of A -> the function of B most of its paired lines went to (a renamed
    helper is the same function for the steps that compare functions)."""
    function_of = {line.where: line.function for line in (*a, *b)}
    votes: dict[str, Counter[str]] = {}
    for where_a, where_b in pairs.items():
        votes.setdefault(function_of[where_a], Counter())[function_of[where_b]] += 1
    return {f: c.most_common(1)[0][0] for f, c in votes.items()}


def _by_function(
    lines: list[SourceLine], rename: dict[str, str] | None = None
) -> dict[str, list[SourceLine]]:
    out: dict[str, list[SourceLine]] = {}
    for line in lines:
        function = rename.get(line.function, line.function) if rename else line.function
        out.setdefault(function, []).append(line)
    return out


def _alike(la: SourceLine, lb: SourceLine) -> float:
    """How alike two lines are: the op names they share, plus how much of their code text is
    the same (0 to 1); 0 when neither says anything."""
    shared = len(la.names & lb.names)
    text = difflib.SequenceMatcher(None, la.code, lb.code).ratio() if la.code and lb.code else 0
    return shared + text if shared or text >= _TEXT_ALIKE else 0.0


def _pair_per_function(
    free_a: list[SourceLine],
    free_b: list[SourceLine],
    pairs: dict[str, str],
    rename: dict[str, str],
    pair: Callable[[list[SourceLine], list[SourceLine]], dict[str, str]],
) -> tuple[list[SourceLine], list[SourceLine]]:
    """Within each function (of A, as ``rename`` names it in B), the pairs ``pair`` makes of
    its lines on both sides; return the lines left."""
    groups_b = _by_function(free_b)
    for function, lines_a in _by_function(free_a, rename).items():
        lines_b = groups_b.get(function, [])
        if function and lines_b:
            pairs.update(pair(lines_a, lines_b))
    taken = set(pairs.values())
    return (
        [line for line in free_a if line.where not in pairs],
        [line for line in free_b if line.where not in taken],
    )


def _aligned(lines_a: list[SourceLine], lines_b: list[SourceLine]) -> dict[str, str]:
    """The pairs, in order on both sides, with the largest summed :func:`_alike`."""
    n, m = len(lines_a), len(lines_b)
    if n * m > _MAX_ALIGNED:
        return {}
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            score = _alike(lines_a[i], lines_b[j])
            take = score + best[i + 1][j + 1] if score else 0.0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    out: dict[str, str] = {}
    i = j = 0
    while i < n and j < m:
        score = _alike(lines_a[i], lines_b[j])
        if score and best[i][j] == score + best[i + 1][j + 1]:
            out[lines_a[i].where] = lines_b[j].where
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return out


def _in_order(lines_a: list[SourceLine], lines_b: list[SourceLine]) -> dict[str, str]:
    """The lines in order, where both sides have as many."""
    if len(lines_a) != len(lines_b):
        return {}
    return {la.where: lb.where for la, lb in zip(lines_a, lines_b)}
