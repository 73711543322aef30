"""Computations alike but for their names: one number per distinct body in a module.

A deep model's layers are one block of code run many times, so its optimized module often
holds the same fused computation many times over, each copy with its own names
(``param_0.541``, ``add.2307``) and often its own metadata (``op_name="…/layer_17/…"``).
Whatever depends only on what a body computes (its cost, say) can be worked out once per
distinct body: :func:`structure_id` gives every computation of a module a number, equal for
two computations whose bodies are the same but for

* the names of their instructions (operands are compared by position, not by name),
* their ``metadata={…}`` (where it can be told apart from the other attributes for sure),
* the names of the computations they call, where those callees are alike in turn and call
  nothing themselves (a reduction's ``to_apply=%add.12``).

Everything else (shapes with their layouts, opcodes, operand order, attributes, constants,
the root, the execution thread) must be the same, character for character. Two computations
with one number are alike in all of that; two alike computations may still get two numbers
(a callee that calls others is compared by name), which costs a memo a miss, never a wrong
answer.

Most bodies of a module have no twin at all, so the full comparison is made only where two
bodies agree on a quick first test (their length, shapes and opcodes, tuples the parser has
already made); a body alone with its first test gets a number of its own without more work.
Keys are read from the body's text where it is not built yet (a few passes in C over the
parser's columns), else from its instructions, and both ways give the same key.
"""

from __future__ import annotations

import operator
import re
import threading
from collections.abc import Hashable, Sequence
from itertools import compress
from typing import TYPE_CHECKING, Any

from . import _lex
from .opcodes import SINGLE_COMPUTATION_ATTRS

if TYPE_CHECKING:  # pragma: no cover
    from .model import Computation

__all__ = ["structure_id"]

# Ops whose parentheses hold a payload (a parameter number, a literal), not operand names.
_PAYLOAD_OPCODES = frozenset({"parameter", "constant"})
_IS_PAYLOAD = _PAYLOAD_OPCODES.__contains__
_OPCODE = operator.attrgetter("opcode")
_SHAPE_TEXT = operator.attrgetter("shape_text")

# ``metadata={...}`` as XLA prints it: after a line start or a space, no nested braces,
# strings with escapes, followed by the next attribute or the end. Dropped only when nothing
# else in the text is a string (where a string could hold the same characters, the text is
# kept as it is: exact, at the price of a miss).
_METADATA_BODY = r'\{(?:[^{}"\n\\]++|"(?:[^"\\\n]++|\\.)*+")*+\}'
# The last attribute, with the ", " before it; then any other, with the ", " after it. Each
# starts with a literal (searched at memchr speed); possessive runs keep the pass linear.
_LAST_METADATA = re.compile(", metadata=" + _METADATA_BODY + r"(?=\n|\Z)")
_METADATA = re.compile("metadata=(?<![^\n ]metadata=)" + _METADATA_BODY + r"(?:, |(?=\n)|\Z)")
# A callee named by a single-computation attribute (``to_apply=%region_0.12``).
_CALLEE = re.compile(
    r"\b(" + "|".join(SINGLE_COMPUTATION_ATTRS) + r")=%?(" + _lex.NAME + r")(?![\w.\-])"
)
_INDEX_COMMENTS = re.compile(r"/\*index=\d+\*/")

# Numbers are handed out under one lock: two threads interning at once could otherwise give
# two different bodies one number.
_LOCK = threading.RLock()


def structure_id(comp: Computation) -> int:
    """The number of ``comp``'s structure in its module (see the module docstring)."""
    sid = comp._structure
    if sid is None:
        with _LOCK:
            sid = _number(comp)
    return sid


def _number(comp: Computation) -> int:
    sid = comp._structure
    if sid is not None:
        return sid
    module = comp.module
    if module is None:  # a computation on its own: alike only to itself
        sid = comp._structure = -id(comp) - 1
        return sid
    # A first test seen once maps to [number, computation, keyed]; every other key to a number.
    table: dict[tuple[object, ...], Any] = module._structures
    first_test = ("first test", *_first_test(comp))
    entry = table.get(first_test)
    if entry is None:
        # Alone so far: a number of its own, its key worked out only if a twin candidate shows.
        sid = len(table)
        table[first_test] = [sid, comp, False]
    else:
        if not entry[2]:
            table[("key", _key(entry[1]))] = entry[0]
            entry[2] = True
        sid = table.setdefault(("key", _key(comp)), len(table))
    comp._structure = sid
    return sid


def _first_test(comp: Computation) -> tuple[int, Sequence[str], Sequence[str]]:
    body = comp._body  # read once: another thread may build it meanwhile
    if body is not None:
        return (len(body), body.column(2), body.column(3))
    instructions = comp.instructions
    return (
        len(instructions),
        tuple(map(_SHAPE_TEXT, instructions)),
        tuple(map(_OPCODE, instructions)),
    )


