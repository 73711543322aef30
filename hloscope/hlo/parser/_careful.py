"""The HLO text parser.

Reads what ``HloModule::ToString()`` prints (every print style XLA has used: long format with
``%`` names and operand shapes, ShortParsable dumps, headerless computation snippets, several
modules per text) into :mod:`hloscope.hlo.model` objects.

How it stays fast: stock printers put each instruction on one line, so the parser works line by
line. One compiled regular expression splits a typical instruction line into name, shape,
opcode and the rest; operands are split off with ``str.find``; shapes, attributes, metadata and
literals are kept as text and decoded only when asked for. Lines the fast path cannot read
(tuple shapes, instructions spread over several lines, inline computation bodies) go through a
slower, bracket-aware path. Errors are always :class:`~hloscope.hlo.errors.HloParseError` with
``path:line:column``.
"""

from __future__ import annotations

import errno
import operator
import os
import re
from collections.abc import Iterator, Sequence
from itertools import chain, compress, repeat
from pathlib import Path

from ..errors import HloscopeError
from . import _lex
from ._lex import find_closing, split_top_level
from .attributes import split_attributes
from .attributes._grammar import value_end
from .errors import DecodeError, HloParseError
from .gc_pause import gc_paused
from .model import Computation, Instruction, Module, SourceText
from .opcodes import CALLED_COMPUTATION_ATTRS, CALLER_OPCODES, OPCODES
from .shape import parse_shape, parse_shape_prefix

__all__ = ["parse", "parse_modules", "Source"]

Source = str | bytes | os.PathLike

# ASCII only, as XLA's lexer (the old `[\w.\-]` let non-ASCII letters in).
_NAME = _lex.NAME

# name = array-shape opcode(rest            (the common case, > 95% of lines)
_FAST_INSTR = re.compile(
    r"[ \t]*(ROOT[ \t]+)?%?(" + _NAME + r")[ \t]*=[ \t]*"
    r"([a-z][a-z0-9_]*\[[^\]]*\](?:\{[^{}]*\})?)[ \t]+"
    r"(" + _NAME + r")\("
)
# One whole printed line, for the bulk path (:meth:`_ModuleParser._parse_body_bulk`): it starts
# at the '\n' before the line (so a match can only begin at a line start) and ends at the line's
# end; groups: ROOT, name, shape (an array or a tuple), opcode, operands (plain names,
# else any other text: a constant's literal), attributes. No class matches '\n'. Every run is
# possessive (``*+``): what follows it can never start with a character it takes, so giving
# some back could not make a match, and not keeping the positions to try makes the pass a
# third faster.
assert _NAME.endswith("*")
_NAME_RUN = _NAME + "+"  # the name's last ``*`` made possessive
_BULK_LINE = re.compile(
    r"\n[ \t]*+(ROOT[ \t]+)?%?(" + _NAME_RUN + r")[ \t]+=[ \t]*+"
    r"([a-z][a-z0-9_]*+\[[^\]\n]*+\](?:\{[^{}\n]*+\})?|\((?:[^()\n]++|\([^()\n]*+\))*+\))"
    r"[ \t]+(" + _NAME_RUN + r")\((?:(%?" + _NAME_RUN + r"(?:, ?%?" + _NAME_RUN + r")*+)"
    r"|([^()\"\n]*+))\)(?:,[ \t]*+([^\n]*+))?(?=\n)"
)
# A computation header: ENTRY, the name, the signature (its last character not a blank: one
# greedy run then a step back, where a lazy one tried the '{' at every character of a long
# signature) and the '{' ending the line.
_COMP_HEADER = re.compile(
    r"[ \t]*+(ENTRY[ \t]+)?%?(" + _NAME_RUN + r")[ \t]*+(.*[^ \t])?[ \t]*\{[ \t]*\r?$"
)
_FOUND_OPCODE = operator.itemgetter(3)  # of a _BULK_LINE match's groups
_KNOWN_OPCODES = frozenset(OPCODES)
_PLAIN_OPERANDS = re.compile(r"%?" + _NAME + r"(?:, ?%?" + _NAME + r")*")
_INDEX_COMMENTS = re.compile(r"/\*index=\d+\*/")
# What may follow '=' in an instruction: a shape (``f32[``, ``s32 [``, ``(``, ``b(``) or an
# opcode and its '(' (the shape left out).
_RHS_START = r"(?:[a-z][a-z0-9_]*[ \t]*\[|\(|b\(|" + _NAME + r"[ \t]*\()"
# The start of any instruction statement, for the slow path.
# Line breaks may fall between its tokens (``neg\n= f32[4]\nnegate(p)``): XLA's lexer ignores them.
_INSTR_START = re.compile(r"[ \t]*(ROOT\s+)?%?(" + _NAME + r")\s*=(?=\s*" + _RHS_START + ")")
# The head of a statement cut by a line break (``ROOT``, ``name``, ``name =`` ending the line):
# a statement if the lines after it go on with the rest of one.
_STATEMENT_HEAD_EOL = re.compile(r"[ \t]*(?:ROOT[ \t]+)?%?" + _NAME + r"[ \t]*=?[ \t]*$")
_HEAD_LINES = 4  # ROOT / name / = / shape: the most lines a statement's start can be cut into
# Tokens of an attribute tail for the careful test (strings, comments and brackets skipped).
_TAIL_TOKENS = re.compile(
    _lex.STRING
    + "|"
    + _lex.BLOCK_COMMENT
    + "|"
    + _lex.LINE_COMMENT
    + r"|(?<=[\s)\]}\"])(?:ROOT\s+)?%?"
    + _NAME
    + r"\s*=(?=\s*"
    + _RHS_START
    + r")|[()\[\]{}]",
    re.S,
)

# The start of a computation header whose signature may go on over several lines.
_HEADER_START = re.compile(r"[ \t]*(?:ENTRY[ \t]+)?%?" + _NAME + r"[ \t]*\(")
_LINE_COMMENTS = re.compile(_lex.STRING + "|" + _lex.LINE_COMMENT, re.S)
_MODULE_HEADER = re.compile(
    r"[ \t]*HloModule[ \t]+%?(" + _NAME + r")?:?[ \t]*(?:,[ \t]*(.*?))?[ \t]*\r?$"
)
_OPCODE = re.compile(r"\s*(" + _NAME + r")\s*\(")
_WS = _lex.WS_RE
_COMMENT = re.compile(_lex.BLOCK_COMMENT, re.S)
_OPERAND_NAME = re.compile(r"%?(" + _NAME + r")\s*$")
_BRACKETS = _lex.BRACKET_TOKENS
_SECTION_ENTRY = re.compile(r"[ \t]*(\d+)[ \t]+(.*?)\s*$")
_SUBFIELD = re.compile(r"([A-Za-z_]+)=(-?\d+)")  # FileLocations fields: file_name_id=3 ...
_CALLED_ATTR = re.compile(
    r"(?:^|,\s*)(" + "|".join(CALLED_COMPUTATION_ATTRS) + r")=\s*(\{\s*\n|\{\s*" + _NAME + r"\s*=)"
)

# A hint that an attribute tail holds a second statement written without spaces ('...,
# to_apply=add n=f32[4] negate(r)'): a name after whitespace, '=' and a shape. Only a hint: the
# exact answer is _statement_in_tail's; attribute values never start with 'f32[' or '('.
_COMPACT_STATEMENT = re.compile(r"\s%?" + _NAME + r"[ \t]*=[ \t]*(?:[a-z][a-z0-9]*\[|\()")
_PAYLOAD_OPCODES = frozenset({"parameter", "constant"})
# Nested operand instructions (``add(negate(p), q)``) are read recursively; a bound keeps
# hostile nesting an HloParseError rather than a RecursionError (printed HLO never nests).
_MAX_NESTED_OPERANDS = 100
_STACK_SECTIONS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_OPEN = {"(": ")", "[": "]", "{": "}"}


def parse(source: Source, *, path: str | None = None) -> Module:
    """Parse text (or a file) that holds exactly one HLO module.

    ``source`` is HLO text, or a path (``str``/``Path``) to a file holding it. Raises
    :class:`HloParseError` for anything that is not valid HLO, and when the text holds no module
    or several (use :func:`parse_modules` for those).
    """
    modules = parse_modules(source, path=path)
    if len(modules) != 1:
        text_path = path or (str(source) if _looks_like_path(source) else None)
        raise HloParseError(
            f"expected exactly one HLO module, found {len(modules)}"
            + ("; use parse_modules() to read them all" if len(modules) > 1 else ""),
            path=text_path,
        )
    return modules[0]


@gc_paused
def parse_modules(source: Source, *, path: str | None = None) -> list[Module]:
    """Parse every module in a text: split at ``// -----`` lines and ``HloModule`` headers."""
    text, path = _read(source, path)
    source_text = SourceText(text, path)
    _check_characters(source_text)
    lines = text.split("\n")
    modules = []
    for start, end in _module_chunks(text, len(lines)):
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


def _check_characters(source: SourceText) -> None:
    """Refuse, at its line and column, a character XLA's lexer refuses (see
    :func:`_lex.invalid_character`): read as a blank or a line break by Python's patterns, it
    would be a statement XLA never reads."""
    text = source.text
    pos = _lex.invalid_character(text)
    if pos < 0:
        return
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    raise source.error(
        f"invalid character U+{ord(text[pos]):04X} outside a string or comment (XLA reads "
        "only space, tab, line feed and carriage return as whitespace)",
        line,
        column,
    )


_STRING_OR_BLOCK_COMMENT = re.compile(
    _lex.STRING + "|" + _lex.SINGLE_QUOTED + "|" + _lex.BLOCK_COMMENT, re.S
)
_NOT_A_LINE_BREAK = re.compile(r"[^\n]")


