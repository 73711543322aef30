"""A reader of StableHLO text's locations: where each op of the MLIR text came from.

StableHLO is what JAX hands XLA (``jax.jit(f).lower(x).as_text(debug_info=True)``). It is MLIR
text, another IR than HLO, and it says where an op came from differently: not with
``metadata={op_name=... stack_frame_id=...}`` (see :mod:`hloscope.hlo.metadata`) but with a
trailing *location*, ``loc(...)``, on every op::

    %2 = stablehlo.multiply %0, %1 : tensor<4xf32> loc(#loc24)

A location is one of a few forms, and they nest:

* ``"file.py":3:11 to :25``: a file, line and column (the ``to`` part, where the expression
  ends, is skipped here);
* ``"name"(LOC)``: a name around a location. jax writes the op's ``op_name``
  (``"jit(f)/mul"``) around its call stack, and a function's name around a file location,
  which together make one stack frame (``"g"("file.py":3:11)``);
* ``callsite(CALLEE at CALLER)``: a call stack, innermost frame first;
* ``fused[LOC, ...]`` (or ``fused<"metadata">[...]``): several locations merged into one,
  which MLIR passes make when they merge ops; the first name and the first stack count here;
* ``unknown``, and ``#locN``: a reference to an *alias*.

jax prints each location once, as an alias in the table at the end of the text
(``#loc24 = loc("mul"(#loc15))``, ``#loc15 = loc("g"(#loc7))``,
``#loc7 = loc("file.py":3:11 to :25)``), and the ops refer to the aliases. :func:`stablehlo_ops`
reads the table, resolves each alias once (a recursive-descent reader of the location
grammar, no MLIR bindings needed) and gives every op its ``op_name`` and stack as
:class:`StableHloOp`, in the same :class:`~hloscope.hlo.metadata.StackFrame` terms as an HLO
instruction's, so that the two stages can be linked op by op
(:mod:`hloscope.analysis.explain`).

The bodies jax outlines (a ``scan``'s body, ``closed_call``, a nested ``jax.jit``) are
``func.func private`` functions, whose ops are located relative to the function (``"sin"``
on the function's own frames). XLA's call inliner names them absolutely once it inlines the
call, the call's ``op_name`` before the op's own (:func:`join_scope`) and the call site's
stack after the op's; :func:`stablehlo_ops` does the same, so an op reads as it will in the
optimized HLO. For example::

    text = jax.jit(f).lower(x).as_text(debug_info=True)
    [(op.op, op.op_name, str(op.stack[0])) for op in stablehlo_ops(text)]
    # [('stablehlo.sine', 'jit(f)/sin', 'model.py:3 (f)'), ...]
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

from .metadata import StackFrame

__all__ = ["StableHloOp", "stablehlo_ops", "join_scope"]


@dataclass(slots=True)
class StableHloOp:
    """One op of a StableHLO text with its resolved location: ``name`` (``%3``, or ``""``),
    ``op`` (``stablehlo.add``), ``op_name`` (the location's name, ``jit(f)/add``), the call
    ``stack`` innermost first, the enclosing ``function`` (``main``, ``tril``), ``line`` (1-based)
    and ``text``, the op as printed before its location, on one line (an op with regions: its
    first line). ``callee`` is the function a call op calls.

    An op of a private function (``func.func private``: a scan, while or cond body jax outlined,
    a ``@closed_call``, a nested ``jax.jit``) has a location relative to its function (``mul``,
    one frame); :func:`stablehlo_ops` makes it absolute the way XLA's call inliner does: the
    call site's ``op_name`` before it (``jit(f)/while/body/closed_call/mul``) and the call
    site's stack after its own. ``private`` says it was in one; ``other_sites`` holds the
    ``(op_name, stack)`` it has at every further call site of its function."""

    name: str
    op: str
    op_name: str
    stack: list[StackFrame]
    function: str
    line: int
    text: str
    private: bool = False
    callee: str = ""
    other_sites: list[tuple[str, list[StackFrame]]] = field(default_factory=list)


# A location body's tokens: strings, alias references, numbers, words and punctuation.
_LOC_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<ref>#loc[\w.$-]*)|(?P<int>\d+)'
    r"|(?P<word>[A-Za-z_][\w]*)|(?P<punct>[():\[\],<>]))"
)
_ALIAS = re.compile(r"^(#loc[\w.$-]*)\s*=\s*loc\((.*)\)\s*$")
_OP_LINE = re.compile(
    r"^\s*(?:(?P<results>%[\w#:.$-]+(?:\s*,\s*%[\w#:.$-]+)*)\s*=\s*)?"
    r'(?P<op>"[\w.$-]+"|[A-Za-z_][\w.$-]*)(?=[\s(<{:]|$)'
)
_FUNC = re.compile(r"^\s*func\.func\s+(?:(?P<visibility>\w+)\s+)?@(?P<name>[\w.$-]+)")
# The function a call op names: `func.call @closed_call(...)`, `call @f(...)`.
_CALLEE = re.compile(r"\bcall\s+@(?P<callee>[\w.$-]+)")
# Calls nested deeper than this are not followed (a recursion guard; jax nests a few levels).
_SCOPE_DEPTH = 64
# Not ops of the program: module structure and terminators.
_NOT_OPS = frozenset(
    {"module", "func.func", "return", "func.return", "stablehlo.return", "sdy.return"}
)


class _LocParser:
    """A recursive-descent reader of one MLIR location body (what ``loc(...)`` encloses)."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _next(self) -> tuple[str, str]:
        found = _LOC_TOKEN.match(self.text, self.pos)
        if found is None or found.end() == self.pos:
            raise ValueError(f"unexpected text in a location: {self.text[self.pos :]!r}")
        self.pos = found.end()
        kind = found.lastgroup or ""
        return kind, found.group(kind)

    def _peek(self) -> tuple[str, str]:
        pos = self.pos
        try:
            return self._next()
        except ValueError:
            return "", ""
        finally:
            self.pos = pos

    def _expect(self, value: str) -> None:
        kind, text = self._next()
        if text != value:
            raise ValueError(f"expected {value!r} in a location, got {text!r}")

    def parse(self) -> tuple:
        kind, text = self._next()
        if kind == "ref":
            return ("ref", text)
        if kind == "word" and text == "unknown":
            return ("unknown",)
        if kind == "word" and text == "callsite":
            self._expect("(")
            callee = self.parse()
            self._expect("at")
            caller = self.parse()
            self._expect(")")
            return ("callsite", callee, caller)
        if kind == "word" and text == "fused":
            return self._fused()
        if kind == "str":
            return self._after_string(_unquote(text))
        raise ValueError(f"unexpected {text!r} in a location")

    def _fused(self) -> tuple:
        if self._peek()[1] == "<":  # fused<"metadata">[...]: the metadata is skipped
            depth = 0
            while True:
                _, text = self._next()
                depth += (text == "<") - (text == ">")
                if depth == 0:
                    break
        self._expect("[")
        parts = [self.parse()]
        while self._peek()[1] == ",":
            self._next()
            parts.append(self.parse())
        self._expect("]")
        return ("fused", parts)

    def _after_string(self, string: str) -> tuple:
        kind, text = self._peek()
        if text == ":":  # "file":line:col [to [line]:col]
            self._next()
            line = int(self._next()[1])
            column = 0
            if self._peek()[1] == ":":
                self._next()
                column = int(self._next()[1])
            if self._peek()[1] == "to":
                self._next()
                if self._peek()[0] == "int":
                    self._next()
                if self._peek()[1] == ":":
                    self._next()
                    self._next()
            return ("file", string, line, column)
        if text == "(":  # "name"(child)
            self._next()
            child = self.parse()
            self._expect(")")
            return ("name", string, child)
        return ("name", string, None)


def _unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    # MLIR escapes a quote and a backslash with a backslash, other bytes as two hex digits.
    out, i = [], 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            pair = body[i + 1 : i + 3]
            if len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair):
                out.append(chr(int(pair, 16)))
                i += 3
                continue
            out.append(body[i + 1])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


