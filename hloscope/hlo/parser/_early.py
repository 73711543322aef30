"""Forked children started before a big file is read: each reads a stretch of the file itself.

A big module's forked checks (:mod:`._forked`) began only once this process had read the whole
text and found every body (~0.2 s of a 54 MB module's parse), so the children's work came after
all of that. For a big file they are forked before it is read instead: each reads one stretch
of the file (``os.pread``, about equal bytes each), finds the bodies in it as the whole-module
path finds them (a stretch starts after the first ``}`` line at or after its first byte), and
reads, checks and counts them as the other children do, while this process reads the whole
text and finds its bodies. Their answers are taken where they cover exactly the bodies found
here, each with its lines; anything else (a stretch that is not plain ASCII or holds a
``\\r``, one that does not start at a body, a callee named that is no computation here, a
"no", a file that changed size) leaves them unused: the whole-module path then checks as if
none had been started (a "no" is then most often said again, by the usual children), and
makes the same module.

A child cannot tell whether the computations its ops call exist (the others hold them): it
sends every name the callee test reads (:func:`._names.callee_names`), and they are looked up
here. Nor whether its instruction names are the module's only ones: each sends their
fingerprints (:func:`._names.name_fingerprint`) through a pipe of its own to one more child,
which merges them as they come (402k hashes: 0.08 s that this process spent after the
children's answers) and answers whether they are all distinct.
"""

from __future__ import annotations

import marshal
import operator
import os
import select
import stat
from collections.abc import Sequence
from functools import partial
from itertools import accumulate, chain, repeat
from typing import Any

from .. import _lex
from ._bulk import body_counts
from ._chunks import _CLOSER, _FIRST_HEADER, _NEXT_HEADER, _Chunks, _chunks
from ._forked import ForkedChecks, _write_all, fork_each, planned_children
from ._names import NameSet, callee_names, name_fingerprint
from ._source import looks_like_path

__all__ = ["EarlyChildren", "start_early"]

# Files smaller than this are read before any child forks (the usual forked checks still
# apply to them): the children's own reads pay where a parse takes a few tenths of a second.
EARLY_MIN_BYTES = 8 << 20
# For how many children: a file's rows counted as one per this many bytes (the 54 MB module:
# 136 bytes a row), before anything is read.
BYTES_PER_ROW = 128
# How far past its stretch a child reads at first to find the '}' line ending its last body.
_SLACK = 1 << 20
_CLOSER_BYTES = b"\n}\n"


