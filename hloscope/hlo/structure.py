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
with one number are alike in all of that (unless a 128-bit BLAKE2 digest collides: odds of
2**-128 a pair); two alike computations may still get two numbers (a callee that calls others
is compared by name), which costs a memo a miss, never a wrong answer.

After a forked parse, bodies are told apart by a digest of that key (:func:`text_digest`),
the callees aside: the children work it out for the bodies they read, so that a report asking
every fused body's number reads none of them here. Otherwise most bodies of a module have no
twin at all, so the full comparison is made only where two bodies agree on a quick first test
(their length, shapes and opcodes, tuples the parser has already made); a body alone with its
first test gets a number of its own without more work. Keys are read from the body's text
where it is not built yet (a few passes in C over the parser's columns), else from its
instructions, and both ways give the same key and digest.
"""

from __future__ import annotations

import hashlib
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

__all__ = ["structure_id", "text_digest", "TextDigest"]

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
# A callee named by a single-computation attribute (``to_apply=%region_0.12``), the attribute's
# name at a word's start (tested apart, _at_word_start: a leading \b would keep the engine from
# skipping to the names' first letters, a third of the time).
_CALLEE = re.compile(
    r"(" + "|".join(SINGLE_COMPUTATION_ATTRS) + r")=%?(" + _lex.NAME + r")(?![\w.\-])"
)
_WORD_CHAR = re.compile(r"\w")
_INDEX_COMMENTS = re.compile(r"/\*index=\d+\*/")
# The entry of a module's table saying whether its bodies are keyed by digest (see _number).
_BY_DIGEST = ("by digest",)

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
    table: dict[tuple[object, ...], Any] = module._structures
    by_digest = table.get(_BY_DIGEST)
    if by_digest is None:
        # After a forked parse the children sent digests (text_digest) of the bodies they read:
        # every body is keyed by its digest then, those the children did not read too, so
        # that all meet in one table. Else the digest would cost more than the first test.
        bodies = (comp._body for comp in module.computations)
        by_digest = table[_BY_DIGEST] = any(getattr(b, "digest", None) for b in bodies)
    if by_digest:
        digest: TextDigest | None = getattr(comp._body, "digest", None)
        if digest is None:
            digest = _digest_of(_parts(comp))
        key = ("digest", comp.execution_thread, digest[0], _callee_tokens(comp, digest[1]))
        sid = comp._structure = table.setdefault(key, len(table))
        return sid
    # A first test seen once maps to [number, computation, keyed]; every other key to a number.
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
    root, shapes, opcodes, operands, payloads, attributes = _parts(comp)
    return (
        comp.execution_thread,
        root,
        shapes,
        opcodes,
        operands,
        payloads,
        _attributes_key(comp, attributes),
    )


def _parts(comp: Computation) -> tuple:
    """(root position, shapes, opcodes, operand positions, payloads, attribute texts)."""
    columns = _columns(comp)
    if columns is not None:
        return _parts_of_columns(columns)
    return _parts_of_instructions(comp)


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
    text = _no_metadata(text)
    if "=" not in text or not _names_callee(text):
        return text
    callees: list[str] = []
    stripped = _without_callees(text, callees)
    return (stripped, _callee_tokens(comp, callees))


def _without_callees(text: str, callees: list[str]) -> str:
    """``text`` with each callee's name (appended to ``callees``) taken out."""

    def callee_name(match: re.Match[str]) -> str:
        if not _at_word_start(match):
            return match.group()  # the end of another word ("xcalls="): no callee
        callees.append(match.group(2))
        # NUL: a character no attribute text of a checked body holds, so no two texts tie.
        return match.group(1) + "=\0"

    return _CALLEE.sub(callee_name, text)


def _at_word_start(match: re.Match[str]) -> bool:
    """Whether the attribute name ``match`` found starts a word (what \\b would test). A name
    found inside a word hides no callee behind it: a name holds no '='."""
    start = match.start()
    return start == 0 or _WORD_CHAR.match(match.string, start - 1) is None


def _names_callee(text: str) -> bool:
    """Whether ``text`` names a callee (by :data:`_CALLEE`, at a word's start)."""
    return any(map(_at_word_start, _CALLEE.finditer(text)))


def _callee_tokens(comp: Computation, names: Sequence[str]) -> tuple[Hashable, ...]:
    """Each callee of ``comp`` by its structure where it is a leaf, else by its name."""
    module = comp.module
    tokens: list[Hashable] = []
    for name in names:
        callee = module.computations_by_name.get(name) if module is not None else None
        token: Hashable = name
        if callee is not None and callee is not comp and not _calls_any(callee):
            token = _number(callee)  # a leaf: one level deep, no recursion on nesting
        tokens.append(token)
    return tuple(tokens)


def _no_metadata(text: str) -> str:
    """``text`` without its ``metadata={...}`` where that is sure (see _METADATA)."""
    if "metadata=" in text:
        stripped = _METADATA.sub("", _LAST_METADATA.sub("", text))
        if '"' not in stripped:
            return stripped
    return text


def _calls_any(comp: Computation) -> bool:
    """Whether any attribute of ``comp`` names a computation (by the test the keys use)."""
    body = comp._body
    if body is not None:
        texts: Sequence[str] = body.attribute_texts()
    else:
        texts = [inst.attr_text for inst in comp.instructions]
    return _names_callee("\n".join(texts))


#: What :func:`text_digest` gives: the digest and the callees' names, in order.
TextDigest = tuple[bytes, tuple[str, ...]]


def text_digest(columns: Sequence[Sequence[str]], start: int, stop: int) -> TextDigest:
    """The digest of the body in rows ``start:stop`` of the parser's columns (ROOT, name,
    shape, opcode, operand text, attributes): what a forked parse's child sends instead of the
    body (see :func:`_digest_of`)."""
    return _digest_of(_parts_of_columns([column[start:stop] for column in columns]))


def _digest_of(parts: tuple) -> TextDigest:
    """A 128-bit BLAKE2 digest of everything :func:`_key` holds but the thread and the
    callees, and the callees' names, in order, which :func:`_number` turns into their
    structures as :func:`_key` does. The same parts from a body's text or its instructions
    give the same digest; two bodies with one digest are alike unless BLAKE2 collides (odds
    of 2**-128 a pair)."""
    root, shapes, opcodes, operands, payloads, attributes = parts
    callees: list[str] = []
    joined = "\n".join(attributes)
    texts: Hashable
    if joined.count("\n") != max(len(attributes) - 1, 0):
        texts = tuple(_without_callees(_no_metadata(t), callees) for t in attributes)
    else:
        texts = _without_callees(_no_metadata(joined), callees)
    key = repr((root, tuple(shapes), tuple(opcodes), tuple(operands), tuple(payloads), texts))
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return digest, tuple(callees)
