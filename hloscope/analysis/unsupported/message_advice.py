"""Advice for a compiler's refusal from its own words, as ``explain-error`` reads them.

``check`` meets whole messages where the static scan finds no op to blame: a lowering that
raised (a Pallas block shape off the TPU's tiles), or XLA:TPU refusing the whole program (a
kernel whose blocks do not fit in VMEM). The generic "see the message" says nothing a
person can act on. :func:`message_advice` reads the message with
:func:`~hloscope.analysis.explain_error.explain_error` and keeps what it says when it knows the
message: the fix, the op it blames, and the line.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MessageAdvice", "message_advice"]


class MessageAdvice(NamedTuple):
    """What a known message says: the fix, the op it names, the ``file:line`` (or None)."""

    suggestion: str
    op: str
    source: str | None


def message_advice(message: str) -> MessageAdvice | None:
    """The advice ``explain-error`` gives for ``message``; None when it does not know it or
    has only generic advice."""
    # Imported here: explain_error builds on this package's findings and fixes.
    from ..explain_error import explain_error

    if not message.strip():
        return None
    explained = explain_error(message)
    if not explained.recognised or not explained.failures:
        return None
    failure = explained.failures[0]
    # A family read from the words alone is a likely one, not a message explain-error knows.
    if failure.advice_kind in (None, "other") or failure.read_from is not None:
        return None
    finding = failure.finding
    return MessageAdvice(finding.suggestion, finding.op, finding.source)
