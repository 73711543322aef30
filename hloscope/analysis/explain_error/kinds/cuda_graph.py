"""A CUDA graph, or the stream capture that records one, failed while the program ran: XLA:GPU
records its command buffers as CUDA graphs, and a kernel an FFI call runs inside them (Warp,
a custom CUDA library) may do what a capture forbids.

``INTERNAL: CUDA error: Failed to end stream capture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED``,
``Failed to create a child graph node and add it to a CUDA graph: CUDA_ERROR_NOT_SUPPORTED``,
Warp's ``Warp CUDA error 900: operation not permitted when stream is capturing (in function
wp_cuda_unload_module, ...)``, EXLA's ``Command buffer has to have a graph executable to be
updated``: read by the words of graphs and captures on a CUDA error's line, whatever the code
(the code alone, without them, is a CUDA library or driver failing to start: that is
:mod:`.cuda_libraries`'). Nothing in the program is wrong: a bug in XLA's command buffers or
in the FFI kernel, to report; XLA_FLAGS=--xla_gpu_enable_command_buffer= turns the graphs off
meanwhile.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["GRAPH_WORDS", "RECOGNISER"]

_RE, _TEXT = words_of(__name__)
#: What a CUDA error's line says of graphs and captures (CUDA's own words and codes), as a
#: regex source: any case (compile it with re.I).
GRAPH_WORDS = _RE.graph.pattern


def _cuda_graph(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    line = log.text[log.line_start(m.start()) : log.line_end(m.start())]
    if not m["exla"] and _RE.graph.search(line) is None:
        return  # a CUDA error of another kind: a library's, the driver's
    what = (m["message"] or m[0]).strip()[:160]
    yield _KIND.failure(
        log,
        m.start(),
        op="CUDA graph",
        fixes=[
            (AdviceKind.REPORT_BUG, _TEXT.advice.format(what=what)),
            (AdviceKind.OTHER, _TEXT.without_graphs),  # the workaround, a flag of XLA's
        ],
        device="gpu",
        platform=Platform.GPU,
    )


_KIND = Kind(Family.XLA_CRASH, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _cuda_graph)
