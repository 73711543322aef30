"""A multi-host job whose processes never joined JAX's distributed runtime.

``jax.distributed.initialize()`` connects each process to the coordination service that the
hosts meet through (barriers, the key-value store, the global device list). Code that needs
it says so where it was not called, or not first:

* ``RuntimeError: Distributed JAX not initialized.`` (``multihost_utils.live_devices``,
  JAX 0.10.2);
* ``ValueError: Distributed system is not available; please initialize it via
  `jax.distributed.initialize()` at the start of your program.`` (Orbax's checkpointer
  building its cross-host barrier);
* ``jax.distributed.initialize() must be called before any JAX calls that might initialise
  the XLA backend`` (called, but after the backend started: too late).

Kind :attr:`~.record.Family.DISTRIBUTED`: the processes of the job did not meet. The fix is
the job's start-up: ``jax.distributed.initialize()`` on every host, first, with the same
coordinator and process count.
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


def _distributed_init(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    text = _TEXT.too_late if m["di_late"] else _TEXT.initialize
    yield _KIND.failure(
        log, m.start(), op="jax.distributed.initialize", advice=(text, AdviceKind.CHECK_HOSTS)
    )


_KIND = Kind(Family.DISTRIBUTED, Reason.RUNTIME, jax_message)
RECOGNISER = Recogniser(Family.DISTRIBUTED, _RE.opening, _distributed_init)
