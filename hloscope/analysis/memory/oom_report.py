"""What an out-of-memory message says, as data: the buffers it lists (:class:`OomBuffer`), the
report of one message (:class:`OomReport`), and what would free memory (:func:`oom_fixes`:
donating parameters, rematerialising activations, bfloat16 temporaries, a layout that pads
less, a smaller batch; for an on-chip allocation, a kernel's smaller blocks).

:mod:`hloscope.analysis.memory.oom_log` reads a message into these, and names them too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum, auto
from typing import Any

from ...hlo.metadata import StackFrame
from ...json_fields import json_fields
from ...units import format_bytes
from ..provenance import is_user_frame
from ._result import BufferKind

__all__ = [
    "ON_CHIP_SPACES",
    "BufferKind",
    "FixKind",
    "OomBuffer",
    "OomFix",
    "OomReport",
    "SourceGroup",
    "oom_fixes",
    "parse_size",
]

#: The TPU memory spaces inside the core (a kernel's blocks, XLA's scoped buffers).
ON_CHIP_SPACES = frozenset({"vmem", "smem", "cmem", "sflag"})

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_SIZE = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[KMGTP]?)(?:i?B)?\b")


def parse_size(text: str) -> int | None:
    """Bytes of one of XLA's printed sizes: ``6.00MiB``, ``384.0KiB``, ``0B``, ``32.00G``,
    ``4.0K`` (powers of 1024, as XLA's HumanReadableNumBytes prints them); ``None`` when the
    text is not a size."""
    found = _SIZE.match(text.strip())
    if found is None:
        return None
    return round(float(found["number"]) * _UNITS[found["unit"]])


def _source_text(source: StackFrame | None) -> str | None:
    """A buffer's (or a group's) line as the JSON gives it: ``file:line``, or None."""
    return f"{source.file}:{source.line}" if source else None


@dataclass(slots=True)
class OomBuffer:
    """One buffer of the report's peak list, as printed; ``rank`` is its number there."""

    rank: int
    size_bytes: int
    kind: BufferKind = BufferKind.TEMPORARY
    shape: str | None = None
    op_name: str | None = None
    op_type: str | None = None
    source: StackFrame | None = None
    #: The XLA label: an opcode (GPU: ``fusion``), or the instruction's text (TPU).
    label: str | None = None
    #: TPU only: the bytes without tile padding, and the padding.
    unpadded_bytes: int | None = None
    padding_bytes: int | None = None
    allocation_type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(self, "rank bytes=size_bytes kind shape op_name op_type"),
            "source": _source_text(self.source),
            **json_fields(self, "label unpadded_bytes padding_bytes allocation_type"),
        }


@dataclass(slots=True)
class SourceGroup:
    """The buffers one line of code made (``source`` None: the report named no line), their
    bytes, and whether the line is in the user's own code."""

    source: StackFrame | None
    bytes: int
    buffers: list[int]
    user: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": _source_text(self.source),
            **json_fields(self, "bytes buffers user"),
        }


class FixKind(StrEnum):
    """The fixes an out-of-memory report can point to."""

    DONATE = auto()
    REMAT = auto()
    BF16 = auto()
    SMALLER_BATCH = auto()
    #: On-chip memory (VMEM) over its limit: smaller blocks in the kernel.
    SMALLER_BLOCKS = auto()
    #: On-chip memory over a limit set below the chip's VMEM: raise the limit.
    RAISE_VMEM_LIMIT = auto()
    #: TPU tile padding makes buffers many times their data: change their minor dimensions.
    TILE_PADDING = auto()
    #: On-chip scalar memory (SMEM) full: fewer scalars (scalar prefetch, scalar parameters).
    FEWER_SCALARS = auto()


@dataclass(frozen=True, slots=True)
class OomFix:
    """A fix that applies, what it targets and the bytes it frees at most (``None``: the
    report does not say); for :attr:`FixKind.SMALLER_BATCH`, the bytes that must go at least
    (what TPU says the program exceeds its memory by, or the allocation that failed)."""

    kind: FixKind
    target: str
    bytes: int | None
    fix: str

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "kind target bytes fix")


