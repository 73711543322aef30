"""What would free memory, each with the bytes it saves at the peak.

* **donate**: an entry parameter with the shape and dtype of an output, not already aliased
  to one: with ``donate_argnums``/``donate_argnames`` XLA writes the output into the
  parameter's buffer, so one of the two arrays leaves the peak.
* **bf16**: a large f32 temporary live at the peak would take half the bytes in bf16.
* **remat**: a temporary live at the peak that a forward op produced (an op_name under
  ``jvp(...)`` and no ``transpose``) and that stays live into the backward pass (past the first
  op under ``transpose(jvp(...))`` in the schedule) is an activation held from the forward
  pass for the backward one.
  ``jax.checkpoint`` on the scope holding them recomputes them in the backward pass instead.
  The bytes are the held activations of that scope (recomputing one layer at a time costs a
  fraction of that back).
* **replicated**: an entry parameter with ``sharding={replicated}`` in a module with
  ``num_partitions > 1`` holds the whole array on every device; sharded over the devices it
  would hold ``1/num_partitions`` of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lookup import InstructionIndex
from ._result import BufferKind, Saving

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Module
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
    free = [(i, s) for i, s in outputs if i not in taken and s.is_array]
    out = []
    for param in entry.parameters:
        number = param.parameter_number
        if number is None or number in donated or not param.shape.is_array:
            continue
        match = next((k for k, (_, s) in enumerate(free) if _same_array(s, param.shape)), None)
        if match is None:
            continue
        free.pop(match)
        size = param.shape.byte_size or 0
        if size:
            out.append(
                Saving(
                    kind="donate",
                    target=f"parameter {number} ({param.name}: {param.shape})",
                    bytes=size,
                    fix="donate the argument holding it: jax.jit(..., donate_argnums=...) "
                    "or donate_argnames",
                )
            )
    return out


def _same_array(a, b) -> bool:  # noqa: ANN001 - two hlo.shape.Shape
    return a.element_type == b.element_type and tuple(a.dims) == tuple(b.dims)


def _bf16(result: MemoryResult) -> list[Saving]:
    out = []
    for b in result.live_at_peak:
        if (
            b.kind == BufferKind.TEMPORARY
            and b.shape.startswith("f32[")
            and b.bytes >= BF16_MIN_BYTES
        ):
            out.append(
                Saving(
                    kind="bf16",
                    target=f"{b.name} ({b.shape})",
                    bytes=b.bytes // 2,
                    fix="compute or store it in bfloat16 (jnp.bfloat16) if the precision allows",
                )
            )
    return out


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
    entry = module.entry
    try:
        devices = int(module.header_attrs.get("num_partitions") or 1)
    except (TypeError, ValueError):
        devices = 1
    if entry is None or devices < 2:
        return []
    out = []
    for param in entry.parameters:
        size = param.shape.byte_size or 0
        if size < REPLICATED_MIN_BYTES or "sharding=" not in (param.attr_text or ""):
            continue
        if str(param.attrs.raw("sharding") or "").strip() != "{replicated}":
            continue
        out.append(
            Saving(
                kind="replicated",
                target=f"parameter {param.parameter_number} ({param.name}: {param.shape}, "
                f"op_name {param.op_name or '?'}) replicated on {devices} devices",
                bytes=size - size // devices,
                fix="shard it over the devices (jax.device_put / in_shardings with a "
                "PartitionSpec naming one of its dimensions) if each device needs only a part",
            )
        )
    return out
