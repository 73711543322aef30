"""JAX's compile log showing one function traced more than once: a recompile.

With ``jax_log_compiles`` (``JAX_LOG_COMPILES=1``) JAX logs each trace of a jitted function,
``Finished tracing step for jit in 0.0021 sec`` (JAX 0.10; before, ``Finished tracing +
transforming multiply for pjit in ...``), then the compile it leads to (``Compiling jit(step)
with global shapes and types (ShapedArray(float32[3]),)``). Every trace is a cache miss, so a
name traced twice in one log was compiled again: the log is a recompile, whatever else it holds.
Read once per log, from its first trace line: each name traced more than once is a recompile
(a warning, not a failure: a real error in the same log comes first), the argument types of
its compiles saying whether a new shape or a new function object made it. A log in which each
function is traced once shows no recompile and is not read. Kind
:attr:`~.record.Family.RECOMPILE`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far after a trace line its compile's line is looked for.
_COMPILE_AFTER = 2048


def _compile_log(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if _RE.opening.search(log.text, 0, m.start()):
        return  # the log was read from its first trace line
    traces: dict[str, list[re.Match[str]]] = defaultdict(list)
    for trace in _RE.opening.finditer(log.text, m.start()):
        traces[trace["cl_fn"]].append(trace)
    for fn, found in traces.items():
        if len(found) < 2:
            continue
        types = [_types(log, f) for f in found]
        seen = list(dict.fromkeys(t for t in types if t))
        if len(seen) > 1:
            why = _TEXT.new_shapes.format(shapes="; ".join(seen[:3]))
        else:
            why = _TEXT.same_shapes
        failure = _KIND.failure(
            log,
            found[1].start(),
            op=fn,
            advice=(
                _TEXT.traced.format(fn=fn, times=len(found), why=why),
                AdviceKind.SEE_RECOMPILES,
            ),
            hints=[f"{fn} traced {len(found)} times"],
        )
        failure.finding.warning = True  # slow, not failed: a real error in the log comes first
        yield failure


def _types(log: Log, trace: re.Match[str]) -> str | None:
    """The argument types of the compile that follows ``trace`` (before the next trace)."""
    end = min(len(log.text), trace.end() + _COMPILE_AFTER)
    following = _RE.opening.search(log.text, trace.end(), end)
    shapes = _RE.shapes.search(log.text, trace.end(), following.start() if following else end)
    return shapes["types"] if shapes else None


_KIND = Kind(Family.RECOMPILE, Reason.TRACING, log_line)
RECOGNISER = Recogniser(Family.RECOMPILE, _RE.opening, _compile_log)
