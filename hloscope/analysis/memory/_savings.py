"""What would free memory: actions, each with the total bytes it frees at the peak (one row
per thing to do, never one per buffer).

* **donate**: the arguments holding entry parameters with the shape and dtype of an output,
  not already aliased to one: with ``donate_argnames``/``donate_argnums`` XLA writes the
  outputs into the parameters' buffers, so one of each pair leaves the peak. One action names
  every such argument by its name in the function (``params``, ``opt_state``).
* **bf16**: the large f32 temporaries in HBM live at the peak would take half the bytes in
  bf16 (buffers in on-chip memory, ``S(1)`` VMEM and ``S(2)`` SMEM, are not in HBM, and
  bf16 ones are half already): one action, with the lines that made the largest.
* **remat**: a temporary live at the peak that a forward op produced (an op_name under
  ``jvp(...)`` and no ``transpose``) and that stays live into the backward pass (past the first
  op under ``transpose(jvp(...))`` in the schedule) is an activation held from the forward
  pass for the backward one.
  ``jax.checkpoint`` on the scope holding them recomputes them in the backward pass instead.
  The bytes are the held activations of that scope (recomputing one layer at a time costs a
  fraction of that back).
* **replicated**: an entry parameter with ``sharding={replicated}`` in a module with
  ``num_partitions > 1`` holds the whole array on every device; sharded over the devices it
  would hold ``1/num_partitions`` of it (one action for all of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._labels import argument_label, buffer_bytes, on_chip
from ._lookup import InstructionIndex
from ._result import BufferKind, Saving

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction, Module
    from ...hlo.shape import Shape
    from ._result import MemoryResult

__all__ = ["savings_of", "input_output_alias", "BF16_MIN_BYTES", "is_backward", "is_forward"]

#: Temporaries smaller than this are not worth a precision change.
BF16_MIN_BYTES = 1 << 20
#: Held activations or replicated arrays smaller than this are not worth the advice.
REMAT_MIN_BYTES = 1 << 20
REPLICATED_MIN_BYTES = 1 << 20


def is_backward(op_name: str) -> bool:
    """Whether an op_name belongs to a backward pass: JAX names transposed ops
    ``.../transpose(jvp(f))/...``."""
    return any(part.startswith("transpose(") for part in op_name.split("/"))


def is_forward(op_name: str) -> bool:
    """Whether an op_name belongs to the forward pass of a differentiated function
    (``.../jvp(f)/...``, not under a ``transpose``)."""
    parts = op_name.split("/")
    return any(p.startswith("jvp(") for p in parts) and not is_backward(op_name)


def input_output_alias(module: Module) -> list:
    """The module's ``input_output_alias`` entries (none when absent or unreadable)."""
    try:
        return list(module.header_attrs.get("input_output_alias") or [])
    except Exception:  # noqa: BLE001 - an unreadable header attribute only loses advice
        return []


def savings_of(module: Module, result: MemoryResult) -> list[Saving]:
    """Every saving found, largest first."""
    found = _donations(module) + _bf16(result) + _remat(module, result) + _replicated(module)
    return sorted(found, key=lambda s: -s.bytes)


def _donations(module: Module) -> list[Saving]:
    """One action: donate the arguments whose arrays an output of the same shape and dtype
    could be written into, with the bytes of those arrays."""
    entry = module.entry
    root = entry.root if entry is not None else None
    if entry is None or root is None:
        return []
    aliases = input_output_alias(module)
    donated = {a.parameter for a in aliases}
    taken = {tuple(a.output_index) for a in aliases}
    shape = root.shape
    outputs = (
        [((i,), s) for i, s in enumerate(shape.tuple_shapes)] if shape.is_tuple else [((), shape)]
    )
    free = [s for i, s in outputs if i not in taken and s.is_array]
    by_argument, numbers = _donatable(entry.parameters, donated, free)
    if not by_argument:
        return []
    names = sorted(by_argument, key=lambda n: (-by_argument[n][0], n))
    arrays = sum(count for _, count in by_argument.values())
    named = all(not n.startswith("parameter ") for n in names)
    quoted = ", ".join(repr(n) for n in names) + ("," if len(names) == 1 else "")
    how = (
        f"jax.jit(..., donate_argnames=({quoted}))"
        if named
        else "jax.jit(..., donate_argnums=...) for the arguments holding parameters "
        + ", ".join(str(k) for n in names for k in numbers[n])
    )
    return [
        Saving(
            kind="donate",
            target=f"{_joined(names)} ({arrays} array{'s' if arrays != 1 else ''} an output "
            "of the same shape can reuse)",
            bytes=sum(b for b, _ in by_argument.values()),
            fix=f"donate {'it' if len(names) == 1 else 'them'}: {how}, and use the outputs in "
            "their place",
        )
    ]


