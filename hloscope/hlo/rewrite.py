"""One kernel of an optimized module as a module of its own, and modules XLA can compile anew.

**Extraction** (:func:`extract_kernel`) is what XLA's ``hlo-extractor`` does, from text alone:
the kernel instruction becomes the root of a new entry computation, each of its operands a
parameter of that computation (a tuple-shaped operand becomes one parameter per element and a
``tuple`` that puts them back together), small constant operands stay constants (a reduction's
init value keeps its meaning), and every computation the kernel calls, directly or through
others, is copied as it was, with the module's stack-frame tables so that source lines survive.
``control-predecessors`` are dropped (they name instructions that are not there). The result is
the module ``hloscope extract`` writes: XLA's parser reads it, and ``run_hlo_module`` or any
tool of the user's can run it.

Some kernels cannot run alone; :func:`skip_reason` says why in plain words: collectives need
the other devices of their group, send/recv their peer, infeed/outfeed a host that feeds them,
host callbacks the Python process that registered them, the halves of an asynchronous pair
each other, and an op that reads the module's RNG state the rest of the module. A fusion that
contains such an op is skipped for the same reason.

**Compiling anew** (:func:`runnable_text`): PJRT compiles through XLA's HLO-to-MLIR importer,
which keeps neither backend configs nor layouts inside the module, so an optimized module
(fusions, bitcasts that reinterpret one layout as another) cannot be compiled as it stands.
:func:`runnable_text` makes it plain, keeping what it computes: every fusion is replaced by the
instructions of its fused computation (parameters wired to the fusion's operands), and every
``bitcast`` by the ``transpose``/``reshape``/``transpose`` that moves the same elements to the
same places in logical terms. XLA then optimizes the module again for the device at hand; a
kernel extracted this way usually fuses back into one kernel (the compiled module says).

:func:`with_outputs` makes intermediates program outputs (the entry's root becomes a tuple of
the old outputs and the named instructions' values): how a test compares an extracted kernel
with the same kernel inside the whole program, XLA computing both.

Text in, text out: nothing here imports jax.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ..analysis.cost import placements
from ..analysis.fusions import NOT_KERNELS
from ..errors import HloscopeError, UsageProblem
from ..hlo.attributes import split_attributes
from ..hlo.model import Module
from ..hlo.opcodes import Category, category_of
from ..hlo.printer import stack_frame_section
from .inputs import ParameterSpec, UnfeedableModule, spec_of_shape

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Computation, Instruction
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
    "droppable_callbacks",
    "HostCallbackInProgram",
    "with_outputs",
    "OutputLeaf",
    "INLINE_CONSTANT_ELEMENTS",
]

#: Constant operands with at most this many elements stay constants in an extracted kernel.
INLINE_CONSTANT_ELEMENTS = 16


class KernelNotFound(UsageProblem):
    """No kernel of that name in the module."""


class KernelNotRunnable(HloscopeError):
    """A kernel that cannot run on its own (see :class:`SkipReason`)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"kernel {name} cannot run alone: {reason}")


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


def _needed_computations(inst: Instruction, module: Module) -> list[Computation]:
    """Every computation ``inst`` calls, directly or through others, in module order."""
    seen: set[int] = set()
    todo = list(inst.called_computations)
    while todo:
        comp = todo.pop()
        if id(comp) in seen:
            continue
        seen.add(id(comp))
        for member in comp.instructions:
            todo.extend(member.called_computations)
    return [c for c in module.computations if id(c) in seen]


def _is_small_constant(inst: Instruction) -> bool:
    if inst.opcode != "constant" or inst.shape.is_tuple:
        return False
    count = inst.shape.element_count
    return count is not None and count <= INLINE_CONSTANT_ELEMENTS


def _attributes_without(text: str, names: Iterable[str]) -> str:
    """Attribute text with the attributes ``names`` left out."""
    drop = set(names)
    if not text or not any(f"{name}=" in text for name in drop):
        return text
    return ", ".join(f"{n}={raw}" for n, raw, _ in split_attributes(text) if n not in drop)


