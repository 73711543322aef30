"""A regex's matches, found with its branches that open at a line's start tried only where one
of them can match: after a line end that one of them follows, or at the text's start.

``re`` scans quickly only where every branch of an alternation opens with a literal character
(it skips to the positions where one of those characters stands); one branch that opens at a
line's start (glog's fatal line, ``(?<![^\\n])(?=F\\d{4} ...)``) makes it try every branch at
every position of a log. Here the other branches are scanned on their own (fast), the line
starts are found by a regex that opens with the line end (fast), and the whole regex is matched
only at those places, in the order ``finditer`` would find them: the same matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Finder", "LineStartScan"]


class Finder(Protocol):
    """What scans a log for a recogniser's matches: a regex, or a :class:`LineStartScan`."""

    def finditer(self, string: str) -> Iterator[re.Match[str]]: ...


@dataclass(frozen=True, slots=True)
class LineStartScan:
    """``whole``'s matches (as its ``finditer``'s): ``rest`` is ``whole`` without the branches
    that open at a line's start, ``lines`` a line end that one of those follows (the text's
    start is a place too), and ``starting`` the branches of ``whole`` that match no empty
    text, the rest matching only empty ones (``None``: no such branch)."""

    whole: re.Pattern[str]
    rest: re.Pattern[str] | None
    lines: re.Pattern[str]
    starting: re.Pattern[str] | None

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        end = len(string)
        pos, after_empty = 0, False
        rest_at = line_at = -1  # the next places each finds, from where they last looked
        while pos <= end:
            if rest_at < pos:
                found = self.rest.search(string, pos) if self.rest is not None else None
                rest_at = found.start() if found is not None else end + 1
            if line_at < pos:
                found = self.lines.search(string, pos - 1) if pos else None
                line_at = 0 if not pos else found.end() if found is not None else end + 1
            at = min(rest_at, line_at)
            if at > end:
                return
            if after_empty and at == pos:
                # As finditer after an empty match: not another empty one at the same place,
                # and only the branches that match no empty text can match anything else.
                match = self.starting.match(string, at) if self.starting is not None else None
            else:
                match = self.whole.match(string, at)
            if match is None:
                pos, after_empty = at + 1, False
                continue
            yield match
            pos, after_empty = match.end(), match.end() == match.start()
