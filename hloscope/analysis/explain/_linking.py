"""From a Python line to the kernel that runs it: every stage of one program, side by side.

JAX takes a function through four texts, each on its own: the **jaxpr** (the traced
program), **StableHLO** (what JAX hands the compiler), **HLO before optimization** (XLA's
input) and **HLO after optimization**, where the ops sit in *kernels* (fusions and the ops
left to run alone). :func:`explain` links them through the one thing they all keep, where
each op came from:

* a jaxpr equation knows its traceback (gathered by :mod:`hloscope.capture.jaxpr_lines`,
  since only a live jaxpr has it);
* a StableHLO op carries an MLIR location, ``loc(#loc25)``, which the location table at the
  end of the text resolves to a name (the ``op_name``, ``jit(f)/jvp()/mul``) and a call stack
  (``callsite("f"("model.py":5:8) at ...)``); it is read here from the text, no MLIR needed;
* an HLO instruction has ``metadata={op_name=... stack_frame_id=...}``, and in the optimized
  module the members of every fusion keep theirs.

The bodies jax outlines (a scan's or loop's body, ``closed_call``, a nested ``jax.jit``) are
private functions in StableHLO and called computations in HLO, whose ops are named relative to
them (``mul``) until XLA inlines the calls (``jit(f)/while/body/closed_call/mul``); both
stages' ops get the inlined name and the call site's stack here, as XLA's call inliner gives
them, so they link to their kernels and count for their lines.

Each op's *source* is the innermost frame of its stack in the user's own code, by the rule of
:mod:`hloscope.analysis.provenance`, so the lines here are the lines of ``hloscope fusions
--by-source`` and the per-line op counts after optimization agree with
:func:`~hloscope.analysis.fusions.by_source`. For TensorFlow, whose ops record only
TensorFlow's own frames, the source is the Keras layer path of the ``op_name``
(``model_1/dense_1``), and there is no jaxpr or StableHLO.

Ops are linked to kernels more finely than by line: an op of an earlier stage ended in the
kernels whose members have its ``op_name`` and stack (a jaxpr equation: its primitive, the
last part of the ``op_name``, and its line). Kernels with no source of their own (XLA makes
some: the ``reduce-window`` a tree reduction splits off, copies) get one by inference, marked
as such: from an earlier stage's op with the same ``op_name``, else from the op before
optimization they hold (a ``dot``), else from the nearest op with a line along what reads
them (inside a fusion, the member the value enters; a loop for its counter's copy), else
along what they read.

    >>> e = explain(capture_with_sources(step, *args))     # or a Target, or a Module
    >>> e.lines[0].source, e.lines[0].counts()            # 'model.py:12 (f)', {...}
    >>> e.focus_line("model.py:12").to_dict()
    >>> e.focus_kernel("fusion.3")

What is missing is said, not guessed: a plain HLO file holds one stage, a dump folder has no
jaxpr or StableHLO, a capture saved without jaxpr sources has the jaxpr text but not its lines
(:attr:`Explanation.missing`).
"""

from __future__ import annotations

import contextlib
import difflib
import linecache
import os
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import HloscopeError
from ..hlo.metadata import StackFrame
from ..hlo.model import Module
from ..hlo.opcodes import FREE_OPCODES
from ..stages import Stage
from .fusions import fusion_report, op_source
from .provenance import source_of, tf_function_name, user_frame

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.inprocess import Capture
    from ..capture.jaxpr_lines import JaxprSources
    from ..capture.target import Target
    from ..hlo.model import Instruction

__all__ = [
    "ExplainError",
    "LinkedOp",
    "SourceLine",
    "ExplainedKernel",
    "Explanation",
    "StableHloOp",
    "explain",
    "stablehlo_ops",
    "before_beside",
    "STAGE_ORDER",
]

#: The columns of an explanation, in compiler order (``optimized_hlo``: the kernels' members).
STAGE_ORDER: tuple[Stage, ...] = (Stage.JAXPR, Stage.STABLEHLO, Stage.HLO, Stage.OPTIMIZED_HLO)
# An op's text is cut to this many characters (the whole text is in the stage itself).
_TEXT_LIMIT = 160


class ExplainError(HloscopeError):
    """A focus that names nothing (no such line or kernel), or a target with no HLO to explain."""


# ---- results -----------------------------------------------------------------------------------


@dataclass(slots=True)
class LinkedOp:
    """One op of one stage: a jaxpr equation, a StableHLO op or an HLO instruction.

    ``name`` is how the stage names it (``%3`` in StableHLO, the instruction name in HLO,
    ``#12`` for the 12th jaxpr equation), ``op`` its operation (primitive, ``stablehlo.add``,
    opcode), ``line`` the line of the stage's text it is on (1-based; for the jaxpr, the
    equation's index + 1). ``kernels`` are the kernels it ended in after optimization; for an
    op of the optimized module, ``kernel`` is the kernel that holds it. An op in no kernel has
    a ``fate``: ``"bitcast"`` (it became an op that only renames memory, no kernel runs for
    it) or ``"removed"`` (folded, simplified, or merged with an identical op by CSE).
    """

    stage: Stage
    name: str
    op: str
    op_name: str
    source: str
    text: str
    line: int = 0
    kernels: list[str] = field(default_factory=list)
    kernel: str = ""
    fate: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "op": self.op,
            "op_name": self.op_name,
            "source": self.source,
            "text": self.text,
            "line": self.line,
            "kernels": list(self.kernels),
        }
        if self.stage is Stage.OPTIMIZED_HLO:
            out["kernel"] = self.kernel
        else:
            out["fate"] = self.fate
        return out


