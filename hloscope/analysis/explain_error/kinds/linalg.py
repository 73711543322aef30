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
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_OPENING = re.compile(r"Nonsymmetric eigendecomposition is only implemented on the CPU backend")
# The accelerator a log names before the message (the device it ran on).
_ON_DEVICE = re.compile(r"\b(TPU|GPU|tpu|gpu|cuda|CUDA)\b")
_LOOK_BACK = 4096
_ADVICE = (
    "this JAX decomposes general (nonsymmetric) matrices on the CPU only: use jnp.linalg.eigh "
    "when the matrix is symmetric or Hermitian; else compute eig on the host (before the "
    "jitted call, or jax.pure_callback with numpy.linalg.eig inside it), or upgrade jax, "
    "whose later releases run eig on GPUs"
)


def _eig(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    named = _ON_DEVICE.findall(log.text, max(0, m.start() - _LOOK_BACK), m.start())
    device = named[-1].lower() if named else None
    yield _KIND.failure(
        log,
        m.start(),
        op="eig",
        advice=(_ADVICE, AdviceKind.REPLACE_OP),
        device=device,
        platform=platform_of(device),
        hints=["JAX decomposes general (nonsymmetric) matrices on the CPU only"],
    )


_KIND = Kind(Family.MISSING_LOWERING, Reason.NO_LOWERING, jax_message)
RECOGNISER = Recogniser(Family.MISSING_LOWERING, _OPENING, _eig)
