"""A static check's findings, confirmed (or dropped) by XLA:TPU itself.

The static rules reason: "float64 on TPU", "``lapack_*`` is a CPU kernel". They can be wrong
both ways: a TPU v5e compiles a float64 matmul (XLA emulates it), and a check that reads only
the lowered module cannot see what the TPU compiler refuses further on. With libtpu installed
(``pip install 'hloscope[tpu]'``) XLA:TPU compiles for any TPU chip on this machine, so
:func:`hloscope.drivers.tpu_confirm.confirm_with_xla_tpu` asks it, in one child process
(:func:`hloscope.capture.tpu_confirm.confirm_on_tpu`). This module takes data: it plans what
to compile (:func:`plan_confirmation`) and reads XLA:TPU's verdicts into the report
(:func:`apply_confirmation`):

* each **problem** of the report (warnings such as host callbacks compile on a TPU and stay
  as they are) is compiled **alone** for the chip: its HLO instruction made a module of its own
  (operands become parameters, called computations come along; for a finding that counts many
  instructions, each distinct form of them, up to :data:`MAX_FORMS`), or, for a primitive with
  no lowering, its jaxpr equation applied to arguments of its shapes and dtypes. A finding XLA:TPU
  refuses is kept, with ``confirmed_by`` ("XLA:TPU (TPU v5 lite)") and ``compiler_message`` (its
  own words); one it compiles is **dropped**, and a note names it;
* the **whole program** is compiled too, the refused primitives stood in for: a refusal that no
  confirmed finding explains becomes a finding of its own, the op named from XLA:TPU's message
  (what the static scan missed). A finding with no op to compile alone (a tracing error) is
  confirmed by that refusal, or dropped when the program compiles.

Without libtpu the report stays the static one, labelled so in one note
(:data:`STATIC_LABEL`), with the same verdict and exit status.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...backends.confirm_records import ConfirmResult, OpCandidate
from ...hlo.errors import HloParseError
from ...hlo.model import Instruction
from ...hlo.rewrite import attributes_without, computations_called_by, entry_module_text
from .findings import TOP_LEVEL, CheckReport, Finding, Reason
from .fixes import suggest
from .message_advice import message_advice

__all__ = [
    "STATIC_LABEL",
    "MAX_FORMS",
    "ConfirmPlan",
    "apply_confirmation",
    "label_static",
    "op_module_text",
    "plan_confirmation",
]

#: The one line a report carries when XLA:TPU could not be asked.
STATIC_LABEL = "static scan; pip install 'hloscope[tpu]' to confirm with XLA:TPU"
#: How many distinct forms (operand and result types) of one finding's instructions compile.
MAX_FORMS = 8

_NODE_USE = re.compile(r"^(?P<primitive>.+)\.(?P<use>\d+)$")
# What XLA:TPU's and JAX's refusals name, for an op the static scan did not find.
_NAMED_OP = (
    re.compile(r"primitive '(?P<op>[^']+)'"),
    re.compile(r"Unexpected operand type for (?P<op>\w+)"),
    re.compile(r"Custom emitter for (?P<op>\S+) not found"),
    re.compile(r"custom call target (?P<op>\S+)", re.IGNORECASE),
)


def label_static(report: CheckReport, why: str | None = None) -> CheckReport:
    """Mark ``report`` as the static scan's answer (``why``: the reason XLA:TPU could not
    be asked, when it is not that libtpu is missing)."""
    report.confirming = True
    label = STATIC_LABEL if why is None or "not installed" in why else f"static scan; {why}"
    report.notes.insert(0, label)
    return report


@dataclass(slots=True)
class ConfirmPlan:
    """Which candidates each problem finding compiles (by key), and the candidates; the
    primitives stood in for in the whole program are :attr:`stand_ins`."""

    keys: dict[int, list[str]] = field(default_factory=dict)  # id(finding) -> candidate keys
    candidates: list[OpCandidate] = field(default_factory=list)
    stood_in: dict[str, str] = field(default_factory=dict)  # candidate key -> primitive
    _by_text: dict[str, str] = field(default_factory=dict)

    @property
    def stand_ins(self) -> list[str]:
        return sorted(set(self.stood_in.values()))

    def hlo(self, text: str) -> str:
        if text not in self._by_text:
            key = f"op{len(self.candidates)}"
            self._by_text[text] = key
            self.candidates.append(OpCandidate(key, hlo=text))
        return self._by_text[text]

    def primitive(self, name: str, use: int) -> str:
        key = f"op{len(self.candidates)}"
        self.candidates.append(OpCandidate(key, primitive=name, use=use))
        self.stood_in[key] = name
        return key


# ---- candidates ---------------------------------------------------------------------------------


def plan_confirmation(report: CheckReport, *, with_function: bool) -> ConfirmPlan:
    """What to compile alone for each of ``report``'s problems: its instructions' distinct forms
    as modules, or (``with_function``: the function is there to trace) a primitive with no
    lowering as its jaxpr equation."""
    plan = ConfirmPlan()
    for finding in report.findings:
        if finding.is_warning:
            continue
        keys: list[str] = []
        if finding.instructions:
            for text in _distinct_modules(finding.instructions):
                keys.append(plan.hlo(text))
        elif finding.reason is Reason.NO_LOWERING and with_function:
            found = _NODE_USE.match(finding.node)
            if found is not None and found["primitive"] == finding.op:
                keys.append(plan.primitive(finding.op, int(found["use"])))
        plan.keys[id(finding)] = keys
    return plan


def _distinct_modules(instructions: Sequence[Instruction]) -> list[str]:
    texts: dict[str, str] = {}
    for instruction in instructions:
        text = op_module_text(instruction)
        if text is None:
            continue
        form = _form(instruction)
        if form not in texts:
            texts[form] = text
        if len(texts) >= MAX_FORMS:
            break
    return list(texts.values())


def _form(instruction: Instruction) -> str:
    """What decides whether an op compiles: opcode, operand and result types, attributes
    (not the names, not the metadata)."""
    operands = ",".join(op.shape_text for op in instruction.operands)
    attrs = attributes_without(instruction.attr_text, ("metadata", "control-predecessors"))
    return f"{instruction.opcode}({operands})->{instruction.shape_text} {attrs}"


def op_module_text(instruction: Instruction) -> str | None:
    """``instruction`` alone as an HLO module: each operand a parameter, the computations it
    calls copied, its attributes kept; ``None`` for one that cannot stand alone (a
    tuple-shaped operand, an instruction hloscope cannot re-print)."""
    module = instruction.computation.module if instruction.computation is not None else None
    if module is None:
        return None
    try:
        if any(op.shape.is_tuple for op in instruction.operands):
            return None
        lines, parameters, signature = [], [], []
        if instruction.opcode == "parameter":
            operands = ""
            shape = instruction.shape
            parameters.append(shape.to_text())
            signature.append(f"p0: {shape.to_text(layout=False)}")
            root = f"ROOT %{instruction.name} = {shape.to_text()} parameter(0)"
        else:
            names = []
            for number, op in enumerate(instruction.operands):
                name = f"p{number}"
                names.append(f"%{name}")
                parameters.append(op.shape.to_text())
                signature.append(f"{name}: {op.shape.to_text(layout=False)}")
                lines.append(f"%{name} = {op.shape.to_text()} parameter({number})")
            operands = ", ".join(names)
            payload = instruction.payload if instruction.opcode == "constant" else None
            inside = payload if payload is not None else operands
            root = f"ROOT %{instruction.name} = {instruction.shape.to_text()} "
            root += f"{instruction.opcode}({inside})"
        attrs = attributes_without(instruction.attr_text, ("control-predecessors",))
        lines.append(root + (f", {attrs}" if attrs else ""))
        return entry_module_text(
            module,
            f"candidate.{instruction.opcode}",
            computations_called_by(instruction, module),
            parameters=parameters,
            signature=signature,
            lines=lines,
            result=instruction.shape,
        )
    except (HloParseError, AttributeError, ValueError):
        return None


# ---- answers ------------------------------------------------------------------------------------


def apply_confirmation(report: CheckReport, plan: ConfirmPlan, result: ConfirmResult) -> None:
    """XLA:TPU's verdicts read into ``report``, in place: what it refused kept with its words,
    what it compiled dropped, a refusal of the whole program no finding explains added."""
    who = f"XLA:TPU ({result.compiled_for})"
    report.compiled_for = result.compiled_for
    report.confirming = True
    whole = result.whole
    refused_alone: set[str] = set()
    kept: list[Finding] = []
    dropped: list[Finding] = []
    pending: list[Finding] = []  # no op of their own: the whole program decides
    for finding in report.findings:
        if finding.is_warning:
            kept.append(finding)
            continue
        keys = plan.keys.get(id(finding), [])
        refusal = _first_refusal(result.ops.get(key) for key in keys)
        stood_in = any(key in plan.stood_in for key in keys)
        if refusal is not None and (whole is None or not whole.ok or stood_in):
            finding.confirmed_by, finding.compiler_message = who, refusal
            refused_alone.add(_said(refusal))
            kept.append(finding)
        elif keys or (whole is not None and whole.ok):
            dropped.append(finding)
        else:
            pending.append(finding)
    unexplained = whole is not None and not whole.ok and _said(whole.message) not in refused_alone
    for finding in pending:
        if unexplained and whole is not None:
            finding.confirmed_by, finding.compiler_message = who, whole.message
            kept.append(finding)
        elif whole is None:
            kept.append(finding)  # nothing compiled it: the static answer stands
        else:
            dropped.append(finding)
    if unexplained and not pending and whole is not None and whole.message:
        kept.append(_missed(whole.message, who))
    report.findings[:] = kept
    report.notes.insert(0, _summary(who, result, plan, dropped))


def _said(message: str | None) -> str:
    """A refusal as compared with another: its words, spaces collapsed."""
    return " ".join(str(message or "").split())


def _first_refusal(verdicts: object) -> str | None:
    for verdict in verdicts:  # type: ignore[attr-defined]
        if verdict is not None and not verdict.ok:
            return str(verdict.message or "refused")
    return None


def _missed(message: str, who: str) -> Finding:
    """A refusal of the whole program that no static finding explains, as a finding."""
    op = "memory" if "RESOURCE_EXHAUSTED" in message else "XLA:TPU"
    for pattern in _NAMED_OP:
        found = pattern.search(message)
        if found:
            op = found["op"]
            break
    if "RESOURCE_EXHAUSTED" in message:
        reason = Reason.OUT_OF_MEMORY
    elif message.startswith("NotImplementedError"):
        reason = Reason.NO_LOWERING
    else:
        reason = Reason.COMPILE_ERROR
    known = message_advice(message)  # a message explain-error knows has its own fix
    if known is not None and op in ("memory", "XLA:TPU"):
        op = known.op
    return Finding(
        op=op,
        node="",
        function=TOP_LEVEL,
        reason=reason,
        source=known.source if known is not None else None,
        suggestion=known.suggestion if known is not None else suggest(op, reason),
        detail="found by compiling the whole program for the chip",
        confirmed_by=who,
        compiler_message=message,
    )


def _summary(who: str, result: ConfirmResult, plan: ConfirmPlan, dropped: list[Finding]) -> str:
    libtpu = result.versions.get("libtpu")
    head = f"confirmed by {who}{f', libtpu {libtpu}' if libtpu else ''}: "
    head += f"{len(plan.candidates)} op{'s' if len(plan.candidates) != 1 else ''} compiled alone "
    head += "and the whole program"
    if not dropped:
        return head
    names = ", ".join(_named(f) for f in dropped[:4])
    more = f" and {len(dropped) - 4} more" if len(dropped) > 4 else ""
    return f"{head}; dropped what it compiled: {names}{more}"


def _named(finding: Finding) -> str:
    dtype = f" {finding.dtype}" if finding.dtype else ""
    where = f" at {finding.source}" if finding.source else ""
    return f"{finding.op}{dtype} ({finding.node or finding.reason}{where})"
