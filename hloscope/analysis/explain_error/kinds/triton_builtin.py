"""A Triton builtin called where no Triton kernel is being built.

Triton's language functions (``tl.load``, ``tl.where``, ...) build IR, and refuse to run
without the builder a ``@triton.jit`` compile passes them, in Triton's own words:

* ``Did you forget to add @triton.jit ? (`_semantic` argument must be provided outside of JIT
  functions.)`` (Triton 3.5 on);
* ``Did you forget to add @triton.jit ? (`_builder` argument must be provided outside of JIT
  functions.)`` (before).

A kernel library's helper written for another Triton release (passing ``_builder`` where the
installed Triton asks ``_semantic``) fails so, as does a builtin called from plain Python.
Kind :attr:`~.record.Family.PALLAS`: a GPU kernel (Triton's, under JAX's Pallas or
jax-triton) that did not build.
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


def _triton_builtin(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    text = _TEXT.builder.format(argument=m["tb_arg"] or "builder")
    yield _KIND.failure(
        log,
        m.start(),
        op="triton.jit",
        advice=(text, AdviceKind.OTHER),
        device="gpu",
        platform=platform_of("gpu"),
    )


_KIND = Kind(Family.PALLAS, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(Family.PALLAS, _RE.opening, _triton_builtin)
