"""One kernel of an optimized module as a module of its own, and modules XLA can compile anew.

**Extraction** (:func:`extract_kernel`) is what XLA's ``hlo-extractor`` does, from text alone:
the kernel instruction becomes the root of a new entry computation, each of its operands a
parameter of that computation (a tuple-shaped operand becomes one parameter per element and a
``tuple`` that puts them back together), small constant operands stay constants (a reduction's
init value keeps its meaning), and every computation the kernel calls, directly or through
others, is copied as it was, with the module's stack-frame tables so that source lines survive
(:func:`hloscope.hlo.rewrite.entry_module_text` writes it). ``control-predecessors`` are
dropped (they name instructions that are not there). The result is the module ``hloscope
extract`` writes: XLA's parser reads it, and ``run_hlo_module`` or any tool of the user's can
run it.

Some kernels cannot run alone; :func:`skip_reason` says why in plain words: collectives need
the other devices of their group, send/recv their peer, infeed/outfeed a host that feeds them,
host callbacks the Python process that registered them, the halves of an asynchronous pair
each other, and an op that reads the module's RNG state the rest of the module. A fusion that
contains such an op is skipped for the same reason.

**Compiling anew** (:func:`runnable_text`): PJRT compiles through XLA's HLO-to-MLIR importer,
which keeps neither backend configs nor layouts inside the module, so an optimized module is
made plain first by :func:`hloscope.hlo.rewrite.plain_text` (fusions inlined, bitcasts made
logical); what is bench's own here is which host callbacks may be left out
(:func:`droppable_callbacks`). XLA then optimizes the module again for the device at hand; a
kernel extracted this way usually fuses back into one kernel (the compiled module says).

:func:`with_outputs` makes intermediates program outputs, by name
(:func:`hloscope.hlo.rewrite.with_outputs`): how a test compares an extracted kernel with the
same kernel inside the whole program, XLA computing both.

Nothing here imports jax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ..analysis.fusions import NOT_KERNELS
from ..hlo.model import Module
from ..hlo.opcodes import Category, category_of
from ..hlo.placement import placements
from ..hlo.rewrite import (
    OutputLeaf,
    attributes_without,
    computations_called_by,
    entry_module_text,
    fresh_name,
    plain_text,
)
from ..hlo.rewrite import with_outputs as _with_outputs
from .errors import HostCallbackInProgram, KernelNotFound, KernelNotRunnable
from .inputs import ParameterSpec, UnfeedableModule, spec_of_shape

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    from ..hlo.model import Instruction
    from ..hlo.shape import Shape

__all__ = [
    "ExtractedKernel",
    "KernelNotFound",
    "KernelNotRunnable",
    "Skip",
    "SkipReason",
    "extract_kernel",
    "kernel_instructions",
    "skip_reason",
    "runnable_text",
    "without_tpu_layouts",
    "droppable_callbacks",
    "HostCallbackInProgram",
    "with_outputs",
    "OutputLeaf",
    "INLINE_CONSTANT_ELEMENTS",
]

#: Constant operands with at most this many elements stay constants in an extracted kernel.
INLINE_CONSTANT_ELEMENTS = 16


class SkipReason(StrEnum):
    """Why a kernel is not timed alone: each value is the sentence shown to the user."""

    COLLECTIVE = "a collective: it needs the other devices of its replica group"
    SEND_RECV = "send/recv: it needs its peer on another device or the host"
    FEED = "infeed/outfeed: it needs the host to feed or drain it"
    HOST_CALLBACK = "a host callback: it calls back into the Python process that made it"
    ASYNC = "one half of an asynchronous pair: it cannot start or finish alone"
    RNG_STATE = "reads and updates the module's random-number state"
    TOKEN = "takes or makes an ordering token: it is ordered against the rest of the module"
    UNFEEDABLE = "an operand or result no list of arrays can stand for"


@dataclass(frozen=True, slots=True)
class Skip:
    """A kernel that was not timed, and why (a :class:`SkipReason` sentence, or XLA's words)."""

    name: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ExtractedKernel:
    """A kernel as a standalone module.

    ``text`` is the module (the kernel as it was, with the computations it calls);
    ``parameters`` its entry parameters, and ``operands`` for each of them the kernel operand
    it stands for: ``(instruction name, tuple index path)``, the path empty for an array.
    """

    name: str
    computation: str
    text: str
    parameters: tuple[ParameterSpec, ...]
    operands: tuple[tuple[str, tuple[int, ...]], ...]


# ---- which kernels, and which can run alone -----------------------------------------------------

_CALLBACK_MARK = "callback"


def kernel_instructions(module: Module) -> list[Instruction]:
    """The kernels of ``module`` (as :mod:`hloscope.analysis.fusions` counts them): every
    instruction that does work outside fused computations, in module order."""
    return [
        inst
        for placement in placements(module).values()
        for inst in placement.computation.instructions
        if inst.opcode not in NOT_KERNELS
    ]


def skip_reason(inst: Instruction) -> str | None:
    """Why ``inst`` cannot run alone (a :class:`SkipReason` sentence), or ``None`` if it can."""
    seen: set[int] = set()
    todo = [inst]
    while todo:
        current = todo.pop()
        reason = _own_skip_reason(current)
        if reason is not None:
            return reason
        for called in current.called_computations:
            if id(called) not in seen:
                seen.add(id(called))
                todo.extend(called.instructions)
    return None


# Opcodes that cannot run alone, and why (collectives are found by their category).
_SKIPPED: dict[str, SkipReason] = {
    "send": SkipReason.SEND_RECV,
    "recv": SkipReason.SEND_RECV,
    "send-done": SkipReason.SEND_RECV,
    "recv-done": SkipReason.SEND_RECV,
    "infeed": SkipReason.FEED,
    "outfeed": SkipReason.FEED,
    "copy-start": SkipReason.ASYNC,
    "copy-done": SkipReason.ASYNC,
    "rng-get-and-update-state": SkipReason.RNG_STATE,
}
# They read the device's id: harmless alone, whatever their category says.
_HARMLESS = frozenset({"partition-id", "replica-id"})


def _own_skip_reason(inst: Instruction) -> str | None:
    opcode = inst.opcode
    if opcode in _HARMLESS:
        return None
    found = _SKIPPED.get(opcode)
    if found is not None:
        return found.value
    if category_of(opcode) == Category.COLLECTIVE:
        return SkipReason.COLLECTIVE.value
    if opcode.endswith(("-start", "-done", "-update")):
        return SkipReason.ASYNC.value
    if _is_host_callback(inst):
        return SkipReason.HOST_CALLBACK.value
    shapes = [inst.shape, *(op.shape for op in inst.operands)]
    if any(leaf.is_token for shape in shapes for leaf in shape.leaves()):
        return SkipReason.TOKEN.value
    return None


def _is_host_callback(inst: Instruction) -> bool:
    """A custom call into the Python process (``xla_ffi_python_cpu_callback`` and kin)."""
    if inst.opcode != "custom-call":
        return False
    return _CALLBACK_MARK in str(inst.attrs.get("custom_call_target", "")).lower()


# ---- extraction ---------------------------------------------------------------------------------


def _find_kernel(module: Module, name: str) -> Instruction:
    kernels = kernel_instructions(module)
    for inst in kernels:
        if inst.name == name:
            return inst
    for inst in kernels:  # "%fusion.3" as printed, or a name given with its sigil
        if inst.name == name.lstrip("%"):
            return inst
    near = [k.name for k in kernels if name.lower() in k.name.lower()][:6]
    hint = f" (did you mean {', '.join(near)}?)" if near else f" ({len(kernels)} kernels)"
    raise KernelNotFound(f"module {module.name} has no kernel named {name!r}{hint}")


def _is_small_constant(inst: Instruction) -> bool:
    if inst.opcode != "constant" or inst.shape.is_tuple:
        return False
    count = inst.shape.element_count
    return count is not None and count <= INLINE_CONSTANT_ELEMENTS


class _Builder:
    """Lines of one entry computation with fresh parameters, and the specs that go with them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.specs: list[ParameterSpec] = []
        self.sources: list[tuple[str, tuple[int, ...]]] = []
        self.signature: list[str] = []
        self._names: set[str] = set()

    def fresh(self, stem: str) -> str:
        return fresh_name(stem, self._names, ".")

    def parameter(self, shape: Shape, source: tuple[str, tuple[int, ...]]) -> str:
        """A parameter for the array ``shape`` (raising :class:`UnfeedableModule` if it is
        not one numpy can hold)."""
        number = len(self.specs)
        name = self.fresh(f"p{number}")
        self.specs.append(spec_of_shape(number, name, shape))
        self.sources.append(source)
        text = shape.to_text()
        self.signature.append(f"{name}: {shape.to_text(layout=False)}")
        self.lines.append(f"%{name} = {text} parameter({number})")
        return name

    def operand(self, op: Instruction, shape: Shape, path: tuple[int, ...]) -> str:
        """A name that holds ``op``'s value (element ``path`` of it): a parameter, or a tuple
        of parameters for a tuple."""
        if not shape.is_tuple:
            return self.parameter(shape, (op.name, path))
        parts = [self.operand(op, sub, path + (i,)) for i, sub in enumerate(shape.tuple_shapes)]
        name = self.fresh(f"{op.name}.tuple" if not path else f"{op.name}.tuple.{len(self.lines)}")
        self.lines.append(f"%{name} = {shape.to_text()} tuple({', '.join('%' + p for p in parts)})")
        return name


def extract_kernel(module: Module, name: str) -> ExtractedKernel:
    """The kernel ``name`` of ``module`` as a standalone module (see the module docstring).

    Raises :class:`KernelNotFound` for a name that is no kernel, and
    :class:`KernelNotRunnable` for a kernel :func:`skip_reason` refuses or whose operands no
    list of arrays can feed.
    """
    inst = _find_kernel(module, name)
    reason = skip_reason(inst)
    if reason is not None:
        raise KernelNotRunnable(inst.name, reason)
    builder = _Builder()
    builder.fresh(inst.name)  # reserve the kernel's own name for the root
    mapped: dict[int, str] = {}
    try:
        for op in inst.operands:
            if id(op) in mapped:
                continue
            if _is_small_constant(op):
                const = builder.fresh(op.name)
                attrs = attributes_without(op.attr_text, ("control-predecessors",))
                line = f"%{const} = {op.shape.to_text()} constant({op.payload})"
                builder.lines.append(line + (f", {attrs}" if attrs else ""))
                mapped[id(op)] = const
            else:
                mapped[id(op)] = builder.operand(op, op.shape, ())
    except UnfeedableModule as error:
        raise KernelNotRunnable(inst.name, f"{SkipReason.UNFEEDABLE.value} ({error})") from None
    operands = ", ".join("%" + mapped[id(op)] for op in inst.operands)
    attrs = attributes_without(inst.attr_text, ("control-predecessors",))
    root = f"ROOT %{inst.name} = {inst.shape.to_text()} {inst.opcode}({operands})"
    builder.lines.append(root + (f", {attrs}" if attrs else ""))
    text = entry_module_text(
        module,
        f"{module.name}.{inst.name}",
        computations_called_by(inst, module),
        parameters=[spec.describe() for spec in builder.specs],
        signature=builder.signature,
        lines=builder.lines,
        result=inst.shape,
    )
    return ExtractedKernel(
        name=inst.name,
        computation=inst.computation.name if inst.computation is not None else "",
        text=text,
        parameters=tuple(builder.specs),
        operands=tuple(builder.sources),
    )


def droppable_callbacks(module: Module) -> list[Instruction]:
    """The host callbacks of ``module`` that nothing depends on (``jax.debug.print``: no
    result, no users, not a root), which :func:`runnable_text` leaves out. Raises
    :class:`HostCallbackInProgram` for a callback whose result is used: without the Python
    function behind it, the module cannot run (XLA would call into nothing)."""
    found = []
    for inst in module.instructions():
        if not _is_host_callback(inst):
            continue
        comp = inst.computation
        unused = not inst.users and comp is not None and comp.root is not inst
        if not unused or inst.shape.leaves():
            raise HostCallbackInProgram(
                f"{module.name}: {inst.name} calls back into the Python process that compiled "
                "the program, and the program uses its result; it cannot run here"
            )
        found.append(inst)
    return found


def runnable_text(module: Module) -> str:
    """``module`` as plain HLO that XLA's importer keeps whole
    (:func:`hloscope.hlo.rewrite.plain_text`: fusions inlined, bitcasts rewritten,
    ``is_scheduled`` and ``control-predecessors`` dropped), host callbacks nothing depends on
    left out (:func:`droppable_callbacks`), async pairs that wrap one op made that op
    (:mod:`.synchronous`: XLA's importer keeps no such pair). A module that has none of those
    comes back as it reads."""
    from .synchronous import synchronous_text

    text = plain_text(module, leave_out=droppable_callbacks(module))
    return without_tpu_layouts(synchronous_text(text))


# A layout with a part after its colon: ``{2,1,0:T(8,128)(2,1)S(1)}``, ``{:S(2)}``,
# ``{0:E(4)}``. Only a layout's minor-to-major list (digits and commas) stands before its colon.
_LAYOUT_TAIL = re.compile(r"\{([\d,]*):([^{}]*)\}")
# XLA:TPU's parts of it: tiles (``T(8,128)(2,1)``) and the memory space (``S(1)``).
_TPU_PARTS = re.compile(r"T(?:\([\d,]*\))+|S\(\d+\)")


def _strip_tpu_parts(found: re.Match[str]) -> str:
    rest = _TPU_PARTS.sub("", found.group(2)).strip()
    if not found.group(1) and not rest:
        return ""  # a scalar's ``{:S(2)}``: no layout at all
    return "{" + found.group(1) + (":" + rest if rest else "") + "}"


def without_tpu_layouts(text: str) -> str:
    """``text`` with XLA:TPU's tiles and memory spaces taken out of every layout
    (``{1,0:T(8,128)S(1)}`` -> ``{1,0}``; other parts, like a sub-byte type's ``E(4)``, stay):
    XLA's importer refuses tiled layouts ("Tiled layout is not supported yet"), and the
    compiler picks tiles and memory spaces again for the device at hand."""
    return _LAYOUT_TAIL.sub(_strip_tpu_parts, text)


# ---- intermediates as outputs -------------------------------------------------------------------


def with_outputs(module: Module, names: Sequence[str]) -> tuple[str, list[OutputLeaf]]:
    """``module``'s text with the entry's root replaced by a flat tuple of every array the old
    root returned and then of the values of the entry instructions ``names``: see
    :func:`hloscope.hlo.rewrite.with_outputs`. A name that is no instruction of the entry is a
    :class:`KernelNotFound`."""
    entry = module.entry
    if entry is None or entry.root is None:
        raise KernelNotFound(f"module {module.name} has no entry root")
    by_name = {inst.name: inst for inst in entry.instructions}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise KernelNotFound(f"not instructions of the entry computation: {', '.join(missing)}")
    return _with_outputs(module, [by_name[name] for name in names])
