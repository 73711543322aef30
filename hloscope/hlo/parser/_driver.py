"""The parser's entry points: :func:`parse` and :func:`parse_modules`, and the second chances.

A text is read (:mod:`._source`), cut into one chunk per module, and each chunk goes to the
module parser (:class:`._careful.ModuleParser`, which hands plainly printed bodies to the bulk
path). A chunk it cannot read gets second chances, as XLA's lexer would read it: its statements
re-flowed one a line, then the whole text read as a single instruction.
"""

from __future__ import annotations

import re

from .. import _lex
from .._lex import find_closing, split_top_level
from ..errors import DecodeError, HloParseError
from ..gc_pause import gc_paused
from ..model import Module, SourceText
from ..shape import parse_shape_prefix
from ._bulk import CheckEachBody, all_plain
from ._careful import ModuleParser
from ._early import start_early
from ._source import (
    Source,
    check_characters,
    flatten,
    looks_like_path,
    module_chunks,
    read_source,
    reflow,
)
from ._statements import INSTR_START, NAME, OPCODE, PAYLOAD_OPCODES
from ._whole import read_whole_module


def parse(source: Source, *, path: str | None = None) -> Module:
    """Parse text (or a file) that holds exactly one HLO module.

    ``source`` is HLO text, or a path (``str``/``Path``) to a file holding it. Raises
    :class:`HloParseError` for anything that is not valid HLO, and when the text holds no module
    or several (use :func:`parse_modules` for those).
    """
    modules = parse_modules(source, path=path)
    if len(modules) != 1:
        text_path = path or (str(source) if looks_like_path(source) else None)
        raise HloParseError(
            f"expected exactly one HLO module, found {len(modules)}"
            + ("; use parse_modules() to read them all" if len(modules) > 1 else ""),
            path=text_path,
        )
    return modules[0]


@gc_paused
def parse_modules(source: Source, *, path: str | None = None) -> list[Module]:
    """Parse every module in a text: split at ``// -----`` lines and ``HloModule`` headers."""
    # A big file: children read its stretches while this process reads it (see ._early).
    early = start_early(source)
    try:
        data = early.read() if early is not None else None
        plain: bool | None
        if data is not None and data.isascii() and b"\r" not in data and b"\0" not in data:
            # Its control characters are looked for by the early children, in their stretches;
            # a NUL byte is read_source's "binary data" error, as in a serial read.
            text, path, plain = data.decode("ascii"), path or str(source), None
        elif data is not None:
            text, path, plain = read_source(data, path or str(source))
        else:
            text, path, plain = read_source(source, path)
        source_text = SourceText(text, path)
        read_early, data = data is not None, None  # the bytes let go: a copy of the text
        if plain is False:
            check_characters(source_text)
        if read_early:
            whole = read_whole_module(source_text, early)
        else:
            whole = read_whole_module(source_text)
        if plain is None and (whole is None or early is None or not early.plain):
            check_characters(source_text)  # the error it finds comes before any other
    finally:
        if early is not None:
            early.close()
    if whole is not None:
        return [whole]
    lines = text.split("\n")
    modules = []
    for start, end in module_chunks(text, len(lines)):
        try:
            module = _parse_chunk(lines, start, end, source_text)
        except HloParseError:
            module = _parse_reflowed(lines, start, end, path)
        if module is not None:
            modules.append(module)
    if not modules:
        raise HloParseError(
            "no HLO module found (expected 'HloModule' or a computation)",
            path=path,
            line=1,
            column=1,
            source_line=lines[0] if lines else "",
        )
    return modules


def _parse_chunk(lines: list[str], start: int, end: int, source: SourceText) -> Module | None:
    """One module, its bodies' attribute checks made at the end (see ``ModuleParser``)."""
    parser = ModuleParser(lines[:], start, end, source, defer_checks=True)
    try:
        return parser.parse()
    except CheckEachBody:
        pass  # some body is not what the checks made at the end assumed
    except HloParseError:
        # An error after a body the checks at the end would have sent to the careful path:
        # that body may hold an earlier error, so read again checking each body where it is.
        # Otherwise the second read would take the same paths to the same error.
        if all_plain(parser.deferred_attributes):
            raise
    return ModuleParser(lines[:], start, end, source).parse()


