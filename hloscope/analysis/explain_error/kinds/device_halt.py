"""A TPU core halted as the program ran, stopped by a check on the device itself.

``INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps
due to an on-device check-failure. Node 0 halted unexpectedly at tag:pc
TensorCoreSequencer:2:0x4828 (...): BoundsCheck 4 [deref of %s140] for %151 =
dma.hbm_to_vmem ...`` then ``hlo: ragged_paged_attention.64``: the TPU's sequencer stopped on a
check compiled into the program -- a DMA's bounds check (a kernel handed indices past its
buffers), a Pallas kernel's own ``pl.debug_check``, or the launch group out of step between
hosts (``scheckne: An unexpected peer shows up in the launch group``). Read by the runtime's
words, whatever wraps them; the HLO instruction it names (``hlo: X``, ``HLO: X, ...``) is the
op; the platform is the TPU (its TensorCore's sequencer). The runtime's words around the
device's stand alone where the device said nothing more: ``INTERNAL: Core halted unexpectedly:
No error message available as no compiler metadata was provided.``, ``FAILED_PRECONDITION: The
program continuator has halted unexpectedly.``: the same halt, with no check to name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far after the halt its HLO instruction is looked for.
_HLO_WINDOW = 1024
# How much of the log is searched for a sign of XLA.
_XLA_LOG_SCAN = 1 << 20


def _device_halt(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["bare"] and _RE.xla_log.search(log.text, 0, _XLA_LOG_SCAN) is None:
        return  # the runtime's words with no sign of XLA around them: not ours to read
    end = log.line_end(m.start())
    line = log.text[m.start() : end]
    hlo = _RE.hlo.search(log.text, m.start(), min(len(log.text), m.end() + _HLO_WINDOW))
    op = hlo["hlo"] if hlo else "TPU core halt"
    check = _RE.check.search(line)
    if _RE.hosts.search(log.text, m.start(), min(len(log.text), end + 400)):
        advice = (_TEXT.hosts, AdviceKind.CHECK_HOSTS)
    elif m["bare"] and hlo is None and check is None:
        advice = (_TEXT.bare.format(said=m["bare"]), AdviceKind.REPORT_BUG)
    else:
        said = f" ({check['check']})" if check else ""
        at = f" in {op}" if hlo else ""
        advice = (_TEXT.advice.format(check=said, at=at), AdviceKind.REPORT_BUG)
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advice,
        device="tpu",
        platform=Platform.TPU,
    )


_KIND = Kind(Family.XLA_CRASH, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _device_halt)