def _donatable(
    parameters: list[Instruction], donated: set[int], free: list[Shape]
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The entry parameters not donated yet that a ``free`` output of the same array could
    be written into, by argument: ``[bytes, arrays]`` and the parameter numbers."""
    by_argument: dict[str, list[int]] = {}
    numbers: dict[str, list[int]] = {}
    for param in parameters:
        number = param.parameter_number
        if number is None or number in donated or not param.shape.is_array:
            continue
        match = next((k for k, s in enumerate(free) if _same_array(s, param.shape)), None)
        if match is None:
            continue
        free.pop(match)
        size = buffer_bytes(param.shape_text)
        if size:
            label = argument_label(param.op_name or "", param.name, number)
            entry_bytes = by_argument.setdefault(label, [0, 0])
            entry_bytes[0] += size
            entry_bytes[1] += 1
            numbers.setdefault(label, []).append(number)
    return by_argument, numbers


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _same_array(a, b) -> bool:  # noqa: ANN001 - two hlo.shape.Shape
    return a.element_type == b.element_type and tuple(a.dims) == tuple(b.dims)


def _bf16(result: MemoryResult) -> list[Saving]:
    """One action: the large f32 temporaries in HBM stored in bfloat16 (on-chip buffers, in
    VMEM or SMEM, are not in HBM, and a bf16 buffer is already half)."""
    found = [
        b
        for b in result.live_at_peak
        if b.kind == BufferKind.TEMPORARY
        and b.shape.startswith("f32[")
        and not on_chip(b.shape)
        and b.bytes >= BF16_MIN_BYTES
    ]
    if not found:
        return []
    lines: dict[str, int] = {}
    for b in found:
        where = b.source or b.scope or b.producer
        lines[where] = lines.get(where, 0) + b.bytes
    top = sorted(lines, key=lambda k: -lines[k])[:3]
    more = f" and {len(lines) - 3} more" if len(lines) > 3 else ""
    count = len(found)
    return [
        Saving(
            kind="bf16",
            target=f"{count} f32 temporar{'ies' if count != 1 else 'y'} in HBM live at the peak "
            f"(made at {'; '.join(top)}{more})",
            bytes=sum(b.bytes for b in found) // 2,
            fix="compute or store them in bfloat16 (jnp.bfloat16) if the precision allows",
        )
    ]


class _OpNames:
    """op_names by instruction name, read only for the names asked (reading every op_name of
    a large module costs more than the rest of the advice)."""

    def __init__(self, module: Module) -> None:
        self.by_name = InstructionIndex(module)

    def get(self, name: str, default: str = "") -> str:
        found = self.by_name.get(name)
        return (found.op_name or default) if found is not None else default


def _remat(module: Module, result: MemoryResult) -> list[Saving]:
    op_names = _OpNames(module)
    backward = next(
        (t for t, name in enumerate(result.schedule) if is_backward(op_names.get(name))), None
    )
    if backward is None:
        return []
    peak = result.peak_at.get("index") or 0
    held: dict[str, list[int]] = {}
    sources: dict[str, str] = {}
    for b in result.live_at_peak:
        if b.kind != BufferKind.TEMPORARY or not is_forward(op_names.get(b.producer)):
            continue
        if result.ends.get(b.name, peak) < backward:
            continue
        entry = held.setdefault(b.scope, [0, 0])
        entry[0] += b.bytes
        entry[1] += 1
        sources.setdefault(b.scope, b.source)
    out = []
    for scope, (size, count) in held.items():
        if size < REMAT_MIN_BYTES:
            continue
        where = f" at {sources[scope]}" if sources.get(scope) else ""
        out.append(
            Saving(
                kind="remat",
                target=f"{count} forward activation{'s' if count != 1 else ''} of {scope}{where}"
                " held for the backward pass",
                bytes=size,
                fix="wrap the function of this scope in jax.checkpoint (jax.remat), e.g. "
                "lax.scan(jax.checkpoint(layer), ...), to recompute them in the backward pass",
            )
        )
    return out


def _replicated(module: Module) -> list[Saving]:
    """One action: shard the large parameters replicated on every device."""
    entry = module.entry
    try:
        devices = int(module.header_attrs.get("num_partitions") or 1)
    except (TypeError, ValueError):
        devices = 1
    if entry is None or devices < 2:
        return []
    found = []
    for param in entry.parameters:
        size = param.shape.byte_size or 0
        if size < REPLICATED_MIN_BYTES or "sharding=" not in (param.attr_text or ""):
            continue
        if str(param.attrs.raw("sharding") or "").strip() != "{replicated}":
            continue
        found.append((param, size))
    if not found:
        return []
    names = [
        f"parameter {p.parameter_number} ({p.name}: {p.shape}, op_name {p.op_name or '?'})"
        for p, _ in found
    ]
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return [
        Saving(
            kind="replicated",
            target=f"{'; '.join(names[:3])}{more} replicated on {devices} devices",
            bytes=sum(size - size // devices for _, size in found),
            fix="shard them over the devices (jax.device_put / in_shardings with a "
            "PartitionSpec naming one of their dimensions) if each device needs only a part",
        )
    ]