def _blank_comment_token(m: re.Match) -> str:
    token = m.group()
    return token if token[0] in "\"'" else _NOT_A_LINE_BREAK.sub(" ", token)


def _blank_comments(text: str) -> str:
    """``/* */`` comments as blanks (their line breaks kept, so lines and columns stay true):
    XLA's lexer reads one between any two tokens (``ROOT /*c*/ r = /*s*/ f32[1] ...``), which
    the line patterns would otherwise take for text. ``text`` itself when it holds none but the
    printer's ``/*index=N*/`` operand counters, which the careful path reads as they are. Counts
    in C tell: '*' is rare outside comments, and counting it runs at memchr speed, where
    counting "/*" stalls on every '/' of the file paths in metadata."""
    counters = text.count("/*index=")
    if text.count("*") == 2 * counters or text.count("/*") == counters:
        return text
    return _STRING_OR_BLOCK_COMMENT.sub(_blank_comment_token, text)


def _parse_chunk(lines: list[str], start: int, end: int, source: SourceText) -> Module | None:
    """One module, its bodies' attribute checks made at the end (see ``_ModuleParser``)."""
    parser = _ModuleParser(lines[:], start, end, source, defer_checks=True)
    try:
        return parser.parse()
    except _CheckEachBody:
        pass  # some body is not what the checks made at the end assumed
    except HloParseError:
        # An error after a body the checks at the end would have sent to the careful path:
        # that body may hold an earlier error, so read again checking each body where it is.
        # Otherwise the second read would take the same paths to the same error.
        if _all_plain(parser.deferred_attributes):
            raise
    return _ModuleParser(lines[:], start, end, source).parse()


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
    reflowed = _reflow(_flatten(chunk))
    if reflowed != chunk:
        new_lines = reflowed.split("\n")
        try:
            module = _ModuleParser(new_lines, 0, len(new_lines), SourceText(reflowed, path)).parse()
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


_SINGLE_OPERAND = re.compile(r"[ \t]*%?(" + _NAME + r")[ \t]*$")


def _parse_single_instruction(chunk: str, path: str | None) -> Module | None:
    """A text that is one instruction and no computation (``n = f32[4] add(f32[4] x,
    f32[4])``), read as XLA's parser reads it: a module ``_`` whose entry ``_`` makes a
    parameter of each operand it does not know, from the operand's shape, named after the
    operand or ``_N`` (N its parameter number) when it has no name. None when the text is not
    of that form, or an operand has neither a known name nor a shape (XLA refuses that too)."""
    flat = _flatten(chunk)
    if flat.startswith("HloModule"):
        return None
    statement = _INSTR_START.match(flat)
    if statement is None:
        return None
    pos = _WS.match(flat, statement.end()).end()
    opcode = _OPCODE.match(flat, pos)
    try:
        if opcode is None or opcode.group(1) == "b":
            opcode = _OPCODE.match(flat, parse_shape_prefix(flat, pos)[1])
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
    if opcode.group(1) not in _PAYLOAD_OPCODES and inner.strip():
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
        module = _ModuleParser(lines, 0, len(lines), SourceText(text, path)).parse()
    except HloParseError:
        return None
    if module is None or len(module.entry.instructions) != len(parameters) + 1:
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


# What _flatten rewrites: strings (double-quoted ones may hold raw line breaks, single-quoted
# ones are kept whole so that no '//' in them reads as a comment), comments, and runs of blanks.
_FLATTEN_TOKENS = re.compile(
    _lex.STRING
    + "|"
    + _lex.SINGLE_QUOTED
    + "|"
    + _lex.BLOCK_COMMENT
    + "|"
    + _lex.LINE_COMMENT
    + r"|[ \t\n]+",
    re.S,
)


def _flattened_token(m: re.Match) -> str:
    token = m.group()
    if token[0] == '"':
        return token.replace("\n", "\\n")  # the same string, escaped onto one line
    if token[0] == "'":
        return token
    return " "  # a comment or a run of blanks: one blank, as XLA's lexer reads it


def _flatten(chunk: str) -> str:
    """``chunk`` on one line as XLA's lexer sees it: comments and line breaks outside strings
    become blanks, raw line breaks inside strings ``\\n`` escapes (the same value). The stack
    frame tables at the end stay as they are: they are read line by line."""
    lines = chunk.split("\n")
    tables = next((k for k, line in enumerate(lines) if line.strip() in _STACK_SECTIONS), None)
    if tables is None:
        return _FLATTEN_TOKENS.sub(_flattened_token, chunk).strip(" ")
    head = "\n".join(lines[:tables])
    return _FLATTEN_TOKENS.sub(_flattened_token, head).strip(" ") + "\n" + "\n".join(lines[tables:])


_REFLOW_TOKENS = re.compile(
    _lex.STRING + "|" + _lex.BLOCK_COMMENT + "|" + _lex.LINE_COMMENT + r"|[{}()\[\]]"
    r"|(?:ROOT\s+)?%?" + _NAME + r"\s*=(?=\s*(?:[a-z][a-z0-9_]*\[|\(|" + _NAME + r"\())",
    re.S,
)


_HEADER_NAME = re.compile(r"\s*HloModule\s+%?(?:" + _NAME + r")?:?")
_ATTR_NAME = re.compile(r"\s*,\s*" + _NAME + r"\s*=\s*")


def _header_end(chunk: str) -> int:
    """Where the ``HloModule name, attr=value...`` header of ``chunk`` ends (0 if none): after
    its last attribute value, wherever line breaks fall (a whole module may be one line)."""
    m = _HEADER_NAME.match(chunk)
    if m is None:
        return 0
    pos = m.end()
    while True:
        a = _ATTR_NAME.match(chunk, pos)
        if a is None:
            return pos
        try:
            pos = value_end(chunk, a.end())
        except DecodeError:
            newline = chunk.find("\n", pos)
            return newline if newline >= 0 else len(chunk)


def _reflow(chunk: str) -> str:
    """Insert line breaks so that each computation header, instruction and '}' starts a line."""
    body_start = _header_end(chunk)
    breaks: list[int] = [body_start] if body_start else []
    opened: list[bool] = []  # open brackets, True where one opens a computation body
    for m in _REFLOW_TOKENS.finditer(chunk, body_start):
        tok = m.group()
        first = tok[0]
        if first in "([{":
            body = first == "{" and not opened and not _is_layout_brace(chunk, m.start())
            opened.append(body)
            if body:
                breaks.append(m.end())  # body starts on the next line
        elif first in ")]}":
            if opened and opened.pop():
                breaks.append(m.start())  # closing brace on its own line
                after = chunk[m.end() : m.end() + 80].lstrip(" \t")
                if not after.startswith(","):
                    breaks.append(m.end())
        elif first in '"/':
            continue
        elif len(opened) == 1 and opened[0]:
            before = chunk[max(0, m.start() - 256) : m.start()].rstrip(" \t")  # a window: no O(n^2)
            if before and before[-1] not in ",\n{":
                breaks.append(m.start())
    if not breaks:
        return chunk
    out = []
    last = 0
    for pos in sorted(set(breaks)):
        out.append(chunk[last:pos])
        last = pos
    out.append(chunk[last:])
    return "\n".join(
        piece.strip(" \t") if i else piece.rstrip(" \t") for i, piece in enumerate(out)
    )


_LAYOUT_START = re.compile(r"\{[ \t\n]*[0-9:}]")


def _is_layout_brace(chunk: str, pos: int) -> bool:
    """Is the '{' at ``pos`` the layout of the shape before it (``-> f32[4]{0} {``), not a
    body? A layout follows a ']' and holds numbers or ':' (a body starts with a name)."""
    return (
        chunk[max(0, pos - 64) : pos].rstrip(" \t\n").endswith("]")
        and _LAYOUT_START.match(chunk, pos) is not None
    )


# ---------------------------------------------------------------------------------------------
# Reading and splitting
# ---------------------------------------------------------------------------------------------


# Text that starts like this is HLO, not a file name, unless a file of that name exists.
_TEXT_STARTS = ("HloModule", "ENTRY", "//", "/*")


def _could_be_path(source: object) -> bool:
    """Could ``source`` name a file? (One line of reasonable length; a path-like always can.)"""
    if isinstance(source, os.PathLike):
        return True
    return (
        isinstance(source, str)
        and bool(source.strip())
        and "\n" not in source
        and "\r" not in source
        and len(source) < 4096
    )


def _looks_like_path(source: object) -> bool:
    """Is ``source`` a path (an existing file, or text that can only be a file name)?

    A string naming an existing file is a path whatever it starts with
    (``HloModule_jit_f.txt``); a one-line string is text only when it clearly is not a file
    name: it starts like HLO (``HloModule``, ``ENTRY``, a comment) or holds ``{``.
    """
    if not _could_be_path(source):
        return False
    if isinstance(source, os.PathLike) or os.path.lexists(str(source)):
        return True
    text = str(source).lstrip()
    return (
        not text.startswith(_TEXT_STARTS)
        and "{" not in text
        and _INSTR_START.match(text) is None  # one instruction: 'n = f32[4] add(...)'
    )


def _read_file(source: Source, path: str) -> bytes:
    try:
        return Path(source).read_bytes()  # type: ignore[arg-type]
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise HloParseError("cannot read file: a symbolic link loop", path=path) from None
        if e.errno == errno.ENOENT:
            message = "no such file"
            if os.path.islink(str(source)):
                message += " (a symbolic link whose target does not exist)"
            raise HloParseError(message, path=path) from None
        raise HloParseError(f"cannot read file: {e.strerror or e}", path=path) from None


