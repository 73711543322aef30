"""A Pallas call whose BlockSpecs do not fit its arrays or its grid, refused before any kernel
is lowered (so on every platform, interpret mode included):

* ``Block shape for args[0] (= (Blocked(block_size=4), Blocked(block_size=4))) must have the
  same number of dimensions as the array shape (16,)`` (and without "for args[N]");
* an ``index_map`` that does not take one index per grid axis: Python's own ``TypeError:
  <lambda>() takes 1 positional argument but 2 were given`` (or ``missing 1 required positional
  argument``), read as Pallas's only where the
  traceback's last lines call ``index_map`` (the message's structure, not its words, says
  whose error it is).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_KIND = Kind(Family.PALLAS, Reason.TRACING, jax_message)
# How far back the traceback's frames may name the index_map (two frames, with source lines).
_FRAMES_BACK = 600
# How far back pallas_call's tracing of the kernel may be (its frame, then Pallas's wrappers).
_KERNEL_BACK = 1500


def _pallas_specs(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["ps_block"]:
        rank = len(_RE.block_entry.findall(m["ps_block"])) or m["ps_block"].count(",") + 1
        text = _TEXT.rank.format(
            which=m["ps_arg"] or "an operand", block=rank, shape=m["ps_shape"].rstrip(".")
        )
        yield _KIND.failure(log, m.start(), op="pallas_call", advice=(text, AdviceKind.FIX_SHAPES))
        return
    frames = log.text[max(0, m.start() - _FRAMES_BACK) : m.start()]
    kernel = _RE.kernel_frame.search(log.text, max(0, m.start() - _KERNEL_BACK), m.start())
    named = _RE.called.search(log.before_on_line(m.start()))
    if kernel and named and not _RE.index_map_frame.search(frames):
        # The kernel itself, called with one ref per input, output and scratch buffer.
        text = _TEXT.kernel_refs.format(kernel=named["fn"])
        yield _KIND.failure(log, m.start(), op=named["fn"], advice=(text, AdviceKind.OTHER))
        return
    if not _RE.index_map_frame.search(frames):
        return  # a function given the wrong arguments, not a BlockSpec's index_map
    if m["ps_missing"]:
        detail = _TEXT.missing.format(missing=m["ps_missing"])
    else:
        detail = _TEXT.takes.format(takes=m["ps_takes"], given=m["ps_given"])
    text = _TEXT.arity.format(detail=detail)
    yield _KIND.failure(log, m.start(), op="pallas_call", advice=(text, AdviceKind.FIX_SHAPES))


RECOGNISER = Recogniser(Family.PALLAS, _RE.opening, _pallas_specs)
