"""Syntax sugar, expanded as XLA's parser expands it.

Two shorthands of the text become what the printer would have written out: inline computation
bodies in an attribute (``to_apply={ ... }``) become computations of the module, and
``X-start``/``X-update``/``X-done`` of any opcode X become ``async-start``/``async-update``/
``async-done`` around a made-up ``async_wrapped`` computation. The made-up computations get a
placeholder name while the module is read and XLA's name at the end
(:func:`._names.name_computations`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .. import _lex
from ..errors import DecodeError, HloParseError
from ..escapes import c_unescape
from ..model import Computation, Instruction
from ..opcodes import CALLED_COMPUTATION_ATTRS, OPCODES
from ..shape import parse_shape
from ._statements import NAME

if TYPE_CHECKING:  # pragma: no cover
    from ._state import ParserState

_ASYNC_OPCODE = {"-start": "async-start", "-update": "async-update", "-done": "async-done"}
# Attributes of a sugared X-start that stay on the async-start (thread first: the printer
# relies on this order), and those XLA copies to both the start and the wrapped op.
_ASYNC_START_ONLY = ("async_execution_thread", "sharding", "control-predecessors")
_ASYNC_SHARED = frozenset(
    {"metadata", "backend_config", "frontend_attributes", "statistics", "origin"}
)
# What XLA allows on a sugared X-update/X-done.
_ASYNC_FOLLOWER_ATTRS = frozenset({*_ASYNC_START_ONLY, *_ASYNC_SHARED, "parameter_replication"})
_INLINE_TOKENS = re.compile(
    _lex.STRING
    + "|"
    + _lex.BLOCK_COMMENT
    + r"|(?:^|(?<=,))\s*(?:"
    + "|".join(CALLED_COMPUTATION_ATTRS)
    + r")=\s*(\{)(?=\s*\n|\s*%?"
    + NAME
    + r"\s*=)|[{}()\[\]]",
    re.S,
)


def lift_inline_bodies(parser: ParserState, attr_text: str, inst_name: str, i: int) -> str:
    """Turn ``calls={ tmp_0 = ... }`` inline bodies into named computations of the module.

    One pass over the text with a stack of open bodies, innermost first: when a body
    closes, the bodies inside it have already become ``%name`` references, so parsing it
    never recurses, however deep bodies nest. That is also XLA's order (an inner body is a
    computation before the one around it).
    """
    frames: list[list[str]] = [[]]  # text of each open body so far (0: the attributes)
    opened: list[bool] = []  # open brackets, True where one opens an inline body
    pos = 0
    for m in _INLINE_TOKENS.finditer(attr_text):
        brace = m.start(1)
        if brace >= 0:
            frames[-1].append(attr_text[pos:brace].rstrip())  # 'to_apply=' then the name
            frames.append([])
            opened.append(True)
            pos = brace + 1
            continue
        tok = m.group()
        if len(tok) != 1:
            continue  # a string or a comment
        if tok in "([{":
            opened.append(False)
        elif opened and opened.pop():
            frames[-1].append(attr_text[pos : m.start()])
            body = "".join(frames.pop())
            frames[-1].append("%" + _inline_computation(parser, body, i))
            pos = m.end()
    if len(frames) > 1:
        raise parser.error("unclosed inline computation body", i)
    frames[0].append(attr_text[pos:])
    return "".join(frames[0])


def _placeholder(parser: ParserState, base: str) -> str:
    """A unique name for a computation the parser makes up; :func:`._names.name_computations`
    gives it XLA's name (``base``, uniquified) once the whole module is read."""
    name = f"{base}.__hloscope_{len(parser.base_names)}"
    assert parser.module is not None and name not in parser.module.computations_by_name
    return name


def _add_made_up(parser: ParserState, comp: Computation, base: str) -> None:
    module = parser.module
    assert module is not None
    parser.base_names[id(comp)] = base
    comp.module = module
    module.computations.append(comp)
    module.computations_by_name[comp.name] = comp


def _inline_computation(parser: ParserState, body: str, i: int) -> str:
    """Parse an anonymous body; XLA names such computations '_' ('_.1', '_.2'... when taken)."""
    module = parser.module
    assert module is not None
    name = _placeholder(parser, "_")
    sub_lines = body.split("\n") + ["}"]
    comp = Computation(name, False, line=i + 1)
    try:
        parser.parse_inline_body(comp, sub_lines)
    except HloParseError as e:
        raise parser.error(f"in inline computation body: {e.message}", i) from None
    for inst in comp.instructions:
        inst._line = i + 1
    _add_made_up(parser, comp, "_")
    return name