def _read(source: Source, path: str | None) -> tuple[str, str | None]:
    data: str | bytes
    if _looks_like_path(source):
        path = path or str(source)
        data = _read_file(source, path)
    else:
        data = source  # type: ignore[assignment]
    if isinstance(data, bytes):
        nul = data.find(b"\0", 0, 1 << 16)
        if nul >= 0:
            line = data.count(b"\n", 0, nul) + 1
            raise HloParseError("binary data, not HLO text (NUL byte)", path=path, line=line)
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            raise HloParseError("not UTF-8 text", path=path, line=line, column=col) from None
    if not isinstance(data, str):
        raise HloParseError(
            f"cannot parse a {type(data).__name__}; give HLO text or a path", path=path
        )
    if "\0" in data:
        raise HloParseError("binary data, not HLO text (NUL byte)", path=path)
    if "\r" in data:
        # XLA's lexer takes '\r' as whitespace; old Mac files end lines with it alone.
        data = data.replace("\r\n", "\n").replace("\r", "\n")
    return data, path


def _marker_lines(text: str, marker: str, at_line_start: bool) -> list[int]:
    """0-based line numbers of lines that start with ``marker`` (after indentation unless
    ``at_line_start``), found with str.find, which is far faster than a multi-line regex."""
    found = []
    pos = text.find(marker)
    while pos >= 0:
        line_begin = text.rfind("\n", 0, pos) + 1
        if line_begin == pos or (not at_line_start and not text[line_begin:pos].strip(" \t")):
            found.append(line_begin)
        pos = text.find(marker, pos + len(marker))
    return found


def _module_chunks(text: str, n_lines: int) -> list[tuple[int, int]]:
    """Line ranges of modules: split at ``// -----`` and before every ``HloModule`` header."""
    marks = [(p, True) for p in _marker_lines(text, "// -----", True)]
    marks += [(p, False) for p in _marker_lines(text, "HloModule", False)]
    marks.sort()
    chunks = []
    start = 0
    line = 0
    last_pos = 0
    for pos, is_separator in marks:
        line += text.count("\n", last_pos, pos)
        last_pos = pos
        if is_separator:
            chunks.append((start, line))
            start = line + 1
        elif line > start:
            chunks.append((start, line))  # a chunk of only comments parses to no module
            start = line
    chunks.append((start, n_lines))
    return chunks


def _balance(text: str) -> int:
    """Open-bracket depth at the end of ``text`` (strings and comments skipped); -1 if it closes
    more than it opens or mismatches."""
    depth = []
    for m in _BRACKETS.finditer(text):
        tok = m.group()
        if tok in _OPEN:
            depth.append(_OPEN[tok])
        elif tok in ")]}":
            if not depth or depth.pop() != tok:
                return -1
        elif tok == '"':
            return len(depth) + 1  # an unterminated string continues on the next line
    return len(depth)


class _CheckEachBody(HloscopeError):
    """Bodies read with their attribute checks put off did not pass them together. Caught by
    :func:`_parse_chunk`, which reads the module again; under the one root all the same, so
    that it could never reach a user as a traceback."""


# ---------------------------------------------------------------------------------------------
# The module parser
# ---------------------------------------------------------------------------------------------


