"""A while loop's trip count read from its structure, where XLA recorded none.

XLA's CPU and GPU pipelines write ``backend_config={"known_trip_count":{"n":"256"}}`` on a
``lax.scan`` or ``fori_loop``; XLA:TPU's optimized modules do not (its backend config holds
scoped-memory settings instead), so a scan on a TPU would count its body once. The loop is
still the plain counted loop XLA's own ``ComputeWhileLoopTripCount`` recognises:

* the condition's root is ``compare(i, N)`` (or ``compare(N, i)``) with a constant ``N``,
  where ``i`` is element ``k`` of the condition's parameter;
* the body's root tuple sets element ``k`` to ``add(i, c)`` (or ``subtract(i, c)``) with a
  constant ``c``;
* the loop's operand sets element ``k`` to a constant ``i0``.

Between these, ``copy``, ``bitcast`` and ``convert`` are looked through (XLA:TPU copies the
counter into scalar memory), and so are the one-op fusions XLA:CPU wraps a scalar compare or
add in, and the ``call`` whose parameter hands the loop its first value.
:func:`inferred_trip_count` gives the count, or ``None`` for any other shape: a loop whose
count depends on data stays unknown, never guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .model import Computation, Instruction

__all__ = ["inferred_trip_count"]

_TRANSPARENT = frozenset({"copy", "bitcast", "convert", "reshape"})
# compare(N, i) with direction D is compare(i, N) with the mirrored direction.
_MIRRORED = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NE": "NE", "EQ": "EQ"}


def inferred_trip_count(loop: Instruction) -> int | None:
    """The trip count of the ``while`` instruction ``loop`` when it is a counted loop (see the
    module docstring), else ``None``."""
    condition, body = _called(loop, "condition"), _called(loop, "body")
    if condition is None or body is None or not loop.operands:
        return None
    test = _counter_test(condition)
    if test is None:
        return None
    index, direction, limit = test
    step = _counter_step(body, index)
    start = _tuple_constant(loop.operands[0], index)
    if step is None or start is None or step == 0:
        return None
    return _trips(start, limit, step, direction)


def _called(loop: Instruction, attr: str) -> Computation | None:
    value = loop.attrs.get(attr)
    name = getattr(value, "name", value)
    for called in loop.called_computations:
        if called.name == name:
            return called
    return None


def _through(inst: Instruction) -> Instruction:
    while inst.opcode in _TRANSPARENT and len(inst.operands) == 1:
        inst = inst.operands[0]
    return inst


def _expression(inst: Instruction) -> tuple[Instruction, list[Instruction | None]]:
    """The op ``inst`` computes and its operands, seen through a fusion of that one op
    (XLA:CPU's ``wrapped_compare``): the fused root, with its parameters replaced by the
    fusion's operands (``None`` for an operand computed inside the fusion)."""
    inst = _through(inst)
    fused = inst.fused_computation
    if fused is None or fused.root is None:
        return inst, list(inst.operands)
    root = _through(fused.root)
    operands: list[Instruction | None] = []
    for operand in root.operands:
        inner = _through(operand)
        number = inner.parameter_number
        if number is not None and number < len(inst.operands):
            operands.append(inst.operands[number])
        elif inner.opcode == "constant":
            operands.append(inner)
        else:
            operands.append(None)
    return root, operands


def _through_call(inst: Instruction) -> Instruction:
    """A parameter of a computation one ``call`` reaches is that call's operand."""
    inst = _through(inst)
    number, computation = inst.parameter_number, inst.computation
    while number is not None and computation is not None:
        callers = computation.callers
        if len(callers) != 1 or callers[0].opcode != "call":
            break
        if number >= len(callers[0].operands):
            break
        inst = _through(callers[0].operands[number])
        number, computation = inst.parameter_number, inst.computation
    return inst


def _constant(inst: Instruction | None) -> int | None:
    if inst is None:
        return None
    inst = _through(inst)
    if inst.opcode != "constant" or inst.payload is None:
        return None
    text = inst.payload.strip()
    try:
        return int(text)
    except ValueError:  # a float or an array: not a loop counter
        return None


def _element(inst: Instruction | None, parameter: Instruction) -> int | None:
    """``k`` when ``inst`` is element ``k`` of ``parameter`` (through copies)."""
    if inst is None:
        return None
    inst = _through(inst)
    if inst.opcode != "get-tuple-element" or not inst.operands:
        return None
    if inst.operands[0] is not parameter:
        return None
    index = inst.attrs.get("index")
    try:
        return int(index) if index is not None else None
    except (TypeError, ValueError):
        return None


def _only_parameter(computation: Computation) -> Instruction | None:
    params = [i for i in computation.instructions if i.opcode == "parameter"]
    return params[0] if len(params) == 1 else None


def _counter_test(condition: Computation) -> tuple[int, str, int] | None:
    """``(k, direction, N)`` for a condition ``compare(element k, N)``."""
    parameter = _only_parameter(condition)
    if condition.root is None or parameter is None:
        return None
    root, operands = _expression(condition.root)
    if root.opcode != "compare" or len(operands) != 2:
        return None
    direction = str(root.attrs.get("direction") or "")
    left, right = operands
    index, limit = _element(left, parameter), _constant(right)
    if index is None or limit is None:
        index, limit = _element(right, parameter), _constant(left)
        direction = _MIRRORED.get(direction, "")
    if index is None or limit is None or direction not in _MIRRORED:
        return None
    return index, direction, limit


def _counter_step(body: Computation, index: int) -> int | None:
    """The constant the body adds to element ``index`` each trip."""
    root, parameter = body.root, _only_parameter(body)
    if root is None or parameter is None or root.opcode != "tuple":
        return None
    if index >= len(root.operands):
        return None
    update, operands = _expression(root.operands[index])
    if update.opcode not in ("add", "subtract") or len(operands) != 2:
        return None
    left, right = operands
    if _element(left, parameter) == index and (step := _constant(right)) is not None:
        return step if update.opcode == "add" else -step
    if update.opcode == "add" and _element(right, parameter) == index:
        return _constant(left)
    return None


def _tuple_constant(init: Instruction, index: int) -> int | None:
    init = _through_call(init)
    if init.opcode != "tuple" or index >= len(init.operands):
        return None
    return _constant(_through_call(init.operands[index]))


def _trips(start: int, limit: int, step: int, direction: str) -> int | None:
    """How many times ``i = start; while i DIRECTION limit: i += step`` runs its body."""
    if direction in ("LT", "LE") and step > 0:
        end = limit if direction == "LT" else limit + 1
        return max(0, -(-(end - start) // step))
    if direction in ("GT", "GE") and step < 0:
        end = limit if direction == "GT" else limit - 1
        return max(0, -(-(start - end) // -step))
    if direction == "NE" and (limit - start) % step == 0 and (limit - start) // step >= 0:
        return (limit - start) // step
    return None  # a loop that never ends, or ends on overflow: not a counted loop