def start_early(source: object) -> EarlyChildren | None:
    """Children reading stretches of the file ``source`` names, or None where that does not
    apply (not a path, not a regular file, smaller than :data:`EARLY_MIN_BYTES`, no children
    planned for its size, anything failing)."""
    if not isinstance(source, (str, os.PathLike)) or not looks_like_path(source):
        return None
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None  # the usual read says what is wrong
    try:
        info = os.fstat(fd)
        size = info.st_size
        count = 0
        if stat.S_ISREG(info.st_mode) and size >= EARLY_MIN_BYTES:
            count = planned_children(size // BYTES_PER_ROW)
        if count > 0:
            from .. import structure  # noqa: F401 - what the children digest bodies with

            bounds = [size * k // count for k in range(count + 1)]
            pipes: list[tuple[int, int]] = []  # each stretch's names to the merger
            try:
                pipes += (os.pipe() for _ in range(count))
                work = partial(_child, fd, bounds, pipes)
                checks = fork_each(work, [*range(count), _MERGER])
            finally:
                for pipe in pipes:
                    os.close(pipe[0])
                    os.close(pipe[1])
            if checks is not None:
                return EarlyChildren(fd, size, checks)
    except OSError:
        pass
    os.close(fd)
    return None


class EarlyChildren:
    """The children started by :func:`start_early`, and the file they read."""

    __slots__ = ("fd", "size", "checks", "plain")

    def __init__(self, fd: int, size: int, checks: ForkedChecks) -> None:
        self.fd = fd
        self.size = size
        self.checks = checks
        # Whether the children found the file plain ASCII (:func:`._lex.is_plain_ascii`),
        # where their answers were taken: this process need not look again.
        self.plain = False

    def read(self) -> bytes | None:
        """The whole file, as the children read it (the same open file); None where reading
        failed (the usual read then says why)."""
        parts = []
        offset = 0
        try:
            while offset < self.size:
                part = os.pread(self.fd, self.size - offset, offset)
                if not part:
                    break
                parts.append(part)
                offset += len(part)
            if offset != self.size or os.pread(self.fd, 1, offset):
                return None  # it changed size meanwhile: the stretches are not the file's
        except OSError:
            return None
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def checked(self, ends: list[int], closes: list[int], known: dict) -> _Waiting:
        """What :func:`._whole._read_early` waits on for the module's bodies (``ends``,
        ``closes``: each body's place, found here; ``known``: the computations' names)."""
        return _Waiting(self, (ends, closes), known)

    def close(self) -> None:
        """Stop the children not waited for yet, and close the file."""
        self.checks.close()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _Waiting:
    """The early children's answers, taken when they fit the bodies found here."""

    __slots__ = ("early", "checks", "bodies", "known", "miss")

    def __init__(
        self, early: EarlyChildren, bodies: tuple[list[int], list[int]], known: dict
    ) -> None:
        self.early = early
        self.checks = early.checks
        self.bodies = bodies
        self.known = known
        self.miss = ""  # why the answers were not taken

    def wait(self) -> tuple[list[Any], bool, list[int]] | None:
        """What the children counted of each body, in order, whether any instruction might
        be renamed (see :class:`._whole._Children`), and each body's lines (counted by them);
        None where their answers do not fit (:attr:`miss` says why)."""
        answers = self.checks.results()
        if answers is None:
            self.miss = "a child said no"
            return None
        rows, distinct = answers.pop()  # the names' merger's
        counts = list(chain.from_iterable(answer[2] for answer in answers))
        if rows != sum(counts):
            self.miss = "the merger had other names"
        elif any(
            list(chain.from_iterable(answer[n] for answer in answers)) != found
            for n, found in enumerate(self.bodies)
        ):
            self.miss = "the children's bodies are not the ones found here"
        elif not self.known.keys() >= set(chain.from_iterable(answer[4] for answer in answers)):
            self.miss = "a callee not among the computations"  # the usual checks say which
        else:
            per_body = list(chain.from_iterable(answer[3] for answer in answers))
            self.early.plain = all(answer[5] for answer in answers)
            return per_body, not distinct, counts
        return None

    def close(self) -> None:
        self.checks.close()


# ---- in a child --------------------------------------------------------------------------------


_MERGER = -1  # the child that merges the others' names


def _child(
    fd: int, bounds: Sequence[int], pipes: list[tuple[int, int]], k: int
) -> tuple[Any, ...] | None:
    """What child ``k`` sends (:func:`_read_stretch`), or the names' merger's answer
    (:func:`_merged_names`), each child holding only its own end of the names' pipes."""
    mine = -1 if k == _MERGER else pipes[k][1]
    for pipe in pipes:
        for end in pipe:
            if end != mine and (k != _MERGER or end != pipe[0]):
                os.close(end)
    if k == _MERGER:
        return _merged_names([pipe[0] for pipe in pipes])
    return _read_stretch(fd, bounds, mine, k)


def _merged_names(ends: list[int]) -> tuple[int, bool]:
    """How many names came through these pipes and whether their fingerprints say they are
    all distinct (:meth:`._names.NameSet.distinct`; False where some child sent none):
    each child's merged as soon as it has sent them."""
    names = NameSet()
    rows = 0
    complete = True
    parts: dict[int, list[bytes]] = {end: [] for end in ends}
    while parts:
        for end in select.select(list(parts), [], [])[0]:
            data = os.read(end, 1 << 20)
            if data:
                parts[end].append(data)
                continue
            sent = b"".join(parts.pop(end))
            try:
                count, fingerprints = marshal.loads(sent)
            except (EOFError, ValueError, TypeError):  # a child that failed: no names
                complete = False
                continue
            rows += count
            for fingerprint in fingerprints:
                names.add(fingerprint)
    return rows, complete and names.distinct(rows)


def _read_stretch(fd: int, bounds: Sequence[int], names_to: int, k: int) -> tuple[Any, ...] | None:
    """What child ``k`` sends: the bodies of its stretch of the file (their ends of headers,
    '}' lines and line counts, as :func:`._whole._bodies` finds them, in the file's offsets),
    what :func:`._bulk.body_counts` keeps of each and the callee names its ops read that are
    not its own bodies'; None where it cannot vouch for them. Its names' fingerprints go
    to the merger, through ``names_to``."""
    found = _stretch_text(fd, bounds, k)
    if found is None:
        return None
    scan, base, end, plain = found
    if k == 0:
        m = _FIRST_HEADER.search(scan, scan.find("\n"))
    else:
        first = scan.find("\n}\n")  # the '}' line the child before ends its stretch with
        m = _NEXT_HEADER.match(scan, first + 2) if 0 <= first < end - 2 else None
    ends: list[int] = []
    closes: list[int] = []
    own: list[str] = []
    while m is not None and m.start() < end:
        own.append(m.group(2))
        ends.append(m.end())
        closer = _CLOSER.search(scan, m.end())  # as _whole._bodies finds it
        if closer is None:
            return None
        close = closer.start()
        closes.append(close)
        m = _NEXT_HEADER.match(scan, close + 2)
    if end < len(scan) and closes and closes[-1] + 2 != end:
        return None  # not the stretch the next child starts after
    counts = list(map(scan.count, repeat("\n"), ends, closes))
    if 0 in counts:
        return None
    rows = [0, *accumulate(counts)]
    read = _Chunks(scan, ends, closes, rows, None)
    per_body: list[tuple[Any, ...]] = []
    fingerprints = []
    callees: set[str] = set()
    for first, last in _chunks(rows):
        columns = read.columns(first, last)
        if columns is None or not read.passes(columns, first, last):
            return None
        callees |= callee_names(columns[3], columns[5])
        per_body += body_counts(columns, [r - rows[first] for r in rows[first : last + 1]])
        fingerprints.append(name_fingerprint(columns[1]))
    _write_all(names_to, marshal.dumps((rows[-1], fingerprints)))
    os.close(names_to)
    callees.difference_update(own)
    at = partial(operator.add, base)
    answer = list(map(at, ends)), list(map(at, closes)), counts, per_body, sorted(callees)
    return (*answer, plain)


def _stretch_text(fd: int, bounds: Sequence[int], k: int) -> tuple[str, int, int, bool] | None:
    """Child ``k``'s text: from its first byte to past the first '}' line at or after the
    next child's first byte (or to the file's end), a '\\n' added at the file's end where it
    has none (as :func:`._whole._read` does); the file offset of its first character; and
    where its stretch ends in it (after that '}' line's '}'; the text's length at the end
    of the file); and whether its bytes hold no control character (:func:`._lex.is_plain_ascii`:
    the children's bytes cover the file). None where it is not ASCII or holds a '\\r'."""
    size = bounds[-1]
    start = bounds[k]
    data = _pread(fd, start, size if k == len(bounds) - 2 else min(size, bounds[k + 1] + _SLACK))
    end = len(data)
    if k < len(bounds) - 2:
        close = data.find(_CLOSER_BYTES, bounds[k + 1] - start)
        if close < 0 and start + end < size:
            data += _pread(fd, start + end, size)
            close = data.find(_CLOSER_BYTES, bounds[k + 1] - start)
        end = close + 2 if close >= 0 else len(data)
    if not data.isascii() or b"\r" in data:
        return None  # offsets in the text would not be the file's
    plain = _lex.is_plain_ascii(data)
    text = data.decode("ascii")
    at_end = start + len(data) == size
    if at_end and not text.endswith("\n"):
        text += "\n"
    return text, start, len(text) if at_end and end == len(data) else end, plain


def _pread(fd: int, start: int, stop: int) -> bytes:
    parts = []
    while start < stop:
        part = os.pread(fd, stop - start, start)
        if not part:
            break
        parts.append(part)
        start += len(part)
    return b"".join(parts)
