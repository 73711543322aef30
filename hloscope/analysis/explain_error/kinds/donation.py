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
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_REFUSED = (
    r"(?:ion|ed|ing)\b[^\n]{0,120}?\b(?:unavailable|not available|not supported|not usable"
    r"|could not be used|cannot be used|not be used|unused)"
)
_OPENING = re.compile(
    # JAX's warning whose second line says why no donation was usable: the platform takes
    # none. Read whole, before :mod:`.jax_call` reads its first line alone.
    r"Some donated buffers were not usable:?[^\n]{0,2000}\n(?:[^\n]*\n){0,3}?Donation is not "
    r"implemented for (?P<don_warned>[(\[]?'?\w+'?)"
    r"|Invalid buffer passed(?: to Execute\(\) as argument (?P<don_arg>\d+) to replica \d+)?: "
    r"(?:INVALID_ARGUMENT: )?(?P<don_why>buffer has been deleted or donated|Donation requested "
    r"for invalid buffer)"
    r"|c(?P<don_call>alled on deleted or donated buffer)"
    r"|Attempt to donate the same buffer twice in Execute\(\) \(flattened argument "
    r"(?P<don_twice>\d+)[^)\n]*?first use: (?P<don_first>\d+)\)"
    r"|Donation is not implemented for (?P<don_platform>[(\[]?'?\w+'?)"
    # Other words for a donation the backend or the compiler could not use: "donation is
    # unavailable", "buffer donation not supported on this platform", "donated buffer ... could
    # not be used". Keyed on the stem and the refusal on one line.
    r"|D(?P<don_other>onat" + _REFUSED + r")|d(?P<don_other_low>onat" + _REFUSED + ")",
    re.M,
)
_REUSED = (
    "{what} was donated to an earlier call (donate_argnums/donate_argnames hand its memory to "
    "the result) or deleted, and then used again: use the call's result from then on (state "
    "= step(state, batch)), or stop donating it; a re-run of the call (jax_debug_nans, a "
    "retry) donates it a second time"
)
_TWICE = (
    "one array is passed to two donated parameters (flattened arguments {first} and {second}):"
    " a buffer can be donated once per call -- pass a copy (jnp.copy) to one of them, or "
    "donate only one"
)
_WARNED = ("a warning, not a failure: the call ran",)
_NOT_ON_CPU = (
    "this jaxlib's CPU backend takes no donations: JAX warns and copies instead, so the "
    "program is right and only uses more memory; harmless on CPU (donation saves memory on "
    "GPU and TPU), or drop donate_argnums there"
)


def _donation(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["don_other"] or m["don_other_low"]:
        yield from _other_words(log, m)
        return
    said = m["don_platform"] or m["don_warned"]
    if said:
        advice = (_NOT_ON_CPU, AdviceKind.HARMLESS)
        yield _not_taken(log, m, advice, said.strip("([']").lower(), _WARNED)
        return
    if m["don_call"]:  # `BlockHostUntilReady() called on ...`: the call is named before
        called = re.search(r"(\w+)\(\) $", log.before_on_line(m.start()))
        node = f"{called.group(1)}()" if called else ""
        text = _REUSED.format(what="the array")
    elif m["don_twice"]:
        text = _TWICE.format(first=m["don_first"], second=m["don_twice"])
        node = f"flattened arguments {m['don_first']} and {m['don_twice']}"
    else:
        node = f"argument {m['don_arg']}" if m["don_arg"] else ""
        text = _REUSED.format(what=f"argument {m['don_arg']}" if m["don_arg"] else "the array")
    yield _KIND.failure(
        log,
        m.start(),
        op="donated array",
        advice=(text, AdviceKind.REUSED_DONATION),
        node=node,
        status="INVALID_ARGUMENT",
    )


# A donation refused in other words is JAX's only where the line is a message (a warning, an
# exception, a log record), not prose around it; the platform it names decides the advice.
_MESSAGE_LINE = re.compile(r"Warning\b|Error\b|\bWARNING\b|^[WEI]\d{4} |: [WE] \S+\]|^\s*\S+:\d+: ")
_CPU = re.compile(r"\b(?:cpu|CPU|host)\b")
_UNUSED = (
    "a donated buffer was not used: XLA reuses a donated input only for an output of the same "
    "shape and type (and only on backends that take donations), so that donation saves "
    "nothing; drop it from donate_argnums, or return the updated value in that shape"
)


def _other_words(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    if not _MESSAGE_LINE.search(line):
        return
    if _CPU.search(line):
        yield _not_taken(log, m, (_NOT_ON_CPU, AdviceKind.HARMLESS), "cpu")
    else:
        yield _not_taken(log, m, (_UNUSED, AdviceKind.UNUSED_DONATION), None)


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
RECOGNISER = Recogniser(Family.JAX_CALL, _OPENING, _donation)
