"""Async pairs made synchronous, so that XLA's importer takes a module to compile and time.

A module XLA:TPU optimized holds async pairs that wrap one op: ``%slice-start =
async-start(%x), calls=%async_computation`` and ``%slice-done = async-done(%slice-start)``,
where the computation is ``parameter(0)`` and ``ROOT slice(...)`` (``compiled.as_text()`` prints
the same pair as ``slice-start(%x), slice={...}`` / ``slice-done(...)`` and leaves the
computation out; the parser makes it again). XLA's HLO-to-MLIR importer, which bench compiles
through, does not keep such a pair (measured, jax 0.10: "Expected array argument for operand
of unary operation, but got (f32[16,128])"). What the call implies is the op itself: the done
becomes ``%slice-done = slice(%x), slice={...}`` and the start goes; a ``copy-start`` /
``copy-done`` pair (a move between memory spaces, which bench's plain layouts no longer name)
becomes a ``copy``, which XLA's CPU compiler otherwise refused ("The copy-start instruction
requires one consumer, found 3" after its own passes). The result is the same
array; bench times the module XLA makes of it again for the device, which schedules its own
prefetches. A pair whose computation holds more than its root and parameters, or whose start
has another user, is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Computation, Instruction, Module

__all__ = ["synchronous_text"]

# The done of each start made synchronous.
_DONE = {"async-start": "async-done", "copy-start": "copy-done"}


def _wrapped_root(start: Instruction) -> Instruction | None:
    """The one op ``start``'s computation runs on its parameters, else ``None``."""
    called = start.called_computations
    if len(called) != 1:
        return None
    comp = called[0]
    root = comp.root
    if root is None or any(i is not root and i.opcode != "parameter" for i in comp.instructions):
        return None
    if any(op.opcode != "parameter" or op.computation is not comp for op in root.operands):
        return None
    return root


@dataclass(frozen=True, slots=True)
class _Sync:
    """What a done becomes: ``opcode(operands), attributes``, and the start that goes."""

    start: Instruction
    opcode: str
    operands: tuple[str, ...]
    attributes: str


def _wrapped_call(start: Instruction, root: Instruction) -> _Sync:
    operands = []
    for param in root.operands:
        number = param.parameter_number
        if number is None or number >= len(start.operands):
            raise ValueError(f"{start.name}: parameter {param.name} has no operand")
        operands.append(start.operands[number].name)
    return _Sync(start, root.opcode, tuple(operands), root.attr_text)


def _pairs(module: Module) -> dict[int, _Sync]:
    """Each done (by id) made synchronous (see the module docstring)."""
    out: dict[int, _Sync] = {}
    for inst in module.instructions():
        users = inst.users
        if len(users) != 1 or users[0].opcode != _DONE.get(inst.opcode):
            continue
        if inst.opcode == "copy-start":  # a copy between memory spaces: a copy
            if inst.operands:
                out[id(users[0])] = _Sync(inst, "copy", (inst.operands[0].name,), "")
            continue
        root = _wrapped_root(inst)
        if root is not None:
            out[id(users[0])] = _wrapped_call(inst, root)
    return out


def _done_as_op(done: Instruction, sync: _Sync) -> str:
    operands = ", ".join("%" + name for name in sync.operands)
    text = f"%{done.name} = {done.shape_text} {sync.opcode}({operands})"
    return text + (f", {sync.attributes}" if sync.attributes else "")


def _computation(comp: Computation, pairs: dict[int, _Sync]) -> str:
    from ..hlo.printer import computation_text, instruction_to_text

    starts = {id(sync.start) for sync in pairs.values()}
    lines = []
    for inst in comp.instructions:
        if id(inst) in starts:
            continue
        sync = pairs.get(id(inst))
        text = _done_as_op(inst, sync) if sync is not None else instruction_to_text(inst)
        lines.append(("ROOT " if inst is comp.root else "") + text)
    return computation_text(comp, lines)


def synchronous_text(text: str) -> str:
    """``text`` (a module as :func:`hloscope.hlo.rewrite.plain_text` prints it) with its
    single-op async pairs made synchronous (see the module docstring); a text without one
    comes back as it is."""
    if "async-start(" not in text and "copy-start(" not in text:
        return text
    from ..hlo.parser import parse
    from ..hlo.printer import module_text

    module = parse(text)
    pairs = _pairs(module)
    if not pairs:
        return text
    gone = {id(c) for sync in pairs.values() for c in sync.start.called_computations}
    header = module.header_attr_text.replace("\n", " ")
    kept = (_computation(c, pairs) for c in module.computations if id(c) not in gone)
    return module_text(module.name, header, module, kept)