class _Builder:
    """Lines of one entry computation with fresh parameters, and the specs that go with them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.specs: list[ParameterSpec] = []
        self.sources: list[tuple[str, tuple[int, ...]]] = []
        self.signature: list[str] = []
        self._names: set[str] = set()

    def fresh(self, stem: str) -> str:
        return _fresh_name(stem, self._names, ".")

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
                attrs = _attributes_without(op.attr_text, ("control-predecessors",))
                line = f"%{const} = {op.shape.to_text()} constant({op.payload})"
                builder.lines.append(line + (f", {attrs}" if attrs else ""))
                mapped[id(op)] = const
            else:
                mapped[id(op)] = builder.operand(op, op.shape, ())
    except UnfeedableModule as error:
        raise KernelNotRunnable(inst.name, f"{SkipReason.UNFEEDABLE.value} ({error})") from None
    operands = ", ".join("%" + mapped[id(op)] for op in inst.operands)
    attrs = _attributes_without(inst.attr_text, ("control-predecessors",))
    root = f"ROOT %{inst.name} = {inst.shape.to_text()} {inst.opcode}({operands})"
    builder.lines.append(root + (f", {attrs}" if attrs else ""))
    text = _module_text(
        module,
        f"{module.name}.{inst.name}",
        _needed_computations(inst, module),
        builder,
        inst.shape,
    )
    return ExtractedKernel(
        name=inst.name,
        computation=inst.computation.name if inst.computation is not None else "",
        text=text,
        parameters=tuple(builder.specs),
        operands=tuple(builder.sources),
    )


def _module_text(
    module: Module,
    name: str,
    computations: Sequence[Computation],
    builder: _Builder,
    result: Shape,
) -> str:
    from ..hlo.printer import computation_to_text

    params = ", ".join(spec.describe() for spec in builder.specs)
    header = f"HloModule {name}, entry_computation_layout={{({params})->{result.to_text()}}}"
    parts = [header, ""]
    frames = stack_frame_section(module)
    if frames:
        parts += [frames, ""]
    for comp in computations:
        parts += [computation_to_text(comp), ""]
    signature = f"({', '.join(builder.signature)}) -> {result.to_text(layout=False)}"
    body = "\n".join("  " + line for line in builder.lines)
    parts += [f"ENTRY %main {signature} {{\n{body}\n}}", ""]
    return "\n".join(parts)


# ---- compiling anew: fusions inlined, bitcasts made logical -------------------------------------


def _plain_shape(element_type: str, dims: Sequence[int | None]) -> str:
    return f"{element_type}[{','.join(str(d) for d in dims)}]"


class _Inliner:
    """Writes one computation of :func:`runnable_text`: fusions inlined, bitcasts rewritten."""

    def __init__(self, used: set[str], dropped: set[int] | None = None) -> None:
        self.used = used
        self.dropped = dropped or set()
        self.lines: list[str] = []
        self.inlining = False

    def fresh(self, stem: str) -> str:
        return _fresh_name(stem, self.used, ".i")

    def computation(self, comp: Computation) -> list[str]:
        names: dict[int, str] = {}
        self._instructions(comp.instructions, names, None)
        root = names[id(comp.root)] if comp.root is not None else ""
        return [("ROOT " if line.startswith(f"%{root} = ") else "") + line for line in self.lines]

    def _instructions(
        self,
        instructions: Sequence[Instruction],
        names: dict[int, str],
        parameters: dict[int, str] | None,
    ) -> None:
        """Write ``instructions``; ``parameters`` maps a fused computation's parameter numbers
        to the names of the fusion's operands (``None``: a computation of the module, whose
        instructions keep their names)."""
        self.inlining = parameters is not None
        for inst in instructions:
            if id(inst) in self.dropped:
                continue
            if parameters is not None and inst.opcode == "parameter":
                names[id(inst)] = parameters[inst.parameter_number or 0]
            elif inst.opcode == "fusion" and inst.fused_computation is not None:
                names[id(inst)] = self._fusion(inst, names)
                self.inlining = parameters is not None
            elif inst.opcode == "bitcast" and not inst.shape.is_tuple:
                names[id(inst)] = self._bitcast(inst, names)
            else:
                names[id(inst)] = self._plain(inst, names)

    def _fusion(self, inst: Instruction, names: dict[int, str]) -> str:
        fused = inst.fused_computation
        assert fused is not None
        inner: dict[int, str] = {}
        parameters = {i: names[id(op)] for i, op in enumerate(inst.operands)}
        self._instructions(fused.instructions, inner, parameters)
        return inner[id(fused.root)]

    def name_for(self, inst: Instruction) -> str:
        """The instruction's own name in a computation of the module; a fresh one inlined."""
        return self.fresh(inst.name) if self.inlining else inst.name

    def _plain(self, inst: Instruction, names: dict[int, str]) -> str:
        name = self.name_for(inst)
        if inst.payload is not None:
            inside = inst.payload
        else:
            inside = ", ".join("%" + names[id(op)] for op in inst.operands)
        attrs = _attributes_without(inst.attr_text, ("control-predecessors",))
        shape = inst.shape_text or inst.shape.to_text()
        line = f"%{name} = {shape} {inst.opcode}({inside})"
        self.lines.append(line + (f", {attrs}" if attrs else ""))
        return name

    def _reinterpret(self, inst: Instruction, names: dict[int, str]) -> str:
        """A bitcast between element types of one width (a sort comparator's f32 -> s32) is a
        ``bitcast-convert``; any other is left as it was, for XLA to judge."""
        source = inst.operands[0]
        if source.shape.dims != inst.shape.dims or (
            source.shape.dtype.bits != inst.shape.dtype.bits
        ):
            return self._plain(inst, names)
        name = self.name_for(inst)
        shape = _plain_shape(inst.shape.element_type, inst.shape.dims)
        self.lines.append(f"%{name} = {shape} bitcast-convert(%{names[id(source)]})")
        return name

    def _bitcast(self, inst: Instruction, names: dict[int, str]) -> str:
        """``transpose`` to the operand's physical order, ``reshape`` to the result's physical
        dimensions, ``transpose`` to the result's logical order: the same elements where the
        bitcast put them, in words the importer keeps."""
        source = inst.operands[0]
        before, after = source.shape, inst.shape
        if before.element_type != after.element_type:
            return self._reinterpret(inst, names)
        current = names[id(source)]
        physical_in = tuple(reversed(before.minor_to_major))
        physical_out = tuple(reversed(after.minor_to_major))
        dims_in = [before.dims[d] for d in physical_in]
        dims_out = [after.dims[d] for d in physical_out]
        element = before.element_type
        steps: list[tuple[str, str, str]] = []  # (shape, opcode, attribute text)
        if physical_in != tuple(range(before.rank)):
            perm = ",".join(map(str, physical_in))
            steps.append((_plain_shape(element, dims_in), "transpose", f"dimensions={{{perm}}}"))
        if dims_in != dims_out or not steps and physical_out == tuple(range(after.rank)):
            steps.append((_plain_shape(element, dims_out), "reshape", ""))
        if physical_out != tuple(range(after.rank)):
            inverse = [physical_out.index(d) for d in range(after.rank)]
            perm = ",".join(map(str, inverse))
            steps.append((_plain_shape(element, after.dims), "transpose", f"dimensions={{{perm}}}"))
        metadata = _attributes_without(
            inst.attr_text, [n for n, _, _ in split_attributes(inst.attr_text) if n != "metadata"]
        )
        for i, (shape, opcode, attrs) in enumerate(steps):
            last = i == len(steps) - 1
            name = self.name_for(inst) if last else self.fresh(f"{inst.name}.{opcode}{i}")
            extra = ", ".join(a for a in (attrs, metadata) if a)
            self.lines.append(
                f"%{name} = {shape} {opcode}(%{current})" + (f", {extra}" if extra else "")
            )
            current = name
        return current


