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
from functools import lru_cache

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
    if m["pt_access"] or m["pt_often"]:
        failure = _torch_xla(log, m)
        if failure is not None:
            yield failure
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
        if seen and seen.re is _RE.never_seen and _said_by_another(log, m, op):
            return
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


def _said_by_another(log: Log, m: re.Match[str], fn: str) -> bool:
    """Whether a "never seen function" miss is said better by another miss of the log: its
    first trace, where a later miss traced ``fn`` again; or a function made inside another's
    trace (a scan's body defined in the jitted function), made anew each time the outer one
    is traced again, which the outer one's own miss says why."""
    return _traced_again(log, m.end(), fn) or _inside_retraced(log, m["where"])


def _traced_again(log: Log, after: int, fn: str) -> bool:
    """Whether a later cache miss of the log traced ``fn`` again ("for fn defined at"): the
    first one ("never seen function") was only its first trace."""
    return _last_retrace(log.text).get(fn, -1) > after


def _inside_retraced(log: Log, where: str | None) -> bool:
    """Whether a miss's site is inside a function (``where``: "generate", or a function
    nested in it, "generate.<locals>.step") that a cache miss of the log traced again."""
    if not where:
        return False
    retraced = _last_retrace(log.text)
    return where in retraced or where.split(".", 1)[0] in retraced


@lru_cache(maxsize=4)
def _last_retrace(text: str) -> dict[str, int]:
    """Where each function a cache miss traced again was last named so ("for fn defined at"):
    read once a log, not once a miss (a log of thousands of misses is read in one pass)."""
    return {again["fn"]: again.start() for again in _RE.for_fn.finditer(text)}


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


def _torch_xla(log: Log, m: re.Match[str]) -> Failure | None:
    """PyTorch/XLA's debugging tool on more compiles than steps, or on a compile the program
    caused by reading a tensor before the step's end; ``None`` where its counts are no more
    than its steps, or an earlier line was read."""
    if m["pt_access"]:
        failure = _tensor_read(log, m)
    else:
        if int(m["pt_n"]) <= int(m["pt_steps"]):
            return None  # a compile per step at most: the first steps' own
        earlier = _RE.opening.finditer(log.text, 0, m.start())
        if any(e["pt_often"] and int(e["pt_n"]) > int(e["pt_steps"]) for e in earlier):
            return None  # read from the log's first such line
        said = _TEXT.pt_often.format(n=m["pt_n"], steps=m["pt_steps"])
        advice = (said, AdviceKind.SEE_RECOMPILES)
        failure = _KIND.failure(log, m.start(), op="CompileTime", advice=advice)
    failure.finding.warning = True  # slow, not failed: a real error in the log comes first
    return failure


def _tensor_read(log: Log, m: re.Match[str]) -> Failure:
    """A compile the program caused by reading a tensor mid-step: where, the innermost
    frame of the user's under the tool's "Python Frame Triggered Execution"."""
    end = _RE.pt_end.search(log.text, m.end())
    frames = [
        StackFrame(f["file"], int(f["line"]), f["fn"])
        for f in _RE.pt_frame.finditer(log.text, m.end(), end.start() if end else len(log.text))
    ]
    where = next((frame for frame in frames if is_users(frame)), None)
    said = _TEXT.pt_access.format(
        where=f"{where.function} at {where.file}:{where.line}" if where else "the frames below"
    )
    return _KIND.failure(
        log,
        m.start(),
        op=where.function if where else "tensor access",
        advice=(said, AdviceKind.SEE_RECOMPILES),
        source=f"{where.file}:{where.line}" if where else None,
        headline_at=log.line_start(m.start()),
    )


_KIND = Kind(Family.RECOMPILE, Reason.TRACING)
RECOGNISER = Recogniser(Family.RECOMPILE, _RE.opening, _recompile)
