"""Reading the source: from a path, bytes or text to the text the parser reads.

Paths, bytes and their decoding (:func:`read_source`), the split into one chunk of lines per
module (:func:`module_chunks`), the check for characters XLA's lexer refuses
(:func:`check_characters`), ``/* */`` comments made blanks (:func:`blank_comments`), and, for
text whose statements do not sit one per line, the text flattened and re-flowed one statement a
line (:func:`flatten`, :func:`reflow`). Text in, text out: nothing here builds the model.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from .. import _lex
from ..errors import DecodeError, HloParseError
from ..model import SourceText
from ._statements import INSTR_START, NAME, STACK_SECTIONS

Source = str | bytes | os.PathLike


def check_characters(source: SourceText) -> None:
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
_OPERAND_COUNTER = re.compile(r"/\*index=[0-9]+\*/")


def _blank_comment_token(m: re.Match) -> str:
    """A string stays, and so does a printer's ``/*index=N*/`` counter (kept whether or not
    other comments share the text, so a shape reads alike either way); other comments blank."""
    token = m.group()
    if token[0] in "\"'" or _OPERAND_COUNTER.fullmatch(token):
        return token
    return _NOT_A_LINE_BREAK.sub(" ", token)


def blank_comments(text: str) -> str:
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


_FLATTEN_TOKENS = re.compile(_lex.SKIPPED + r"|[ \t\n]+", re.S)


def _flattened_token(m: re.Match) -> str:
    token = m.group()
    if token[0] == '"':
        return token.replace("\n", "\\n")  # the same string, escaped onto one line
    if token[0] == "'":
        return token
    return " "  # a comment or a run of blanks: one blank, as XLA's lexer reads it


def flatten(chunk: str) -> str:
    """``chunk`` on one line as XLA's lexer sees it: comments and line breaks outside strings
    become blanks, raw line breaks inside strings ``\\n`` escapes (the same value). The stack
    frame tables at the end stay as they are: they are read line by line."""
    lines = chunk.split("\n")
    tables = next((k for k, line in enumerate(lines) if line.strip() in STACK_SECTIONS), None)
    if tables is None:
        return _FLATTEN_TOKENS.sub(_flattened_token, chunk).strip(" ")
    head = "\n".join(lines[:tables])
    return _FLATTEN_TOKENS.sub(_flattened_token, head).strip(" ") + "\n" + "\n".join(lines[tables:])


_REFLOW_TOKENS = re.compile(
    _lex.STRING + "|" + _lex.BLOCK_COMMENT + "|" + _lex.LINE_COMMENT + r"|[{}()\[\]]"
    r"|(?:ROOT\s+)?%?" + NAME + r"\s*=(?=\s*(?:[a-z][a-z0-9_]*\[|\(|" + NAME + r"\())",
    re.S,
)


_HEADER_NAME = re.compile(r"\s*HloModule\s+%?(?:" + NAME + r")?:?")
_ATTR_NAME = re.compile(r"\s*,\s*" + NAME + r"\s*=\s*")


def _header_end(chunk: str) -> int:
    """Where the ``HloModule name, attr=value...`` header of ``chunk`` ends (0 if none): after
    its last attribute value, wherever line breaks fall (a whole module may be one line)."""
    from ..attributes import value_end  # the decoders load on first use (see hlo/model.py)

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


def reflow(chunk: str) -> str:
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


# Text that starts like this is HLO, not a file name, unless a file of that name exists.
_TEXT_STARTS = ("HloModule", "ENTRY", "//", "/*")


def _could_be_path(source: object) -> bool:
    """Could ``source`` name a file? (One line of reasonable length; a path-like always can.)"""
    if isinstance(source, os.PathLike):
        return True
    # The length and line tests first: strip() copies a whole module's text that ends in '\n'.
    return (
        isinstance(source, str)
        and len(source) < 4096
        and "\n" not in source
        and "\r" not in source
        and bool(source.strip())
    )


def looks_like_path(source: object) -> bool:
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
        and INSTR_START.match(text) is None  # one instruction: 'n = f32[4] add(...)'
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


def read_source(source: Source, path: str | None) -> tuple[str, str | None, bool]:
    """The text of ``source`` (read from the file when it is a path; bytes decoded as UTF-8;
    line ends made '\\n'), the path to name in errors, and whether the bytes were found
    plain ASCII (:func:`_lex.is_plain_ascii`: :func:`check_characters` has nothing to find)."""
    data: str | bytes
    if looks_like_path(source):
        path = path or str(source)
        data = _read_file(source, path)
    else:
        data = source  # type: ignore[assignment]
    if isinstance(data, bytes) and _lex.is_plain_ascii(data):
        text = data.decode("ascii")  # no NUL, no other control character, no decoding error
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return text, path, True
    if isinstance(data, bytes):
        raw = data
        nul = raw.find(b"\0", 0, 1 << 16)
        if nul >= 0:
            line = raw.count(b"\n", 0, nul) + 1
            raise HloParseError("binary data, not HLO text (NUL byte)", path=path, line=line)
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            line = raw.count(b"\n", 0, e.start) + 1
            col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
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
    return data, path, False


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


def module_chunks(text: str, n_lines: int) -> list[tuple[int, int]]:
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
