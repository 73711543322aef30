"""A serialized JAX module run on a platform it was not exported for, in TensorFlow's words.

jax2tf's native serialization (and TF's loading of a ``jax.export`` artifact) wraps the
StableHLO module in an ``XlaCallModule`` op that records the platforms it was lowered for;
run elsewhere, the op refuses (XLA's ``xla_call_module_loader``, TF's kernel):

* ``The current platform CUDA is not among the platforms required by the module: [CPU]``
  (a SavedModel exported on a CPU, served on a GPU);
* ``The current platform CPU is not among the platforms required by the module: [CUDA]``
  (the other way: a GPU-only export where TensorFlow placed the op on the CPU).

Kind :attr:`~.record.Family.JAX_EXPORT`: the artifact was exported for other platforms than
the one running it. The device is the current platform the message names.
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
# XLA's platform names as the loader prints them, by the device they run on.
_DEVICES = {"cuda": "gpu", "rocm": "gpu", "cpu": "cpu", "tpu": "tpu"}


def _call_module_platform(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    current, required = m["cm_current"], m["cm_required"]
    device = _DEVICES.get(current.lower())
    text = _TEXT.platforms.format(current=current, required=required)
    yield _KIND.failure(
        log,
        m.start(),
        op="XlaCallModule",
        advice=(text, AdviceKind.OTHER),
        device=device,
        platform=platform_of(device),
    )


_KIND = Kind(Family.JAX_EXPORT, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(Family.JAX_EXPORT, _RE.opening, _call_module_platform)
