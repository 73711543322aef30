"""What compiled this: the one line every view says first about a function compiled for a
``--device`` (the command line's note on stderr, the report's first note).

It reads the fields a capture keeps of its compile (:data:`COMPILE_FIELDS`, as
:meth:`hloscope.capture.target.Target.compile_info` returns them), so it words a capture
object and a TARGET alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["COMPILE_FIELDS", "compiled_line"]

#: The fields of a capture that say what compiled its module.
COMPILE_FIELDS = (
    "compiled_for",
    "device",
    "estimate_note",
    "backend",
    "compiled_by",
    "compile_error",
)
#: A backend's name in words, for captures saved before they kept ``compiled_by``; any other
#: compiled with this machine's XLA.
_COMPILERS = {"xla-tpu": "XLA:TPU"}


def compiled_line(info: Mapping[str, Any]) -> str | None:
    """``compiled for TPU v5 lite (tpu-v5e) by XLA:TPU``, or the note of an estimate standing
    in for the device; ``None`` when nothing was compiled for a ``--device`` (a file or dump
    is read as it was compiled, and says nothing)."""
    if info.get("device") is None:
        return None
    if info.get("estimate_note"):
        return str(info["estimate_note"])
    if info.get("compiled_for") is None:
        return None
    # The backend's own words (a registered backend says its compiler), else its name's.
    by = info.get("compiled_by") or _COMPILERS.get(str(info.get("backend")), "this machine's XLA")
    line = f"compiled for {info['compiled_for']} ({info['device']}) by {by}"
    if info.get("compile_error"):
        line += f", which refused it: {info['compile_error']}"
    return line
