"""The module parser and its careful path.

:class:`ModuleParser` reads one module's lines: the header, the stack frame tables, and each
computation. A body goes first to the bulk path (:mod:`._bulk`), which takes what XLA's printer
writes; any other body is read here, line by line: :meth:`ModuleParser._plain_line` reads a
one-line instruction with a regular expression and ``str.find``, and the bracket-aware
:meth:`ModuleParser._slow_instruction` reads any statement (spread over lines, tuple shapes,
nested operand instructions, inline bodies, two statements on one line), as XLA's lexer, which
ignores line breaks, would. Errors are :class:`~hloscope.hlo.errors.HloParseError` at
``path:line:column``. The sugar is expanded by :mod:`._sugar`, names are made XLA's by
:mod:`._names` once the module is read.
"""

from __future__ import annotations

import re
from typing import Final

from .. import _lex
from .._lex import find_closing, split_top_level
from ..errors import DecodeError, HloParseError
from ..escapes import c_unescape, quoted_string_at
from ..model import Computation, Instruction, Module, SourceText
from ..opcodes import CALLED_COMPUTATION_ATTRS, OPCODES
from ..shape import parse_shape_prefix
from ._bulk import CheckEachBody, all_plain, read_bulk_body
from ._names import check_called_computations, name_computations, uniquify_names
from ._source import blank_comments
from ._statements import (
    INSTR_START,
    NAME,
    NAME_RUN,
    OPCODE,
    PAYLOAD_OPCODES,
    RHS_START,
    STACK_SECTIONS,
)

# name = array-shape opcode(rest            (the common case: most lines XLA prints)
_FAST_INSTR = re.compile(
    r"[ \t]*(ROOT[ \t]+)?%?(" + NAME + r")[ \t]*=[ \t]*"
    r"([a-z][a-z0-9_]*\[[^\]]*\](?:\{[^{}]*\})?)[ \t]+"
    r"(" + NAME + r")\("
)
# A computation header: ENTRY, the name, the signature (its last character not a blank: one
# greedy run then a step back, where a lazy one tried the '{' at every character of a long
# signature) and the '{' ending the line.
_COMP_HEADER = re.compile(
    r"[ \t]*+(ENTRY[ \t]+)?%?(" + NAME_RUN + r")[ \t]*+(.*[^ \t])?[ \t]*\{[ \t]*\r?$"
)
# The head of a statement cut by a line break (``ROOT``, ``name``, ``name =`` ending the line):
# a statement if the lines after it go on with the rest of one.
_STATEMENT_HEAD_EOL = re.compile(r"[ \t]*(?:ROOT[ \t]+)?%?" + NAME + r"[ \t]*=?[ \t]*$")
_HEAD_LINES = 4  # ROOT / name / = / shape: the most lines a statement's start can be cut into
# Tokens of an attribute tail for the careful test (strings, comments and brackets skipped).
_TAIL_TOKENS = re.compile(
    _lex.STRING
    + "|"
    + _lex.BLOCK_COMMENT
    + "|"
    + _lex.LINE_COMMENT
    + r"|(?<=[\s)\]}\"])(?:ROOT\s+)?%?"
    + NAME
    + r"\s*=(?=\s*"
    + RHS_START
    + r")|[()\[\]{}]",
    re.S,
)

# The start of a computation header whose signature may go on over several lines.
_HEADER_START = re.compile(r"[ \t]*(?:ENTRY[ \t]+)?%?" + NAME + r"[ \t]*\(")
_LINE_COMMENTS = re.compile(_lex.STRING + "|" + _lex.LINE_COMMENT, re.S)
_MODULE_HEADER = re.compile(
    r"[ \t]*HloModule[ \t]+%?(" + NAME + r")?:?[ \t]*(?:,[ \t]*(.*?))?[ \t]*\r?$"
)
_COMMENT = re.compile(_lex.BLOCK_COMMENT, re.S)
_OPERAND_NAME = re.compile(r"%?(" + NAME + r")\s*$")
_BRACKETS = _lex.BRACKET_TOKENS
_SECTION_ENTRY = re.compile(r"[ \t]*(\d+)[ \t]+(.*?)\s*$")
_SUBFIELD = re.compile(r"([A-Za-z_]+)=(-?\d+)")  # FileLocations fields: file_name_id=3 ...
_CALLED_ATTR = re.compile(
    r"(?:^|,\s*)(" + "|".join(CALLED_COMPUTATION_ATTRS) + r")=\s*(\{\s*\n|\{\s*" + NAME + r"\s*=)"
)

