"""Which lines of your code make the compile slow, and what to write instead.

XLA's compile time grows with the program it is given: every instruction goes through hundreds
of passes, and XLA:TPU's code generation and scheduling. Each instruction's metadata names the
Python line that made it (its call stack, innermost frame first), so the program can be counted
per line, before optimization (what XLA was given) and after (what it made):
:func:`line_counts`.

:func:`compile_findings` then names the known causes of a large program, each with the line,
its share of the instructions before optimization, and the fix:

* **an unrolled Python loop** (:attr:`Cause.UNROLLED_LOOP`): JAX runs a Python ``for``/``while``
  loop (or a comprehension) while tracing, so its body is in the program once per iteration and
  XLA compiles every copy. Found from the stacks: instructions whose frames lie inside a loop of
  the user's source (read with :mod:`ast`), grouped by that loop, whose ops repeat a whole number
  of times. ``lax.scan`` or ``lax.fori_loop`` compile one body. A ``grad`` or ``vmap`` over the
  loop (op names ``transpose(jvp(...))``, ``vmap(...)``) unrolls the backward or batched loop
  too, and is said so;
* **a large constant** (:attr:`Cause.LARGE_CONSTANT`): a NumPy array the function closes over
  is folded into the program as a literal (and XLA may fold computations into new ones);
* **thousands of tiny ops** (:attr:`Cause.TINY_OPS`): scalar or near-scalar arithmetic written
  element by element, each op a separate instruction.
"""

from __future__ import annotations

import ast
import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum, auto
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..hlo.metadata import StackFrame
from ..json_fields import json_fields
from .provenance import is_user_frame, user_frame
from .source_code import code_line

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Instruction, Module

__all__ = [
    "Cause",
    "LineCount",
    "CompileFinding",
    "line_counts",
    "compile_findings",
    "LOOP_MIN_REPEATS",
    "LOOP_MIN_SHARE",
    "LARGE_CONSTANT_BYTES",
    "TINY_ELEMENTS",
    "TINY_MIN_OPS",
]

#: A loop is reported when its body repeats at least this often...
LOOP_MIN_REPEATS = 3
#: ... and its copies are at least this share of the program before optimization.
LOOP_MIN_SHARE = 0.10
#: A constant this large (bytes) is reported.
LARGE_CONSTANT_BYTES = 64 * 1024
#: An op whose result has at most this many elements is tiny...
TINY_ELEMENTS = 16
#: ... and a line is reported when it makes at least this many of them.
TINY_MIN_OPS = 500
# Ops that only name or move values (no work XLA must schedule on their own).
_PLUMBING = frozenset({"parameter", "constant", "get-tuple-element", "tuple", "bitcast"})


class Cause(StrEnum):
    """The known causes of a large program."""

    UNROLLED_LOOP = auto()
    LARGE_CONSTANT = auto()
    TINY_OPS = auto()


@dataclass(frozen=True, slots=True)
class LineCount:
    """One line of the user's code and the instructions it made before and after
    optimization."""

    source: str  # file:line
    function: str
    code: str
    instructions_before: int
    instructions_after: int

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "source function code instructions_before instructions_after")


@dataclass(frozen=True, slots=True)
class CompileFinding:
    """A known cause of a large program at one line, its share and its fix."""

    cause: Cause
    source: str  # file:line of the loop statement, the constant's line, the op's line
    code: str
    instructions: int  # before optimization
    share: float  # of the instructions before optimization
    message: str
    fix: str
    repeats: int | None = None
    instructions_after: int | None = None
    bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(
            self,
            "cause source code instructions share repeats instructions_after bytes message fix",
        )


# ---- per line -----------------------------------------------------------------------------------


def _instructions(module: Module | None) -> Iterable[Instruction]:
    if module is None:
        return ()
    return (inst for comp in module.computations for inst in comp.instructions)


def _where(frame: StackFrame) -> str:
    return f"{frame.file}:{frame.line}"


def _per_line(
    instructions: Iterable[Instruction],
) -> tuple[Counter[str], dict[str, StackFrame]]:
    """How many of ``instructions`` each line of the user's code made, and the lines' frames."""
    counts: Counter[str] = Counter()
    frames: dict[str, StackFrame] = {}
    for inst in instructions:
        frame = user_frame(inst.stack)
        if frame is None:
            continue
        key = _where(frame)
        counts[key] += 1
        frames.setdefault(key, frame)
    return counts, frames


def line_counts(before: Module | None, after: Module | None) -> list[LineCount]:
    """Per line of the user's code (the innermost user frame of each instruction), the
    instructions before and after optimization; most instructions before first."""
    before_counts, frames = _per_line(_instructions(before))
    after_counts, after_frames = _per_line(_instructions(after))
    for key, frame in after_frames.items():
        frames.setdefault(key, frame)
    shown = before if before is not None else after
    sources = shown.source_files if shown is not None else {}
    keys = sorted(frames, key=lambda k: (-before_counts[k], -after_counts[k], k))
    return [
        LineCount(
            source=key,
            function=frames[key].function,
            code=code_line(frames[key].file, frames[key].line, sources),
            instructions_before=before_counts[key],
            instructions_after=after_counts[key],
        )
        for key in keys
    ]