@dataclass(slots=True)
class SourceLine:
    """One line of the user's code (or, for TensorFlow, one layer) and what it became.

    ``ops`` holds each stage's ops from this line (:data:`STAGE_ORDER`); ``kernels`` the
    kernels its optimized ops sit in, in the order of the fusion report (what
    :func:`~hloscope.analysis.fusions.by_source` lists); ``inferred_kernels`` the kernels with
    no source of their own that were traced back to this line. ``code`` is the line's text
    when its file can be read.
    """

    source: str
    file: str = ""
    line: int = 0
    function: str = ""
    code: str = ""
    ops: dict[Stage, list[LinkedOp]] = field(default_factory=dict)
    kernels: list[str] = field(default_factory=list)
    inferred_kernels: list[str] = field(default_factory=list)

    def stage_ops(self, stage: Stage) -> list[LinkedOp]:
        return self.ops.get(stage, [])

    def counts(self) -> dict[str, int]:
        """Ops per stage (``optimized_hlo``: the ops after optimization, as ``by_source``)."""
        return {str(stage): len(self.ops.get(stage, [])) for stage in STAGE_ORDER}

    @property
    def n_ops(self) -> int:
        """Ops from this line in the optimized module (``by_source``'s ``ops``)."""
        return len(self.ops.get(Stage.OPTIMIZED_HLO, []))

    @property
    def optimized_away(self) -> bool:
        """Ops came from this line before optimization, and none are left after it."""
        earlier = any(self.ops.get(s) for s in STAGE_ORDER[:-1])
        return earlier and not self.kernels and not self.inferred_kernels

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "code": self.code,
            "counts": self.counts(),
            "kernels": list(self.kernels),
            "inferred_kernels": list(self.inferred_kernels),
            "optimized_away": self.optimized_away,
        }
        for stage in STAGE_ORDER:
            out[str(stage)] = [op.to_dict() for op in self.ops.get(stage, [])]
        return out


@dataclass(slots=True)
class ExplainedKernel:
    """One kernel of the optimized module and the lines it came from.

    ``sources`` are its members' lines with how many members came from each, most first (the
    fusion report's). A kernel without any gets ``inferred_sources`` and ``inferred_how``
    (``"op_name"``: an earlier stage's op of the same name has a line; ``"holds OP"``: it holds
    the op ``OP`` of before optimization, a dot or another op XLA does not duplicate;
    ``"feeds K"`` / ``"fed by K"``: the nearest op with a line along what reads it, else what
    it reads, ``K`` the kernel or loop holding that op).
    """

    name: str
    computation: str
    where: str
    opcode: str
    kind: str
    backend_kind: str
    signature: str
    op_name: str
    n_ops: int
    sources: list[tuple[str, int]] = field(default_factory=list)
    inferred_sources: list[str] = field(default_factory=list)
    inferred_how: str = ""

    @property
    def lines(self) -> list[str]:
        """Its own sources, else the inferred ones."""
        return [s for s, _ in self.sources] or list(self.inferred_sources)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "computation": self.computation,
            "where": self.where,
            "opcode": self.opcode,
            "kind": self.kind,
            "backend_kind": self.backend_kind,
            "signature": self.signature,
            "op_name": self.op_name,
            "n_ops": self.n_ops,
            "sources": [[s, n] for s, n in self.sources],
            "inferred_sources": list(self.inferred_sources),
            "inferred_how": self.inferred_how,
        }