class _Locations:
    """The location table of a StableHLO text, resolving each location once."""

    __slots__ = ("_aliases", "_resolved")

    def __init__(self, aliases: dict[str, str]) -> None:
        self._aliases = aliases
        self._resolved: dict[str, tuple[str, tuple[StackFrame, ...]]] = {}

    def resolve_text(self, body: str) -> tuple[str, tuple[StackFrame, ...]]:
        """``(op_name, stack)`` of a location body (``#loc3`` or an inline location)."""
        if body.startswith("#loc") and body in self._aliases:
            return self._alias(body)
        try:
            return self._node(_LocParser(body).parse(), 0)
        except ValueError:
            return "", ()

    def _alias(self, label: str, depth: int = 0) -> tuple[str, tuple[StackFrame, ...]]:
        done = self._resolved.get(label)
        if done is not None:
            return done
        body = self._aliases.get(label)
        result: tuple[str, tuple[StackFrame, ...]] = ("", ())
        if body is not None and depth < 200:
            with contextlib.suppress(ValueError):
                result = self._node(_LocParser(body).parse(), depth + 1)
        self._resolved[label] = result
        return result

    def _node(self, node: tuple, depth: int) -> tuple[str, tuple[StackFrame, ...]]:
        kind = node[0]
        if kind == "ref":
            return self._alias(node[1], depth)
        if kind == "file":
            return "", (StackFrame(node[1], node[2], "", node[3]),)
        if kind == "name":
            name, child = node[1], node[2]
            if child is None:
                return name, ()
            if child[0] == "file":  # "function"("file":line:col): one frame
                return "", (StackFrame(child[1], child[2], name, child[3]),)
            inner_name, frames = self._node(child, depth + 1)
            if not inner_name and frames and not frames[0].function and child[0] == "ref":
                # "function"(#locN) where #locN is a bare file location: still one frame.
                first = frames[0]
                return "", (StackFrame(first.file, first.line, name, first.column),)
            return name, frames
        if kind == "callsite":
            name, callee = self._node(node[1], depth + 1)
            _, caller = self._node(node[2], depth + 1)
            return name, callee + caller
        if kind == "fused":
            name, frames = "", ()
            for part in node[1]:
                part_name, part_frames = self._node(part, depth + 1)
                name = name or part_name
                frames = frames or part_frames
            return name, frames
        return "", ()


