"""TensorFlow 2: ``Detected unsupported operations when trying to compile graph G on
XLA_X_JIT: OP (reason){{node N}}``, one op per message, with "The op is created at:"."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ...unsupported.findings import Reason
from ..advice import advise
from ..build import Kind
from ..catalogue import words_of
from ..device import platform_of
from ..functions import tf_chain, tf_layer
from ..log import TF_FRAME, Log
from ..recogniser import Recogniser
from ..record import Failure, Family, FunctionRef

__all__ = ["RECOGNISER", "TF_GRAPH", "TF_OPENING"]

_RE, _TEXT = words_of(__name__)
# The message's opening and its graph, as regex sources that tf1_list and tf_kernel build on.
TF_OPENING = _RE.tf_opening.pattern
TF_GRAPH = _RE.tf_graph.pattern
# Words found as they are (str.find, `in`), not regexes.
_ATTR_MISMATCH = "(OpKernel was found, but attributes didn't match)"
_DETECTED_AT = "Detected at node "


def _requested_dtype(reason_text: str) -> str | None:
    """The dtype a kernel was asked for (``Requested Attributes: T=DT_STRING, ...``); of a
    list (``Tin=[DT_FLOAT, DT_STRING]``) the string or the first unusual one."""
    requested = _RE.requested.search(reason_text)
    if not requested:
        return None
    attrs = requested.group("attrs")
    dtypes = _RE.any_dt.findall(attrs)
    for suspect in ("DT_STRING", "DT_VARIANT", "DT_RESOURCE"):
        if suspect in dtypes:
            return suspect
    typed = _RE.type_attr.search(attrs)
    return typed.group("dtype") if typed else (dtypes[0] if dtypes else None)


def _detected_at_frames(log: Log, pos: int) -> list[StackFrame]:
    """Keras' "Detected at node N defined at (most recent call last):" frames just before
    ``pos`` (used when the message itself has no "The op is created at:")."""
    at = log.text.rfind(_DETECTED_AT, max(0, pos - 8 * 1024), pos)
    if at < 0:
        return []
    frames: list[StackFrame] = []
    for found in TF_FRAME.finditer(log.text, at, pos):
        frames.append(StackFrame(found["file"], int(found["line"]), found["fn"] or ""))
    return frames[::-1]


def _cut(log: Log, m: re.Match[str]) -> Failure | None:
    """The message cut after its graph's name: the op of the node Keras named above it, or
    ``None`` where no node is named (nothing says which op it was)."""
    at = log.text.rfind(_DETECTED_AT, max(0, m.start() - 8 * 1024), m.start())
    named = _RE.detected_node.match(log.text, at) if at >= 0 else None
    if named is None:
        return None
    op = named["name"]
    return _KIND.failure(
        log,
        m.start(),
        op=op,
        reason=Reason.NO_KERNEL,
        advice=advise((op,), Reason.NO_KERNEL),
        node=named["node"],
        stack=_detected_at_frames(log, m.start()) or log.traceback_before(m.start()),
        graph=FunctionRef.of(m["cut"]) if m["cut"] else None,
        layer=tf_layer(named["node"]),
        hints=[_TEXT.cut, _TEXT.first_only],
    )


def _tf2xla(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["op"] is None:
        cut = _cut(log, m)
        if cut is not None:
            yield cut
        return
    text, op, after_op = log.text, m["op"], m.end()
    close = text.find("){{", after_op, min(log.region_end(after_op), after_op + 8 * 1024))
    if close >= 0:
        reason_text = text[after_op:close]
        tags = _RE.tags.match(text, close + 1)
        tag_text, after = (tags.group(), tags.end()) if tags else ("", close + 1)
    else:  # cut off: read the tags inside the reason
        after = log.line_end(after_op)
        reason_text = tag_text = text[after_op:after]
    found_tags = _RE.tag.findall(tag_text)
    node = next((name for kind, name in reversed(found_tags) if kind == "node"), "")
    nested = [name for kind, name in found_tags if kind == "function_node"][::-1]
    mismatch = _ATTR_MISMATCH in reason_text
    reason = Reason.DTYPE if mismatch else Reason.NO_KERNEL
    dtype = _requested_dtype(reason_text) if mismatch else None
    end = log.region_end(after)
    stack = log.frames_after(after, end) or _detected_at_frames(log, m.start())
    if not stack:
        stack = log.traceback_before(m.start())
    chain = tf_chain(log, after, end, [*nested, *([m["graph"]] if m["graph"] else [])])
    hints = [_TEXT.first_only]
    tpu_hint = _RE.tpu_hint.search(text, after, min(end, after + 2048))
    if tpu_hint:
        hints.insert(0, tpu_hint.group())
    if node and mismatch and op == "_Arg":
        arg = _RE.arg_name.search(reason_text)
        hints.insert(0, f"argument {arg['name'] if arg else node!r} has dtype {dtype}")
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        reason=reason,
        advice=advise((op, dtype or ""), reason, str(platform_of(m["device"]) or "")),
        node=node,
        function=chain[0].name if chain else "",
        dtype=dtype,
        stack=stack,
        device=m["device"],
        platform=platform_of(m["device"]),
        graph=FunctionRef.of(m["graph"]) if m["graph"] else None,
        chain=chain,
        layer=tf_layer(node),
        hints=hints,
    )


_KIND = Kind(Family.TF2XLA)
RECOGNISER = Recogniser(Family.TF2XLA, _RE.tf2xla, _tf2xla)