@dataclass(slots=True)
class Explanation:
    """Every source line of one module with its ops at each stage, and every kernel with its
    lines. Build it with :func:`explain`; :meth:`focus_line` and :meth:`focus_kernel` narrow it.

    ``stages`` are the stages that were there to link; ``missing`` says, per absent stage, why
    and how to get it. ``unattributed`` counts, per stage, the ops with no source at all
    (constants, XLA's own ops, the bodies of jax's internal functions).
    """

    module: str
    frontend: str
    stages: list[Stage]
    missing: dict[str, str]
    lines: list[SourceLine]
    kernels: list[ExplainedKernel]
    unattributed: dict[str, int] = field(default_factory=dict)
    focus: str = ""
    notes: list[str] = field(default_factory=list)

    # -- lookups ------------------------------------------------------------------------------

    def kernel(self, name: str) -> ExplainedKernel:
        """The kernel called ``name`` (a leading ``%`` is ignored)."""
        wanted = name.lstrip("%")
        for kernel in self.kernels:
            if kernel.name == wanted:
                return kernel
        close = difflib.get_close_matches(wanted, [k.name for k in self.kernels], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ExplainError(f"module {self.module} has no kernel {wanted!r}{hint}")

    def matching_lines(self, spec: str) -> list[SourceLine]:
        """The lines ``spec`` names: ``FILE:N`` (FILE may be the end of the path) or, for
        TensorFlow, a layer path (its sub-layers included)."""
        found = [line for line in self.lines if _line_matches(line, spec)]
        if found:
            return found
        shown = ", ".join(_short(line.source) for line in self.lines[:6])
        more = f", ... ({len(self.lines)} in all)" if len(self.lines) > 6 else ""
        raise ExplainError(
            f"no op of module {self.module} came from {spec!r} (lines with ops: {shown}{more})"
        )

    # -- focus --------------------------------------------------------------------------------

    def focus_line(self, spec: str) -> Explanation:
        """Only the lines ``spec`` names (see :meth:`matching_lines`) and their kernels."""
        lines = self.matching_lines(spec)
        names = {k for line in lines for k in (*line.kernels, *line.inferred_kernels)}
        kernels = [k for k in self.kernels if k.name in names]
        return self._narrowed(lines, kernels, f"line {spec}")

    def focus_kernel(self, name: str) -> Explanation:
        """Only kernel ``name``, the lines it came from, and of each line only the ops that
        ended in it (for a kernel whose line was inferred from a neighbour: in the
        neighbour)."""
        kernel = self.kernel(name)
        wanted = set(kernel.lines)
        # A kernel traced to its line through a neighbour shows the ops of that neighbour.
        related = {kernel.name}
        if kernel.inferred_how.startswith(("feeds ", "fed by ", "op_name, ")):
            related.add(kernel.inferred_how.rsplit(" ", 1)[-1])
        lines = []
        for line in self.lines:
            if line.source not in wanted:
                continue
            ops = {
                stage: [op for op in ops if related & {*op.kernels, op.kernel}]
                for stage, ops in line.ops.items()
            }
            lines.append(
                SourceLine(
                    line.source,
                    line.file,
                    line.line,
                    line.function,
                    line.code,
                    ops,
                    [k for k in line.kernels if k == kernel.name],
                    [k for k in line.inferred_kernels if k == kernel.name],
                )
            )
        return self._narrowed(lines, [kernel], f"kernel {kernel.name}")

    def _narrowed(
        self, lines: list[SourceLine], kernels: list[ExplainedKernel], focus: str
    ) -> Explanation:
        return Explanation(
            self.module,
            self.frontend,
            list(self.stages),
            dict(self.missing),
            lines,
            kernels,
            dict(self.unattributed),
            focus,
            list(self.notes),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "frontend": self.frontend,
            "stages": [str(s) for s in self.stages],
            "missing": dict(self.missing),
            "focus": self.focus,
            "lines": [line.to_dict() for line in self.lines],
            "kernels": [k.to_dict() for k in self.kernels],
            "unattributed": dict(self.unattributed),
            "notes": list(self.notes),
        }


def _short(source: str) -> str:
    path, sep, rest = source.partition(":")
    return path.rsplit("/", 1)[-1] + sep + rest


_LINE_SPEC = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def _line_matches(line: SourceLine, spec: str) -> bool:
    spec = spec.strip()
    found = _LINE_SPEC.match(spec)
    if found and line.file:
        file, number = found.group("file"), int(found.group("line"))
        return line.line == number and (
            line.file == file or line.file.endswith("/" + file.lstrip("./"))
        )
    return line.source == spec or line.source.startswith(spec.rstrip("/") + "/")


# ---- StableHLO locations -----------------------------------------------------------------------


@dataclass(slots=True)
class StableHloOp:
    """One op of a StableHLO text with its resolved location: ``name`` (``%3``, or ``""``),
    ``op`` (``stablehlo.add``), ``op_name`` (the location's name, ``jit(f)/add``), the call
    ``stack`` innermost first, the enclosing ``function`` (``main``, ``tril``) and ``line``.

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
    brace.
    """
    lines = text.splitlines()
    aliases = {}
    for raw in lines:
        if raw.startswith("#loc"):
            found = _ALIAS.match(raw)
            if found is not None:
                aliases[found.group(1)] = found.group(2).strip()
    locations = _Locations(aliases)
    ops: list[StableHloOp] = []
    open_ops: list[tuple[str, str, int, str, str] | None] = []  # ops waiting for a location
    functions: list[str] = []
    private: set[str] = set()
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(("#", "^", "//")):
            continue
        func = _FUNC.match(raw)
        if func is not None:
            functions.append(func.group("name"))
            if func.group("visibility") == "private":
                private.add(func.group("name"))
        trailing = _trailing_loc(raw)
        if stripped.startswith("}"):
            if trailing is not None and open_ops:
                pending = open_ops.pop()
                if func is None and pending is not None:
                    name, op, start, fn, first = pending
                    ops.append(_op(locations, trailing[1], name, op, fn, start, first))
                if pending is None and functions:
                    functions.pop()
            continue
        found = _OP_LINE.match(raw)
        if found is None:
            continue
        op = found.group("op").strip('"')
        name = (found.group("results") or "").split(",")[0].split(":")[0].strip()
        function = functions[-1] if functions else ""
        if trailing is None:
            # An op with regions (or the module, or a function): its location comes later.
            if stripped.endswith(("{", "({")) or op in ("module", "func.func"):
                is_structure = op in ("module", "func.func")
                open_ops.append(None if is_structure else (name, op, number, function, stripped))
            continue
        if op in _NOT_OPS:
            if op == "func.func":  # a declaration without a body
                functions.pop()
            continue
        ops.append(_op(locations, trailing[1], name, op, function, number, trailing[0]))
    _scope_private_functions(ops, private)
    return ops


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
        _cut(text),
        callee=callee.group("callee") if callee is not None else "",
    )


def _join_scope(prefix: str, name: str) -> str:
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
            (_join_scope(prefix, site.op_name), (*site.stack, *suffix))
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
            (_join_scope(prefix, op.op_name), [*op.stack, *suffix])
            for prefix, suffix in scopes[op.function]
        ]
        (op.op_name, op.stack), op.other_sites = every[0], every[1:]


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "\u2026"


# ---- what there is to explain --------------------------------------------------------------------


@dataclass(slots=True)
class _Inputs:
    """The stages found for one program (``None``: absent) and why each absent one is."""

    name: str
    frontend: str
    jaxpr: JaxprSources | None = None
    stablehlo: str | None = None
    before: Module | None = None
    after: Module | None = None
    missing: dict[str, str] = field(default_factory=dict)


_NEEDS_FUNCTION = "explain SCRIPT.py:FUNCTION, or a capture_with_sources() capture, for it"


def _is_optimized(module: Module) -> bool:
    """An optimized module: scheduled (XLA's header says so) or holding fusions."""
    header = module.header_attrs
    if "is_scheduled" in header and str(header.raw("is_scheduled")).strip().lower() == "true":
        return True
    return any(inst.opcode == "fusion" for inst in module.instructions())


def _frontend_of(module: Module) -> str:
    """``tensorflow`` (TF names its modules), ``jax`` (op names open with ``jit(``), or
    ``xla`` for a module that says neither."""
    if tf_function_name(module.name):
        return "tensorflow"
    for inst in module.instructions():
        if inst.metadata.op_name.startswith(("jit(", "pmap(")):
            return "jax"
    return "xla"