def _trailing_loc(line: str) -> tuple[str, str] | None:
    """``(text before, location body)`` when ``line`` ends with ``loc(...)``."""
    stripped = line.rstrip()
    if not stripped.endswith(")"):
        return None
    start = stripped.rfind("loc(")
    if start < 0:
        return None
    body = stripped[start + 4 : -1]
    if body.count("(") != body.count(")"):
        return None
    return stripped[:start].rstrip(), body.strip()


def stablehlo_ops(text: str) -> list[StableHloOp]:
    """Every op of a StableHLO (MLIR) text printed with locations
    (``Lowered.as_text(debug_info=True)``), in text order, each with its location resolved.

    Structure (``module``, ``func.func``) and terminators (``return``) are left out. An op
    printed over several lines (one with regions) gets the location written after its last
    brace. Some ops print their regions from the next line on, after a keyword
    (``stablehlo.while(...) : types`` then ``cond {``, ``stablehlo.reduce(...)`` then
    ``reducer(...) {``): the keyword's regions are the op's, and so is that location.
    """
    lines = text.splitlines()
    locations = _Locations(_location_aliases(lines))
    ops: list[StableHloOp] = []
    open_ops: list[_Pending | None] = []  # ops waiting for a location
    functions: list[str] = []
    private: set[str] = set()
    # The op on the line before, when it ended with neither a location nor a region's brace.
    held: _Pending | None = None
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(("#", "^", "//")):
            continue
        before, held = held, None
        func = _FUNC.match(raw)
        if func is not None:
            _enter_function(func, functions, private)
        trailing = _trailing_loc(raw)
        if stripped.startswith("}"):
            if trailing is not None:
                pending = _closed(open_ops, functions)
                if func is None and pending is not None:
                    ops.append(_op(locations, trailing[1], *_at_start(pending)))
            continue
        found = _OP_LINE.match(raw)
        if found is None:
            continue
        op = found.group("op").strip('"')
        name = (found.group("results") or "").split(",")[0].split(":")[0].strip()
        function = functions[-1] if functions else ""
        if trailing is None:
            here = (name, op, number, function, stripped)
            held = _wait(open_ops, here, before, bool(found.group("results")))
            continue
        if op in _NOT_OPS:
            if op == "func.func":  # a declaration without a body
                functions.pop()
            continue
        ops.append(_op(locations, trailing[1], name, op, function, number, trailing[0]))
    _scope_private_functions(ops, private)
    return ops


def _location_aliases(lines: list[str]) -> dict[str, str]:
    """``#loc12 = loc(...)`` lines: alias -> the location it stands for."""
    aliases = {}
    for raw in lines:
        if raw.startswith("#loc"):
            found = _ALIAS.match(raw)
            if found is not None:
                aliases[found.group(1)] = found.group(2).strip()
    return aliases


_Pending = tuple[str, str, int, str, str]  # (name, op, line, function, its first line's text)


