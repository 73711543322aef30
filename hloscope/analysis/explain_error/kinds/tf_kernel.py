"""A TensorFlow op with no XLA kernel, said outside the "Detected unsupported operations"
message :mod:`.tf2xla` reads: ``NotFoundError: No registered 'Empty' OpKernel for XLA_CPU
devices compatible with node Empty`` (TF 1.x on an XLA device), ``IteratorGetNext:
unsupported op: No registered 'IteratorGetNext' OpKernel for XLA_GPU_JIT devices compatible
with node {{node IteratorGetNext}}`` (auto-clustering's log).

Keyed on the registry's own words (``No registered 'OP' OpKernel for XLA_``); the op and the
XLA device are read from them and the advice is the fixes table's row for the op.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import advise
from ..build import Kind, own_line
from ..catalogue import words_of
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .tf2xla import TF_OPENING

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far back the message this one may be part of can start (its graph, its ops).
_SAME_MESSAGE = 2048


def _tf_kernel(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    start = log.line_start(m.start())
    earlier = log.text.rfind(TF_OPENING, max(0, start - _SAME_MESSAGE), m.start())
    if earlier >= 0 and "\n\n" not in log.text[earlier : m.start()]:
        return  # inside "Detected unsupported operations ...": .tf2xla reads it whole
    op, device = m["kernel_op"], m["kernel_device"]
    platform = platform_of(device.removeprefix("XLA_").removesuffix("_JIT"))
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advise((op,), Reason.NO_KERNEL, str(platform or "")),
        node=m["kernel_tagged"] or m["kernel_node"] or "",
        device=device,
        platform=platform,
    )


_KIND = Kind(Family.TF2XLA, Reason.NO_KERNEL, own_line)
RECOGNISER = Recogniser(Family.TF2XLA, _RE.opening, _tf_kernel)
