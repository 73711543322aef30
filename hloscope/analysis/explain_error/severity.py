"""Whether a message is a warning: the program went on, nothing failed.

A log says so in the line's own prefix, not in the message's words: a glog ``W`` level
(``W0000 00:00:1743049449.558286  647036 pjrt_api.cc:99]``, TF's ``2025-05-18 21:59:55.086788:
W external/...]``), Python's warnings (``mlir.py:1233: UserWarning: ...`` and the
``warnings.warn(...)`` line after it), and the logging module's ``WARNING:root:``,
``WARNING:absl:``, ``WARNING:2024-06-25 ...:jax._src.pjit:1365:``. The same words at an ``E``
or ``F`` level, or raised as an exception, are a failure; so is TensorFlow's ``OP_REQUIRES
failed at`` line, which it logs at the ``W`` level before it raises the op's error.
"""

from __future__ import annotations

import re

__all__ = ["is_warning_at"]

_WARNING_PREFIX = re.compile(
    # glog: W1206 10:20:31.802999  3709 file.cc:76]  /  TF: 2025-05-18 21:59:55.08: W file]
    r"^\s*W\d{4} \d\d:\d\d:\d\d[.\d]*\s+\d+\s+\S+:\d+\]"
    r"|^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*: W \S+\]"
    # Python's warnings module: "file.py:12: UserWarning: ..."
    r"|^\S*:\d+: \w*Warning: "
    r"|^\s*(?:[\w.]+\.)?\w*Warning: "
    # The logging module: "WARNING:root:", "WARNING:2024-06-25 00:34:55,143:jax._src...:"
    r"|^\s*WARNING:",
    # (each line's start: the pattern is matched from a line's start inside the log, where
    # '^' without MULTILINE would match only at the log's own first character)
    re.M,
)
# TensorFlow logs an op's error status at the W level before it raises it ("W
# .../op_kernel.cc:1841] OP_REQUIRES failed at xla_ops.cc:577 : INVALID_ARGUMENT: ..."): the
# op failed, whatever the level.
_FAILED_OP = re.compile(r"OP_REQUIRES failed at ")
# The source line Python's warnings module shows under a warning it printed.
_WARN_CALL = re.compile(r"^\s+warnings\.warn\(", re.M)
# An exception raised from a warning class is a failure (warnings turned into errors).
_RAISED = re.compile(r"^\s*Traceback \(most recent call last\):", re.M)


def is_warning_at(text: str, pos: int) -> bool:
    """Whether the message at ``pos`` of ``text`` was printed as a warning: its line's prefix
    is a warning's, or the line after it is the ``warnings.warn(`` Python shows."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    if _WARNING_PREFIX.match(text, start, end):
        if _FAILED_OP.search(text, start, end):
            return False
        return not _raised_just_before(text, start)
    following = _next_lines(text, end, 2)
    return _WARN_CALL.search(following) is not None


def _next_lines(text: str, end: int, count: int) -> str:
    stop = end
    for _ in range(count):
        found = text.find("\n", stop + 1)
        stop = len(text) if found < 0 else found
    return text[end:stop]


def _raised_just_before(text: str, start: int) -> bool:
    """Whether the line ends a traceback (``Traceback (most recent call last):`` a few frames
    above, with no blank line between): a warning class raised as an exception."""
    window = text[max(0, start - 4096) : start]
    head = list(_RAISED.finditer(window))
    return bool(head) and "\n\n" not in window[head[-1].end() :]