class _ModuleParser:
    """Parses lines[start:end] into one Module (or None if the range holds only comments)."""

    def __init__(
        self,
        lines: list[str],
        start: int,
        end: int,
        source: SourceText,
        defer_checks: bool = False,
    ) -> None:
        self.lines = lines
        self.start = start
        self.end = end
        self.source = source
        self.module: Module | None = None
        self.nested: list[tuple[Instruction, list[str]]] = []  # nested operand instructions
        self.nest_depth = 0  # of nested operand instructions being read
        # The rest of a line that held two statements: (line index, the line with the first
        # statement blanked out), to read next.
        self.split_rest: tuple[int, str] | None = None
        # Computations the parser made up (inline bodies, async wrappers) get a placeholder
        # name while parsing and the name XLA gives them at the end: id -> XLA's base name.
        self.base_names: dict[int, str] = {}
        # (line index, its offset in source.text): where the bulk path last found a line.
        self._cursor = (0, 0)
        # ``defer_checks``: the attribute texts of bulk bodies are checked all at once when
        # the module is read (a module of a thousand small bodies spent a tenth of its parse
        # on calls that check one body each); if they do not pass, :class:`_CheckEachBody`
        # says to read the module again checking each body where it is.
        self.deferred_attributes: list[tuple[str, ...]] | None = [] if defer_checks else None

    def _blank_comments_from(self, i: int) -> None:
        """Before the careful path reads the body from line i, make the ``/* */`` comments in
        it blanks (:func:`_blank_comments`), up to the next line that starts with '}' (where a
        body ends). The bulk path never needs it (its line pattern refuses a comment anywhere
        but in an attribute tail, whose readers skip comments), so the bodies it reads never
        pay for it; a body after a changed line leaves the bulk path (its offsets no longer
        match the text)."""
        lines = self.lines
        j = i
        while j < self.end and not lines[j].startswith("}"):
            j += 1
        body = "\n".join(lines[i:j])
        if "/*" not in body:
            return
        blanked = _blank_comments(body)
        if blanked is not body:
            lines[i:j] = blanked.split("\n")

    # -- errors ------------------------------------------------------------------------------
    def error(self, message: str, line_index: int, column: int = 1) -> HloParseError:
        return self.source.error(message, line_index + 1, column)

    # -- driver ------------------------------------------------------------------------------
    def parse(self) -> Module | None:
        lines = self.lines
        i = self.start
        end = self.end
        module: Module | None = None
        entry_seen: Computation | None = None
        while i < end:
            line = lines[i]
            stripped = line.strip()
            if not stripped or stripped.startswith("//"):
                i += 1
                continue
            if stripped.startswith("/*"):
                i = self._skip_block_comment(i)
                continue
            if module is None and stripped.startswith("HloModule"):
                module, i = self._parse_header(i)
                continue
            if stripped in _STACK_SECTIONS:
                if module is None:
                    module = self._new_module("", i)
                i = self._parse_stack_section(i, stripped)
                continue
            header_text, header_last = self._header_text(i)
            header = _COMP_HEADER.match(header_text)
            if header is None or header.group(2) in ("HloModule",):
                if _INSTR_START.match(line):
                    raise self.error("instruction outside of a computation", i)
                raise self.error(
                    f"expected a computation, found {stripped[:40]!r}",
                    i,
                    len(line) - len(line.lstrip()) + 1,
                )
            if module is None:
                module = self._new_module("", i)
            comp, i = self._parse_computation(i, header, header_last)
            if comp.is_entry:
                if entry_seen is not None:
                    raise self.error(
                        f"second ENTRY computation {comp.name!r} (first was {entry_seen.name!r})",
                        comp.line - 1,
                    )
                entry_seen = comp
        if module is None:
            return None
        if not module.computations:
            raise self.error(
                "module has no computations",
                min(end, len(lines)) - 1 if end > self.start else self.start,
            )
        module.entry = entry_seen if entry_seen is not None else module.computations[-1]
        module.entry.is_entry = True
        if not module.name:
            module.name = "module_" + module.entry.name  # what XLA calls a headerless module
        if not _all_plain(self.deferred_attributes):
            raise _CheckEachBody
        self._check_called_computations(module)
        self._name_computations(module)
        _uniquify_names(module)
        return module

    def _header_text(self, i: int) -> tuple[str, int]:
        """The computation header that starts at line i, and the index of its last line.

        ``/* */`` comments become spaces (``ENTRY /*c*/ e {``), and a signature that goes on
        over several lines (``ENTRY f(a: bf16[],`` ...) is joined up to the line ending in
        ``{``, as XLA's lexer, which ignores line breaks, reads it.
        """
        line = self.lines[i]
        if "/*" in line:
            line = _COMMENT.sub(lambda m: " " * len(m.group()), line)
        if line.rstrip().endswith("{") or _HEADER_START.match(line) is None:
            return line, i
        parts = [line]
        j = i
        while j + 1 < self.end and not parts[-1].rstrip().endswith("{"):
            joined = "".join(parts)
            open_parens = joined.count("(") > joined.count(")")
            goes_on = open_parens or joined.rstrip().endswith("->")
            if not (goes_on or self.lines[j + 1].lstrip().startswith(("->", "{"))):
                return line, i  # not a header spread over lines: report the first line
            j += 1
            nxt = self.lines[j]
            if "/*" in nxt:
                nxt = _COMMENT.sub(lambda m: " " * len(m.group()), nxt)
            parts.append(nxt.split("//", 1)[0] if "//" in nxt and '"' not in nxt else nxt)
            if _INSTR_START.match(nxt) or nxt.strip().startswith("}"):
                return line, i  # not a header after all: report the first line
        return " ".join(parts), j

    def _new_module(self, name: str, line_index: int) -> Module:
        module = Module(name)
        module.source = self.source
        module.header_line = line_index + 1
        self.module = module
        return module

    def _skip_block_comment(self, i: int) -> int:
        """Skip a /* ... */ comment that starts line i; return the index of the line after it."""
        for j in range(i, self.end):
            if "*/" in self.lines[j] and (
                j > i or self.lines[j].find("*/") > self.lines[j].find("/*")
            ):
                return j + 1
        raise self.error("unterminated /* comment", i)

    # -- header ------------------------------------------------------------------------------
    def _parse_header(self, i: int) -> tuple[Module, int]:
        if "/*" in self.lines[i]:
            self._blank_comments_from(i)  # 'HloModule /* c */ name'
        line, last = self._logical_line(i)
        while line.rstrip().endswith(",") and last + 1 < self.end:
            more, last = self._logical_line(last + 1)  # attributes go on on the next line
            line += " " + more.strip()  # one line, as the printer writes it back
        m = _MODULE_HEADER.match(line.split("\n", 1)[0]) if "\n" not in line else None
        if m is None:
            # A header over several lines (origin_recovery_table) or an odd one.
            m2 = re.match(
                r"[ \t]*HloModule[ \t]+%?(" + _NAME + r")?:?[ \t]*(?:,(.*))?$", line, re.S
            )
            if m2 is None:
                raise self.error("malformed HloModule header", i)
            name, attrs = m2.group(1) or "", (m2.group(2) or "").strip()
        else:
            name, attrs = m.group(1) or "", m.group(2) or ""
        module = self._new_module(name, i)
        module.header_attr_text = attrs
        return module, last + 1

    def _logical_line(self, i: int, continuations: bool = False) -> tuple[str, int]:
        """The statement starting at line i, joined with the following lines while brackets are
        open (and, with ``continuations``, while the next line does not start a new statement).

        Brackets are tracked incrementally, one line at a time, so a bracket left open by a
        truncated or damaged file costs linear time, not quadratic.
        """
        stack: list[str] = []
        j = i
        while True:
            line = self.lines[j]
            if line.lstrip().startswith("//"):
                pass  # a comment line inside a statement: its brackets do not count
            elif stack or _maybe_unbalanced(line):
                problem = _scan_brackets(line, stack)
                if problem is not None:
                    raise self.error(problem[0], j, problem[1] + 1)
            if not stack and not (continuations and self._continues(j + 1)):
                return "\n".join(self.lines[i : j + 1]), j
            j += 1
            if j >= self.end:
                raise self.error(
                    f"unexpected end of text: {stack[-1]!r} expected to close this statement"
                    if stack
                    else "unexpected end of text",
                    i,
                    1,
                )

    def _continues_from(self, start: int, j: int) -> bool:
        """Does line j continue the statement that starts at line ``start``? (Only if every line
        in between continues it too: a blank line or comment ends a statement.)"""
        return all(self._continues(k) for k in range(start + 1, j + 1))

    def _continues(self, j: int) -> bool:
        """Is line j the continuation of the statement before it?"""
        if j >= self.end:
            return False
        stripped = self.lines[j].strip()
        if not stripped or stripped.startswith(("//", "}", "/*")):
            return False
        return not self._starts_statement(j)

    def _starts_statement(self, j: int) -> bool:
        """Does line j start an instruction? Also ``name =``, ``name`` or ``ROOT`` alone on a
        line when the next lines go on with the rest of a statement's start (XLA's lexer does
        not care where lines break); the careful path's test for a second statement in a tail
        (:func:`_statement_in_tail`) sees the same statements, so a split always makes progress."""
        line = self.lines[j]
        if _INSTR_START.match(line) is not None:
            return True
        if _STATEMENT_HEAD_EOL.match(line) is None or j + 1 >= self.end:
            return False
        head = "\n".join(self.lines[j : min(j + _HEAD_LINES, self.end)])
        return _INSTR_START.match(head) is not None

    # -- stack frames ------------------------------------------------------------------------
    def _parse_stack_section(self, i: int, section: str) -> int:
        module = self.module
        assert module is not None
        i += 1
        while i < self.end:
            line = self.lines[i]
            m = _SECTION_ENTRY.match(line)
            if m is None:
                break
            key = int(m.group(1))
            value = m.group(2)
            if section in ("FileNames", "FunctionNames"):
                from .escapes import quoted_string_at

                try:
                    text, endpos = quoted_string_at(value, 0)
                except DecodeError as e:
                    raise self.error(e.message, i, m.start(2) + e.offset + 1) from None
                (module.file_names if section == "FileNames" else module.function_names)[key] = text
            else:
                if not (value.startswith("{") and value.endswith("}")):
                    raise self.error(f"expected '{{...}}' in {section}", i, m.start(2) + 1)
                fields = {k: int(v) for k, v in _SUBFIELD.findall(value)}
                if section == "FileLocations":
                    module.file_locations[key] = fields
                else:
                    # Kept as printed: the parent's id + 1 (Module.stack_frames says why).
                    module.stack_frame_table[key] = (
                        fields.get("file_location_id", 0),
                        fields.get("parent_frame_id", 0),
                    )
            i += 1
        return i

    # -- computations ------------------------------------------------------------------------
    def _parse_computation(
        self, i: int, header: re.Match, header_last: int
    ) -> tuple[Computation, int]:
        is_entry = bool(header.group(1))
        name = header.group(2)
        signature = header.group(3) or None
        module = self.module
        assert module is not None
        if name in module.computations_by_name:
            raise self.error(f"duplicate computation name {name!r}", i, header.start(2) + 1)
        comp = Computation(name, is_entry, line=i + 1)
        comp.signature = signature
        if signature and not signature.startswith("("):
            raise self.error(
                f"unexpected text in computation header: {signature[:30]!r}", i, header.start(3) + 1
            )
        i = self._parse_body(comp, header_last + 1)
        comp.module = module
        module.computations.append(comp)
        module.computations_by_name[name] = comp
        return comp, i

    def _line_offset(self, i: int) -> int:
        """Offset of line ``i`` in the source text, or -1 if the lines no longer match it."""
        j, offset = self._cursor
        if i < j:
            j, offset = 0, 0
        lines = self.lines
        offset += sum(map(len, lines[j:i])) + (i - j)
        self._cursor = (i, offset)
        return offset if self.source.text.startswith(lines[i], offset) else -1

    def _parse_body_bulk(self, comp: Computation, i: int) -> int | None:
        """Read a body whose every line is one plainly printed instruction (what XLA's printer
        writes) with one regex pass, in C; return the index after its '}' line, or None (having
        changed nothing) when any line needs the careful line-by-line path of :meth:`_parse_body`.

        The regex finds every line of that form; the body qualifies when it found as many as the
        body has lines, each starting at a line start (see ``_BULK_LINE``). What the regex cannot
        see -- balanced braces in the attributes, a second statement squeezed after them, unknown
        opcodes (async sugar), repeated names, undefined operands -- sends the body back too.
        """
        if i >= self.end or self.nested or self.split_rest is not None:
            return None
        offset = self._line_offset(i)
        if offset <= 0:
            return None
        text = self.source.text
        close = text.find("\n}", offset - 1)
        if close < 0:
            return None
        n_lines = text.count("\n", offset - 1, close)
        closer = i + n_lines
        if closer >= self.end:
            return None
        found = _BULK_LINE.findall(text, offset - 1, close + 1)
        if len(found) != n_lines or n_lines == 0:
            return None
        body = _BulkBody.checked(found, i + 1, self.deferred_attributes)
        if body is None:
            return None
        self._parse_closer(comp, closer, self.lines[closer].strip())
        self._cursor = (closer, close + 1)  # the '}' line: the next body's offset is near
        comp._body = body
        comp._instructions = []  # made by body.build on first use
        return closer + 1

    def _parse_body(self, comp: Computation, i: int) -> int:
        """Parse instructions from line i up to the closing '}'; return the index after it."""
        bulk = self._parse_body_bulk(comp, i)
        if bulk is not None:
            return bulk
        self._blank_comments_from(i)
        lines = self.lines
        end = self.end
        fast = _FAST_INSTR.match
        instructions = comp.instructions
        by_name = comp._by_name
        pending: list[tuple[Instruction, list[str]]] = []
        root: Instruction | None = None
        opcodes = OPCODES
        warnings = self.module.warnings if self.module is not None else []
        last_start = -1
        new = Instruction.__new__
        payload_opcodes = _PAYLOAD_OPCODES
        nested_ops = self.nested  # cleared in place, never rebound
        splits_seen: set[tuple[int, str]] = set()
        while i < end:
            line = lines[i]
            m = fast(line)
            start = i
            inst = None
            if m is not None:
                # Fast path, inlined. The regex stops at the opcode's '(': indices into the
                # line, not copies of its tail, find the operands and the attributes.
                is_root, name, shape_text, opcode = m.groups()
                if line[m.end(2)] == "=":
                    self._check_name_token(line, m, i)
                open_end = m.end()
                close = line.find(")", open_end)
                if close >= 0:
                    inner = line[open_end:close]
                    tail = close + 1
                    n = len(line)
                    if (
                        "(" not in inner
                        and '"' not in inner
                        and (
                            tail == n
                            or (
                                line[tail] == "," and line.count("{", tail) == line.count("}", tail)
                            )
                        )
                    ):
                        # Two statements on one line? Cheap tests first: printed HLO never
                        # has ' = ' or 'ROOT' here outside of strings, and a statement squeezed
                        # after an attribute ('%n=f32[4] negate(r)') always holds its shape's '['.
                        if (
                            tail != n
                            and (
                                line.find(" = ", tail) >= 0
                                or line.find("ROOT", tail) >= 0
                                or (
                                    line.find("[", tail) >= 0
                                    and _COMPACT_STATEMENT.search(line, tail) is not None
                                )
                            )
                            and self._split_line(i, tail)
                        ):
                            continue  # two statements on this line: read the first alone
                        inst = new(Instruction)
                        inst.name = name
                        inst.opcode = opcode
                        inst._shape_text = shape_text
                        inst._users = inst._shape = inst._attrs = inst._called = inst._metadata = (
                            None
                        )
                        inst._line = i + 1
                        if tail != n:
                            j = tail + 1  # after the ','
                            if line.startswith(" ", j):
                                j += 1
                            if line.startswith((" ", "\t"), j):  # unusual spacing
                                j = n - len(line[j:].lstrip())
                            inst._attr_text = line[j:]
                            inst._attr_col = j
                        else:
                            inst._attr_text = ""
                            inst._attr_col = 0
                        if opcode in payload_opcodes:
                            inst._payload = inner
                            operand_names = None
                        else:
                            inst._payload = None
                            if not inner:
                                operand_names = None
                            elif (
                                "[" in inner
                                or "/" in inner
                                or "{" in inner
                                or inner.count(" ") > inner.count(",")
                            ):
                                operand_names = self._operand_names(inner, i, open_end)
                            else:
                                operand_names = inner.replace("%", "").replace(" ", "").split(",")
                                if "" in operand_names:
                                    operand_names = self._operand_names(inner, i, open_end)
                        inst.operands = []
                if inst is None:  # needs the slow path (multi-line, nested brackets...)
                    inst, operand_names, i, is_root = self._slow_instruction(i)
                i += 1
            else:
                stripped = line.strip()
                if not stripped or stripped.startswith("//"):
                    i += 1
                    continue
                if stripped.startswith("}"):
                    self._parse_closer(comp, i, stripped)
                    break
                if stripped.startswith("/*"):
                    i = self._skip_block_comment(i)
                    continue
                starts = self._starts_statement(i)
                if not starts and (last_start < 0 or not self._continues_from(last_start, i)):
                    if _COMP_HEADER.match(line):
                        raise self.error(
                            f"computation {comp.name!r} is not closed with '}}' "
                            "before this computation",
                            i,
                            len(line) - len(line.lstrip()) + 1,
                        )
                    raise self.error(
                        f"expected an instruction, found {stripped[:40]!r}",
                        i,
                        len(line) - len(line.lstrip()) + 1,
                    )
                if not starts:
                    # A continuation of the previous instruction: read that one again, joined.
                    prev = instructions.pop()
                    del by_name[prev.name]
                    if pending and pending[-1][0] is prev:
                        pending.pop()
                    if root is prev:
                        root = None
                    i = start = last_start
                inst, operand_names, i, is_root = self._slow_instruction(i)
                i += 1
            last_start = start
            if nested_ops:
                for nested, nested_names in nested_ops:
                    nested.computation = comp
                    instructions.append(nested)
                    by_name[f"{nested.name} {len(instructions)}"] = (
                        nested  # renamed by _uniquify_names
                    )
                    if nested_names:
                        pending.append((nested, nested_names))
                nested_ops.clear()
            name = inst.name
            if name in by_name:
                raise self.error(
                    f"duplicate instruction name {name!r} in computation {comp.name!r}",
                    inst.line - 1,
                )
            if inst.opcode not in opcodes and not self._expand_async(inst, operand_names):
                warnings.append(f"line {inst.line}: unknown opcode {inst.opcode!r} kept as is")
            by_name[name] = inst
            instructions.append(inst)
            inst.computation = comp
            if operand_names:
                # Printed HLO defines operands before their users: resolve now, and leave
                # forward references (hand-written text) for the end of the computation.
                try:
                    inst.operands = [by_name[n] for n in operand_names]
                except (KeyError, TypeError):
                    pending.append((inst, operand_names))
            if is_root:
                if root is not None:
                    raise self.error(
                        f"second ROOT in computation {comp.name!r} (first was {root.name!r})",
                        inst.line - 1,
                    )
                root = inst
            if self.split_rest is not None:
                # The statement shared its line with the next one: read the rest of it now.
                j, rest = self.split_rest
                self.split_rest = None
                if (j, rest) in splits_seen:
                    # The same rest again: reading on would loop; say where instead.
                    column = len(rest) - len(rest.lstrip()) + 1
                    raise self.error("cannot tell where this statement ends", j, column)
                splits_seen.add((j, rest))
                lines[j] = rest
                i = j
        else:
            raise self.error(
                f"unexpected end of text: computation {comp.name!r} is not closed with '}}'",
                min(i, len(lines)) - 1 if i > 0 else 0,
                len(lines[min(i, len(lines)) - 1]) + 1 if i > 0 else 1,
            )
        if not instructions:
            raise self.error(f"computation {comp.name!r} has no instructions", comp.line - 1)
        comp.root = root if root is not None else instructions[-1]
        for inst, names in pending:
            try:
                inst.operands = [by_name[n] for n in names]
            except (KeyError, TypeError):
                inst.operands = self._resolve_slowly(inst, names, by_name, comp)
        return i + 1

    def _resolve_slowly(
        self, inst: Instruction, names: list, by_name: dict, comp: Computation
    ) -> list[Instruction]:
        ops = []
        for operand_name in names:
            operand = (
                operand_name if isinstance(operand_name, Instruction) else by_name.get(operand_name)
            )
            if operand is None:
                line_text = self.lines[inst.line - 1]
                col = line_text.find(operand_name, line_text.find("("))
                raise self.error(
                    f"operand {operand_name!r} of {inst.name!r} is not defined in "
                    f"computation {comp.name!r}",
                    inst.line - 1,
                    col + 1 if col >= 0 else 1,
                )
            ops.append(operand)
        return ops

    def _parse_closer(self, comp: Computation, i: int, stripped: str) -> None:
        rest = stripped[1:].strip()
        if not rest or rest.startswith("//"):
            return
        m = re.match(r',\s*execution_thread\s*=\s*"((?:[^"\\]|\\.)*)"\s*(//.*)?$', rest)
        if m is None:
            raise self.error(
                f"unexpected text after '}}': {rest[:30]!r}", i, self.lines[i].find(rest) + 1
            )
        from .escapes import c_unescape

        comp.execution_thread = c_unescape(m.group(1))

    # -- instructions ------------------------------------------------------------------------
    def _operand_names(self, inner: str, i: int, col0: int) -> list[str]:
        """General operand split: drops /*index=N*/ comments and operand shapes (long format)."""
        text = _COMMENT.sub(lambda m: " " * len(m.group()), inner)
        if not text.strip():
            return []
        if (
            self.nest_depth == 0
            and text.count("(") > _MAX_NESTED_OPERANDS
            and _max_depth(text) > 2 * _MAX_NESTED_OPERANDS  # a shape and an opcode a level
        ):
            raise self.error(
                f"operand instructions nested more than {_MAX_NESTED_OPERANDS} deep", i, col0 + 1
            )
        names: list[str] = []
        for piece, offset in split_top_level(text):
            if not piece.strip():
                raise self.error("empty operand", i, col0 + offset + 1)
            # A nested instruction ends with ')'; test that first, as the name search below
            # costs time quadratic in the length of a long nested operand.
            m = None if piece.rstrip().endswith(")") else _OPERAND_NAME.search(piece)
            if m is None and piece.rstrip().endswith(")"):
                # A nested instruction, e.g. reshape(f32[1,8] parameter(0)): XLA names it
                # '<opcode>.anon'.
                start = len(piece) - len(piece.lstrip())
                if self.nest_depth >= _MAX_NESTED_OPERANDS:
                    raise self.error(
                        f"operand instructions nested more than {_MAX_NESTED_OPERANDS} deep",
                        i,
                        col0 + offset + 1,
                    )
                self.nest_depth += 1
                try:
                    nested, nested_names = self._instruction_from_text(piece, None, start, i)
                finally:
                    self.nest_depth -= 1
                self.nested.append((nested, nested_names))
                names.append(nested)  # type: ignore[arg-type]  # resolved directly, not by name
                continue
            if m is None:
                raise self.error(
                    f"expected an operand name, found {piece.strip()[:30]!r}", i, col0 + offset + 1
                )
            before = piece[: m.start()].strip()
            if before:
                # A shape precedes the name (long format, before 2025): it must read as a shape.
                try:
                    _, end = parse_shape_prefix(before, 0)
                except DecodeError:
                    raise self.error(
                        f"expected an operand, found {piece.strip()[:30]!r}", i, col0 + offset + 1
                    ) from None
                if _WS.match(before, end).end() != len(before):
                    raise self.error(
                        f"expected an operand, found {piece.strip()[:30]!r}", i, col0 + offset + 1
                    )
            names.append(m.group(1))
        return names

    def _slow_instruction(self, i: int) -> tuple[Instruction, list[str], int, bool]:
        """Bracket-aware path for any instruction statement.

        Returns (instruction, operand names, index of its last line, whether it is the ROOT)."""
        text, last = self._logical_line(i, continuations=True)
        m = _INSTR_START.match(text)
        if m is not None:
            if text[m.end(2)] == "=":
                self._check_name_token(text, m, i)
            cut = _statement_in_tail(text, m.end())
            if cut >= 0:
                text, last = self._split_statement(i, text, cut)
            if "//" in text and "\n" in text:
                # '//' comments inside a statement spread over lines (in a tuple shape, say).
                text = _LINE_COMMENTS.sub(_blank_comment, text)
        if m is None:
            first_line = text.strip().split("\n", 1)[0]  # not splitlines: '\x0c' is no break
            raise self.error(
                f"expected an instruction, found {first_line[:40]!r}",
                i,
                len(text) - len(text.lstrip()) + 1,
            )
        inst, names = self._instruction_from_text(
            text, m.group(2), _WS.match(text, m.end()).end(), i
        )
        return inst, names, last, bool(m.group(1))

    def _check_name_token(self, text: str, m: re.Match, i: int) -> None:
        """XLA's lexer reads ``name=`` (no space, no ``%``) as an *attribute* name, so a
        statement written ``r=f32[4] ...`` is rejected there ("expects name"): reject it too,
        at the same place, instead of reading text XLA would not."""
        start = m.start(2)
        if not (start and text[start - 1] == "%"):
            raise self._pos_error(
                f"expects name: XLA reads {m.group(2) + '='!r} as an attribute name; write "
                f"'{m.group(2)} = ...' (a space before '=') or '%{m.group(2)}=...'",
                i,
                text,
                start,
            )

    def _split_line(self, i: int, tail_start: int) -> bool:
        """If another statement starts in line i after ``tail_start`` (the attribute tail of
        the first), keep only the first statement in line i and queue the rest of the line."""
        line = self.lines[i]
        cut = _statement_in_tail(line, tail_start)
        if cut < 0:
            return False
        self._split_statement(i, line, cut)
        return True

    def _split_statement(self, i: int, text: str, cut: int) -> tuple[str, int]:
        """``text`` (lines i... joined) holds a second statement from offset ``cut``: end the
        first there and queue the rest, blanked up to ``cut`` so columns stay true."""
        j = i + text.count("\n", 0, cut)
        col = cut - (text.rfind("\n", 0, cut) + 1)
        line = self.lines[j]
        self.split_rest = (j, " " * col + line[col:])
        self.lines[j] = line[:col]
        return text[:cut], j

    def _instruction_from_text(
        self, text: str, name: str | None, pos: int, i: int
    ) -> tuple[Instruction, list[str]]:
        """Read ``[shape] opcode(operands)[, attrs]`` from text[pos:]; a nameless one is nested."""
        # Optional shape, then the opcode.
        shape_text = ""
        op = _OPCODE.match(text, pos)
        if op is None or op.group(1) == "b":
            try:
                _, shape_end = parse_shape_prefix(text, pos)
            except DecodeError as e:
                raise self._pos_error(e.message, i, text, e.offset) from None
            shape_text = text[pos:shape_end].strip()
            pos = shape_end
            op = _OPCODE.match(text, pos)
            if op is None:
                raise self._pos_error(
                    "expected an opcode followed by '('", i, text, _WS.match(text, pos).end()
                )
        opcode = op.group(1)
        if name is None:
            name = opcode + ".anon"
        open_pos = op.end() - 1
        try:
            close = find_closing(text, open_pos)
        except DecodeError as e:
            raise self._pos_error(e.message, i, text, e.offset) from None
        if close < 0:
            raise self._pos_error("unexpected end of instruction: missing ')'", i, text, len(text))
        inner = text[open_pos + 1 : close]
        after = text[close + 1 :]
        attr_text = ""
        attr_col = 0
        stripped_after = after.strip()
        if stripped_after and not stripped_after.startswith("//"):
            if not stripped_after.startswith(","):
                raise self._pos_error(
                    f"expected ',' before attributes, found {stripped_after[:20]!r}",
                    i,
                    text,
                    close + 1 + after.find(stripped_after[0]),
                )
            lead = after.find(",") + 1
            attr_text = after[lead:].strip()
            if "\n" in attr_text and _CALLED_ATTR.search(attr_text):
                attr_text = self._lift_inline_bodies(attr_text, name, i)
            attr_col = close + 1 + lead + (len(after[lead:]) - len(after[lead:].lstrip()))
            if "\n" in text[: close + 1 + lead]:
                attr_col = 0  # columns only make sense on the first line
        if opcode in _PAYLOAD_OPCODES:
            inst = Instruction(name, opcode, shape_text, attr_text, inner, i + 1, attr_col)
            return inst, []
        inst = Instruction(name, opcode, shape_text, attr_text, None, i + 1, attr_col)
        if "\n" in inner:
            inner = inner.replace("\n", " ")
        names = self._operand_names(inner, i, open_pos + 1) if inner.strip() else []
        return inst, names

    def _pos_error(self, message: str, i: int, text: str, offset: int) -> HloParseError:
        line_in_stmt = text.count("\n", 0, offset)
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return self.error(message, i + line_in_stmt, col)

    def _lift_inline_bodies(self, attr_text: str, inst_name: str, i: int) -> str:
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
                frames[-1].append("%" + self._inline_computation(body, i))
                pos = m.end()
        if len(frames) > 1:
            raise self.error("unclosed inline computation body", i)
        frames[0].append(attr_text[pos:])
        return "".join(frames[0])

    def _placeholder(self, base: str) -> str:
        """A unique name for a computation the parser makes up; :meth:`_name_computations`
        gives it XLA's name (``base``, uniquified) once the whole module is read."""
        name = f"{base}.__hloscope_{len(self.base_names)}"
        assert self.module is not None and name not in self.module.computations_by_name
        return name

    def _add_made_up(self, comp: Computation, base: str) -> None:
        module = self.module
        assert module is not None
        self.base_names[id(comp)] = base
        comp.module = module
        module.computations.append(comp)
        module.computations_by_name[comp.name] = comp

    def _inline_computation(self, body: str, i: int) -> str:
        """Parse an anonymous body; XLA names such computations '_' ('_.1', '_.2'... when taken)."""
        module = self.module
        assert module is not None
        name = self._placeholder("_")
        sub_lines = body.split("\n") + ["}"]
        sub = _ModuleParser(
            sub_lines, 0, len(sub_lines), SourceText("\n".join(sub_lines), self.source.path)
        )
        sub.module = module
        sub.base_names = self.base_names
        comp = Computation(name, False, line=i + 1)
        try:
            sub._parse_body(comp, 0)
        except HloParseError as e:
            raise self.error(f"in inline computation body: {e.message}", i) from None
        for inst in comp.instructions:
            inst._line = i + 1
        self._add_made_up(comp, "_")
        return name

    # -- async syntax sugar ------------------------------------------------------------------
    def _expand_async(self, inst: Instruction, operand_names: list | None) -> bool:
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
            self._wrap_async_start(inst, stem, len(operand_names or ()))
        elif inst.attr_text:
            # The -update/-done take the wrapped op from their start: XLA rejects its
            # attributes here (older printers repeated them).
            for name, _, offset in self._attributes_of(inst):
                if name not in _ASYNC_FOLLOWER_ATTRS:
                    raise self.error(
                        f"unexpected attribute {name!r} on {opcode} {inst.name!r}",
                        inst.line - 1,
                        inst._attribute_column() + offset - len(name)
                        if inst._attribute_column()
                        else 1,
                    )
        return True

    def _attributes_of(self, inst: Instruction) -> list[tuple[str, str, int]]:
        try:
            return split_attributes(inst.attr_text)
        except DecodeError as e:
            raise self.error(f"{inst.opcode} {inst.name!r}: {e.message}", inst.line - 1) from None

    def _wrap_async_start(self, inst: Instruction, stem: str, n_operands: int) -> None:
        line = inst.line - 1
        try:
            shape = parse_shape(inst.shape_text) if inst.shape_text else None
        except DecodeError as e:
            raise self.error(f"{inst.opcode} {inst.name!r}: {e.message}", line) from None
        if (
            shape is None
            or len(shape.tuple_shapes) < 2
            or not shape.tuple_shapes[0].is_tuple
            or len(shape.tuple_shapes[0].tuple_shapes) != n_operands
        ):
            raise self.error(
                f"{stem}-start {inst.name!r} expects the shape ((operands), outputs, state) "
                f"with one operand shape per operand",
                line,
            )
        triples = self._attributes_of(inst)
        own = {name: raw for name, raw, _ in triples if name in _ASYNC_START_ONLY}
        wrapped_attrs = [(n, raw) for n, raw, _ in triples if n not in _ASYNC_START_ONLY]
        comp = Computation(self._placeholder("async_wrapped"), False, line=inst.line)
        comp.expanded_from = inst
        params = []
        for k, operand_shape in enumerate(shape.tuple_shapes[0].tuple_shapes):
            param = Instruction("async_param", "parameter", operand_shape.to_text(), "", str(k))
            params.append(param)
        attr_text = inst.attr_text if not own else ", ".join(f"{n}={r}" for n, r in wrapped_attrs)
        wrapped = Instruction(
            stem, stem, shape.tuple_shapes[1].to_text(), attr_text, None, inst.line,
            inst._attribute_column() if not own else 0,
        )  # fmt: skip
        wrapped.operands = params
        for member in (*params, wrapped):
            member._line = inst.line
            member.computation = comp
            comp.instructions.append(member)
            comp._by_name[member.name] = member  # duplicates: _uniquify_names renames them
        comp.root = wrapped
        thread = own.get("async_execution_thread")
        if thread is not None:
            from .escapes import c_unescape

            comp.execution_thread = c_unescape(thread.strip()[1:-1])
        start_attrs = [f"async_execution_thread={thread}"] if thread is not None else []
        start_attrs.append("calls=%" + comp.name)
        start_attrs += [f"{n}={own[n]}" for n in _ASYNC_START_ONLY[1:] if n in own]
        start_attrs += [f"{n}={r}" for n, r in wrapped_attrs if n in _ASYNC_SHARED]
        inst._attr_text = ", ".join(start_attrs)
        inst._attr_col = 0
        self._add_made_up(comp, "async_wrapped")

    # -- computation names -------------------------------------------------------------------
    def _name_computations(self, module: Module) -> None:
        """Give computations XLA's names: one ``NameUniquer`` over the module in order, so a
        made-up computation becomes ``_`` or ``async_wrapped`` (``.1``, ``.2``... when taken)
        and ``fused_computation`` after ``fused_computation.0`` and ``.1`` becomes
        ``fused_computation.2``. References in attributes follow the new names."""
        uniquer = _NameUniquer()
        renamed: dict[str, str] = {}
        for comp in module.computations:
            new_name = uniquer.get(self.base_names.get(id(comp), comp.name))
            if new_name != comp.name:
                renamed[comp.name] = new_name
        if not renamed:
            return
        for comp in module.computations:
            comp.name = renamed.get(comp.name, comp.name)
        module.computations_by_name = {c.name: c for c in module.computations}

        def rename(m: re.Match) -> str:
            names = _NAME_LIST.sub(
                lambda n: n.group()[: n.start(1) - n.start()] + renamed.get(n.group(1), n.group(1)),
                m.group(2),
            )
            return m.group()[: m.start(2) - m.start()] + names

        for inst in _possible_callers(module):
            text = inst._attr_text
            if not text or "=" not in text:
                continue
            new_text = _CALLED_NAMES.sub(rename, text)
            if new_text != text:
                inst._attr_text = new_text
                inst._attrs = inst._called = None

    # -- checks ------------------------------------------------------------------------------
    def _check_called_computations(self, module: Module) -> None:
        """Every computation an instruction calls must exist (XLA rejects the module otherwise)."""
        known = module.computations_by_name
        # Unbuilt bodies: the attribute texts of their possible callers, without making
        # Instructions, all in one pass; where a name is unknown, the bodies are looked at one
        # by one, and the instructions made only to say where.
        unbuilt = [comp for comp in module.computations if comp._body is not None]
        columns = [comp._body.columns for comp in unbuilt]
        every_opcode = chain.from_iterable(map(_OPCODES_COLUMN, columns))
        every_text = chain.from_iterable(map(_ATTRIBUTES_COLUMN, columns))
        callers = compress(every_text, map(operator.not_, map(_NOT_CALLER, every_opcode)))
        if _unknown_callee_in_lines("\n".join(callers), known):
            for comp in unbuilt:
                if any(_unknown_callee(text, known) for text in _caller_texts(comp._body)):
                    comp.instructions  # noqa: B018 - built, so the loop below finds the position
        for inst in _possible_callers(module, built_only=True):
            text = inst._attr_text
            if not text or "=" not in text:
                continue
            for m in _CALLED_NAMES.finditer(text):
                for called in _NAME_LIST.findall(m.group(2)):
                    if called not in known:
                        start = inst._attribute_column()
                        col = start + m.start(2) + 1 if start else 1
                        raise self.source.error(
                            f"{m.group(1)} names unknown computation {called!r}", inst.line, col
                        )


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
    + _NAME
    + r"\s*=)|[{}()\[\]]",
    re.S,
)


