"""HLO text rewrites: a parsed module in, HLO text out, for XLA's parser to read back.

Three rewrites, each pure HLO language work (nothing here compiles, runs or imports jax):

* :func:`plain_text`: ``module`` as plain HLO. PJRT compiles through XLA's HLO-to-MLIR
  importer, which keeps neither backend configs nor layouts inside the module, so an
  optimized module (fusions, bitcasts that reinterpret one layout as another) cannot be
  compiled as it stands. Every fusion is replaced by the instructions of its fused computation
  (parameters wired to the fusion's operands), and every ``bitcast`` by the
  ``transpose``/``reshape``/``transpose`` that moves the same elements to the same places in
  logical terms; ``is_scheduled`` and ``control-predecessors`` go. XLA can then optimize the
  module again, for any device.
* :func:`with_outputs`: intermediates made program outputs (the entry's root becomes a tuple
  of the old outputs and the chosen instructions' values), so that one run shows them all.
* :func:`entry_module_text`: a module written around a new entry computation, with the
  computations it calls copied as they were and the stack-frame tables kept, so that source
  lines survive (how one kernel becomes a module of its own:
  :func:`hloscope.bench.extract.extract_kernel`).

The small helpers they share are public too: :func:`attributes_without` (attribute text with
some attributes left out), :func:`fresh_name` (a name not yet used) and
:func:`computations_called_by` (every computation an instruction reaches).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .attributes import split_attributes
from .printer import computation_text, computation_to_text, module_text

if TYPE_CHECKING:  # pragma: no cover
    from .model import Computation, Instruction, Module
    from .shape import Shape

__all__ = [
    "OutputLeaf",
    "attributes_without",
    "computations_called_by",
    "entry_module_text",
    "fresh_name",
    "plain_text",
    "with_outputs",
]


def attributes_without(text: str, names: Iterable[str]) -> str:
    """Attribute text (``dimensions={0}, metadata={...}``) with the attributes ``names`` left
    out; text that has none of them comes back as it is."""
    drop = set(names)
    if not text or not any(f"{name}=" in text for name in drop):
        return text
    return ", ".join(f"{n}={raw}" for n, raw, _ in split_attributes(text) if n not in drop)


def fresh_name(stem: str, used: set[str], infix: str) -> str:
    """``stem``, or ``stem`` + ``infix`` + the lowest number that makes it unused; marked used."""
    name, n = stem, 0
    while name in used:
        n += 1
        name = f"{stem}{infix}{n}"
    used.add(name)
    return name


def computations_called_by(inst: Instruction, module: Module) -> list[Computation]:
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


# ---- a module around a new entry ----------------------------------------------------------------


def entry_module_text(
    module: Module,
    name: str,
    computations: Sequence[Computation],
    *,
    parameters: Sequence[str],
    signature: Sequence[str],
    lines: Sequence[str],
    result: Shape,
) -> str:
    """A module ``name`` whose entry computation ``%main`` is ``lines`` (instruction lines,
    the root marked ``ROOT``), after ``computations`` of ``module`` copied as they are and
    ``module``'s stack-frame tables.

    ``parameters`` are the entry parameters' shapes with their layouts (``f32[4,8]{1,0}``), for
    the header's ``entry_computation_layout``; ``signature`` the same as ``name: shape``
    without layouts, for the entry's own signature; ``result`` the root's shape.
    """
    layout = f"entry_computation_layout={{({', '.join(parameters)})->{result.to_text()}}}"
    entry_signature = f"({', '.join(signature)}) -> {result.to_text(layout=False)}"
    body = "\n".join("  " + line for line in lines)
    entry = f"ENTRY %main {entry_signature} {{\n{body}\n}}"
    return module_text(
        name, layout, module, [*(computation_to_text(c) for c in computations), entry]
    )


# ---- plain HLO: fusions inlined, bitcasts made logical ------------------------------------------


def _plain_shape(element_type: str, dims: Sequence[int | None]) -> str:
    return f"{element_type}[{','.join(str(d) for d in dims)}]"


class _Inliner:
    """Writes one computation of :func:`plain_text`: fusions inlined, bitcasts rewritten."""

    def __init__(self, used: set[str], dropped: set[int] | None = None) -> None:
        self.used = used
        self.dropped = dropped or set()
        self.lines: list[str] = []
        self.inlining = False

    def fresh(self, stem: str) -> str:
        return fresh_name(stem, self.used, ".i")

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
        attrs = attributes_without(inst.attr_text, ("control-predecessors",))
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
        metadata = attributes_without(
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


def plain_text(module: Module, *, leave_out: Collection[Instruction] = ()) -> str:
    """``module`` as plain HLO that XLA's importer keeps whole (see the module docstring):
    fusions inlined, bitcasts rewritten, ``is_scheduled`` and ``control-predecessors``
    dropped, and the instructions ``leave_out`` (ones nothing depends on) left out. A module
    that has none of those comes back as it reads."""
    dropped = {id(inst) for inst in leave_out}
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
    header = attributes_without(module.header_attr_text.replace("\n", " "), ("is_scheduled",))
    texts = []
    for comp in module.computations:
        if id(comp) in called_by_fusion and id(comp) not in called_otherwise:
            continue
        body = _Inliner(used, dropped).computation(comp)
        texts.append(computation_text(comp, body, signature=False))
    return module_text(module.name, header, module, texts)


# ---- intermediates as outputs -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutputLeaf:
    """One array output of a :func:`with_outputs` module: which instruction, which element."""

    instruction: str
    index: tuple[int, ...]


def with_outputs(
    module: Module, instructions: Sequence[Instruction]
) -> tuple[str, list[OutputLeaf]]:
    """``module``'s text with the entry's root replaced by a flat tuple of every array the old
    root returned and then of the values of ``instructions`` (instructions of the entry
    computation; tuples taken apart with ``get-tuple-element``); returns the text and what
    each output is.

    The header's ``entry_computation_layout`` goes (its result no longer fits; XLA derives it
    from the parameters again), and so does ``input_output_alias`` (its output indices would
    point at the wrong outputs). A module without an entry root, or an instruction of another
    computation, is a ``ValueError``: a caller's mistake, not the text's.
    """
    entry = module.entry
    if entry is None or entry.root is None:
        raise ValueError(f"module {module.name} has no entry root")
    outside = [inst.name for inst in instructions if inst.computation is not entry]
    if outside:
        raise ValueError(f"not instructions of the entry computation: {', '.join(outside)}")
    lines, leaves, outputs = _flat_leaves(module, [entry.root, *instructions])
    shape = "(" + ", ".join(s for _, s in leaves) + ")"
    tuple_name = "hloscope.outputs"
    lines.append(f"ROOT %{tuple_name} = {shape} tuple({', '.join('%' + h for h, _ in leaves)})")
    return _with_entry_lines(module, entry, lines), outputs


def _flat_leaves(
    module: Module, roots: Sequence[Instruction]
) -> tuple[list[str], list[tuple[str, str]], list[OutputLeaf]]:
    """Each array the values of ``roots`` hold: the ``get-tuple-element`` lines that take their
    tuples apart (new names, none taken in ``module``), ``(name holding the array, its shape
    text)`` and what each array is."""
    lines: list[str] = []
    leaves: list[tuple[str, str]] = []
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

    for root in roots:
        take(root, root.shape, root.name, ())
    return lines, leaves, outputs


def _with_entry_lines(module: Module, entry: Computation, lines: list[str]) -> str:
    """``module``'s text with ``lines`` (the last a new ROOT) at the end of ``entry``, the old
    root's marker gone and the header attributes the new result contradicts dropped."""
    text = module.to_text()
    header_end = text.index("\n")
    header = attributes_without(
        module.header_attr_text.replace("\n", " "),
        ("entry_computation_layout", "input_output_alias", "buffer_donor"),
    )
    text = f"HloModule {module.name}" + (f", {header}" if header else "") + text[header_end:]
    # The entry's text: its ROOT line loses the marker, the new lines go before the closer.
    old = computation_to_text(entry)
    body = old.replace("  ROOT %", "  %", 1)
    closer = body.rindex("\n}")
    body = body[:closer] + "\n" + "\n".join("  " + line for line in lines) + body[closer:]
    # The signature, if written, states the old result: drop it (XLA infers it).
    if entry.signature:
        body = body.replace(" " + entry.signature.replace("\n", " "), "", 1)
    return text.replace(old, body, 1)
