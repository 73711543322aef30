"""A PJRT plugin without a method of the PJRT API the installed jax calls.

A device plugin (Apple's jax-metal, IREE's, a vendor's) implements PJRT's C API as of the release
it was built against; a newer jax calls methods it lacks, and the plugin answers UNIMPLEMENTED
with the method's name: ``UNIMPLEMENTED: default_memory_space is not supported.`` (jax-metal 0.1.1
under jax 0.5.1: every array op fails), ``Unexpected error status .../stubs.inc:5:
UNIMPLEMENTED; PJRT_Plugin_Attributes`` (IREE's plugin under jax 0.4.2x). Nothing in the
program is wrong: the plugin and jax are of releases that do not go together, as where their
PJRT API versions are said to mismatch (:mod:`.backend_startup`). Kind
:attr:`~.record.Family.BACKEND_STARTUP`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _plugin_api(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    method = m["pa_api"] or m["pa_method"]
    yield _KIND.failure(
        log,
        m.start(),
        op=method,
        advice=(_TEXT.install.format(method=method), AdviceKind.INSTALL),
        status="UNIMPLEMENTED",
    )


_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _plugin_api)