def _max_depth(text: str) -> int:
    """The deepest bracket nesting in ``text`` (strings and comments skipped), in one pass."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        tok = m.group()
        if tok in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif tok in ")]}":
            depth -= 1
    return deepest


def _blank_comment(m: re.Match) -> str:
    """For ``re.sub``: a ``//`` comment becomes spaces (keeping offsets), a string stays."""
    text = m.group()
    return text if text[0] == '"' else " " * len(text)


def _statement_in_tail(text: str, start: int) -> int:
    """Offset in ``text`` where a second statement starts after ``start``, or -1.

    XLA's lexer ignores line breaks: after an instruction's last attribute value, whatever
    comes next (``ROOT n = ...``, ``n = f32[4] negate(r)``) is the next statement. Here that is
    ``[ROOT] name =`` followed by a shape or an opcode, outside brackets and strings, and not
    right after ',' or '=' (which would make it an attribute or a value).
    """
    depth = 0
    for m in _TAIL_TOKENS.finditer(text, start):
        tok = m.group()
        first = tok[0]
        if len(tok) == 1 and first in "([{":
            depth += 1
        elif len(tok) == 1 and first in ")]}":
            depth -= 1
        elif first in '"/' or depth:
            continue
        else:
            before = text[start : m.start()].rstrip()
            if before and before[-1] not in ",=":
                return m.start()
    return -1