def _parse_reflowed(lines: list[str], start: int, end: int, path: str | None) -> Module | None:
    """Second chance for text whose statements do not sit one per line (``ENTRY e { ROOT r =
    f32[] parameter(0) }``): XLA's lexer ignores line breaks, so put each statement on its own
    line and parse again; failing that, read it as XLA's lexer does, with every comment and
    line break outside strings a blank (a signature on the line after its name, an attribute
    list going on on the next line, ``/* */`` between any two tokens, a string over several
    lines) and each statement on its own line. If that fails too, the first error (with the
    original line numbers) is raised again by the caller's ``except`` clause."""
    import sys

    original = sys.exc_info()[1]
    chunk = "\n".join(lines[start:end])
    reflowed = reflow(flatten(chunk))
    if reflowed != chunk:
        new_lines = reflowed.split("\n")
        try:
            module = ModuleParser(new_lines, 0, len(new_lines), SourceText(reflowed, path)).parse()
        except HloParseError:
            pass
        else:
            if module is not None:
                module.warnings.append(
                    "statements were not one per line; line numbers refer to the re-flowed text"
                )
            return module
    module = _parse_single_instruction(chunk, path)
    if module is None:
        raise original from None  # type: ignore[misc]
    return module


_SINGLE_OPERAND = re.compile(r"[ \t]*%?(" + NAME + r")[ \t]*$")


def _parse_single_instruction(chunk: str, path: str | None) -> Module | None:
    """A text that is one instruction and no computation (``n = f32[4] add(f32[4] x,
    f32[4])``), read as XLA's parser reads it: a module ``_`` whose entry ``_`` makes a
    parameter of each operand it does not know, from the operand's shape, named after the
    operand or ``_N`` (N its parameter number) when it has no name. None when the text is not
    of that form, or an operand has neither a known name nor a shape (XLA refuses that too)."""
    flat = flatten(chunk)
    if flat.startswith("HloModule"):
        return None
    statement = INSTR_START.match(flat)
    if statement is None:
        return None
    pos = _lex.match_ws(flat, statement.end()).end()
    opcode = OPCODE.match(flat, pos)
    try:
        if opcode is None or opcode.group(1) == "b":
            opcode = OPCODE.match(flat, parse_shape_prefix(flat, pos)[1])
        if opcode is None:
            return None
        open_pos = opcode.end() - 1
        close = find_closing(flat, open_pos)
    except DecodeError:
        return None
    if close < 0:
        return None
    inner = flat[open_pos + 1 : close]
    parameters: list[str] = []
    names: list[str] = []
    if opcode.group(1) not in PAYLOAD_OPCODES and inner.strip():
        for piece, _ in split_top_level(inner):
            name = _single_operand(piece, parameters, names)
            if name is None:
                return None
            names.append(name)
        inner = ", ".join(names)
    instruction = flat[statement.start(2) : open_pos + 1] + inner + flat[close:]
    text = "HloModule _\n\nENTRY _ {\n" + "".join(parameters) + "  ROOT " + instruction + "\n}\n"
    lines = text.split("\n")
    try:
        module = ModuleParser(lines, 0, len(lines), SourceText(text, path)).parse()
    except HloParseError:
        return None
    entry = module.entry if module is not None else None
    if module is None or entry is None or len(entry.instructions) != len(parameters) + 1:
        return None  # more than one statement: "Expected eof after parsing single instruction"
    module.warnings.append(
        "a single instruction, read as XLA reads it: module '_', its operands made "
        "parameters; line numbers refer to that module's text"
    )
    return module


def _single_operand(piece: str, parameters: list[str], known: list[str]) -> str | None:
    """The name an operand of a single instruction stands for (``f32[4] x``, ``f32[4]``,
    ``x``); a parameter line is added to ``parameters`` for one not seen before."""
    shape = ""
    rest = piece
    try:
        _, end = parse_shape_prefix(piece, 0)
        shape, rest = piece[:end].strip(), piece[end:]
    except DecodeError:
        pass
    m = _SINGLE_OPERAND.match(rest)
    if m is None and rest.strip():
        return None  # a nested instruction or anything else: not this form
    name = m.group(1) if m is not None else ""
    if name and name in known:
        return name
    if not shape:
        return None  # "Operand had no shape in HLO text; cannot create parameter"
    number = len(parameters)
    name = name or f"_{number}"
    parameters.append(f"  {name} = {shape} parameter({number})\n")
    return name
