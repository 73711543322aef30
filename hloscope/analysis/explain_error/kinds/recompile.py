"""A function traced again and again: TensorFlow's ``WARNING:tensorflow:5 out of the last 5
calls to <function Model.make_test_function.<locals>.test_function at 0x...> triggered
tf.function retracing`` and JAX's ``TRACING CACHE MISS at FILE:LINE:COL (where) because:``
explanations (``jax_explain_cache_misses``; later releases add a cost, ``costing 1.2 ms``, or
put the reasons on the lines below without "because:").

The summary says what retraced, how often, and why where the log says (JAX's reasons, TF's
own three guesses); the fix is to see every retrace and what changed in it --
``hloscope recompiles SCRIPT.py`` -- with the usual remedies named.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"out of the last (?P<m>\d+) calls to <function (?P<fn>\S+?) at 0x[0-9a-fA-F]+>"
    r"\s+triggered\s+tf\.function\s+retracing"
    # The header's stable words are "TRACING CACHE MISS at FILE:LINE"; what follows changed
    # between releases (" (where) because:", " (where) costing 1.2 ms because:", no "because:"
    # when the explanation is on the lines below).
    # (The place is left out where a log elides it: "TRACING CACHE MISS ... because:".)
    r"|TRACING CACHE MISS(?: at (?P<file>[^\n]+?\.py):(?P<line>\d+)(?::\d+)?)?"
    r"(?: \((?P<where>[^)\n]*)\))?"
)
# What JAX's explanation says changed, one line each (`never seen function:`, `for f defined
# at ...`, `* key with different input types:`, `* at x, now f32[8] and before f32[4]`).
_NEVER_SEEN = re.compile(r"never seen function:\s*\n\s*(?P<fn>[\w.<>]+) id=")
_FOR_FN = re.compile(r"for (?P<fn>[\w.<>]+) defined at (?P<at>\S+)")
_DEFINED = re.compile(r"defined at (?P<file>[^\s:]+\.py):(?P<line>\d+)")
# JAX's words for a function made anew at each call: a miss no cache can save.
_REDEFINED = re.compile(r"seen another function defined on the same line")
_CHANGE = re.compile(r"^\s*\*\s+(?P<what>[^\n]+)$", re.M)
_RECOMPILES = (
    "run `hloscope recompiles SCRIPT.py` to see every retrace and exactly what changed "
    "(shape, dtype, Python value, a function made anew); usual fixes: make the function once "
    "outside the loop, pass tensors/arrays rather than Python scalars, bucket varying shapes "
    "(TF: input_signature or reduce_retracing=True; JAX: static_argnames for settings)"
)


def _short_name(qualified: str) -> str:
    """``Model.make_test_function.<locals>.test_function`` -> ``test_function``."""
    return qualified.rsplit(".", 1)[-1]


def _recompile(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    hints: list[str] = []
    source = None
    if m["fn"]:
        op = _short_name(m["fn"])
        count = re.search(r"(\d+) $", log.before_on_line(m.start()))
        times = count.group(1) if count else "many"
        hints.append(f"{times} of the last {m['m']} calls to {m['fn']} traced it again")
    else:
        end = min(len(log.text), m.end() + 2048)
        stop = log.text.find("TRACING CACHE MISS", m.end(), end)
        end = stop if stop >= 0 else end
        seen = _NEVER_SEEN.search(log.text, m.end(), end) or _FOR_FN.search(log.text, m.end(), end)
        op = seen["fn"] if seen else m["where"] or "traced function"
        source = f"{m['file']}:{m['line']}" if m["file"] else None
        if not m["file"] or not is_users(StackFrame(m["file"], int(m["line"]), "")):
            # The trace was asked for inside a library (flax.nnx.cond calling lax.cond): the
            # user's line is where the function that missed was defined, when that is theirs.
            defined = _DEFINED.search(log.text, m.end(), end)
            if defined and is_users(StackFrame(defined["file"], int(defined["line"]), "")):
                source = f"{defined['file']}:{defined['line']}"
        if _NEVER_SEEN.search(log.text, m.end(), end):
            hints.append(f"first trace of {op} (never seen function)")
        if _REDEFINED.search(log.text, m.end(), end):
            hints.append(f"{op} is made anew on every call (defined inside a loop or function)")
        hints.extend(c["what"].strip() for c in _CHANGE.finditer(log.text, m.end(), end))
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(_RECOMPILES, AdviceKind.SEE_RECOMPILES),
        function=op,
        source=source,
        error_class=None,
        headline_at=log.line_start(m.start()),
        hints=hints,
    )


_KIND = Kind(Family.RECOMPILE, Reason.TRACING)
RECOGNISER = Recogniser(Family.RECOMPILE, _OPENING, _recompile)