def expand_async(parser: ParserState, inst: Instruction, operand_names: list | None) -> bool:
    """Expand ``X-start``/``X-update``/``X-done`` (X any opcode that is not itself an
    async pair, like ``fusion-start``) as XLA's parser does; False if ``inst`` is not one.

    ``X-start`` becomes ``async-start`` calling a new computation ``async_wrapped`` that
    holds one parameter ``async_param`` per operand and the wrapped op (named after its
    opcode) as root. The wrapped op gets X's own attributes; the start keeps
    ``async_execution_thread``, ``sharding`` and ``control-predecessors``, and both share
    ``metadata``, ``backend_config``, ``frontend_attributes``, ``statistics`` and
    ``origin``. ``X-update``/``X-done`` become ``async-update``/``async-done``.
    """
    opcode = inst.opcode
    dash = opcode.rfind("-")
    stem, suffix = opcode[:dash], opcode[dash:]
    if suffix not in _ASYNC_OPCODE or stem not in OPCODES:
        return False
    inst.opcode = _ASYNC_OPCODE[suffix]
    if suffix == "-start":
        _wrap_async_start(parser, inst, stem, len(operand_names or ()))
    elif inst.attr_text:
        # The -update/-done take the wrapped op from their start: XLA rejects its
        # attributes here (older printers repeated them).
        for name, _, offset in _attributes_of(parser, inst):
            if name not in _ASYNC_FOLLOWER_ATTRS:
                raise parser.error(
                    f"unexpected attribute {name!r} on {opcode} {inst.name!r}",
                    inst.line - 1,
                    inst._attribute_column() + offset - len(name)
                    if inst._attribute_column()
                    else 1,
                )
    return True


def _attributes_of(parser: ParserState, inst: Instruction) -> list[tuple[str, str, int]]:
    from ..attributes import split_attributes  # loaded on first use (see hlo/model.py)

    try:
        return split_attributes(inst.attr_text)
    except DecodeError as e:
        raise parser.error(f"{inst.opcode} {inst.name!r}: {e.message}", inst.line - 1) from None


def _wrap_async_start(parser: ParserState, inst: Instruction, stem: str, n_operands: int) -> None:
    line = inst.line - 1
    try:
        shape = parse_shape(inst.shape_text) if inst.shape_text else None
    except DecodeError as e:
        raise parser.error(f"{inst.opcode} {inst.name!r}: {e.message}", line) from None
    if (
        shape is None
        or len(shape.tuple_shapes) < 2
        or not shape.tuple_shapes[0].is_tuple
        or len(shape.tuple_shapes[0].tuple_shapes) != n_operands
    ):
        raise parser.error(
            f"{stem}-start {inst.name!r} expects the shape ((operands), outputs, state) "
            f"with one operand shape per operand",
            line,
        )
    triples = _attributes_of(parser, inst)
    own = {name: raw for name, raw, _ in triples if name in _ASYNC_START_ONLY}
    wrapped_attrs = [(n, raw) for n, raw, _ in triples if n not in _ASYNC_START_ONLY]
    comp = Computation(_placeholder(parser, "async_wrapped"), False, line=inst.line)
    comp.expanded_from = inst
    params = []
    for k, operand_shape in enumerate(shape.tuple_shapes[0].tuple_shapes):
        params.append(
            Instruction("async_param", "parameter", operand_shape.to_text(), "", str(k), inst.line)
        )
    attr_text = inst.attr_text if not own else ", ".join(f"{n}={r}" for n, r in wrapped_attrs)
    wrapped = Instruction(
        stem, stem, shape.tuple_shapes[1].to_text(), attr_text, None, inst.line,
        inst._attribute_column() if not own else 0,
    )  # fmt: skip
    wrapped.operands = params
    for member in (*params, wrapped):
        member.computation = comp
        comp.instructions.append(member)
        comp._by_name[member.name] = member  # duplicates: _names.uniquify_names renames them
    comp.root = wrapped
    thread = own.get("async_execution_thread")
    if thread is not None:
        comp.execution_thread = c_unescape(thread.strip()[1:-1])
    start_attrs = [f"async_execution_thread={thread}"] if thread is not None else []
    start_attrs.append("calls=%" + comp.name)
    start_attrs += [f"{n}={own[n]}" for n in _ASYNC_START_ONLY[1:] if n in own]
    start_attrs += [f"{n}={r}" for n, r in wrapped_attrs if n in _ASYNC_SHARED]
    inst._attr_text = ", ".join(start_attrs)
    inst._attr_col = 0
    _add_made_up(parser, comp, "async_wrapped")
