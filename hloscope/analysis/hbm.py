"""HBM traffic and prefetches of kernels XLA:TPU made.

On a TPU, XLA's byte counts (its ``cost_analysis()["bytes accessed"]``, and the ``bytes`` of
:mod:`hloscope.analysis.cost`) add up every operand and result of every op, wherever it lives.
A TPU module places some arrays on the chip: ``S(1)`` in a layout is the vector memory (VMEM)
beside the cores, ``S(2)`` the scalar memory (see :mod:`hloscope.hlo.tiling`). Bytes read from
or written to those never cross the HBM bus, so a roofline drawn from all bytes can claim more
than the HBM bandwidth (measured: 139 %). Here:

* :func:`hbm_bytes`: a kernel's bytes (XLA's rules, :class:`~hloscope.analysis.cost.Cost`)
  less those of its operands and results that live on chip: the traffic through HBM. Logical
  sizes, as XLA's bytes are (tile padding is not added); an operand on chip that the rules
  count only in part (a slice of it) takes off at most what the kernel's bytes hold.
* :func:`is_prefetch`: XLA:TPU's asynchronous moves between HBM and VMEM, made so that a
  kernel finds its operand on chip: ``copy-start``/``copy-done`` pairs, and the ``slice``
  (or ``dynamic-slice``, ``copy``) an ``async-start`` runs (printed ``%slice-start = ...
  async-start(...), calls=%async_computation``) into ``S(1)``. They are data movement that
  overlaps compute, not kernels that compute.
* :func:`is_free_custom_call`: custom calls that reinterpret buffers and move nothing
  (``ConcatBitcast``: the pieces already lie side by side).

On a CPU or GPU module no layout names a memory space: the HBM bytes are the bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..hlo.tiling import is_hbm
from .cost import FREE_CUSTOM_CALL_TARGETS as _FREE_TARGETS

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Instruction
    from .cost import Cost

__all__ = [
    "PREFETCH",
    "FREE_CUSTOM_CALL_TARGETS",
    "hbm_bytes",
    "on_chip_bytes",
    "is_prefetch",
    "is_free_custom_call",
    "kernel_roof_bytes",
    "executed_roof_bytes",
    "above_memory_roof_note",
]

#: The kind of a prefetch in the fusion report (beside ``kLoop``..., ``unfused``).
PREFETCH = "prefetch"
#: Custom-call targets that only reinterpret their operands' buffers (no bytes, no kernel).
FREE_CUSTOM_CALL_TARGETS = _FREE_TARGETS
# The halves of XLA:TPU's asynchronous copy between memory spaces.
_PREFETCH_OPCODES = frozenset({"copy-start", "copy-done"})
# Ops an async-start runs that move data into another memory space.
_MOVES = frozenset({"slice", "dynamic-slice", "copy"})


def _array_bytes_off_hbm(inst: Instruction) -> int:
    """Bytes of ``inst``'s array result leaves that live on chip."""
    return sum(leaf.byte_size or 0 for leaf in inst.shape.leaves() if not is_hbm(leaf))


def on_chip_bytes(inst: Instruction) -> int:
    """Bytes of ``inst``'s operands and results held on chip (``S(n)``, n > 0)."""
    seen: set[int] = set()
    total = _array_bytes_off_hbm(inst)
    for op in inst.operands:
        if id(op) not in seen and not op.shape.is_tuple:
            seen.add(id(op))
            total += _array_bytes_off_hbm(op)
    return total


def hbm_bytes(inst: Instruction, cost: Cost) -> int:
    """The part of ``cost.bytes_accessed`` (``inst``'s cost) that moves through HBM.

    A ``copy-start`` moves its operand to its destination (the first element of its result;
    the rest alias the source and hold a sync flag): each side in HBM counts once. The
    ``copy-done`` only waits for it: nothing more.
    """
    if inst.opcode == "copy-done":
        return 0
    if inst.opcode == "copy-start" and inst.operands and inst.shape.is_tuple:
        ends = [inst.operands[0].shape, inst.shape.tuple_shapes[0]]
        return sum(end.byte_size or 0 for end in ends if is_hbm(end))
    off = on_chip_bytes(inst)
    if not off:
        return cost.bytes_accessed
    return max(0, cost.bytes_accessed - off)


def is_prefetch(inst: Instruction) -> bool:
    """A move between HBM and on-chip memory that XLA:TPU runs asynchronously."""
    if inst.opcode in _PREFETCH_OPCODES:
        return True
    comp = inst.computation
    if inst.opcode not in _MOVES or comp is None:
        return False
    called_by_async = any(c.opcode == "async-start" for c in comp.callers)
    return called_by_async and not all(is_hbm(leaf) for leaf in inst.shape.leaves())


def is_free_custom_call(inst: Instruction) -> bool:
    """A custom call that moves nothing (:data:`FREE_CUSTOM_CALL_TARGETS`)."""
    if inst.opcode != "custom-call":
        return False
    return inst.attrs.get("custom_call_target", "") in FREE_CUSTOM_CALL_TARGETS


# ---- the byte figure a roofline reads ------------------------------------------------------


# A kernel and a module's summary as the roofline's byte figure reads them (fusions.Kernel
# and fusions.FusionSummary): named by their shape, as fusions sits above this module.


class RoofKernel(Protocol):
    @property
    def cost(self) -> Cost: ...
    @property
    def hbm_bytes(self) -> int | None: ...


class RoofSummary(Protocol):
    @property
    def executed_bytes(self) -> int: ...
    @property
    def executed_hbm_bytes(self) -> int | None: ...


def kernel_roof_bytes(kernel: RoofKernel) -> int:
    """The bytes a kernel's roofline position is drawn from: its HBM bytes on a TPU module
    (where the rest stays on chip), else all its bytes."""
    return kernel.cost.bytes_accessed if kernel.hbm_bytes is None else kernel.hbm_bytes


def executed_roof_bytes(summary: RoofSummary) -> int:
    """The bytes one run of a program moves, for its roofline: the executed HBM bytes of a
    TPU module, else the executed bytes."""
    hbm = summary.executed_hbm_bytes
    return summary.executed_bytes if hbm is None else hbm


#: Said beside a roofline above the memory roof: which byte figure is in doubt.
ABOVE_MEMORY_ROOF_NOTE = (
    "the memory rate is above the roof: the byte figure (XLA's rules, {figure}) counts bytes "
    "the device did not move through that memory (on-chip or cached traffic), so it is in doubt"
)


def above_memory_roof_note(summary: RoofSummary) -> str:
    """:data:`ABOVE_MEMORY_ROOF_NOTE` worded for the figure ``summary``'s roofline used."""
    figure = "bytes through HBM" if summary.executed_hbm_bytes is not None else "all bytes"
    return ABOVE_MEMORY_ROOF_NOTE.format(figure=figure)
