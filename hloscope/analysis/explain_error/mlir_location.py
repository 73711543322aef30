"""What an MLIR location says: the op that failed and the lines that made it.

Mosaic and JAX's lowering print where an op came from as an MLIR location:
``loc("/dot_general"(callsite("_flash_attention"("/path/kernel.py":204:11) at callsite(...))))``
-- the op's name stack first (its last component the primitive, ``dot_general``), then the
call sites, innermost first, each a function and a ``"file":line``. The op is read from the
name stack, the line to fix is the innermost call site in the user's own code (a call site
inside an installed library -- site-packages, dist-packages, a framework's folder -- is not).
"""

from __future__ import annotations

import re

from ...hlo.metadata import StackFrame
from .user_line import is_users

__all__ = [
    "location_op",
    "location_frames",
    "location_source",
    "source_in_locations",
    "op_in_frames",
    "diagnostic_op",
    "op_in_locations",
]

# The name stack that opens a location: loc("jit(f)/jit(main)/dot_general"(...
_NAME_STACK = re.compile(r'^\s*"(?P<stack>[^"\n]*)"')
_CALL_SITE = re.compile(r'callsite\("(?P<fn>[^"\n]*)"\("(?P<file>[^"\n]+)":(?P<line>\d+)')
_FILE_LINE = re.compile(r'"(?P<file>[^"\n]+\.py)":(?P<line>\d+)')
# A primitive's name: the name stack's last component, its parameters ([...]) dropped.
_PRIMITIVE = re.compile(r"[A-Za-z_][\w.-]*")


def location_op(loc: str) -> str | None:
    """The primitive a location's name stack ends with (``dot_general``), if it names one."""
    stack = _NAME_STACK.match(loc)
    if stack is None:
        return None
    last = stack["stack"].split("[", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    name = _PRIMITIVE.match(last)
    return name.group() if name else None


def location_frames(loc: str) -> list[StackFrame]:
    """The call sites of a location, innermost first (a bare ``"file":line`` when it has no
    call sites)."""
    frames = [StackFrame(m["file"], int(m["line"]), m["fn"]) for m in _CALL_SITE.finditer(loc)]
    if frames:
        return frames
    return [StackFrame(m["file"], int(m["line"]), "") for m in _FILE_LINE.finditer(loc)]


def location_source(loc: str) -> str | None:
    """``file:line`` of the innermost call site in user code, if any."""
    frame = next((f for f in location_frames(loc) if is_users(f)), None)
    return f"{frame.file}:{frame.line}" if frame else None


# Where an MLIR location opens in a message: `at loc("jit(f)/add"(callsite(...`, or, as
# MLIR's own diagnostics print it, without `loc`: `error: "jit(f)/add"(callsite(...`, or a
# name location around one file location, the op's own line with no call sites (Mosaic's
# `error: "/transpose[permutation=(1, 0)]"("/root/k.py":16:0): ...`, JAX's with one frame
# kept: `"jit(f)/add"("f"("/x.py":13:11 to :20))`).
_LOC = re.compile(r'\bloc\(|\(callsite\(|"[^"\n]*"\("[^"\n]+":\d+')


def source_in_locations(text: str) -> str | None:
    """``file:line`` of the first user call site of an MLIR location ``text`` prints (a
    verifier's or a lowering's message quoting the op with its location), each location
    read to its line's end."""
    for found in _LOC.finditer(text):
        end = text.find("\n", found.end())
        source = location_source(text[found.start() : end if end >= 0 else len(text)])
        if source:
            return source
    return None


def op_in_frames(stack: list[StackFrame]) -> str | None:
    """The primitive of the innermost frame of ``stack`` that is an MLIR location made a
    Python frame: JAX's Mosaic error handling gives a kernel's failing op the traceback of its
    location, the op's name before the function's in the innermost frame
    (``in dot_general"("matmul_kernel``, ``in reshape/reshape"(callsite("k``)."""
    for frame in stack:
        name, quoted, _ = frame.function.partition('"(')
        if quoted:
            return location_op(f'"{name}"')
    return None


# MLIR's diagnostic about an op names it quoted, dialect first, before the word "op":
# `'tpu.matmul' op Unsupported input data type`, `'vector.transpose' op Padded transposes`.
_DIAGNOSTIC_OP = re.compile(r"'(?P<op>[a-z_]\w*\.[a-z_][\w.]*)' op\b")


def diagnostic_op(text: str) -> str | None:
    """The op the first MLIR diagnostic in ``text`` is about (``tpu.matmul``), if any."""
    found = _DIAGNOSTIC_OP.search(text)
    return found["op"] if found else None


# Where a location's name stack opens: after `loc(`, or a name before its call sites or its one
# file location (`"/transpose[...]"("/root/k.py":16:0)`, `"jit(f)/add"(callsite(`).
_NAMED_LOC = re.compile(r'\bloc\((?=")|(?="[^"\n]*"\((?:callsite\(|"[^"\n]+":\d+))')


def op_in_locations(text: str) -> str | None:
    """The primitive of the first MLIR location in ``text`` whose name stack names one."""
    for found in _NAMED_LOC.finditer(text):
        op = location_op(text[found.end() :])
        if op:
            return op
    return None