class _NameUniquer:
    """XLA's ``NameUniquer``: ``get(name)`` returns ``name``, or ``base.N`` with the lowest
    free N when ``name`` (read as base and numeric suffix) is taken."""

    __slots__ = ("_used",)

    def __init__(self) -> None:
        self._used: dict[str, list] = {}  # base name -> [used suffix numbers, next candidate]

    def get(self, name: str) -> str:
        base, number, has_suffix = name, 0, False
        dot = name.rfind(".")
        if 0 < dot < len(name) - 1:
            tail = name[dot + 1 :]
            if tail.isdigit() or (tail[0] == "-" and tail[1:].isdigit()):
                base, number, has_suffix = name[:dot], int(tail), True
        gen = self._used.get(base)
        if gen is None:
            self._used[base] = [{number}, 0]
            return name
        used = gen[0]
        if number not in used:
            used.add(number)
            return name
        candidate = gen[1]
        while candidate in used:
            candidate += 1
        used.add(candidate)
        gen[1] = candidate + 1
        return f"{base}.{candidate}" if (candidate or has_suffix) else base


_CALLED_NAMES = re.compile(
    r"(?:^|, )("
    + "|".join(CALLED_COMPUTATION_ATTRS)
    + r")=(\{[^{}]*\}|%?"
    + _NAME
    + r"(?:, %"
    + _NAME
    + r"(?=,|$))*)"
)
# Opcodes that never call a computation (the check skips them; unknown opcodes are checked).
_NON_CALLER_OPCODES = frozenset(OPCODES) - CALLER_OPCODES
_NOT_CALLER = _NON_CALLER_OPCODES.__contains__
_IS_NOT_PAYLOAD = frozenset(OPCODES).difference(_PAYLOAD_OPCODES).__contains__
_OPCODE_OF = operator.attrgetter("opcode")
_NAME_OF = operator.attrgetter("name")