def _from_modules(before: Module | None, after: Module | None, where: str) -> _Inputs:
    some = after if after is not None else before
    assert some is not None
    inputs = _Inputs(some.name, _frontend_of(some), before=before, after=after)
    if inputs.frontend == "tensorflow":
        inputs.missing[str(Stage.JAXPR)] = "TensorFlow has no jaxpr"
        inputs.missing[str(Stage.STABLEHLO)] = "TensorFlow hands XLA HLO, not StableHLO"
    else:
        inputs.missing[str(Stage.JAXPR)] = f"not in {where}; {_NEEDS_FUNCTION}"
        inputs.missing[str(Stage.STABLEHLO)] = f"not in {where}; {_NEEDS_FUNCTION}"
    if before is None:
        inputs.missing[str(Stage.HLO)] = (
            f"{where} holds only the optimized module (a dump folder has both)"
        )
    if after is None:
        inputs.missing[str(Stage.OPTIMIZED_HLO)] = (
            f"{where} holds only HLO before optimization: no kernels (a dump folder has both)"
        )
    return inputs


def _from_capture(capture: Capture, jaxpr: JaxprSources | None) -> _Inputs:
    stages = capture.stages
    before = capture.module(Stage.HLO) if Stage.HLO in stages else None
    after = capture.module(Stage.OPTIMIZED_HLO) if Stage.OPTIMIZED_HLO in stages else None
    inputs = _from_modules(before, after, f"this {capture.frontend} capture")
    inputs.name = capture.name
    if capture.frontend == "tensorflow":
        return inputs
    inputs.frontend = "jax"
    inputs.missing.pop(str(Stage.JAXPR), None)
    inputs.missing.pop(str(Stage.STABLEHLO), None)
    inputs.stablehlo = stages.get(Stage.STABLEHLO)
    if inputs.stablehlo is None:
        inputs.missing[str(Stage.STABLEHLO)] = "this capture has no StableHLO stage"
    inputs.jaxpr = jaxpr if jaxpr is not None else getattr(capture, "jaxpr_sources", None)
    if inputs.jaxpr is None:
        inputs.missing[str(Stage.JAXPR)] = (
            f"this capture has the jaxpr's text but not each equation's line; {_NEEDS_FUNCTION}"
        )
    return inputs


def before_beside(path: str | os.PathLike[str], name: str) -> Module | None:
    """The module ``name`` before optimization, from the ``X.before_optimizations.txt`` beside
    an ``X.after_optimizations.txt`` file (as XLA dumps and ``samples/hlo`` have them);
    ``None`` when there is no such file or it holds no module of that name."""
    from ..hlo.parser import parse_modules

    after = Path(path)
    if "after_optimizations" not in after.name:
        return None
    sibling = after.with_name(after.name.replace("after_optimizations", "before_optimizations"))
    if not sibling.is_file():
        return None
    return next((m for m in parse_modules(sibling) if m.name == name), None)


def _dump_before(target: Target, after: Module) -> Module | None:
    """The module before optimization of the same compilation as ``after`` (the same dump
    module id, found by the file ``after`` was read from; else the main module of its name)."""
    from ..capture.target import TargetError

    path = after.source.path if after.source is not None else None
    for each in target.dump().modules:
        if each.after_file is not None and str(each.after_file.path) == path:
            return each.before()
    try:
        return target.main_module(Stage.HLO, after.name)
    except TargetError:
        return None


def _from_target(
    target: Target, module: str | Module | None, jaxpr: JaxprSources | None
) -> _Inputs:
    from ..capture.target import TargetKind

    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        from ..capture.jaxpr_lines import saved_capture_for_target

        return _from_capture(saved_capture_for_target(target), jaxpr)
    chosen = module if isinstance(module, Module) else None
    if target.kind is TargetKind.HLO_FILE:
        chosen = chosen or target.main_module(Stage.OPTIMIZED_HLO, module)
        where = f"the file {target.path.name}"
        if not _is_optimized(chosen):
            return _from_modules(chosen, None, where)
        before = before_beside(target.path, chosen.name)
        if before is not None:
            beside = target.path.name.replace("after_optimizations", "before_optimizations")
            return _from_modules(before, chosen, f"the files {target.path.name} and {beside}")
        return _from_modules(None, chosen, where)
    after = chosen or target.main_module(Stage.OPTIMIZED_HLO, module)
    return _from_modules(_dump_before(target, after), after, "a dump folder")


def _inputs(value: Any, module: str | Module | None, before: Module | None, jaxpr: Any) -> _Inputs:
    from ..capture.inprocess import Capture
    from ..capture.target import Target

    if isinstance(value, Module):
        if before is not None:
            return _from_modules(before, value, "a pair of modules")
        if _is_optimized(value):
            return _from_modules(None, value, "one module")
        return _from_modules(value, None, "one module")
    if isinstance(value, Capture):
        return _from_capture(value, jaxpr)
    if isinstance(value, (str, os.PathLike)):
        value = Target.resolve(value)
    if isinstance(value, Target):
        return _from_target(value, module, jaxpr)
    raise TypeError(
        "explain() takes a Capture, a Target, a TARGET string or a Module, "
        f"not a {type(value).__name__}"
    )


# ---- linking -------------------------------------------------------------------------------------


def _frame_key(stack: Sequence[StackFrame]) -> tuple[tuple[str, int, str], ...]:
    return tuple((f.file, f.line, f.function) for f in stack)


def _position(stack: Sequence[StackFrame]) -> tuple[str, int, int] | None:
    """``(file, line, column)`` of the user's frame, when the column is known."""
    frame = user_frame(stack)
    if frame is None or not frame.column:
        return None
    return (frame.file, frame.line, frame.column)


