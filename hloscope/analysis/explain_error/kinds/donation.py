"""A donated buffer refused or used again, in the runtime's words rather than JAX's.

JAX says ``Array has been deleted with shape=...`` and ``Some donated buffers were not
usable`` itself (:mod:`.jax_call`); the runtime under it says the same things otherwise, and
these are what a user pastes from other versions:

* ``INVALID_ARGUMENT: Invalid buffer passed: buffer has been deleted or donated`` (jax 0.5 on),
  ``Invalid buffer passed to Execute() as argument 0 to replica 0: INVALID_ARGUMENT: Donation
  requested for invalid buffer`` (jax 0.4), ``BlockHostUntilReady() called on deleted or
  donated buffer``: an array used after a call that donated it;
* ``Attempt to donate the same buffer twice in Execute() (flattened argument 49, replica 0,
  partition 0, first use: 30)``: one array passed twice to donated parameters;
* ``Some donated buffers were not usable: ShapedArray(float32[3]). Donation is not
  implemented for ('cpu',).``: a warning of jaxlibs whose CPU backend takes no donations --
  not a failure, and not the program's donation to fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _donation(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["don_other"] or m["don_other_low"]:
        yield from _other_words(log, m)
        return
    said = m["don_platform"] or m["don_warned"]
    if said:
        advice = (_TEXT.not_on_cpu, AdviceKind.HARMLESS)
        yield _not_taken(log, m, advice, said.strip("([']").lower(), (_TEXT.warned,))
        return
    if m["don_call"]:  # `BlockHostUntilReady() called on ...`: the call is named before
        called = _RE.called.search(log.before_on_line(m.start()))
        node = f"{called.group(1)}()" if called else ""
        text = _TEXT.reused.format(what="the array")
    elif m["don_twice"]:
        text = _TEXT.twice.format(first=m["don_first"], second=m["don_twice"])
        node = f"flattened arguments {m['don_first']} and {m['don_twice']}"
    else:
        node = f"argument {m['don_arg']}" if m["don_arg"] else ""
        text = _TEXT.reused.format(what=f"argument {m['don_arg']}" if m["don_arg"] else "the array")
    yield _KIND.failure(
        log,
        m.start(),
        op="donated array",
        advice=(text, AdviceKind.REUSED_DONATION),
        node=node,
        status="INVALID_ARGUMENT",
    )


def _other_words(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    if not _RE.message_line.search(line):
        return
    if _RE.cpu.search(line):
        yield _not_taken(log, m, (_TEXT.not_on_cpu, AdviceKind.HARMLESS), "cpu")
    else:
        yield _not_taken(log, m, (_TEXT.unused, AdviceKind.UNUSED_DONATION), None)


def _not_taken(
    log: Log,
    m: re.Match[str],
    advice: tuple[str, str],
    device: str | None,
    hints: tuple[str, ...] = (),
) -> Failure:
    """A donation the backend did not take (one that takes none: the CPU's) or that saved
    nothing: the call ran."""
    platform = Platform.CPU if device == "cpu" else None
    return _KIND.failure(
        log,
        m.start(),
        op="donation",
        advice=advice,
        device=device,
        platform=platform,
        hints=list(hints),
    )


# A donation JAX refused or warned of, raised from (or printed by) the call.
_KIND = Kind(Family.JAX_CALL, Reason.RUNTIME, jax_message)
RECOGNISER = Recogniser(Family.JAX_CALL, _RE.opening, _donation)