class HostCallbackInProgram(HloscopeError):
    """A module whose results depend on a host callback: it can only run in the process
    that registered the callback."""


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
    """``module`` as plain HLO that XLA's importer keeps whole (see the module docstring):
    fusions inlined, bitcasts rewritten, ``is_scheduled`` and ``control-predecessors`` dropped,
    host callbacks nothing depends on left out (:func:`droppable_callbacks`). A module that
    has none of those comes back as it reads."""
    dropped = {id(inst) for inst in droppable_callbacks(module)}
    called_by_fusion: set[int] = set()
    called_otherwise: set[int] = set()
    for inst in module.instructions():
        for called in inst.called_computations:
            (called_by_fusion if inst.opcode == "fusion" else called_otherwise).add(id(called))
    used = {
        inst.name
        for comp in module.computations
        if id(comp) not in called_by_fusion or id(comp) in called_otherwise
        for inst in comp.instructions
    }
    header = _attributes_without(module.header_attr_text.replace("\n", " "), ("is_scheduled",))
    parts = [f"HloModule {module.name}" + (f", {header}" if header else ""), ""]
    frames = stack_frame_section(module)
    if frames:
        parts += [frames, ""]
    for comp in module.computations:
        if id(comp) in called_by_fusion and id(comp) not in called_otherwise:
            continue
        if comp.expanded_from is not None:
            continue
        body = _Inliner(used, dropped).computation(comp)
        head = ("ENTRY " if comp.is_entry else "") + "%" + comp.name
        closer = "}"
        if comp.execution_thread is not None:
            closer += f', execution_thread="{comp.execution_thread}"'
        parts += [head + " {", *("  " + line for line in body), closer, ""]
    return "\n".join(parts)


