"""What would free memory, each with the bytes it saves at the peak.

* **donate**: an entry parameter with the shape and dtype of an output, not already aliased
  to one: with ``donate_argnums``/``donate_argnames`` XLA writes the output into the
  parameter's buffer, so one of the two arrays leaves the peak.
* **bf16**: a large f32 temporary live at the peak would take half the bytes in bf16.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._result import BufferKind, Saving

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Module
    from ._result import MemoryResult

__all__ = ["savings_of", "input_output_alias", "BF16_MIN_BYTES"]

#: Temporaries smaller than this are not worth a precision change.
BF16_MIN_BYTES = 1 << 20


def input_output_alias(module: Module) -> list:
    """The module's ``input_output_alias`` entries (none when absent or unreadable)."""
    try:
        return list(module.header_attrs.get("input_output_alias") or [])
    except Exception:  # noqa: BLE001 - an unreadable header attribute only loses advice
        return []


def savings_of(module: Module, result: MemoryResult) -> list[Saving]:
    """Every saving found, largest first."""
    found = _donations(module) + _bf16(result)
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