def _enter_function(func: re.Match[str], functions: list[str], private: set[str]) -> None:
    """A ``func.func`` line: its name the function the next ops are in (and a private one's
    name kept, see :func:`_scope_private_functions`)."""
    functions.append(func.group("name"))
    if func.group("visibility") == "private":
        private.add(func.group("name"))


def _closed(open_ops: list[_Pending | None], functions: list[str]) -> _Pending | None:
    """The op whose regions a ``}`` with a location closes, taken off ``open_ops``; ``None``
    for none or for a function or the module (then taken off ``functions``)."""
    if not open_ops:
        return None
    pending = open_ops.pop()
    if pending is None and functions:
        functions.pop()
    return pending


def _wait(
    open_ops: list[_Pending | None], here: _Pending, before: _Pending | None, has_results: bool
) -> _Pending | None:
    """An op line without a location: its regions open on this line (what waits for the
    location goes on ``open_ops``; returns None) or on the next, after a keyword (returns
    ``here``, held for that line)."""
    if here[4].endswith(("{", "({")) or here[1] in ("module", "func.func"):
        open_ops.append(_opened(here, before, has_results))
        return None
    return here


def _opened(here: _Pending, before: _Pending | None, has_results: bool) -> _Pending | None:
    """What waits for the location after the ``}`` of regions opened on ``here``'s line: the
    op itself, the op on the line ``before`` (``cond {``: a keyword opening that op's regions)
    or nothing (``None``: the module, a function)."""
    op = here[1]
    if op in ("module", "func.func"):
        return None
    if before is not None and not has_results and "." not in op:
        return before
    return here


def _at_start(pending: _Pending) -> tuple[str, str, str, int, str]:
    """``pending``'s fields in :func:`_op`'s order after the location's body."""
    name, op, start, function, first = pending
    return name, op, function, start, first


def _op(
    locations: _Locations, body: str, name: str, op: str, function: str, line: int, text: str
) -> StableHloOp:
    op_name, stack = locations.resolve_text(body)
    callee = _CALLEE.search(text) if "call" in op else None
    return StableHloOp(
        name,
        op,
        op_name,
        list(stack),
        function,
        line,
        " ".join(text.split()),
        callee=callee.group("callee") if callee is not None else "",
    )


def join_scope(prefix: str, name: str) -> str:
    """``prefix/name`` as XLA's call inliner writes an inlined op's ``op_name`` (the call's
    name alone for an op without one). A name that opens with the prefix's outermost scope
    (``jit(f)/...``) is absolute already, as jax versions that name a body's ops in full write
    it, and stays as it is."""
    if not prefix:
        return name
    if not name:
        return prefix
    root = prefix.split("/", 1)[0]
    if name == root or name.startswith(root + "/"):
        return name
    return f"{prefix}/{name}"


def _scope_private_functions(ops: list[StableHloOp], private: set[str]) -> None:
    """Make the locations of private functions' ops absolute (see :class:`StableHloOp`)."""
    if not private:
        return
    sites: dict[str, list[StableHloOp]] = {}
    for op in ops:
        if op.callee:
            sites.setdefault(op.callee, []).append(op)
    scopes: dict[str, list[tuple[str, tuple[StackFrame, ...]]]] = {}

    def scopes_of(function: str, depth: int) -> list[tuple[str, tuple[StackFrame, ...]]]:
        """Every ``(op_name prefix, stack suffix)`` ``function``'s ops take, one per call
        site (``[("", ())]`` for a public function: its locations are absolute already)."""
        if function not in private or depth > _SCOPE_DEPTH:
            return [("", ())]
        known = scopes.get(function)
        if known is not None:
            return known
        scopes[function] = [("", ())]  # a call cycle ends here
        found = [
            (join_scope(prefix, site.op_name), (*site.stack, *suffix))
            for site in sites.get(function, ())
            for prefix, suffix in scopes_of(site.function, depth + 1)
        ]
        scopes[function] = found or [("", ())]
        return scopes[function]

    # Every scope first, from the call sites' own (relative) names, before any is rewritten.
    for function in private:
        scopes_of(function, 0)
    for op in ops:
        if op.function not in private:
            continue
        op.private = True
        if not op.op_name:  # no location of its own (a constant): nothing to scope
            continue
        every = [
            (join_scope(prefix, op.op_name), [*op.stack, *suffix])
            for prefix, suffix in scopes[op.function]
        ]
        (op.op_name, op.stack), op.other_sites = every[0], every[1:]
