"""Where in the user's code: the innermost frame of a stack that is the user's own, else the
line JAX names ("from line FILE:N (fn)"), else the innermost library line outside JAX, NumPy
and TensorFlow themselves (the line that called into them)."""

from __future__ import annotations

import re

from ...hlo.metadata import StackFrame
from ..provenance import is_user_frame

__all__ = ["user_source", "best_source", "caller_of_framework", "FROM_LINE"]

#: JAX's provenance of a traced value: ``from line /path/model.py:127 (fn)``, ``was created on
#: line /path/model.py:12 (fn)``.
FROM_LINE = re.compile(
    r"(?:from|on) line:?\s+(?P<file>[^\s:]+(?::[\\/][^\s:]+)?\.py):(?P<line>\d+)(?::\d+)?"
    r"(?: \((?P<fn>[^)\n]*)\))?"
)
# Frames inside the frameworks themselves: never the line to fix.
_FRAMEWORK = re.compile(
    r"[\\/](?:jax|jaxlib|numpy|tensorflow|keras|flax|optax|torch|torch_xla|absl)[\\/]"
    r"|^<__array_function__|^<frozen |[\\/]python3\.\d+[\\/](?!site-packages|dist-packages)"
)


def user_source(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost user frame of ``stack`` (innermost first)."""
    frame = next((f for f in stack if is_user_frame(f)), None)
    return f"{frame.file}:{frame.line}" if frame else None


def best_source(stack: list[StackFrame], from_lines: list[StackFrame]) -> str | None:
    """The line to fix: a user frame of the traceback, else a user frame JAX's "from line"
    names, else the first "from line", else the innermost traceback frame outside the
    frameworks (a library's line that called NumPy on a tracer)."""
    found = user_source(stack) or user_source(from_lines)
    if found:
        return found
    if from_lines:
        return f"{from_lines[0].file}:{from_lines[0].line}"
    outside = next((f for f in stack if not _FRAMEWORK.search(f.file)), None)
    return f"{outside.file}:{outside.line}" if outside else None


def caller_of_framework(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost frame outside the frameworks: where a NumPy or Python
    conversion was called on a traced value (the line to change, the user's or a library's)."""
    outside = next((f for f in stack if not _FRAMEWORK.search(f.file)), None)
    return f"{outside.file}:{outside.line}" if outside else None
