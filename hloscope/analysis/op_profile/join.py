"""Joining a trace's ops to the module that ran: each op name to its kernel or instruction.

A trace names each op by its HLO instruction (``fusion.244``), and instruction names are
unique within a module, so the join is by name. It is trusted only when the names say the
trace is of this module: :func:`check_match` refuses a join where the trace's ops were recorded
under another module name, or where fewer than :data:`MIN_JOINED` of them (by time) are
instructions of the module; a few unknown names are listed instead.

The figures a kernel row takes from the module come from one place each, so a better source
can replace one figure without touching the join: :func:`hbm_bytes_of` is the bytes a kernel
moves through memory: on a module XLA:TPU made, its bytes through HBM (operands and results
in ``S(1)``/``S(2)`` left out, :func:`hloscope.analysis.hbm.kernel_roof_bytes`: XLA's bytes
accessed count on-chip traffic too, and a roofline drawn from them claimed 139% of the HBM
roof), elsewhere XLA's cost rules' bytes accessed at the kernel boundary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...hlo.model import Instruction, Module
from ..errors import OpProfileMismatch
from ..fusions import ENTRY, UNFUSED, Kernel, fusion_report, op_source
from ..hbm import kernel_roof_bytes
from .roof import element_type

__all__ = ["Joined", "ModuleIndex", "check_match", "hbm_bytes_of", "MIN_JOINED"]

#: The least share of the trace's op time that must name instructions of the module.
MIN_JOINED = 0.9


def hbm_bytes_of(kernel: Kernel) -> int:
    """The bytes one execution of ``kernel`` moves to and from memory (the one place this
    figure is chosen): through HBM on a TPU module, else all its bytes."""
    return kernel_roof_bytes(kernel)


@dataclass(frozen=True, slots=True)
class Joined:
    """What the module says of one op: kind, cost per execution, where it came from."""

    kind: str
    flops: float
    hbm_bytes: float
    source: str
    op_name: str
    element_type: str
    is_kernel: bool
    #: Every byte one execution reads and writes (on-chip ones too): with no HBM byte and no
    #: FLOP, what tells a kernel that works on chip from one that does nothing.
    all_bytes: float = 0.0
    #: The instruction's opcode (``copy-start``, ``fusion``...).
    opcode: str = ""
    #: Executions per run of the module when the module fixes it (a kernel of the entry
    #: computation runs once); ``None`` inside loops, where the trace's count is the one to use.
    per_run: int | None = None


class ModuleIndex:
    """The module's kernels (:func:`~hloscope.analysis.fusions.fusion_report`) and every other
    instruction, by name."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.kernels: dict[str, Kernel] = {k.name: k for k in fusion_report(module).kernels}
        self.instructions: dict[str, Instruction] = {i.name: i for i in module.instructions()}

    def __contains__(self, name: str) -> bool:
        return name in self.kernels or name in self.instructions

    def join(self, name: str) -> Joined | None:
        kernel = self.kernels.get(name)
        if kernel is not None:
            return Joined(
                kernel.kind if kernel.kind != UNFUSED else kernel.opcode,
                float(kernel.cost.flops),
                float(hbm_bytes_of(kernel)),
                kernel.source,
                kernel.op_name,
                element_type(kernel.shape),
                True,
                float(kernel.cost.bytes_accessed),
                kernel.opcode,
                1 if kernel.where == ENTRY else None,
            )
        inst = self.instructions.get(name)
        if inst is None:
            return None
        # Not a kernel of the fusion report (control flow, an async pair, a free op): the
        # device still spent this time on it; its cost lies in the kernels it wraps.
        kind = inst.fusion_kind or inst.opcode
        return Joined(kind, 0.0, 0.0, op_source(inst), inst.op_name, "", False, opcode=inst.opcode)

    def opcode(self, name: str) -> str:
        """The opcode of the instruction ``name`` (``""`` when the module has none)."""
        inst = self.instructions.get(name)
        return inst.opcode if inst is not None else ""

    def started_by(self, name: str) -> str:
        """The name of the op a done (``copy-done``...) waits for: its first operand."""
        inst = self.instructions.get(name)
        return inst.operands[0].name if inst is not None and inst.operands else ""

    def transfer_bytes(self, name: str) -> float | None:
        """The bytes one execution of the async start ``name`` moves: its own (a
        ``copy-start``), else those of the kernels of the computation it calls (the slice an
        ``async-start`` runs); through HBM on a TPU module."""
        kernel = self.kernels.get(name)
        if kernel is not None:
            return float(hbm_bytes_of(kernel))
        inst = self.instructions.get(name)
        if inst is None:
            return None
        inner = [
            self.kernels[i.name]
            for comp in inst.called_computations
            for i in comp.instructions
            if i.name in self.kernels
        ]
        return float(sum(map(hbm_bytes_of, inner))) if inner else None


def check_match(index: ModuleIndex, trace_module: str, op_times: Mapping[str, float]) -> list[str]:
    """Raise :class:`OpProfileMismatch` when the trace's ops are not this module's; return the
    names of the few ops that are not in it (see the module docstring)."""
    module = index.module.name
    if trace_module and trace_module != module:
        raise OpProfileMismatch(
            f"the trace's ops ran in module {trace_module}, not in TARGET's module {module}: "
            "give the dump or HLO file of the module that ran (or --module NAME)"
        )
    total = sum(op_times.values())
    missing = [name for name in op_times if name not in index]
    lost = sum(op_times[name] for name in missing)
    if total > 0 and lost / total > 1 - MIN_JOINED:
        examples = ", ".join(sorted(missing)[:3])
        raise OpProfileMismatch(
            f"{len(missing)} of the trace's {len(op_times)} ops ({lost / total:.0%} of its "
            f"time) are not instructions of TARGET's module {module} (e.g. {examples}): the "
            "trace is of another module"
        )
    return sorted(missing)