# ---- findings -----------------------------------------------------------------------------------


def compile_findings(
    before: Module | None, after: Module | None, sources: Mapping[str, str] | None = None
) -> list[CompileFinding]:
    """The known causes of a large program in ``before`` (and what ``after`` made of them),
    largest share first. ``sources``: the user's files as they ran (else read from disk)."""
    if before is None:
        return []
    snapshot = dict(sources or before.source_files or {})
    total = max(1, sum(1 for _ in _instructions(before)))
    findings = [
        *_unrolled_loops(before, after, snapshot, total),
        *_large_constants(before, after, snapshot, total),
        *_tiny_ops(before, snapshot, total),
    ]
    return sorted(findings, key=lambda f: (-f.share, -(f.bytes or 0), f.source))


@dataclass(frozen=True, slots=True)
class _Loop:
    file: str
    line: int  # the loop statement's first line
    kind: str  # "for", "while", "comprehension"


def _source_text(file: str, snapshot: Mapping[str, str]) -> str | None:
    text = snapshot.get(file)
    if text is None:
        text = snapshot.get(os.path.realpath(file))
    if text is None:
        try:
            with open(file, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return None
    return text


@lru_cache(maxsize=64)
def _loop_spans(text: str) -> tuple[tuple[int, int, int, str], ...]:
    """``(first, last, statement line, kind)`` of every loop body in ``text``: the lines that
    run once per iteration."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)) and node.body:
            last = node.body[-1]
            spans.append((node.body[0].lineno, last.end_lineno or last.lineno, node.lineno, "for"))
        elif isinstance(node, ast.While):
            spans.append((node.lineno, node.end_lineno or node.lineno, node.lineno, "while"))
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            end = node.end_lineno or node.lineno
            spans.append((node.lineno, end, node.lineno, "comprehension"))
    return tuple(spans)


def _loop_of(frame: StackFrame, snapshot: Mapping[str, str], memo: dict) -> _Loop | None:
    """The innermost loop of the user's source whose body holds ``frame``'s line."""
    key = (frame.file, frame.line)
    if key not in memo:
        text = _source_text(frame.file, snapshot)
        inside = [s for s in _loop_spans(text) if s[0] <= frame.line <= s[1]] if text else []
        # Innermost: the span that starts last (ties: the shortest).
        best = max(inside, key=lambda s: (s[0], -s[1]), default=None)
        memo[key] = _Loop(frame.file, best[2], best[3]) if best else None
    return memo[key]


def _enclosing_loop(
    inst: Instruction, snapshot: Mapping[str, str], memo: dict
) -> tuple[_Loop, StackFrame] | None:
    """The first user frame of ``inst``'s stack (innermost first) that runs inside a loop."""
    for frame in inst.stack:
        if not is_user_frame(frame):
            continue
        loop = _loop_of(frame, snapshot, memo)
        if loop is not None:
            return loop, frame
    return None


def _repeats(counts: Iterable[int]) -> int:
    """How many times a loop's body is in the program: the greatest common divisor of how
    often each (line, op) of it occurs, else (a first iteration that differs) the most common
    count."""
    values = [c for c in counts if c > 0]
    if not values:
        return 0
    divisor = math.gcd(*values)
    if divisor >= 2:
        return divisor
    return Counter(values).most_common(1)[0][0]


def _through(op_names: Iterable[str]) -> list[str]:
    """The transformations over the loop that its op names show (``grad``, ``vmap``)."""
    found = set()
    for name in op_names:
        if "transpose(" in name or "jvp(" in name:
            found.add("grad")
        if "vmap(" in name:
            found.add("vmap")
    return sorted(found)


def _unrolled_loops(
    before: Module, after: Module | None, snapshot: Mapping[str, str], total: int
) -> list[CompileFinding]:
    memo: dict = {}
    members: dict[_Loop, Counter[tuple[int, str]]] = defaultdict(Counter)
    names: dict[_Loop, set[str]] = defaultdict(set)
    for inst in _instructions(before):
        if inst.opcode in _PLUMBING:
            continue
        found = _enclosing_loop(inst, snapshot, memo)
        if found is not None:
            loop, frame = found
            members[loop][(frame.line, inst.opcode)] += 1
            names[loop].add(inst.op_name)
    after_counts: Counter[_Loop] = Counter()
    for inst in _instructions(after):
        found = _enclosing_loop(inst, snapshot, memo) if inst.opcode not in _PLUMBING else None
        if found is not None:
            after_counts[found[0]] += 1
    findings = []
    for loop, ops in members.items():
        count = sum(ops.values())
        repeats = _repeats(ops.values())
        share = count / total
        if repeats < LOOP_MIN_REPEATS or share < LOOP_MIN_SHARE:
            continue
        through = _through(names[loop])
        findings.append(_loop_finding(loop, count, share, repeats, through, snapshot, after_counts))
    return findings


def _loop_finding(
    loop: _Loop,
    count: int,
    share: float,
    repeats: int,
    through: list[str],
    snapshot: Mapping[str, str],
    after_counts: Mapping[_Loop, int],
) -> CompileFinding:
    what = {"for": "Python for loop", "while": "Python while loop"}.get(
        loop.kind, "list comprehension"
    )
    over = f", and {' and '.join(through)} over it unrolls that too," if through else ""
    message = (
        f"a {what} is unrolled into the program: its body is there {repeats} times{over} "
        f"making {count:,} instructions ({share:.0%} of the program before optimization), "
        "each copy optimized and compiled by XLA"
    )
    fix = (
        "stack the per-iteration values (weights) into arrays and run the body once with "
        "jax.lax.scan (or jax.lax.fori_loop when nothing is stacked): XLA compiles one body"
    )
    if "grad" in through:
        fix += "; scan is differentiable, and jax.checkpoint on the body bounds its memory"
    return CompileFinding(
        cause=Cause.UNROLLED_LOOP,
        source=f"{loop.file}:{loop.line}",
        code=code_line(loop.file, loop.line, snapshot),
        instructions=count,
        share=share,
        message=message,
        fix=fix,
        repeats=repeats,
        instructions_after=after_counts.get(loop, 0),
    )


def _source_of(inst: Instruction) -> StackFrame | None:
    """The user line of ``inst``, else of the first of its users that has one."""
    frame = user_frame(inst.stack)
    if frame is not None:
        return frame
    for user in inst.users:
        frame = user_frame(user.stack)
        if frame is not None:
            return frame
    return None


def _constants(module: Module | None) -> list[tuple[Instruction, int]]:
    found = []
    for inst in _instructions(module):
        if inst.opcode != "constant":
            continue
        size = inst.shape.byte_size if inst.shape.is_array else None
        if size is not None and size >= LARGE_CONSTANT_BYTES:
            found.append((inst, size))
    return found


def _large_constants(
    before: Module, after: Module | None, snapshot: Mapping[str, str], total: int
) -> list[CompileFinding]:
    findings = []
    given = _constants(before)
    # XLA may lay a constant out anew (transposed, padded to tiles): the same number of
    # elements is the same constant, not one XLA folded.
    known = Counter(inst.shape.element_count for inst, _ in given)
    for inst, size in given:
        findings.append(_constant_finding(inst, size, total, snapshot, folded=False))
    for inst, size in _constants(after):
        if known[inst.shape.element_count] > 0:
            known[inst.shape.element_count] -= 1
            continue
        findings.append(_constant_finding(inst, size, total, snapshot, folded=True))
    return findings


def _constant_finding(
    inst: Instruction, size: int, total: int, snapshot: Mapping[str, str], folded: bool
) -> CompileFinding:
    frame = _source_of(inst)
    shape = inst.shape.to_text(layout=False)
    mib = size / 2**20
    if folded:
        message = (
            f"XLA folded a computation into a {shape} constant ({mib:.1f} MiB) that the "
            "compiled program carries"
        )
        fix = (
            "compute it from an argument (XLA does not fold what depends on one), or pass the "
            "result in as an argument"
        )
    else:
        message = (
            f"a {shape} array ({mib:.1f} MiB) is folded into the program as a constant: XLA "
            "hashes, optimizes and stores its literal with the program"
        )
        fix = (
            "pass the array as an argument of the jitted function instead of closing over it "
            "(jit(f)(x, table)), or build it inside with jnp ops"
        )
    return CompileFinding(
        cause=Cause.LARGE_CONSTANT,
        source=_where(frame) if frame is not None else "",
        code=code_line(frame.file, frame.line, snapshot) if frame is not None else "",
        instructions=1,
        share=1 / total,
        message=message,
        fix=fix,
        bytes=size,
    )


def _is_tiny(inst: Instruction) -> bool:
    if inst.opcode in _PLUMBING or not inst.shape.is_array:
        return False
    elements = inst.shape.element_count
    return elements is not None and elements <= TINY_ELEMENTS


def _tiny_ops(before: Module, snapshot: Mapping[str, str], total: int) -> list[CompileFinding]:
    counts, frames = _per_line(filter(_is_tiny, _instructions(before)))
    findings = []
    for key, count in counts.items():
        if count < TINY_MIN_OPS:
            continue
        frame = frames[key]
        findings.append(
            CompileFinding(
                cause=Cause.TINY_OPS,
                source=key,
                code=code_line(frame.file, frame.line, snapshot),
                instructions=count,
                share=count / total,
                message=(
                    f"{count:,} ops on arrays of at most {TINY_ELEMENTS} elements come from "
                    f"this line ({count / total:.0%} of the program): each is an instruction "
                    "XLA optimizes and schedules on its own"
                ),
                fix=(
                    "work on whole arrays: gather the scalars into one array and use one jnp "
                    "op over it (or jax.vmap), not a Python loop over elements"
                ),
            )
        )
    return findings
