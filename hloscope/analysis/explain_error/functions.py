"""Functions a message is about: the JAX function it names, TensorFlow's chain of functions,
the Keras layer of a node."""

from __future__ import annotations

import re

from ...hlo.metadata import StackFrame
from ..provenance import layer_path
from .log import Log
from .record import FunctionRef
from .user_line import is_users

# `jit(NAME)` as JAX names a jitted function (`jit(spectrum)/eig` in a location or an op_name,
# `jax.jit(step)` in a traceback's source line), and a function that a message names.
_JIT_NAME = re.compile(r"\bp?jit\((?P<name>[A-Za-z_][\w.]*|<lambda>)[,)]")
_NAMED_FUNCTION = re.compile(r"\bFunction '(?P<name>[^'\n]+)'")
# Frames whose function is not a function the user named.
_NOT_A_FUNCTION = ("<module>", "<lambda>", "<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>")


def paragraph_end(log: Log, pos: int) -> int:
    """The end of the paragraph at ``pos`` (a blank line, or 4 KiB on): a message's own text,
    such as the ``Examples are:`` lines of an export refusal or the HLO a verifier quotes."""
    end = log.text.find("\n\n", pos, pos + 4096)
    return min(len(log.text), pos + 4096) if end < 0 else end


def jax_function(log: Log, start: int, end: int, stack: list[StackFrame]) -> str:
    """The JAX function a message is about, where the log says: a name in the message itself
    (``Function 'f'``, ``jit(f)`` in a location or op_name between ``start`` and ``end``), else
    the innermost user frame's function, else the nearest ``jit(f)`` in the traceback's source
    lines before the message; ``""`` when none says."""
    named = _NAMED_FUNCTION.search(log.text, start, end)
    if named:
        return named["name"]
    in_message = [m["name"] for m in _JIT_NAME.finditer(log.text, start, end)]
    if in_message and in_message[0] != "<lambda>":
        return in_message[0]
    user = next((f for f in stack if is_users(f)), None)
    if user is not None and user.function and user.function not in _NOT_A_FUNCTION:
        return user.function
    head = log.traceback_start(start)
    before = [m["name"] for m in _JIT_NAME.finditer(log.text, head, start)]
    named_before = [name for name in before if name != "<lambda>"]
    if named_before:
        return named_before[-1]
    return (in_message or before or [""])[0]


def function_chain(function: str) -> list[FunctionRef]:
    return [FunctionRef(function, function)] if function else []


_CHAIN = re.compile(r"tf2xla conversion failed while converting (?P<fn>[^\s\[.']+)")
_OUTER_OP = re.compile(r"\[Op:(?P<fn>[^\]\s]+)\]")


def tf_layer(node: str) -> str | None:
    """The Keras layer of a node (``sequential_1/dense_2/MatMul`` -> ``sequential_1/dense_2``),
    when its name scopes look like layers (made unique with ``_N``)."""
    scopes = node.split("/")[:-1]
    if not any(re.fullmatch(r".+_\d+", s) for s in scopes if s != "gradient_tape"):
        return None
    return layer_path(node) or None


def tf_chain(log: Log, start: int, end: int, inner: list[str]) -> list[FunctionRef]:
    """The functions around the op, innermost first: nested ``function_node`` tags, then the
    ``tf2xla conversion failed while converting F`` lines and the eager ``[Op:F]``."""
    ids = [*inner]
    ids += [m["fn"] for m in _CHAIN.finditer(log.text, start, end)]
    ids += [m["fn"] for m in _OUTER_OP.finditer(log.text, start, end)]
    return [FunctionRef.of(i) for i in dict.fromkeys(ids)]
