"""A GPU kernel's dot below Triton's smallest tile: every dimension at least 16.

Triton's ``tl.dot`` (what Pallas's Triton lowering and jax-triton kernels compile a matmul
to) runs on the tensor cores' tiles, and refuses operands with a dimension under 16:

* ``ValueError: all dimensions of x and y must be >= 16`` (Pallas's Triton lowering of
  ``dot_general``, JAX 0.4.2x);
* ``AssertionError: Input shapes should have M >= 16, N >= 16 and K >= 16`` (Triton's own
  check in its ``dot``, under any front end).

Kind :attr:`~.record.Family.PALLAS`: a GPU kernel that did not lower. The op is the matmul;
the fix is its shapes -- pad the small operand (a vector to a 16-wide block) or compute the
product without a dot (a broadcast multiply and a sum).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _triton_dot(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    fixes = [
        (AdviceKind.FIX_SHAPES, _TEXT.pad),
        (AdviceKind.REPLACE_OP, _TEXT.no_dot),
    ]
    yield _KIND.failure(
        log, m.start(), op="dot_general", fixes=fixes, device="gpu", platform=platform_of("gpu")
    )


_KIND = Kind(Family.PALLAS, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(Family.PALLAS, _RE.opening, _triton_dot)