@dataclass(slots=True)
class OomReport:
    """What an out-of-memory message said: ``requested_bytes`` (the allocation that failed),
    on TPU the ``memory_space`` and its ``used_bytes`` of ``capacity_bytes``, the stats
    (``"parameter allocation"`` -> bytes, ...), and the peak buffers in the order printed."""

    requested_bytes: int | None = None
    memory_space: str | None = None
    used_bytes: int | None = None
    capacity_bytes: int | None = None
    exceeded_bytes: int | None = None
    stats: dict[str, int] = field(default_factory=dict)
    buffers: list[OomBuffer] = field(default_factory=list)
    #: The framework the log is from when it is not JAX (``"torch_xla"``): the fixes are
    #: said in its terms.
    framework: str | None = None
    #: What would free memory (:func:`oom_fixes`), decided once the report is read
    #: (:meth:`decide_fixes`): the views only say them.
    fixes: list[OomFix] = field(default_factory=list)

    def decide_fixes(self, framework: str | None = None) -> OomReport:
        """The report with its :attr:`fixes`, said in ``framework``'s terms (``None``: JAX's,
        or the framework already set)."""
        if framework is not None:
            self.framework = framework
        self.fixes = oom_fixes(self)
        return self

    @property
    def on_chip(self) -> bool:
        """Whether the memory that ran out is inside the TPU core (VMEM, SMEM), where a
        kernel's blocks and XLA's scoped buffers live, not the device's HBM."""
        return (self.memory_space or "").lower() in ON_CHIP_SPACES

    @property
    def buffer_bytes(self) -> int:
        """Bytes of the listed buffers together."""
        return sum(buffer.size_bytes for buffer in self.buffers)

    def by_source(self) -> list[SourceGroup]:
        """The buffers grouped by the line of code that made them, most bytes first (ties in
        the report's order); parameters and buffers without a line form a group of their own
        (``source`` None)."""
        groups: dict[tuple[str, int] | None, SourceGroup] = {}
        for buffer in self.buffers:
            frame = buffer.source
            key = (frame.file, frame.line) if frame else None
            group = groups.get(key)
            if group is None:
                user = frame is not None and is_user_frame(frame)
                group = groups[key] = SourceGroup(frame, 0, [], user)
            group.bytes += buffer.size_bytes
            group.buffers.append(buffer.rank)
        return sorted(groups.values(), key=lambda g: -g.bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(
                self, "requested_bytes memory_space used_bytes capacity_bytes exceeded_bytes stats"
            ),
            "buffers": [buffer.to_dict() for buffer in self.buffers],
            "by_source": [group.to_dict() for group in self.by_source()],
            "fixes": [fix.to_dict() for fix in self.fixes],
        }


# JAX names the forward pass of a gradient `jvp(...)` in op_name: a temporary made there and
# still live at the peak is an activation kept for the backward pass.
_FORWARD = re.compile(r"\bjvp\(")
_F32 = re.compile(r"^f32\[")


def oom_fixes(report: OomReport) -> list[OomFix]:
    """The fixes that apply to what the report shows, each with the bytes it would free at
    most: donating parameters that a result of the same shape replaces, rematerialising
    activations the forward pass keeps for the backward one, f32 temporaries as bf16, and a
    smaller batch (always: the peak grows with it)."""
    if report.on_chip:
        return _on_chip_fixes(report)
    torch = report.framework == "torch_xla"
    temporaries = [b for b in report.buffers if b.kind is BufferKind.TEMPORARY]
    fixes = [
        fix
        for fix in (
            _donate_fix(report, temporaries, torch),
            _remat_fix(temporaries, torch),
            _bf16_fix(temporaries, torch),
        )
        if fix is not None
    ]
    padding = _padding_fix(report)
    if padding is not None:
        # Padding that alone exceeds the excess (or a quarter of the memory, or half of what
        # the list shows) is the cause.
        padded = padding.bytes or 0
        cause = (
            (report.exceeded_bytes and padded >= report.exceeded_bytes)
            or (report.used_bytes and padded * 4 >= report.used_bytes)
            or padded * 2 >= report.buffer_bytes
        )
        if cause:
            fixes.insert(0, padding)
        else:
            fixes.append(padding)
    over = report.exceeded_bytes or report.requested_bytes
    fixes.append(
        OomFix(
            FixKind.SMALLER_BATCH,
            "batch size",
            over,
            "a smaller batch (or gradient accumulation over micro-batches): activations and "
            "temporaries shrink with it; keep the peak near 80% of device memory",
        )
    )
    return fixes