def _columns(comp: Computation) -> list | None:
    body = comp._body  # read once: another thread may build it meanwhile
    return getattr(body, "columns", None) if body is not None else None


def _key(comp: Computation) -> Hashable:
    """Everything that makes the body what it is but its names (see the module docstring):
    (thread, root position, shapes, opcodes, operand positions, payloads, attributes)."""
    columns = _columns(comp)
    if columns is not None:
        root, shapes, opcodes, operands, payloads, attributes = _parts_of_columns(columns)
    else:
        root, shapes, opcodes, operands, payloads, attributes = _parts_of_instructions(comp)
    return (
        comp.execution_thread,
        root,
        shapes,
        opcodes,
        operands,
        payloads,
        _attributes_key(comp, attributes),
    )


def _parts_of_columns(columns: list) -> tuple:
    """The key's parts of a body not built yet, from the parser's columns (ROOT, name, shape,
    opcode, operand text, attributes), in passes that run in C."""
    roots, names, shapes, opcodes, texts, attrs = columns
    n = len(names)
    root = next(compress(range(n), roots), n - 1)
    is_payload = list(map(_IS_PAYLOAD, opcodes))
    payloads = tuple(compress(texts, is_payload))
    operand_text = "\n".join(compress(texts, map(operator.not_, is_payload)))
    if "/*" in operand_text:
        operand_text = _INDEX_COMMENTS.sub("", operand_text)
    operand_text = operand_text.replace("%", "").replace(" ", "").replace("\t", "")
    position = dict(zip(names, range(n)))  # names are unique in a checked body
    # Names, each line break kept as an item of its own (it ends an op's operand list), an
    # empty list as "".
    parts = operand_text.replace("\n", ",\n,").split(",")
    operands = tuple(map(position.get, parts, parts))
    return root, shapes, opcodes, operands, payloads, attrs


def _parts_of_instructions(comp: Computation) -> tuple:
    """The same parts from the instructions (a Python loop: bodies read the careful way, or
    built before anyone asked)."""
    instructions = comp.instructions
    position = {id(inst): n for n, inst in enumerate(instructions)}
    root_inst = comp.root
    root = next((n for n, inst in enumerate(instructions) if inst is root_inst), -1)
    operands: list[Hashable] = []
    payloads: list[str | None] = []
    first = True
    for inst in instructions:
        if inst.opcode in _PAYLOAD_OPCODES:
            payloads.append(inst.payload)
            continue
        if not first:
            operands.append("\n")
        first = False
        if inst.operands:
            # An operand outside the body (not valid HLO) is told by its name.
            operands.extend(position.get(id(o), o.name) for o in inst.operands)
        else:
            operands.append("")
    return (
        root,
        tuple(map(_SHAPE_TEXT, instructions)),
        tuple(map(_OPCODE, instructions)),
        tuple(operands) or ("",),
        tuple(payloads),
        [inst.attr_text for inst in instructions],
    )


def _attributes_key(comp: Computation, texts: Sequence[str]) -> Hashable:
    """The attribute texts without metadata and with callees replaced by their structure."""
    joined = "\n".join(texts)
    if joined.count("\n") != max(len(texts) - 1, 0):
        # An attribute written over several lines: each text on its own, or joins could tie.
        return tuple(_attribute_text_key(comp, text) for text in texts)
    return _attribute_text_key(comp, joined)


def _attribute_text_key(comp: Computation, text: str) -> Hashable:
    if "metadata=" in text:
        stripped = _METADATA.sub("", _LAST_METADATA.sub("", text))
        if '"' not in stripped:
            text = stripped
    if "=" not in text or _CALLEE.search(text) is None:
        return text
    module = comp.module
    callees: list[Hashable] = []

    def callee_token(match: re.Match[str]) -> str:
        name = match.group(2)
        callee = module.computations_by_name.get(name) if module is not None else None
        token: Hashable = name
        if callee is not None and callee is not comp and not _calls_any(callee):
            token = _number(callee)  # a leaf: one level deep, no recursion on nesting
        callees.append(token)
        # NUL: a character no attribute text of a checked body holds, so no two texts tie.
        return match.group(1) + "=\0"

    return (_CALLEE.sub(callee_token, text), tuple(callees))


def _calls_any(comp: Computation) -> bool:
    """Whether any attribute of ``comp`` names a computation (by the test the keys use)."""
    body = comp._body
    if body is not None:
        texts: Sequence[str] = body.attribute_texts()
    else:
        texts = [inst.attr_text for inst in comp.instructions]
    return _CALLEE.search("\n".join(texts)) is not None
