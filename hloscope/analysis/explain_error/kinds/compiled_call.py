"""A compiled executable called with arguments of other types than it was compiled for:
``Argument types differ from the types for which this computation was compiled ... The
mismatches are:\\nArgument 'x' compiled with float32[3] and called with float32[4]`` (JAX
0.4.3x on), ``Computation was compiled for different input types and called with different
types. One of the mismatches is:\\nCompiled with:\\n ShapedArray(float32[3])\\ncalled
with:\\n ShapedArray(float32[4])`` (older), ``Computation compiled for 2 inputs but called
with 1``.

An ahead-of-time executable (``jax.jit(f).lower(x).compile()``) does not retrace: the fix is
the call's arguments, or a compile for them. The first mismatch is read into the advice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_KIND = Kind(Family.JAX_CALL, Reason.RUNTIME, jax_message)
# How far after the opening words the first mismatch may be listed.
_WINDOW = 1200


def _mismatch(log: Log, m: re.Match[str]) -> str:
    """ "x: compiled for float32[3], called with float32[4]" where the message lists one."""
    if m["cc_inputs"]:
        return _TEXT.counts.format(compiled=m["cc_inputs"], called=m["cc_called"])
    window = log.text[m.end() : m.end() + _WINDOW]
    if m["cc_tree"]:
        tree = _RE.tree_mismatch.search(window)
        if tree is None:
            return "other containers or keys than compiled for"
        return _TEXT.tree.format(where=tree["where"], what=tree["what"])
    found = _RE.mismatch.search(window)
    if found is None:
        return ""
    arg = found["arg"] or found["arg2"]
    named = f"argument {arg!r}: " if arg else ""
    compiled, called = found["compiled"] or found["compiled2"], found["called"] or found["called2"]
    return named + _TEXT.types.format(compiled=compiled.strip(), called=called.strip())


def _compiled_call(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    detail = _mismatch(log, m)
    text = _TEXT.advice.format(detail=f" ({detail})" if detail else "")
    yield _KIND.failure(log, m.start(), op="compiled", advice=(text, AdviceKind.FIX_SHAPES))


RECOGNISER = Recogniser(Family.JAX_CALL, _RE.opening, _compiled_call)