def _donate_fix(report: OomReport, temporaries: list[OomBuffer], torch: bool) -> OomFix | None:
    """Donating the parameters that a temporary of the same shape replaces."""
    made_shapes = {_plain(b.shape) for b in temporaries if b.shape}
    donatable = [
        b
        for b in report.buffers
        if b.kind is BufferKind.PARAMETER and _plain(b.shape) in made_shapes
    ]
    if not donatable:
        return None
    return OomFix(
        FixKind.DONATE,
        ", ".join(sorted({_plain(b.shape) or "" for b in donatable})),
        sum(b.size_bytes for b in donatable),
        "update those tensors in place and keep no other reference to their old values "
        "(PyTorch/XLA then writes the new value into the old buffer)"
        if torch
        else "donate the arguments the step replaces (jax.jit(..., donate_argnums=...) "
        "or donate_argnames): XLA then writes the new value into the old buffer",
    )


def _remat_fix(temporaries: list[OomBuffer], torch: bool) -> OomFix | None:
    """Rematerialising the activations the forward pass keeps for the backward one."""
    forward = [b for b in temporaries if b.op_name and _FORWARD.search(b.op_name)]
    if not forward:
        return None
    return OomFix(
        FixKind.REMAT,
        _common_scope([b.op_name or "" for b in forward]),
        sum(b.size_bytes for b in forward),
        "recompute these activations in the backward pass instead of keeping them: "
        + (
            "torch_xla.utils.checkpoint.checkpoint on the layer that makes them"
            if torch
            else "jax.checkpoint (jax.remat) on the layer that makes them"
        ),
    )


def _bf16_fix(temporaries: list[OomBuffer], torch: bool) -> OomFix | None:
    """The f32 temporaries in bfloat16: half their bytes."""
    wide = [b for b in temporaries if b.shape and _F32.match(b.shape)]
    if not wide:
        return None
    return OomFix(
        FixKind.BF16,
        f"{len(wide)} f32 buffer{'s' * (len(wide) != 1)}",
        sum(b.size_bytes for b in wide) // 2,
        "compute in bfloat16 ("
        + (
            "model.to(torch.bfloat16), or torch.autocast('xla', dtype=torch.bfloat16)"
            if torch
            else "params or activations cast to jnp.bfloat16, mixed precision"
        )
        + "): each such buffer takes half the bytes",
    )


# Over by at most this share of the limit, raising the limit is the first thing to try (the
# kernel nearly fits); past it, the blocks must shrink.
_NEARLY_FITS = 0.5


# A buffer whose tile padding is at least its data: padded to twice its size or more.
_PADDED_TWICE = 1.0
_LAYOUT = re.compile(r"\[(?P<dims>[\d,]*)\]\{(?P<order>[\d,]+)(?::T\((?P<tile>\d+(?:,\d+)*)\))?")


def _padding_fix(report: OomReport) -> OomFix | None:
    """Buffers that TPU tile padding makes twice their data or more: the bytes the padding
    takes, and which minor dimension of the largest one is padded to what."""
    padded = [
        b
        for b in report.buffers
        if b.padding_bytes
        and b.unpadded_bytes
        and b.padding_bytes >= _PADDED_TWICE * b.unpadded_bytes
    ]
    if not padded:
        return None
    worst = max(padded, key=lambda b: b.padding_bytes or 0)
    total = sum(b.padding_bytes or 0 for b in padded)
    where = _padded_dims(worst.shape or "")
    data = format_bytes(worst.unpadded_bytes or 0)
    times = worst.size_bytes / (worst.unpadded_bytes or 1)
    return OomFix(
        FixKind.TILE_PADDING,
        ", ".join(f"buffer {b.rank}" for b in padded),
        total,
        f"tile padding: buffer {worst.rank} ({_plain(worst.shape)}) holds {data} of data in "
        f"{format_bytes(worst.size_bytes)} ({times:.0f}x){where}; TPU stores an array's two "
        "minor dimensions in tiles, so make the long dimensions the minor ones (transpose or "
        "reshape so the last is a multiple of 128 and the one before of 8)",
    )


