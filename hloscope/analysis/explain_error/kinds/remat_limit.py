"""XLA's rematerialization could not bring the program under the device's memory limit.

XLA's compiler warns ``Can't reduce memory use below 18.88GiB (20266891105 bytes) by
rematerialization; only reduced to 41.43GiB (44490724824 bytes), down from 45.92GiB (...)
originally`` (hlo_rematerialization.cc) when the compiled program needs more memory than the
device allows; the allocation then fails as the program runs. Where that failure is in the log
it is read where it stands, with the warning (:func:`.out_of_memory.program_over_limit`); where
the log keeps the warning alone (the error cut from a paste), the warning is the failure: the
program is over the limit by the figures it gives. A limit of 0 B is none known (no reading);
a negative one means the program's fixed buffers alone exceed the device. Kind
:attr:`~.record.Family.OUT_OF_MEMORY`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....units import format_bytes
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far after the warning a failure it comes before is looked for.
_AFTER = 1 << 20


def _remat_limit(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    limit, to = int(m["rl_limit"]), int(m["rl_to"])
    if limit == 0 or to <= limit:
        return  # no limit known, or the pass reached it: nothing is over
    if _RE.failure_after.search(log.text, m.end(), m.end() + _AFTER):
        return  # the allocation that failed follows: read there, with this warning
    why = _TEXT.negative if limit < 0 else ""
    said = {"to": format_bytes(to), "limit": format_bytes(limit), "why": why}
    yield _KIND.failure(
        log,
        m.start(),
        op="rematerialization",
        fixes=[
            (AdviceKind.SMALLER_BATCH, _TEXT.over.format(**said)),
            (AdviceKind.BIGGER_DEVICE, _TEXT.bigger.format(**said)),
        ],
    )


_KIND = Kind(Family.OUT_OF_MEMORY, Reason.OUT_OF_MEMORY, log_line)
RECOGNISER = Recogniser(Family.OUT_OF_MEMORY, _RE.opening, _remat_limit)
