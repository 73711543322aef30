"""The patterns of a statement that every part of the parser agrees on.

The reader of the source (is this one line a path or one instruction?), the bulk path, the
careful path and the second chances all have to see the same statements, so the few patterns
they share are written once, here.
"""

from __future__ import annotations

import re

from .. import _lex

# ASCII only, as XLA's lexer (the old `[\w.\-]` let non-ASCII letters in).
NAME = _lex.NAME
assert NAME.endswith("*")
NAME_RUN = NAME + "+"  # the name's last ``*`` made possessive

# What may follow '=' in an instruction: a shape (``f32[``, ``s32 [``, ``(``, ``b(``) or an
# opcode and its '(' (the shape left out).
RHS_START = r"(?:[a-z][a-z0-9_]*[ \t]*\[|\(|b\(|" + NAME + r"[ \t]*\()"
# The start of any instruction statement, for the careful path.
# Line breaks may fall between its tokens (``neg\n= f32[4]\nnegate(p)``): XLA's lexer ignores them.
INSTR_START = re.compile(r"[ \t]*(ROOT\s+)?%?(" + NAME + r")\s*=(?=\s*" + RHS_START + ")")
# An opcode and its '(' (after the shape, or where the shape is left out).
OPCODE = re.compile(r"\s*(" + NAME + r")\s*\(")

# The opcodes whose parentheses hold a payload (a parameter number, a literal), not operands.
PAYLOAD_OPCODES = frozenset({"parameter", "constant"})
# The stack frame tables that may end a module, each read line by line.
STACK_SECTIONS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
