"""A general (nonsymmetric) eigendecomposition where JAX has none: the older wording.

JAX before the ``eig`` primitive lowered per platform raised ``NotImplementedError:
Nonsymmetric eigendecomposition is only implemented on the CPU backend. If your matrix is
symmetric or Hermitian, you should use eigh instead.``; later releases say ``MLIR translation
rule for primitive 'eig' not found for platform tpu`` (read by :mod:`.missing_lowering`). Both
are the same failure -- ``eig`` of a general matrix on a GPU or TPU -- with the same advice:
``eigh`` for a symmetric matrix, the host for a general one. The platform is the one the log
names before the message, when it names one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far before the message the device it ran on is looked for.
_LOOK_BACK = 4096


def _eig(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    named = _RE.on_device.findall(log.text, max(0, m.start() - _LOOK_BACK), m.start())
    device = named[-1].lower() if named else None
    yield _KIND.failure(
        log,
        m.start(),
        op="eig",
        advice=(_TEXT.advice, AdviceKind.REPLACE_OP),
        device=device,
        platform=platform_of(device),
        hints=[_TEXT.cpu_only],
    )


_KIND = Kind(Family.MISSING_LOWERING, Reason.NO_LOWERING, jax_message)
RECOGNISER = Recogniser(Family.MISSING_LOWERING, _RE.opening, _eig)
