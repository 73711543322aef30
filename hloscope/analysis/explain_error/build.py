"""One failure from what a recogniser read: the finding and the failure built together.

Every recogniser says the same things about a message -- its offender, the reason, the advice,
the stack -- and the rest follows from them the same way each time: the headline is the
message's first line, the source is the innermost user frame, the function chain is the
function, the exception class is the one named before the match. :func:`make_failure` does
that once. Where the headline, traceback and function are depends on how a kind's messages
stand in a log (a :data:`Reading`): a kind's module declares its :class:`Kind` once (family,
usual reason, reading) and its handler builds each failure from that row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...hlo.metadata import StackFrame
from ..unsupported.findings import Finding, Reason
from .advice import Advice
from .functions import function_chain, jax_function, paragraph_end
from .log import Log, class_before, status_before
from .record import Failure, Family
from .user_line import user_source

__all__ = [
    "Kind",
    "Reading",
    "make_failure",
    "traced",
    "jax_message",
    "own_line",
    "log_line",
    "UNSET",
]


class _Unset:
    """The default of a field the builder works out itself unless told."""


UNSET: Any = _Unset()


def make_failure(
    family: Family,
    log: Log,
    start: int,
    *,
    op: str,
    reason: Reason,
    advice: Advice | tuple[str, str],
    node: str = "",
    function: str = "",
    dtype: str | None = None,
    stack: list[StackFrame] | None = None,
    source: str | None = UNSET,
    error_class: str | None = UNSET,
    headline_at: int | None = None,
    **fields: Any,
) -> Failure:
    """The failure a message at ``start`` describes. ``source`` defaults to the innermost user
    frame of ``stack``, ``error_class`` to the class named before ``start``, ``chain`` to
    ``function`` alone; ``headline_at`` is where the message's first line starts when the
    match is in the middle of it; other ``fields`` go to :class:`Failure` as they are."""
    stack = stack if stack is not None else []
    detail = log.headline(start if headline_at is None else headline_at)
    finding = Finding(
        op=op,
        node=node,
        function=function,
        reason=reason,
        dtype=dtype,
        source=user_source(stack) if source is UNSET else source,
        suggestion=advice[0],
        detail=detail,
    )
    fields.setdefault("chain", function_chain(function))
    fields.setdefault("advice_kind", str(advice[1]))
    if error_class is UNSET:
        error_class = class_before(log, start)
    return Failure(family, finding, message=detail, stack=stack, error_class=error_class, **fields)


#: How a kind's messages stand in a log: what fills in a failure's headline, traceback and
#: function (the fields :func:`make_failure` takes) from the message at ``start``, unless the
#: handler gave them. ``None``: as the handler says (the headline from the match).
Reading = Callable[[Log, int, dict[str, Any]], None]


def traced(log: Log, start: int, fields: dict[str, Any]) -> None:
    """A message raised from Python whose traceback the handler gives (``stack``): its
    function is the one JAX names in the message's paragraph, or the innermost user frame's."""
    fields["function"] = jax_function(log, start, paragraph_end(log, start), fields["stack"])


def jax_message(log: Log, start: int, fields: dict[str, Any]) -> None:
    """A JAX message whose words may start mid-line (after the exception's class): its
    traceback is the one before it, its headline the whole line; :func:`traced`."""
    fields["headline_at"] = log.line_start(start)
    fields["stack"] = log.traceback_before(start)
    traced(log, start, fields)


def own_line(log: Log, start: int, fields: dict[str, Any]) -> None:
    """A message on a line of its own (a check that failed, a runtime's refusal), whatever
    prefix stands before ``start``: its headline is the whole line, its traceback the one
    before the line."""
    line = log.line_start(start)
    fields["headline_at"] = line
    fields["stack"] = log.traceback_before(line)


def log_line(log: Log, start: int, fields: dict[str, Any]) -> None:
    """A runtime's message on a log line of its own, after the logger's prefix:
    :func:`own_line`, its status the code named before ``start`` unless given;
    :func:`traced`."""
    own_line(log, start, fields)
    if "status" not in fields:
        fields["status"] = status_before(log, start)
    # A logger's line is often printed before the traceback of the exception it reports
    # (``ERROR:__main__:Training failed ...`` then ``Traceback ...``): the one after it then.
    fields["stack"] = fields["stack"] or log.traceback_after(fields["headline_at"])
    traced(log, start, fields)


@dataclass(frozen=True, slots=True)
class Kind:
    """What every failure of one kind of message shares: its family, its usual reason (a
    handler may name another) and how its messages stand in a log (a :data:`Reading`:
    :func:`traced`, :func:`jax_message`, :func:`own_line`, :func:`log_line`). A kind's module
    declares it once; its handler then says only what it read."""

    family: Family
    reason: Reason | None = None
    reading: Reading | None = None

    def failure(
        self,
        log: Log,
        start: int,
        *,
        op: str,
        advice: Advice | tuple[str, str] | None = None,
        fixes: Sequence[tuple[str, str]] = (),
        reason: Reason | None = None,
        **fields: Any,
    ) -> Failure:
        """The failure of this kind's message at ``start``: ``fields`` as
        :func:`make_failure` takes them, the rest as :attr:`reading` says.

        Its advice is ``advice`` (a text and its kind), or the first of ``fixes`` (each
        ``(kind, text)``, best first), the others then the failure's further advice."""
        if fixes:
            (kind, text), *others = fixes
            advice = (text, kind)
            fields["more_advice"] = [(str(other), fix) for other, fix in others]
        if advice is None:
            raise ValueError(f"a failure of {self.family} needs advice or fixes")
        reason = self.reason if reason is None else reason
        if reason is None:
            raise ValueError(f"a failure of {self.family} needs a reason")
        if self.reading is not None:
            self.reading(log, start, fields)
        return make_failure(self.family, log, start, op=op, reason=reason, advice=advice, **fields)
