"""TensorFlow 1.x: the same opening, then every op comma-separated."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import advise
from ..build import Kind
from ..catalogue import words_of
from ..device import platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family, FunctionRef
from .tf2xla import TF_GRAPH, TF_OPENING

_RE, _TEXT = words_of(__name__)
# tf2xla's opening and graph, then this form's own list of ops.
_TF1_LIST = re.compile(TF_OPENING + TF_GRAPH + _RE.ops.pattern, re.M)


def _tf1_list(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    stack = log.traceback_before(m.start())
    graph = FunctionRef.of(m["graph"])
    counts = Counter(op.strip() for op in m["ops"].split(","))
    for op, count in counts.items():
        yield _KIND.failure(
            log,
            m.start(),
            op=op,
            advice=advise((op,), Reason.NO_KERNEL),
            function=graph.name,
            stack=stack,
            device=m["device"],
            platform=platform_of(m["device"]),
            graph=graph,
            chain=[graph],
            count=count,
            hints=[_TEXT.types_only],
        )


_KIND = Kind(Family.TF1_LIST, Reason.NO_KERNEL)
RECOGNISER = Recogniser(Family.TF1_LIST, _TF1_LIST, _tf1_list)