def _names_of(comp: Computation) -> list[str]:
    """Instruction names of ``comp`` in order, without building an unbuilt body."""
    body = comp._body
    return body.names() if body is not None else list(map(_NAME_OF, comp._instructions))


def _possible_callers(module: Module, built_only: bool = False) -> Iterator[Instruction]:
    """The instructions that may call a computation (unknown opcodes too), picked in C: a loop
    in Python over every instruction costs more than the checks that follow. ``built_only``
    leaves out the bodies not built yet."""
    computations = module.computations
    if built_only:
        computations = [c for c in computations if c._body is None]
    everything = list(chain.from_iterable(c.instructions for c in computations))
    non_callers = map(_NOT_CALLER, map(_OPCODE_OF, everything))
    return compress(everything, map(operator.not_, non_callers))


def _unknown_callee(text: str, known: dict[str, Computation]) -> bool:
    """Does this attribute text name a computation that is not in ``known``?"""
    if not text or "=" not in text:
        return False
    for m in _CALLED_NAMES.finditer(text):
        for called in _NAME_LIST.findall(m.group(2)):
            if called not in known:
                return True
    return False


_NAME_LIST = re.compile(r"%?(" + _NAME + r")")
# _CALLED_NAMES over attribute texts joined by line breaks, one pattern per attribute so that
# each starts with a literal (a search at memchr speed instead of a try at every character).
# Each line is one text: no brace list across lines.
_CALLED_VALUES = {
    attr: re.compile(
        attr + r"=(\{[^{}\n]*\}|%?" + _NAME + r"(?:, %" + _NAME + r"(?=,|$))*)", re.MULTILINE
    )
    for attr in CALLED_COMPUTATION_ATTRS
}


_OPCODES_COLUMN = operator.itemgetter(3)  # of _BulkBody.columns
_ATTRIBUTES_COLUMN = operator.itemgetter(6)


def _caller_texts(body: _BulkBody) -> list[str]:
    """The attribute texts of a body's instructions that may call a computation."""
    opcodes = body.opcodes()
    return list(compress(body.attribute_texts(), map(operator.not_, map(_NOT_CALLER, opcodes))))


def _unknown_callee_in_lines(text: str, known: dict[str, Computation]) -> bool:
    """:func:`_unknown_callee` of every line of ``text`` at once, in C. It may also look at
    names a line-by-line read would skip (``xcalls=f``, an attribute inside a brace list): a
    false alarm only sends the caller to the exact check, and nothing that check finds is
    missed."""
    values = []
    for attr, pattern in _CALLED_VALUES.items():
        if attr + "=" in text:
            values += pattern.findall(text)
    return not known.keys() >= set(_NAME_LIST.findall("\n".join(values)))


def _scan_brackets(line: str, stack: list[str]) -> tuple[str, int] | None:
    """Update ``stack`` (expected closers) with the brackets of one line; strings and /*...*/
    comments are skipped. Returns (message, column) for a mismatch or an unterminated string."""
    for m in _BRACKETS.finditer(line):
        tok = m.group()
        if tok in _OPEN:
            stack.append(_OPEN[tok])
        elif tok in ")]}":
            if not stack or stack[-1] != tok:
                expected = repr(stack[-1]) if stack else "nothing"
                return f"unbalanced brackets: found {tok!r}, expected {expected}", m.start()
            stack.pop()
        elif tok == '"':
            return "unterminated string", m.start()
    return None


def _maybe_unbalanced(text: str) -> bool:
    """Cheap test: could brackets in ``text`` be unbalanced? (False means certainly balanced.)"""
    return (
        text.count("{") != text.count("}")
        or text.count("(") != text.count(")")
        or text.count("[") != text.count("]")
    ) and _balance(text) != 0


_ZERO_SUFFIX = re.compile(r"\.(-?0\d*)$", re.M)


def _zero_suffix_collision(names: list[str], name_set: set[str]) -> bool:
    """Distinct names give distinct (base, number) pairs, except when a numeric suffix starts
    with 0: ``x.0`` is (x, 0) like ``x``, and ``x.05`` is (x, 5) like ``x.5``."""
    joined = "\n".join(names)
    canonical_seen: set[str] = set()
    # The regex starts at the dot, not at each line (a line-anchored '(.*)' tried at every
    # character cost a twentieth of a parse); the base is the line up to that dot.
    for m in _ZERO_SUFFIX.finditer(joined):
        dot = m.start()
        base = joined[joined.rfind("\n", 0, dot) + 1 : dot]
        digits = m.group(1)
        number = int(digits)
        canonical = f"{base}.{number}" if number else base
        if canonical in name_set or canonical in canonical_seen:
            return True
        canonical_seen.add(canonical)
    return False


