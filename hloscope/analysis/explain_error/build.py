"""One failure from what a recogniser read: the finding and the failure built together.

Every recogniser says the same things about a message -- its offender, the reason, the advice,
the stack -- and the rest follows from them the same way each time: the headline is the
message's first line, the source is the innermost user frame, the function chain is the
function, the exception class is the one named before the match. :func:`make_failure` does
that once.
"""

from __future__ import annotations

from typing import Any

from ...hlo.metadata import StackFrame
from ..unsupported.findings import Finding, Reason
from .advice import Advice, advise
from .functions import function_chain, jax_function, paragraph_end
from .log import Log, class_before, status_before
from .record import Failure, Family
from .user_line import user_source

__all__ = [
    "make_failure",
    "traced_failure",
    "jax_message_failure",
    "line_failure",
    "no_kernel_failure",
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


def traced_failure(
    family: Family,
    log: Log,
    start: int,
    *,
    stack: list[StackFrame],
    op: str,
    reason: Reason,
    advice: Advice | tuple[str, str],
    **fields: Any,
) -> Failure:
    """The failure of a message raised from Python with ``stack`` for its traceback: its
    function is the one JAX names in the message's paragraph, or the innermost user frame's."""
    function = jax_function(log, start, paragraph_end(log, start), stack)
    return make_failure(
        family,
        log,
        start,
        op=op,
        reason=reason,
        advice=advice,
        function=function,
        stack=stack,
        **fields,
    )


def jax_message_failure(
    family: Family,
    log: Log,
    start: int,
    *,
    op: str,
    reason: Reason,
    advice: Advice | tuple[str, str],
    **fields: Any,
) -> Failure:
    """The failure of a JAX message whose words may start mid-line (after the exception's
    class): its traceback is the one before it, its headline the whole line."""
    return traced_failure(
        family,
        log,
        start,
        stack=log.traceback_before(start),
        op=op,
        reason=reason,
        advice=advice,
        headline_at=log.text.rfind("\n", 0, start) + 1,
        **fields,
    )


def line_failure(
    family: Family,
    log: Log,
    start: int,
    *,
    op: str,
    reason: Reason,
    advice: Advice | tuple[str, str],
    **fields: Any,
) -> Failure:
    """The failure of a runtime's message on a log line of its own, after the logger's prefix:
    its traceback is the one before the line, its headline the whole line, its status the
    code named before ``start`` unless ``status`` is given."""
    line = log.text.rfind("\n", 0, start) + 1
    if "status" not in fields:
        fields["status"] = status_before(log, start)
    # A logger's line is often printed before the traceback of the exception it reports
    # (``ERROR:__main__:Training failed ...`` then ``Traceback ...``): the one after it then.
    stack = log.traceback_before(line) or log.traceback_after(line)
    return traced_failure(
        family,
        log,
        start,
        stack=stack,
        op=op,
        reason=reason,
        advice=advice,
        headline_at=line,
        **fields,
    )


def no_kernel_failure(
    family: Family,
    log: Log,
    start: int,
    *,
    op: str,
    advice_platform: str | None = None,
    **fields: Any,
) -> Failure:
    """The failure of a TensorFlow op that XLA has no kernel for: the advice is the op's own
    row (one about ``advice_platform`` when that is known), else the generic one."""
    advice = advise((op,), Reason.NO_KERNEL, advice_platform)
    return make_failure(family, log, start, op=op, reason=Reason.NO_KERNEL, advice=advice, **fields)