class _KernelIndex:
    """Which kernels the optimized ops of each name, stack and line ended in."""

    __slots__ = (
        "by_stack",
        "by_line",
        "by_name",
        "by_primitive",
        "by_position",
        "free",
        "free_names",
    )

    def __init__(self) -> None:
        self.by_stack: dict[tuple, list[str]] = {}
        self.by_line: dict[tuple[str, str], list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_primitive: dict[tuple[str, str], list[str]] = {}
        # By the user's frame with its column: (file, line, column) and the primitive.
        self.by_position: dict[tuple, list[str]] = {}
        # Ops outside every kernel that only rename memory (bitcast, tuple...): their opcode.
        self.free: dict[tuple, str] = {}
        self.free_names: dict[str, str] = {}

    @staticmethod
    def _add(table: dict, key: Any, kernel: str) -> None:
        names = table.setdefault(key, [])
        if kernel not in names:
            names.append(kernel)

    def add(self, op_name: str, stack: Sequence[StackFrame], source: str, kernel: str) -> None:
        frames = _frame_key(stack)
        position = _position(stack)
        if position is not None:
            self._add(self.by_position, position, kernel)
        for part in op_name.split(";"):
            if not part:
                continue
            self._add(self.by_stack, (part, frames), kernel)
            self._add(self.by_line, (part, source), kernel)
            self._add(self.by_name, part, kernel)
            primitive = part.rsplit("/", 1)[-1]
            self._add(self.by_primitive, (source, primitive), kernel)
            if position is not None:
                self._add(self.by_position, (*position, primitive), kernel)

    def of(self, op_name: str, stack: Sequence[StackFrame], source: str) -> list[str]:
        """The kernels an op of an earlier stage ended in: same name and stack, else same name
        and line, else (an op that lost its line) same name."""
        frames = _frame_key(stack)
        out: list[str] = []
        for part in op_name.split(";"):
            found = (
                self.by_stack.get((part, frames))
                or self.by_line.get((part, source))
                or (self.by_name.get(part) if not source else None)
                or []
            )
            out.extend(k for k in found if k not in out)
        return out

    def of_equation(self, stack: Sequence[StackFrame], source: str, primitive: str) -> list[str]:
        """The kernels a jaxpr equation ended in: the ops of its primitive at its very
        position (line and column), else every op at that position (a primitive lowered to
        others: ``logistic`` to ``neg``, ``exp``, ``div``), else its primitive on its line."""
        position = _position(stack)
        if position is not None:
            found = self.by_position.get((*position, primitive)) or self.by_position.get(position)
            if found:
                return list(found)
        return list(self.by_primitive.get((source, primitive), ()))

    def add_free(self, inst: Instruction, source: str) -> None:
        self.free_names[inst.name] = inst.opcode
        frames = _frame_key(inst.stack)
        for part in inst.metadata.op_name.split(";"):
            if part:
                self.free.setdefault((part, frames), inst.opcode)
                self.free.setdefault((part, source), inst.opcode)

    def fate(self, op_name: str, stack: Sequence[StackFrame], source: str, name: str = "") -> str:
        """What became of an op that is in no kernel: the free opcode it turned into, or
        ``"removed"``."""
        if name and name in self.free_names:
            return self.free_names[name]
        frames = _frame_key(stack)
        for part in op_name.split(";"):
            found = self.free.get((part, frames)) or self.free.get((part, source))
            if found:
                return found
        return "removed"


def _inst_text(inst: Instruction) -> str:
    operands = ", ".join(o.name for o in inst.operands)
    return _cut(f"{inst.name} = {inst.shape_text} {inst.opcode}({operands})")


def _members(inst: Instruction) -> list[Instruction]:
    if inst.opcode == "fusion":
        fused = inst.fused_computation
        return [i for i in fused.instructions if i.opcode != "parameter"] if fused else []
    return [inst]


class _Builder:
    """Collects ops into lines, remembering each source's frame for the line's file and code."""

    __slots__ = ("lines", "frames", "unattributed", "unlinked")

    def __init__(self) -> None:
        self.lines: dict[str, SourceLine] = {}
        self.frames: dict[str, StackFrame | None] = {}
        self.unattributed: dict[str, int] = {}
        # HLO ops before optimization that found no kernel, by (opcode, shape): a kernel that
        # lost its metadata may hold one of them (see _infer).
        self.unlinked: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def add(self, op: LinkedOp, stack: Sequence[StackFrame]) -> None:
        if not op.source:
            self.unattributed[str(op.stage)] = self.unattributed.get(str(op.stage), 0) + 1
            return
        line = self.lines.get(op.source)
        if line is None:
            line = self.lines[op.source] = SourceLine(op.source)
            self.frames[op.source] = _frame_of(op.source, stack)
        line.ops.setdefault(op.stage, []).append(op)

    def add_kernel(self, source: str, kernel: str, inferred: bool = False) -> None:
        line = self.lines.get(source)
        if line is None:
            line = self.lines[source] = SourceLine(source)
            self.frames[source] = None
        names = line.inferred_kernels if inferred else line.kernels
        if kernel not in names:
            names.append(kernel)

    def finish(self) -> list[SourceLine]:
        for source, line in self.lines.items():
            frame = self.frames.get(source)
            if frame is not None:
                line.file, line.line, line.function = frame.file, frame.line, frame.function
                line.code = _code(frame.file, frame.line)
        return sorted(self.lines.values(), key=_line_order)


def _line_order(line: SourceLine) -> tuple:
    return (line.file == "", line.file, line.line, line.function, line.source)


def _frame_of(source: str, stack: Sequence[StackFrame]) -> StackFrame | None:
    frame = user_frame(stack)
    return frame if frame is not None and str(frame) == source else None


def _code(file: str, line: int) -> str:
    """The text of ``file``'s line ``line``, stripped ("" when the file is not here)."""
    if not file or line <= 0 or file.startswith("<"):
        return ""
    try:
        return linecache.getline(file, line).strip()
    except (OSError, UnicodeDecodeError, ValueError):  # pragma: no cover - odd files
        return ""


def _kernels_and_members(
    after: Module, builder: _Builder, index: _KernelIndex
) -> dict[str, ExplainedKernel]:
    """Every kernel of the fusion report, its members added to their lines and the index."""
    report = fusion_report(after)
    explained: dict[str, ExplainedKernel] = {}
    for kernel in report.kernels:
        inst = after.computation(kernel.computation).get(kernel.name)
        members = _members(inst) if inst is not None else []
        for member in members:
            source = op_source(member)
            stack = member.stack
            op_name = member.metadata.op_name
            op = LinkedOp(
                Stage.OPTIMIZED_HLO,
                member.name,
                member.opcode,
                op_name,
                source,
                _inst_text(member),
                member.line,
                [kernel.name],
                kernel.name,
            )
            builder.add(op, stack)
            if source:
                builder.add_kernel(source, kernel.name)
            index.add(op_name, stack, source, kernel.name)
        explained[kernel.name] = ExplainedKernel(
            kernel.name,
            kernel.computation,
            kernel.where,
            kernel.opcode,
            kernel.kind,
            kernel.backend_kind,
            kernel.signature,
            kernel.op_name,
            len(kernel.ops),
            list(kernel.sources),
        )
    for comp in after.computations:
        if comp.is_fusion_computation:
            continue
        for inst in comp.instructions:
            if inst.opcode in FREE_OPCODES and inst.opcode != "parameter":
                index.add_free(inst, op_source(inst))
    return explained


def _call_scopes(module: Module) -> dict[str, str]:
    """The ``op_name`` prefix of each computation a ``call`` runs (directly, or through the
    loops and branches inside it), as XLA's call inliner will prepend it.

    jax lowers a nested ``jax.jit``, a ``closed_call`` or a scan body jax outlined to a
    computation whose ops are named relative to it (``mul``); when XLA inlines the call they
    become ``jit(f)/while/body/closed_call/mul``, the names the optimized module has."""
    scopes: dict[str, str] = {}

    def scope_of(comp: Any, depth: int) -> str:
        known = scopes.get(comp.name)
        if known is not None:
            return known
        scopes[comp.name] = ""  # a cycle (or a computation nothing calls) has no prefix
        caller = next(iter(comp.callers), None) if depth < _SCOPE_DEPTH else None
        prefix = ""
        if caller is not None and caller.computation is not None:
            outer = scope_of(caller.computation, depth + 1)
            if caller.opcode == "call":
                prefix = _join_scope(outer, caller.metadata.op_name)
            elif caller.opcode != "fusion":
                prefix = outer
        scopes[comp.name] = prefix
        return prefix

    for comp in module.computations:
        scope_of(comp, 0)
    return scopes


def _add_before(before: Module, builder: _Builder, index: _KernelIndex | None) -> None:
    scopes = _call_scopes(before)
    for comp in before.computations:
        prefix = scopes.get(comp.name, "")
        for inst in comp.instructions:
            if inst.opcode == "parameter":
                continue
            source = op_source(inst)
            stack = inst.stack
            op_name = inst.metadata.op_name
            if prefix and op_name:
                op_name = _join_scope(prefix, op_name)
            kernels = index.of(op_name, stack, source) if index is not None else []
            op = LinkedOp(
                Stage.HLO, inst.name, inst.opcode, op_name, source, _inst_text(inst), inst.line
            )
            op.kernels = kernels
            if index is not None and not kernels:
                op.fate = index.fate(op_name, stack, source, inst.name)
                if inst.opcode == "call":  # XLA inlines it: its ops are in kernels of their own
                    op.fate = "inlined"
                if source and inst.opcode in _DISTINCT_OPCODES:
                    builder.unlinked.setdefault(_op_key(inst), []).append((source, inst.name))
            builder.add(op, stack)


def _add_stablehlo(
    text: str, module_name: str, builder: _Builder, index: _KernelIndex | None
) -> None:
    for found in stablehlo_ops(text):
        # Ops named only by their function's scope (`jit(f)`: constants, the results) carry
        # the caller's frame, not a line of the function: like their HLO, they have no source.
        # An op of a private function has a name of its own, made absolute by stablehlo_ops.
        scoped = "/" in found.op_name or (found.private and bool(found.op_name))
        source = source_of(found.stack, found.op_name, module_name) if scoped else ""
        kernels = index.of(found.op_name, found.stack, source) if index is not None else []
        if index is not None:
            for op_name, stack in found.other_sites:
                kernels.extend(k for k in index.of(op_name, stack, source) if k not in kernels)
        op = LinkedOp(
            Stage.STABLEHLO,
            found.name or found.op,
            found.op,
            found.op_name,
            source,
            found.text,
            found.line,
            kernels,
        )
        if index is not None and not kernels:
            op.fate = "inlined" if found.callee else index.fate(found.op_name, found.stack, source)
        builder.add(op, found.stack)


def _add_jaxpr(sources: JaxprSources, builder: _Builder, index: _KernelIndex | None) -> None:
    for equation in sources.equations:
        source = source_of(equation.stack, "", "") if equation.stack else ""
        kernels = (
            index.of_equation(equation.stack, source, equation.primitive)
            if index is not None and source
            else []
        )
        op = LinkedOp(
            Stage.JAXPR,
            f"#{equation.index}",
            equation.primitive,
            "/".join(p for p in (equation.name_stack, equation.primitive) if p),
            source,
            _cut(("  " * equation.depth) + equation.text),
            equation.index + 1,
            kernels,
        )
        if index is not None and not kernels:
            op.fate = "removed" if not equation.holds_jaxprs else "inlined"
        builder.add(op, equation.stack)


# ---- kernels without a line ---------------------------------------------------------------------


def _sources_by_name(builder: _Builder) -> dict[str, list[str]]:
    """For each op_name part of an earlier stage's op with a line, those lines."""
    table: dict[str, list[str]] = {}
    for line in builder.lines.values():
        for stage in (Stage.HLO, Stage.STABLEHLO, Stage.OPTIMIZED_HLO):
            for op in line.ops.get(stage, ()):
                for part in op.op_name.split(";"):
                    names = table.setdefault(part, [])
                    if op.source not in names:
                        names.append(op.source)
    return table


# An op's chain is searched this far (ops visited) for a line: a bound, not a loop guard.
_CHAIN_LIMIT = 256
# Ops that XLA keeps as they are (no elementwise op, which CSE and fusion freely duplicate or
# merge): one of them in a kernel with no metadata is the op of the same opcode and shape
# before optimization.
_DISTINCT_OPCODES = frozenset(
    {
        "dot",
        "convolution",
        "fft",
        "sort",
        "scatter",
        "gather",
        "select-and-scatter",
        "triangular-solve",
        "cholesky",
        "custom-call",
        "rng-bit-generator",
        "all-reduce",
        "all-gather",
        "reduce-scatter",
        "all-to-all",
        "collective-permute",
    }
)
_LAYOUT = re.compile(r"\{[^{}]*\}")


def _op_key(inst: Instruction) -> tuple[str, str]:
    """``(opcode, shape without layout)``: what an op is called by across optimization."""
    return inst.opcode, _LAYOUT.sub("", inst.shape_text)


def _same_op_before(members: list[Instruction], builder: _Builder) -> tuple[str, str] | None:
    """``(line, name)`` of the op before optimization that a member of a bare kernel is (same
    opcode and shape, found in no kernel), when every such op is on one line."""
    for member in members:
        if member.opcode not in _DISTINCT_OPCODES:
            continue
        found = builder.unlinked.get(_op_key(member), [])
        lines = {source for source, _ in found}
        if len(lines) == 1:
            return found[0]
    return None


def _member_line(fused: Any, start: Sequence[Instruction], users: bool) -> str:
    """The line of the member nearest to ``start`` inside a fused computation: along its
    users (from the parameters a value enters by) or its operands (from the root)."""
    seen = {id(inst) for inst in start}
    queue = deque(start)
    while queue:
        current = queue.popleft()
        source = op_source(current) if current.opcode != "parameter" else ""
        if source:
            return source
        for other in current.users if users else current.operands:
            if id(other) not in seen and other.computation is fused:
                seen.add(id(other))
                queue.append(other)
    return ""


def _line_inside(fusion: Instruction, came_from: Instruction | None, users: bool) -> str:
    """The line of the op inside ``fusion`` that takes ``came_from`` (``users``), or that
    makes the fusion's result (not ``users``)."""
    fused = fusion.fused_computation
    if fused is None:
        return ""
    if not users:
        return _member_line(fused, [fused.root] if fused.root is not None else [], False)
    positions = {i for i, operand in enumerate(fusion.operands) if operand is came_from}
    entering = [p for p in fused.parameters if p.parameter_number in positions]
    return _member_line(fused, entering, True)


def _chain_line(inst: Instruction, users: bool) -> tuple[str, str] | None:
    """``(line, name)``: the nearest op with a line on ``inst``'s operand chain (``users``
    False) or user chain, and the op of ``inst``'s computation that holds it.

    The chain goes through ops with no line of their own (copies, bitcasts, tuples) and into
    kernels: of a fusion, the member that takes the value in (or makes the result) decides,
    not the fusion's most common line. Ops outside kernels count too: a ``while`` or ``call``
    carries its loop's line, so the copy XLA makes of a loop counter gets the loop's line."""
    seen = {id(inst)}
    queue: deque[tuple[Instruction, Instruction]] = deque()
    for other in inst.users if users else inst.operands:
        queue.append((other, inst))
    while queue and len(seen) < _CHAIN_LIMIT:
        current, came_from = queue.popleft()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.opcode == "fusion":
            source = _line_inside(current, came_from, users)
        elif current.opcode == "parameter":
            source = ""
        else:
            source = op_source(current)
        if source:
            return source, current.name
        for other in current.users if users else current.operands:
            queue.append((other, current))
    return None


def _infer(after: Module, kernels: dict[str, ExplainedKernel], builder: _Builder) -> None:
    """Give every kernel without a source of its own the lines of its op_name or neighbours.

    An ``op_name`` found in earlier stages names its lines; a generic one (every backward
    ``transpose`` shares one) names many, and then the line of the nearest op in the graph
    decides when it is among them. Without an ``op_name`` line, the nearest op's line is
    taken (:func:`_chain_line`): first along what reads the kernel, since a kernel XLA split
    off an op feeds the rest of that op (the first half of a split reduction feeds the reduce
    inside the next fusion, whatever that fusion's other lines; a loop counter's copy feeds
    the loop), else along what it reads.
    """
    by_name = _sources_by_name(builder)
    for kernel in kernels.values():
        if kernel.sources:
            continue
        inst = after.computation(kernel.computation).get(kernel.name)
        if inst is None:
            continue
        members = _members(inst)
        named = _named_sources(inst, kernel.op_name, by_name)
        near = _nearest_line(inst)
        same = _same_op_before(members, builder) if not named else None
        if named and near is not None and near[0] in named and len(named) > 1:
            kernel.inferred_sources = [near[0]]
            kernel.inferred_how = f"op_name, {near[1]}"
        elif named:
            kernel.inferred_sources, kernel.inferred_how = named, "op_name"
        elif same is not None:
            kernel.inferred_sources, kernel.inferred_how = [same[0]], f"holds {same[1]}"
        elif near is not None:
            kernel.inferred_sources, kernel.inferred_how = [near[0]], near[1]
        for source in kernel.inferred_sources:
            builder.add_kernel(source, kernel.name, inferred=True)
        _link_inferred(builder, kernel, members)


def _link_inferred(builder: _Builder, kernel: ExplainedKernel, members: list[Instruction]) -> None:
    """Earlier ops of an inferred kernel's line that ended in no kernel, of an opcode the
    kernel holds (a ``dot`` whose kernel lost its metadata), end in it; and so do the
    StableHLO ops and jaxpr equations of their primitive on that line. Only opcodes XLA does
    not duplicate or merge (:data:`_DISTINCT_OPCODES`): a removed ``multiply`` of the line is
    not the one a bare kernel holds."""
    opcodes = {m.opcode for m in members} & _DISTINCT_OPCODES
    for source in kernel.inferred_sources:
        line = builder.lines.get(source)
        if line is None:
            continue
        primitives = set()
        for op in line.ops.get(Stage.HLO, ()):
            if not op.kernels and op.op in opcodes:
                op.kernels, op.fate = [kernel.name], ""
                primitives.add(_last_part(op.op_name))
        for stage in (Stage.STABLEHLO, Stage.JAXPR):
            for op in line.ops.get(stage, ()):
                primitive = op.op if stage is Stage.JAXPR else _last_part(op.op_name)
                if not op.kernels and primitive in primitives:
                    op.kernels, op.fate = [kernel.name], ""


def _last_part(op_name: str) -> str:
    return op_name.split(";")[0].rsplit("/", 1)[-1]


def _named_sources(inst: Instruction, op_name: str, by_name: dict[str, list[str]]) -> list[str]:
    found: list[str] = []
    for name in [op_name] + [m.metadata.op_name for m in _members(inst)]:
        for part in name.split(";"):
            found.extend(s for s in by_name.get(part, ()) if s not in found)
    return found


def _nearest_line(inst: Instruction) -> tuple[str, str] | None:
    """``(line, "feeds K")`` of the nearest op with a line, users first (see :func:`_infer`)."""
    for users, word in ((True, "feeds"), (False, "fed by")):
        found = _chain_line(inst, users)
        if found is not None:
            return found[0], f"{word} {found[1]}"
    return None


# ---- entry point ---------------------------------------------------------------------------------


def explain(
    value: Capture | Target | Module | str | os.PathLike[str],
    *,
    line: str | None = None,
    kernel: str | None = None,
    module: str | Module | None = None,
    before: Module | None = None,
    jaxpr: JaxprSources | None = None,
) -> Explanation:
    """Link every source line of a program to its jaxpr equations, StableHLO ops, HLO
    instructions before optimization and the kernels they ended in.

    ``value`` is a :class:`~hloscope.capture.inprocess.Capture` (a
    :class:`~hloscope.capture.jaxpr_lines.SourcedCapture` brings the jaxpr's lines), a
    :class:`~hloscope.capture.target.Target` or TARGET string (resolving a script runs it; a
    ``SCRIPT.py:FUNCTION`` target's jaxpr lines come from
    :func:`~hloscope.capture.jaxpr_lines.capture_for_target`, which the CLI calls), or an HLO
    :class:`Module` (optimized, or with ``before=`` its module before optimization). ``module``
    picks a module of a multi-module target (a name, or the :class:`Module`
    :meth:`~hloscope.capture.target.Target.choose_module` chose); ``jaxpr`` gives the jaxpr's
    sources explicitly. An ``X.after_optimizations.txt`` file is read with the
    ``X.before_optimizations.txt`` beside it (:func:`before_beside`), a dump's optimized module
    with the HLO before optimization of the same compilation.
    ``line="FILE:N"`` or ``kernel="NAME"`` narrow the result (:meth:`Explanation.focus_line`,
    :meth:`Explanation.focus_kernel`).
    """
    if line is not None and kernel is not None:
        raise ExplainError("focus on a line or on a kernel, not both")
    inputs = _inputs(value, module, before, jaxpr)
    builder = _Builder()
    index = _KernelIndex() if inputs.after is not None else None
    explained: dict[str, ExplainedKernel] = {}
    if inputs.after is not None:
        explained = _kernels_and_members(inputs.after, builder, index)
    module_name = inputs.after.name if inputs.after is not None else inputs.name
    if inputs.before is not None:
        _add_before(inputs.before, builder, index)
    if inputs.stablehlo is not None:
        _add_stablehlo(inputs.stablehlo, module_name, builder, index)
    if inputs.jaxpr is not None:
        _add_jaxpr(inputs.jaxpr, builder, index)
    if inputs.after is not None:
        _infer(inputs.after, explained, builder)
    stages = [s for s in STAGE_ORDER if str(s) not in inputs.missing]
    result = Explanation(
        module=module_name,
        frontend=inputs.frontend,
        stages=stages,
        missing=dict(inputs.missing),
        lines=builder.finish(),
        kernels=list(explained.values()),
        unattributed=dict(builder.unattributed),
        notes=_notes(explained.values()),
    )
    if line is not None:
        return result.focus_line(line)
    if kernel is not None:
        return result.focus_kernel(kernel)
    return result


def _notes(kernels: Iterable[ExplainedKernel]) -> list[str]:
    inferred = [k for k in kernels if not k.sources]
    if not inferred:
        return []
    traced = sum(1 for k in inferred if k.inferred_sources)
    names = ", ".join(k.name for k in inferred[:4]) + (", ..." if len(inferred) > 4 else "")
    note = (
        f"{len(inferred)} kernel(s) have no source line of their own ({names}): XLA made them "
        f"or dropped their metadata; {traced} were traced to a line through their op_name, "
        "the op they hold or the ops next to them (marked 'inferred')"
    )
    return [note]
