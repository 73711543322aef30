"""TensorFlow's MLIR bridge: ``The following operations cannot be legalized: tf.X (count: N)``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ...unsupported.findings import Reason
from ..advice import advise
from ..build import Kind
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

# ---- TensorFlow's MLIR bridge -------------------------------------------------------------------

_RE, _TEXT = words_of(__name__)


def _mlir_items(log: Log, pos: int) -> Iterator[tuple[str, int]]:
    while True:
        item = _RE.mlir_item.match(log.text, pos, log.line_end(pos))
        if not item:
            return
        yield item["op"], int(item["count"])
        if not item["more"]:
            return
        pos = item.end()


def _mlir_bridge(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    named = m["single"] or m["failed"] or m["left"]
    if named:
        items: Iterable[tuple[str, int | None]] = [(named, None)]
    elif m["listed"]:
        items = list(_mlir_items(log, m.end()))
    else:  # "cannot be legalized." with no list: the detail lines name the op, if any
        return
    for name, count in items:
        op = name.removeprefix("tf.")
        yield _KIND.failure(
            log,
            m.start(),
            op=op,
            # The op as the message writes it, in its dialect ("tf.Const"); the op is its name.
            node=name,
            advice=advise((op,), Reason.NO_KERNEL),
            count=count,
            hints=[_TEXT.mlir_hint],
            error_class=None,
        )


_KIND = Kind(Family.MLIR_BRIDGE, Reason.NO_KERNEL)
RECOGNISER = Recogniser(Family.MLIR_BRIDGE, _RE.mlir, _mlir_bridge)