# ---- intermediates as outputs -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutputLeaf:
    """One array output of a :func:`with_outputs` module: which instruction, which element."""

    instruction: str
    index: tuple[int, ...]


def with_outputs(module: Module, names: Sequence[str]) -> tuple[str, list[OutputLeaf]]:
    """``module``'s text with the entry's root replaced by a flat tuple of every array the old
    root returned and then of the values of the entry instructions ``names`` (tuples taken
    apart with ``get-tuple-element``); returns the text and what each output is.

    The header's ``entry_computation_layout`` goes (its result no longer fits; XLA derives it
    from the parameters again), and so does ``input_output_alias`` (its output indices would
    point at the wrong outputs).
    """
    entry = module.entry
    if entry is None or entry.root is None:
        raise KernelNotFound(f"module {module.name} has no entry root")
    by_name = {inst.name: inst for inst in entry.instructions}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise KernelNotFound(f"not instructions of the entry computation: {', '.join(missing)}")
    lines: list[str] = []
    leaves: list[tuple[str, str]] = []  # (name holding the array, its shape text)
    outputs: list[OutputLeaf] = []
    used = {inst.name for inst in module.instructions()}

    def take(inst: Instruction, shape: Shape, holder: str, path: tuple[int, ...]) -> None:
        if not shape.is_tuple:
            leaves.append((holder, shape.to_text()))
            outputs.append(OutputLeaf(inst.name, path))
            return
        for i, sub in enumerate(shape.tuple_shapes):
            name, n = f"{holder}.out{i}", 0
            while name in used:
                n += 1
                name = f"{holder}.out{i}.{n}"
            used.add(name)
            lines.append(f"%{name} = {sub.to_text()} get-tuple-element(%{holder}), index={i}")
            take(inst, sub, name, path + (i,))

    root = entry.root
    take(root, root.shape, root.name, ())
    for name in names:
        take(by_name[name], by_name[name].shape, name, ())
    shape = "(" + ", ".join(s for _, s in leaves) + ")"
    tuple_name = "hloscope.outputs"
    lines.append(f"ROOT %{tuple_name} = {shape} tuple({', '.join('%' + h for h, _ in leaves)})")
    text = module.to_text()
    header_end = text.index("\n")
    header = _attributes_without(
        module.header_attr_text.replace("\n", " "),
        ("entry_computation_layout", "input_output_alias", "buffer_donor"),
    )
    text = f"HloModule {module.name}" + (f", {header}" if header else "") + text[header_end:]
    # The entry's text: its ROOT line loses the marker, the new lines go before the closer.
    from ..hlo.printer import computation_to_text

    old = computation_to_text(entry)
    body = old.replace("  ROOT %", "  %", 1)
    closer = body.rindex("\n}")
    body = body[:closer] + "\n" + "\n".join("  " + line for line in lines) + body[closer:]
    # The signature, if written, states the old result: drop it (XLA infers it).
    if entry.signature:
        body = body.replace(" " + entry.signature.replace("\n", " "), "", 1)
    return text.replace(old, body, 1), outputs


def _fresh_name(stem: str, used: set[str], infix: str) -> str:
    """``stem``, or ``stem`` + ``infix`` + the lowest number that makes it unused; marked used."""
    name, n = stem, 0
    while name in used:
        n += 1
        name = f"{stem}{infix}{n}"
    used.add(name)
    return name