def _uniquify_names(module: Module) -> None:
    """Rename instructions exactly as XLA's parser does (``NameUniquer``, one per module).

    Instruction names only need to be unique within a computation in the text, but XLA makes
    them unique across the module: a repeated ``c`` becomes ``c.1``, a repeated ``x.5`` becomes
    ``x.0`` (the lowest free number for that base name), and so on. Printed dumps are already
    unique, so this only changes hand-written text; doing it keeps names equal to XLA's.
    """
    names = list(chain.from_iterable(map(_names_of, module.computations)))
    name_set = set(names)
    if len(name_set) == len(names) and not _zero_suffix_collision(names, name_set):
        return  # nothing would be renamed
    generators: dict[str, list] = {}  # base name -> [used suffix numbers, next candidate]
    for comp in module.computations:
        renamed = False
        for inst in comp.instructions:
            name = inst.name
            dot = name.rfind(".")
            has_suffix = False
            number = 0
            base = name
            if 0 < dot < len(name) - 1:
                tail = name[dot + 1 :]
                if tail.isdigit() or (tail[0] == "-" and tail[1:].isdigit()):
                    has_suffix = True
                    number = int(tail)
                    base = name[:dot]
            gen = generators.get(base)
            if gen is None:
                generators[base] = [{number}, 0]
                if " " not in name:
                    continue
            else:
                used = gen[0]
                if number not in used:
                    used.add(number)
                    if " " not in name:
                        continue
                else:
                    candidate = gen[1]
                    while candidate in used:
                        candidate += 1
                    used.add(candidate)
                    gen[1] = candidate + 1
                    number = candidate
            inst.name = f"{base}.{number}" if (number or has_suffix) else base
            renamed = True
        if renamed:
            comp._by_name = {inst.name: inst for inst in comp.instructions}


# The careful path's test for a second statement in an attribute tail (_statement_in_tail),
# made for a whole module's attribute texts at once: '[ROOT] name =' and a shape or an opcode,
# right after ')', ']', '}' or a string, or after blanks that follow anything but ',' or '='
# (after those it is an attribute, 'replica_groups=mesh[...]', or a value). Brackets are not
# tracked, so it flags all the careful path would split; a false alarm only sends a body there.
# First a pre-filter that starts with a literal ('=' then what may follow it), then strings
# blanked (no statement hides in one, and op names such as 'conv[padding=((0, 0))]', what older
# JAX printed, looked like one), then the test itself.
_LINE_STRING = re.compile(_lex.quoted('"', newline=False))  # a string that ends on its line
_EQUALS_RHS = re.compile(r"=[ \t]*+(?:\(|" + _NAME_RUN + r"[ \t]*+[\[(])")
_SQUEEZED = re.compile(
    r"(?:(?<=[)\]}\"])|(?<=[^,=\s])[ \t]++)(?:ROOT[ \t]+)?%?"
    + _NAME_RUN
    + r"[ \t]*+=(?=[ \t]*"
    + _RHS_START
    + ")"
)


def _plain_attributes(attrs: Sequence[str]) -> bool:
    """Whether these attribute texts (one per line) are each one instruction's attributes: no
    statement squeezed after them, and no bracket left open (or closed) for another line."""
    joined = "\n".join(attrs)
    if "ROOT" in joined or _EQUALS_RHS.search(joined) is not None:
        unquoted = _LINE_STRING.sub('""', joined)
        if "ROOT" in unquoted or _SQUEEZED.search(unquoted) is not None:
            return False
    # As many of each bracket closing as opening on every line: what the careful path tests
    # before it would join a line to the next (_maybe_unbalanced). Counted on the distinct
    # bracket patterns of the lines (a module has a handful), each line's brackets alone.
    patterns = set(
        joined.encode("utf-8", "surrogatepass").translate(None, _NOT_A_BRACKET).split(b"\n")
    )
    return all(map(_balanced_counts, patterns))


_NOT_A_BRACKET = bytes(c for c in range(256) if c not in b"()[]{}\n")


def _balanced_counts(pattern: bytes) -> bool:
    return (
        pattern.count(b"(") == pattern.count(b")")
        and pattern.count(b"[") == pattern.count(b"]")
        and pattern.count(b"{") == pattern.count(b"}")
    )


def _all_plain(deferred: list[tuple[str, ...]] | None) -> bool:
    """Whether every body's attribute texts put off pass :func:`_plain_attributes`: all of them
    at once, and only if that fails (its tests then found things in two different bodies, say)
    body by body, which is the answer each body alone would have had."""
    if not deferred or _plain_attributes(list(chain.from_iterable(deferred))):
        return True
    return all(map(_plain_attributes, deferred))


class _BulkBody:
    """A plainly printed body, checked as a whole and built into Instructions on first use.

    It keeps the ``_BULK_LINE`` matches as columns, one tuple per group (ROOT, name, shape,
    opcode, operands, operands in another form, attributes), so that opcodes, names and
    attribute texts are there without building anything. :meth:`checked` refuses, with None,
    any body the careful path must read (it alone gives the file:line:column of an error),
    so building never fails.
    """

    __slots__ = ("columns", "first_line")

    def __init__(self, columns: list[tuple[str, ...]], first_line: int) -> None:
        self.columns = columns
        self.first_line = first_line

    @classmethod
    def checked(
        cls,
        found: list[tuple[str, ...]],
        first_line: int,
        deferred: list[tuple[str, ...]] | None = None,
    ) -> _BulkBody | None:
        """The body, if every line is one instruction XLA's printer could have written: known
        opcodes, unique names, defined operands, at most one ROOT, and attributes with balanced
        brackets and no second statement squeezed after them (:func:`_plain_attributes`, put
        off to the end of the module when ``deferred`` collects them). Each test runs over a
        whole column in C: a loop in Python over the lines cost more than the regex that found
        them."""
        columns = list(zip(*found))
        roots, names, _, opcodes, inners, others, attrs = columns
        n = len(names)
        if not _KNOWN_OPCODES.issuperset(opcodes):
            return None  # async sugar and unknown opcodes take the careful path
        defined = set(names)
        if len(defined) != n:
            return None  # a name defined twice: the careful path says where
        if n - roots.count("") > 1:
            return None
        if deferred is not None:
            deferred.append(attrs)  # checked with every other body's at the end
        elif not _plain_attributes(attrs):
            return None
        if "parameter" in opcodes or "constant" in opcodes:
            not_payload = list(map(_IS_NOT_PAYLOAD, opcodes))
            used = list(compress(inners, not_payload))
            others = tuple(compress(others, not_payload))
        else:
            used = list(inners)
        if any(others):
            # The printer numbers long operand lists ('a, /*index=5*/f, ...'); anything else
            # (operands with shapes, nested ops) takes the careful path. Joined with ', ', the
            # lists are plain together exactly when each one is.
            numbered = list(filter(None, others))
            if not all(map(operator.contains, numbered, repeat("/*"))):
                return None
            plain = _INDEX_COMMENTS.sub("", ", ".join(numbered))
            if _PLAIN_OPERANDS.fullmatch(plain) is None:
                return None
            used.append(plain)
        operand_lists = ",".join(used).replace("%", "").replace(" ", "").split(",")
        if not defined.issuperset(filter(None, operand_lists)):
            return None  # an undefined operand: the careful path says where
        return cls(columns, first_line)

    def opcodes(self) -> list[str]:
        return list(self.columns[3])

    def attribute_texts(self) -> tuple[str, ...]:
        return self.columns[6]

    def names(self) -> tuple[str, ...]:
        return self.columns[1]

    def build(self, comp: Computation) -> None:
        """Make the Instruction objects (slots set directly: ``__init__`` would cost a third
        more), resolve operands, and install them, the name table and the root in ``comp``."""
        new = Instruction.__new__
        payload_opcodes = _PAYLOAD_OPCODES
        instructions: list[Instruction] = []
        by_name: dict[str, Instruction] = {}
        pending: list[tuple[Instruction, list[str]]] = []
        root: Instruction | None = None
        number = self.first_line
        for is_root, name, shape_text, opcode, inner, other, attr_text in zip(*self.columns):
            inst = new(Instruction)
            inst.name = name
            inst.opcode = opcode
            inst._shape_text = shape_text
            inst._users = inst._shape = inst._attrs = inst._called = inst._metadata = None
            inst._line = number
            number += 1
            inst._attr_text = attr_text
            inst._attr_col = -1 if attr_text else 0  # worked out when an error needs it
            inst.computation = comp
            by_name[name] = inst
            instructions.append(inst)
            if is_root:
                root = inst
            if opcode in payload_opcodes:
                inst._payload = inner or other
                inst.operands = []
                continue
            inst._payload = None
            if other:
                inner = _INDEX_COMMENTS.sub("", other)
            if inner:
                names = inner.replace("%", "").replace(" ", "").split(",")
                try:
                    inst.operands = list(map(by_name.__getitem__, names))
                except KeyError:  # used before its line: resolved below
                    inst.operands = []
                    pending.append((inst, names))
            else:
                inst.operands = []
        for inst, names in pending:
            inst.operands = list(map(by_name.__getitem__, names))
        comp._instructions = instructions
        comp._by_name = by_name
        comp._root = root if root is not None else instructions[-1]