# A hint that an attribute tail holds a second statement written without spaces ('...,
# to_apply=add n=f32[4] negate(r)'): a name after whitespace, '=' and a shape. Only a hint: the
# exact answer is _statement_in_tail's; attribute values never start with 'f32[' or '('.
_COMPACT_STATEMENT = re.compile(r"\s%?" + NAME + r"[ \t]*=[ \t]*(?:[a-z][a-z0-9]*\[|\()")
# Nested operand instructions (``add(negate(p), q)``) are read recursively; a bound keeps
# hostile nesting an HloParseError rather than a RecursionError (printed HLO never nests).
_MAX_NESTED_OPERANDS = 100
# What ModuleParser._plain_line returns when the line held a second statement and now holds
# the first alone.
_LINE_SPLIT: Final = (None, None)
_OPEN = {"(": ")", "[": "]", "{": "}"}


class ModuleParser:
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
        self.cursor = (0, 0)
        # ``defer_checks``: the attribute texts of bulk bodies are checked all at once when
        # the module is read (a module of a thousand small bodies spent a tenth of its parse
        # on calls that check one body each); if they do not pass, :class:`CheckEachBody`
        # says to read the module again checking each body where it is.
        self.deferred_attributes: list[tuple[str, ...]] | None = [] if defer_checks else None

    def _blank_comments_from(self, i: int) -> None:
        """Before the careful path reads the body from line i, make the ``/* */`` comments in
        it blanks (:func:`blank_comments`), up to the next line that starts with '}' (where a
        body ends). The bulk path never needs it (it refuses a body with any comment but the
        printer's ``/*index=N*/`` counters, which stay as they are here too), so the bodies
        it reads never pay for it; a body after a changed line leaves the bulk path (its
        offsets no longer match the text)."""
        lines = self.lines
        j = i
        while j < self.end and not lines[j].startswith("}"):
            j += 1
        body = "\n".join(lines[i:j])
        if "/*" not in body:
            return
        blanked = blank_comments(body)
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
            if stripped in STACK_SECTIONS:
                if module is None:
                    module = self._new_module("", i)
                i = self._parse_stack_section(i, stripped)
                continue
            header_text, header_last = self._header_text(i)
            header = _COMP_HEADER.match(header_text)
            if header is None or header.group(2) in ("HloModule",):
                if INSTR_START.match(line):
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
        return self._finish(module, entry_seen)

    def _finish(self, module: Module, entry_seen: Computation | None) -> Module:
        """``module`` with all its computations read: its entry set, the checks that need the
        whole module made, and its made-up and repeated names given as XLA gives them."""
        if not module.computations:
            end = self.end
            raise self.error(
                "module has no computations",
                min(end, len(self.lines)) - 1 if end > self.start else self.start,
            )
        module.entry = entry_seen if entry_seen is not None else module.computations[-1]
        module.entry.is_entry = True
        if not module.name:
            module.name = "module_" + module.entry.name  # what XLA calls a headerless module
        if not all_plain(self.deferred_attributes):
            raise CheckEachBody
        check_called_computations(module, self.source)
        name_computations(module, self.base_names)
        uniquify_names(module)
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
            if INSTR_START.match(nxt) or nxt.strip().startswith("}"):
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
            m2 = re.match(r"[ \t]*HloModule[ \t]+%?(" + NAME + r")?:?[ \t]*(?:,(.*))?$", line, re.S)
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
        if INSTR_START.match(line) is not None:
            return True
        if _STATEMENT_HEAD_EOL.match(line) is None or j + 1 >= self.end:
            return False
        head = "\n".join(self.lines[j : min(j + _HEAD_LINES, self.end)])
        return INSTR_START.match(head) is not None

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
        i = self.parse_body(comp, header_last + 1)
        comp.module = module
        module.computations.append(comp)
        module.computations_by_name[name] = comp
        return comp, i

    def _parse_body_bulk(self, comp: Computation, i: int) -> int | None:
        """The body from line i read by the bulk path (:func:`._bulk.read_bulk_body`): the
        index after its '}' line, or None when the careful path must read it."""
        return read_bulk_body(self, comp, i)

    def parse_inline_body(self, comp: Computation, lines: list[str]) -> None:
        """Read ``lines`` (an inline body and its closing ``}``) into ``comp``, adding to this
        parser's module and naming made-up computations as this parser does."""
        sub = type(self)(lines, 0, len(lines), SourceText("\n".join(lines), self.source.path))
        sub.module = self.module
        sub.base_names = self.base_names
        sub.parse_body(comp, 0)

    def parse_body(self, comp: Computation, i: int) -> int:
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
        nested_ops = self.nested  # cleared in place, never rebound
        splits_seen: set[tuple[int, str]] = set()
        while i < end:
            line = lines[i]
            m = fast(line)
            start = i
            inst = None
            if m is not None:
                read = self._plain_line(line, m, i)
                if read is _LINE_SPLIT:
                    continue  # two statements on this line: read the first alone
                if read is not None:
                    inst, operand_names = read
                    is_root = m.group(1)
                if inst is None:  # needs the slow path (multi-line, nested brackets...)
                    inst, operand_names, i, is_root = self._slow_instruction(i)
                i += 1
            else:
                stripped = line.strip()
                if not stripped or stripped.startswith("//"):
                    i += 1
                    continue
                if stripped.startswith("}"):
                    self.parse_closer(comp, i, stripped)
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
                        nested  # renamed by uniquify_names
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
            if inst.opcode not in opcodes and not _expand_async(self, inst, operand_names):
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

    def _plain_line(
        self, line: str, m: re.Match, i: int
    ) -> tuple[Instruction, list[str] | None] | tuple[None, None] | None:
        """The instruction on line i, which ``_FAST_INSTR`` matched (``m``), and its operand
        names, when the line holds it whole and plainly: operands without brackets or strings,
        attributes with balanced braces. None when the careful :meth:`_slow_instruction` must
        read it; ``_LINE_SPLIT`` when a second statement started on the line, which now holds
        the first alone (read the line again).

        The careful path's quick reading of a line, for bodies the bulk path sent back. The
        regex stops at the opcode's '(': indices into the line, not copies of its tail, find
        the operands and the attributes.
        """
        name, shape_text, opcode = m.group(2, 3, 4)
        if line[m.end(2)] == "=":
            self._check_name_token(line, m, i)
        open_end = m.end()
        close = line.find(")", open_end)
        if close < 0:
            return None
        inner = line[open_end:close]
        tail = close + 1
        n = len(line)
        if (
            "(" in inner
            or '"' in inner
            or (tail != n and (line[tail] != "," or line.count("{", tail) != line.count("}", tail)))
        ):
            return None
        # Two statements on one line? Cheap tests first: printed HLO never has ' = ' or 'ROOT'
        # here outside of strings, and a statement squeezed after an attribute
        # ('%n=f32[4] negate(r)') always holds its shape's '['.
        if (
            tail != n
            and (
                line.find(" = ", tail) >= 0
                or line.find("ROOT", tail) >= 0
                or (line.find("[", tail) >= 0 and _COMPACT_STATEMENT.search(line, tail) is not None)
            )
            and self._split_line(i, tail)
        ):
            return _LINE_SPLIT
        if tail != n:
            j = tail + 1  # after the ','
            if line.startswith(" ", j):
                j += 1
            if line.startswith((" ", "\t"), j):  # unusual spacing
                j = n - len(line[j:].lstrip())
            attr_text, attr_col = line[j:], j
        else:
            attr_text, attr_col = "", 0
        operand_names: list[str] | None
        if opcode in PAYLOAD_OPCODES:
            inst = Instruction.from_parts(
                name, opcode, shape_text, attr_text, attr_col, inner, i + 1, None, []
            )
            return inst, None
        inst = Instruction.from_parts(
            name, opcode, shape_text, attr_text, attr_col, None, i + 1, None, []
        )
        if not inner:
            operand_names = None
        elif "[" in inner or "/" in inner or "{" in inner or inner.count(" ") > inner.count(","):
            operand_names = self._operand_names(inner, i, open_end)
        else:
            operand_names = inner.replace("%", "").replace(" ", "").split(",")
            if "" in operand_names:
                operand_names = self._operand_names(inner, i, open_end)
        return inst, operand_names

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

    def parse_closer(self, comp: Computation, i: int, stripped: str) -> None:
        rest = stripped[1:].strip()
        if not rest or rest.startswith("//"):
            return
        m = re.match(r',\s*execution_thread\s*=\s*"((?:[^"\\]|\\.)*)"\s*(//.*)?$', rest)
        if m is None:
            raise self.error(
                f"unexpected text after '}}': {rest[:30]!r}", i, self.lines[i].find(rest) + 1
            )
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
                nested = self._nested_operand(piece, i, col0 + offset + 1)
                names.append(nested)  # type: ignore[arg-type]  # resolved directly, not by name
                continue
            if m is None:
                raise self.error(
                    f"expected an operand name, found {piece.strip()[:30]!r}", i, col0 + offset + 1
                )
            before = piece[: m.start()].strip()
            if before:  # a shape precedes the name (long format, before 2025)
                self._check_operand_shape(before, piece, i, col0 + offset + 1)
            names.append(m.group(1))
        return names

    def _nested_operand(self, piece: str, i: int, col: int) -> Instruction:
        """A nested instruction as an operand, e.g. ``reshape(f32[1,8] parameter(0))``, which
        XLA names ``<opcode>.anon``; kept in :attr:`nested` with its operand names."""
        start = len(piece) - len(piece.lstrip())
        if self.nest_depth >= _MAX_NESTED_OPERANDS:
            raise self.error(
                f"operand instructions nested more than {_MAX_NESTED_OPERANDS} deep", i, col
            )
        self.nest_depth += 1
        try:
            nested, nested_names = self._instruction_from_text(piece, None, start, i)
        finally:
            self.nest_depth -= 1
        self.nested.append((nested, nested_names))
        return nested

    def _check_operand_shape(self, before: str, piece: str, i: int, col: int) -> None:
        """``before``, the text before an operand's name in ``piece``, must read as a shape."""
        try:
            _, end = parse_shape_prefix(before, 0)
        except DecodeError:
            end = -1
        if end < 0 or _lex.match_ws(before, end).end() != len(before):
            raise self.error(f"expected an operand, found {piece.strip()[:30]!r}", i, col)

    def _slow_instruction(self, i: int) -> tuple[Instruction, list[str], int, bool]:
        """Bracket-aware path for any instruction statement.

        Returns (instruction, operand names, index of its last line, whether it is the ROOT)."""
        text, last = self._logical_line(i, continuations=True)
        m = INSTR_START.match(text)
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
            text, m.group(2), _lex.match_ws(text, m.end()).end(), i
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
        op = OPCODE.match(text, pos)
        if op is None or op.group(1) == "b":
            try:
                _, shape_end = parse_shape_prefix(text, pos)
            except DecodeError as e:
                raise self._pos_error(e.message, i, text, e.offset) from None
            shape_text = text[pos:shape_end].strip()
            pos = shape_end
            op = OPCODE.match(text, pos)
            if op is None:
                raise self._pos_error(
                    "expected an opcode followed by '('", i, text, _lex.match_ws(text, pos).end()
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
        attr_text, attr_col = self._attribute_tail(text, close, name, i)
        if opcode in PAYLOAD_OPCODES:
            inst = Instruction(name, opcode, shape_text, attr_text, inner, i + 1, attr_col)
            return inst, []
        inst = Instruction(name, opcode, shape_text, attr_text, None, i + 1, attr_col)
        if "\n" in inner:
            inner = inner.replace("\n", " ")
        names = self._operand_names(inner, i, open_pos + 1) if inner.strip() else []
        return inst, names

    def _attribute_tail(self, text: str, close: int, name: str, i: int) -> tuple[str, int]:
        """The attribute text after the operands' ``)`` at ``close`` (inline bodies lifted out)
        and its 0-based column (0 when the statement spans lines before it)."""
        after = text[close + 1 :]
        stripped_after = after.strip()
        if not stripped_after or stripped_after.startswith("//"):
            return "", 0
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
            from ._sugar import lift_inline_bodies  # inline bodies: hand-written text only

            attr_text = lift_inline_bodies(self, attr_text, name, i)
        if "\n" in text[: close + 1 + lead]:
            return attr_text, 0  # columns only make sense on the first line
        return attr_text, close + 1 + lead + (len(after[lead:]) - len(after[lead:].lstrip()))

    def _pos_error(self, message: str, i: int, text: str, offset: int) -> HloParseError:
        line_in_stmt = text.count("\n", 0, offset)
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return self.error(message, i + line_in_stmt, col)


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


def _expand_async(parser: ModuleParser, inst: Instruction, operand_names: list | None) -> bool:
    """:func:`._sugar.expand_async`, loaded on first use: the async sugar (and the escapes it
    reads) is hand-written text's, and a printed module's parse never imports it."""
    from ._sugar import expand_async

    return expand_async(parser, inst, operand_names)