def _padded_dims(shape: str) -> str:
    """`` (its minor dimension 4 is padded to 128)`` from a TPU shape with its layout."""
    found = _LAYOUT.search(shape)
    if found is None or not found["tile"]:
        return ""
    dims = [int(d) for d in found["dims"].split(",") if d]
    order = [int(d) for d in found["order"].split(",")]
    tile = [int(t) for t in found["tile"].split(",")]
    said = []
    for dim, size in zip(order[: len(tile)], reversed(tile)):
        if dim < len(dims) and dims[dim] % size:
            padded = -(-dims[dim] // size) * size
            said.append(f"dimension {dim} ({dims[dim]}) is padded to {padded}")
    return f": {' and '.join(said)} by the ({found['tile']}) tiles" if said else ""


# The most VMEM any TPU core has (v5e, v6e: 128 MiB): no limit can be raised past it.
_LARGEST_VMEM = 128 << 20


def _on_chip_fixes(report: OomReport) -> list[OomFix]:
    """The fixes for a kernel's working set over the on-chip memory limit (VMEM): the batch
    does not set it, the kernel's blocks do -- Pallas double-buffers each input and output
    block (two copies of each), and XLA's own fusions take scoped VMEM for their tiles.
    Smaller blocks free the excess; a limit set below the chip's VMEM can be raised. The
    excess over the limit and the size needed are the report's own numbers."""
    space = (report.memory_space or "vmem").upper()
    over, used, limit = report.exceeded_bytes, report.used_bytes, report.capacity_bytes
    if space in ("SMEM", "SFLAG"):
        return [_scalar_fix(report)]
    blocks = OomFix(
        FixKind.SMALLER_BLOCKS,
        "kernel block sizes",
        over,
        f"smaller blocks: the kernel's {space} working set is its blocks (a Pallas BlockSpec's "
        "block_shape, each input and output double-buffered) plus scratch; halve the largest "
        "block dimension, or tile the contracting dimension, until it fits",
    )
    raise_limit = OomFix(
        FixKind.RAISE_VMEM_LIMIT,
        f"scoped {space} limit",
        None,
        f"raise the scoped {space} limit to at least "
        f"{format_bytes(used) if used else 'the size the message names'}: "
        "pltpu.CompilerParams(vmem_limit_bytes=...) on the pallas_call, or "
        "LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=N for XLA's own fusions; it cannot "
        "pass the chip's physical VMEM",
    )
    if used and used > _LARGEST_VMEM:
        return [blocks]  # past any chip's VMEM: no limit to raise
    if over and limit and over <= _NEARLY_FITS * limit:
        return [raise_limit, blocks]
    return [blocks, raise_limit]


def _scalar_fix(report: OomReport) -> OomFix:
    """SMEM, the core's scalar memory, full: its size is the chip's (no limit to raise), and
    what fills it is scalars -- a kernel's scalar-prefetch operands, SMEM scratch, the
    program's scalar parameters -- not the blocks of arrays."""
    used, capacity = report.used_bytes, report.capacity_bytes
    of = (
        f"used {format_bytes(used)} of {format_bytes(capacity)}, the core's whole SMEM"
        if used and capacity
        else "the core's whole SMEM"
    )
    return OomFix(
        FixKind.FEWER_SCALARS,
        "scalar memory",
        report.exceeded_bytes,
        f"SMEM is the TPU core's scalar memory ({of}: no limit to raise): it holds a kernel's "
        "scalar-prefetch operands (page tables, index arrays), its SMEM scratch and scalar "
        "parameters. Prefetch fewer scalars per call -- split the batch into sub-batches, "
        "fewer sequences or pages per kernel call -- or pass large index arrays as VMEM or "
        "HBM operands instead of scalar prefetch",
    )


def _plain(shape: str | None) -> str | None:
    """A shape without its layout (``f32[8,128]{1,0:T(8,128)}`` -> ``f32[8,128]``)."""
    return shape.split("{", 1)[0] if shape else None


def _common_scope(op_names: list[str]) -> str:
    """The longest ``/``-separated prefix the op_names share (the layer that holds them)."""
    parts = [name.split("/") for name in op_names if name]
    if not parts:
        return ""
    common: list[str] = []
    for pieces in zip(*parts):
        if len(set(pieces)) != 1:
            break
        common.append(pieces[0])
    return "/".join(common) or op_names[0]
