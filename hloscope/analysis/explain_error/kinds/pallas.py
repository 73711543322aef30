"""Pallas kernels lowered for a platform that cannot run them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import advise
from ..build import make_failure
from ..device import platform_of
from ..functions import jax_function, paragraph_end
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

_PALLAS = re.compile(
    r"Cannot lower pallas_call on platform: ?(?P<platform>\w+)"
    r"|Only interpret mode is supported on CPU backend"
)


def _pallas(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    device = m["platform"] or "cpu"
    stack = log.traceback_before(m.start())
    function = jax_function(log, m.start(), paragraph_end(log, m.start()), stack)
    yield make_failure(
        Family.PALLAS,
        log,
        m.start(),
        op="pallas_call",
        reason=Reason.NO_LOWERING,
        advice=advise(("pallas_call", "tpu_custom_call"), Reason.NO_LOWERING),
        function=function,
        stack=stack,
        device=device,
        platform=platform_of(device),
        hints=[
            "Pallas kernels run on the GPU or TPU they were written for; elsewhere only "
            "with interpret=True"
        ],
    )


RECOGNISER = Recogniser(Family.PALLAS, _PALLAS, _pallas)
