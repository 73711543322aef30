"""XLA:GPU's autotuner finding a candidate kernel's results unlike the reference's.

Before it picks a kernel for a GEMM or a fusion, XLA:GPU runs the candidates and compares each
one's output with a reference kernel's, logging every element that differs
(``E0116 21:53:35.782328 160376 buffer_comparator.cc:157] Difference at 2: 0.857876, expected
1.0906``) and then its verdict (``gemm_fusion_autotuner.cc:1138] Results do not match the
reference. This is likely a bug/unexpected loss of precision.``). XLA's own correctness
check, logged as the program goes on: a wrong candidate kernel or a low-precision reference,
not the program's error. Read once per log, from its first such line, as a warning (a real
error in the same log comes first). Kind :attr:`~.record.Family.XLA_CRASH`: XLA's bug to
report, on the GPU.
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


def _autotune_check(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if _RE.opening.search(log.text, 0, m.start()):
        return  # read from the log's first such line
    differing = sum(1 for found in _RE.opening.finditer(log.text) if found["ac_at"])
    where = f" ({differing} elements differ in this log)" if differing else ""
    advice = (_TEXT.mismatch.format(where=where), AdviceKind.REPORT_BUG)
    failure = _KIND.failure(
        log, m.start(), op="autotuner", platform=Platform.GPU, device="gpu", advice=advice
    )
    failure.finding.warning = True  # logged as the program goes on
    yield failure


_KIND = Kind(Family.XLA_CRASH, Reason.COMPILE_ERROR, log_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _autotune_check)
