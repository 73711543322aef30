"""Printing a :class:`~hloscope.hlo.model.Module` back to HLO text.

The parser keeps every shape, payload and attribute as the text it read, so printing is exact:
the output reads back to the same structure, and XLA's own parser accepts it. The format is
XLA's long form (``%`` names, computation signatures when the input had them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .escapes import c_escape

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from .views import ComputationView, InstructionView, ModuleView

__all__ = [
    "module_to_text",
    "module_text",
    "computation_text",
    "computation_to_text",
    "instruction_to_text",
    "stack_frame_section",
]


def module_to_text(module: ModuleView[ComputationView]) -> str:
    return module_text(
        module.name,
        module.header_attr_text.replace("\n", " "),
        module,
        # A computation made from sugar prints as the sugared X-start; XLA makes it again.
        (computation_to_text(c) for c in module.computations if c.expanded_from is None),
    )


def module_text(
    name: str,
    attributes: str,
    module: ModuleView[ComputationView],
    computations: Iterable[str],
) -> str:
    """A module's whole text: the ``HloModule name, attributes`` line, ``module``'s
    stack-frame tables, then the ``computations`` (each one's text), a blank line after each
    part: what every printer of a whole module (as it is, rewritten, or cut) shares."""
    parts = [f"HloModule {name}" + (f", {attributes}" if attributes else ""), ""]
    frames = stack_frame_section(module)
    if frames:
        parts += [frames, ""]
    for text in computations:
        parts += [text, ""]
    return "\n".join(parts)


def stack_frame_section(module: ModuleView[ComputationView]) -> str:
    """The ``FileNames`` ... ``StackFrames`` tables a module prints before its computations
    (empty when it has none): what a module cut from this one must carry for its ``stack_frame_id``
    metadata to keep pointing at source lines."""
    if not (module.file_names or module.stack_frame_table):
        return ""
    lines = ["FileNames"]
    lines += [f'{k} "{c_escape(v)}"' for k, v in sorted(module.file_names.items())]
    lines += ["", "FunctionNames"]
    lines += [f'{k} "{c_escape(v)}"' for k, v in sorted(module.function_names.items())]
    lines += ["", "FileLocations"]
    for k, fields in sorted(module.file_locations.items()):
        lines.append(
            f"{k} {{" + " ".join(f"{name}={value}" for name, value in fields.items()) + "}"
        )
    lines += ["", "StackFrames"]
    for k, (location, parent) in sorted(module.stack_frame_table.items()):
        lines.append(f"{k} {{file_location_id={location} parent_frame_id={parent}}}")
    return "\n".join(lines) + "\n"


def computation_to_text(comp: ComputationView) -> str:
    root = comp.root
    return computation_text(
        comp,
        (
            ("ROOT " if inst is root else "") + instruction_to_text(inst)
            for inst in comp.instructions
        ),
    )


def computation_text(comp: ComputationView, lines: Iterable[str], *, signature: bool = True) -> str:
    """``comp``'s text around the instruction ``lines`` (each without its indent, the root's
    with its ``ROOT``): the ``ENTRY``/name/signature head, the ``execution_thread`` closer;
    what the printer and the rewrites that print instructions their own way share."""
    head = ("ENTRY " if comp.is_entry else "") + "%" + comp.name
    if signature and comp.signature:
        head += " " + comp.signature.replace("\n", " ")
    closer = "}"
    if comp.execution_thread is not None:
        closer += f', execution_thread="{c_escape(comp.execution_thread)}"'
    return "\n".join([head + " {", *("  " + line for line in lines), closer])


_ASYNC_OPCODES = {"async-start": "-start", "async-update": "-update", "async-done": "-done"}
# What a sugared X-start keeps for itself (the rest of its attributes are the wrapped op's).
_START_ONLY = ("async_execution_thread", "sharding", "control-predecessors")


def instruction_to_text(inst: InstructionView, *, percent: bool = True) -> str:
    """One instruction in XLA's syntax, without the leading ``ROOT``.

    An async op whose wrapped computation the parser made from sugar (``fusion-start``)
    prints as that sugar again: the wrapped computation itself is not printed.
    """
    sigil = "%" if percent else ""
    if inst.payload is not None:
        inside = inst.payload
    else:
        inside = ", ".join(sigil + op.name for op in inst.operands)
    shape = inst.shape_text
    opcode = inst.opcode
    attr_text = inst.attr_text
    sugar = _async_sugar(inst) if opcode in _ASYNC_OPCODES else None
    if sugar is not None:
        opcode, attr_text = sugar
    text = f"{sigil}{inst.name} = {shape + ' ' if shape else ''}{opcode}({inside})"
    if attr_text:
        text += ", " + attr_text
    return text


def _async_sugar(inst: InstructionView) -> tuple[str, str] | None:
    """``(X-start/-update/-done, attribute text)`` for an async op made from sugar, else None."""
    wrapped = inst.async_wrapped
    if wrapped is None or wrapped.computation is None:
        return None
    if wrapped.computation.expanded_from is None:
        return None
    opcode = wrapped.opcode + _ASYNC_OPCODES[inst.opcode]
    if inst.opcode != "async-start":
        return opcode, inst.attr_text
    from .attributes import split_attributes

    own = {name: raw for name, raw, _ in split_attributes(inst.attr_text)}
    parts = [f"{name}={own[name]}" for name in _START_ONLY if name in own]
    if wrapped.attr_text:
        parts.append(wrapped.attr_text)
    return opcode, ", ".join(parts)
