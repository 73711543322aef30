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
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _short_name(qualified: str) -> str:
    """``Model.make_test_function.<locals>.test_function`` -> ``test_function``."""
    return qualified.rsplit(".", 1)[-1]


def _recompile(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["max_traces"]:
        yield _max_traces(log, m)
        return
    hints: list[str] = []
    source = None
    named = m["fn"] or m["bound"]
    if named:
        op = _short_name(named)
        count = re.search(r"(\d+) $", log.before_on_line(m.start()))
        times = count.group(1) if count else "many"
        hints.append(f"{times} of the last {m['m']} calls to {named} traced it again")
    else:
        end = min(len(log.text), m.end() + 2048)
        stop = log.text.find("TRACING CACHE MISS", m.end(), end)
        end = stop if stop >= 0 else end
        seen = _RE.never_seen.search(log.text, m.end(), end) or _RE.for_fn.search(
            log.text, m.end(), end
        )
        op = seen["fn"] if seen else m["where"] or "traced function"
        source = f"{m['file']}:{m['line']}" if m["file"] else None
        if not m["file"] or not is_users(StackFrame(m["file"], int(m["line"]), "")):
            # The trace was asked for inside a library (flax.nnx.cond calling lax.cond): the
            # user's line is where the function that missed was defined, when that is theirs.
            defined = _RE.defined.search(log.text, m.end(), end)
            if defined and is_users(StackFrame(defined["file"], int(defined["line"]), "")):
                source = f"{defined['file']}:{defined['line']}"
        if _RE.never_seen.search(log.text, m.end(), end):
            hints.append(f"first trace of {op} (never seen function)")
        if _RE.redefined.search(log.text, m.end(), end):
            hints.append(f"{op} is made anew on every call (defined inside a loop or function)")
        hints.extend(c["what"].strip() for c in _RE.change.finditer(log.text, m.end(), end))
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(_TEXT.recompiles, AdviceKind.SEE_RECOMPILES),
        function=op,
        source=source,
        error_class=None,
        headline_at=log.line_start(m.start()),
        hints=hints,
    )


def _max_traces(log: Log, m: re.Match[str]) -> Failure:
    """Equinox's guard on a function traced more often than allowed: what changed is the fix;
    where Equinox could not name it, a newer jax and equinox do."""
    guarded = _RE.guarded_fn.search(log.before_on_line(m.start())[-200:])
    fn = _short_name(guarded["fn"]) if guarded else "the function"
    said = _TEXT.max_traces.format(fn=fn, now=m["mt_now"], most=m["mt_max"])
    fixes = [(AdviceKind.SEE_RECOMPILES, said)]
    if _RE.undetermined.search(log.text, m.end(), log.line_end(m.end()) + 200):
        fixes.append((AdviceKind.INSTALL, _TEXT.undetermined))
    return _KIND.failure(
        log,
        m.start(),
        op=fn if guarded else "assert_max_traces",
        fixes=fixes,
        function=fn if guarded else None,
        headline_at=log.line_start(m.start()),
        hints=[f"traced {m['mt_now']} times, at most {m['mt_max']} allowed"],
    )


_KIND = Kind(Family.RECOMPILE, Reason.TRACING)
RECOGNISER = Recogniser(Family.RECOMPILE, _RE.opening, _recompile)
