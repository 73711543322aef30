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
from ..build import jax_message_failure
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    # JAX's warning whose second line says why no donation was usable: the platform takes
    # none. Read whole, before :mod:`.jax_call` reads its first line alone.
    r"Some donated buffers were not usable: [^\n]{0,2000}\n(?:[^\n]*\n)?Donation is not "
    r"implemented for (?P<don_warned>[(\[]?'?\w+'?)"
    r"|Invalid buffer passed(?: to Execute\(\) as argument (?P<don_arg>\d+) to replica \d+)?: "
    r"(?:INVALID_ARGUMENT: )?(?P<don_why>buffer has been deleted or donated|Donation requested "
    r"for invalid buffer)"
    r"|c(?P<don_call>alled on deleted or donated buffer)"
    r"|Attempt to donate the same buffer twice in Execute\(\) \(flattened argument "
    r"(?P<don_twice>\d+)[^)\n]*?first use: (?P<don_first>\d+)\)"
    r"|Donation is not implemented for (?P<don_platform>[(\[]?'?\w+'?)",
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
_NOT_ON_CPU = (
    "this jaxlib's CPU backend takes no donations: JAX warns and copies instead, so the "
    "program is right and only uses more memory; harmless on CPU (donation saves memory on "
    "GPU and TPU), or drop donate_argnums there"
)


def _donation(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    said = m["don_platform"] or m["don_warned"]
    if said:
        platform = said.strip("([']").lower()
        yield jax_message_failure(
            Family.JAX_CALL,
            log,
            m.start(),
            op="donation",
            reason=Reason.RUNTIME,
            advice=(_NOT_ON_CPU, AdviceKind.HARMLESS),
            device=platform,
            platform=Platform.CPU if platform == "cpu" else None,
            hints=["a warning, not a failure: the call ran"],
        )
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
    yield jax_message_failure(
        Family.JAX_CALL,
        log,
        m.start(),
        op="donated array",
        reason=Reason.RUNTIME,
        advice=(text, AdviceKind.REUSED_DONATION),
        node=node,
        status="INVALID_ARGUMENT",
    )


RECOGNISER = Recogniser(Family.JAX_CALL, _OPENING, _donation)
