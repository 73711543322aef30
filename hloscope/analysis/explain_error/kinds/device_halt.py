"""A TPU core halted as the program ran, stopped by a check on the device itself.

``INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps
due to an on-device check-failure. Node 0 halted unexpectedly at tag:pc
TensorCoreSequencer:2:0x4828 (...): BoundsCheck 4 [deref of %s140] for %151 =
dma.hbm_to_vmem ...`` then ``hlo: ragged_paged_attention.64``: the TPU's sequencer stopped on a
check compiled into the program -- a DMA's bounds check (a kernel handed indices past its
buffers), a Pallas kernel's own ``pl.debug_check``, or the launch group out of step between
hosts (``scheckne: An unexpected peer shows up in the launch group``). Read by the runtime's
words, whatever wraps them; the HLO instruction it names (``hlo: X``, ``HLO: X, ...``) is the
op; the platform is the TPU (its TensorCore's sequencer).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

# The runtime's own words for the halt (a bare "Core halted unexpectedly" is a status that
# .xla_status reads where the log is XLA's).
_OPENING = re.compile(r"Accelerator device halted prematurely")
# The HLO instruction the halt names, on its line or the next few: "hlo: X", "HLO: X, while.1".
_HLO = re.compile(r"\b(?:hlo|HLO): (?P<hlo>[\w.-]+)")
_HLO_WINDOW = 1024
_HOSTS = re.compile(r"unexpected peer|launch group|different launch id")
_CHECK = re.compile(r"(?P<check>BoundsCheck|scheckne|Check [^\n]{0,80}? failed)")
_ADVICE = (
    "the TPU stopped on a check compiled into the program{check}{at}: a bounds check means an "
    "op (most often a Pallas kernel's DMA) was handed an index past its buffer -- check the "
    "indices passed to it (page tables, offsets) before the call, or run it with "
    "jax_pallas_enable_debug_checks / on CPU (interpret=True) to see which; where the indices "
    "are right, it is a bug in the kernel or XLA to report with the versions "
    "(jax.print_environment_info())"
)
_HOSTS_ADVICE = (
    "the TPU's launch group went out of step: one host ran a different program (or none) "
    "while the others waited, as when only host 0 runs a collective (a print of a sharded "
    "array, a checkpoint under `if process_index == 0`). Make every host run the same "
    "computations in the same order"
)


def _device_halt(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    end = log.line_end(m.start())
    line = log.text[m.start() : end]
    hlo = _HLO.search(log.text, m.start(), min(len(log.text), m.end() + _HLO_WINDOW))
    op = hlo["hlo"] if hlo else "TPU core halt"
    check = _CHECK.search(line)
    if _HOSTS.search(log.text, m.start(), min(len(log.text), end + 400)):
        advice = (_HOSTS_ADVICE, AdviceKind.CHECK_HOSTS)
    else:
        said = f" ({check['check']})" if check else ""
        at = f" in {op}" if hlo else ""
        advice = (_ADVICE.format(check=said, at=at), AdviceKind.REPORT_BUG)
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advice,
        device="tpu",
        platform=Platform.TPU,
    )


_KIND = Kind(Family.XLA_CRASH, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _OPENING, _device_halt)
