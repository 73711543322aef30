"""Where in the user's code: the innermost frame of a stack that is the user's own."""

from __future__ import annotations

from ...hlo.metadata import StackFrame
from ..provenance import is_user_frame


def user_source(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost user frame of ``stack`` (innermost first)."""
    frame = next((f for f in stack if is_user_frame(f)), None)
    return f"{frame.file}:{frame.line}" if frame else None
