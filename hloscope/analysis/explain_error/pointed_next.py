"""A recognised failure's general fix, and the one its message's words point to next.

A recogniser knows its family's words and gives its kind's fix: replace an op the compiler
refused, see the message (in words written for the family: "Mosaic could not compile the
kernel's op: change that op"). Where the message goes on to say what is wrong in words of a
fix (:mod:`.message_fixes`: two element types side by side, extents that do not match, an
unhashable value), that fix is offered right after it: a Mosaic verifier's "DMA source and
target shape mismatch" is a shape to fix, whatever compiler refused it. A recogniser's
specific fix (a memory figure's, a flag's, a compiler's failed check to report) is left alone,
but for one: shapes to fix where the message names no array's extent, only counts that do not
match ("requires at least 3 positional arguments ... but got only 2"), have the call made as
the message says next.
"""

from __future__ import annotations

from .advice import AdviceKind
from .family_words import FIX_WORDS, message_at, message_lines
from .message_fixes import compares_counts, pointed_fixes
from .record import Failure

__all__ = ["offer_pointed"]


# A recogniser's fixes that say only what kind of failure it is, not what to change in it: a
# fix its message's words point to comes right after them. Not "report the bug": a
# compiler's own check that failed is its bug, whatever shapes its words name.
_GENERAL_FIXES = frozenset({AdviceKind.REPLACE_OP, AdviceKind.OTHER})


def offer_pointed(failure: Failure, text: str) -> None:
    """Offer the fix ``failure``'s message points to (its error lines in ``text``) right after
    its recogniser's first fix, where that is only its kind's general one (replace the op, see
    the message)."""
    if failure.finding.warning or failure.last_resort:
        return  # a last resort's fixes were read from the message already (structural_fixes)
    if failure.advice_kind == AdviceKind.FIX_SHAPES:
        _counts_of_a_call(failure, text)
    if failure.advice_kind not in _GENERAL_FIXES:
        return
    pointed = [
        kind for kind in pointed_fixes(_message(failure, text)) if kind is not AdviceKind.INSTALL
    ]
    if not pointed or pointed[0] == failure.advice_kind:
        return
    kind = pointed[0]
    others = [(k, t) for k, t in failure.more_advice if k != kind]
    failure.more_advice = [(str(kind), FIX_WORDS[kind]), *others]


def _counts_of_a_call(failure: Failure, text: str) -> None:
    """Where ``failure``'s shapes to fix are counts of no array (a call's positional
    arguments, a tree's leaves: its message compares counts and names no array's extent), the
    call as its message says is the fix offered next."""
    offered = [kind for kind, _ in failure.more_advice]
    if not compares_counts(_message(failure, text)) or str(AdviceKind.OTHER) in offered[:1]:
        return
    others = [(k, t) for k, t in failure.more_advice if k != AdviceKind.OTHER]
    failure.more_advice = [(str(AdviceKind.OTHER), FIX_WORDS[AdviceKind.OTHER]), *others]


def _message(failure: Failure, text: str) -> str:
    """The message of ``failure`` in ``text``: the first error lines from its own on, each
    with the lines it runs on to (a recogniser may read a failure at a traceback's frame or a
    diagnostic's head, its words in the lines below); else its own line."""
    start = text.rfind("\n", 0, failure.offset) + 1
    after = [line.text for line in message_lines(text) if line.offset >= start]
    return "\n".join(after[:_LINES]) if after else message_at(text, start)


# How many error lines a failure's message may take: MLIR's "Verification failed:", then the
# diagnostic that says what failed.
_LINES = 3
