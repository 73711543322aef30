"""The JAX pre-flight check: will this function compile for that platform? ::

    report = check_jax(f, x, platform="tpu")  # no TPU needed (hloscope.drivers.jax_check)
    report.clean, [(f.reason, f.op, f.source) for f in report.findings]

:func:`hloscope.drivers.jax_check.check_jax` lowers the function for the platform without its
device (:func:`hloscope.backends.jax_lowering.lower_for`), and :func:`report_of` here turns what
happened (the :class:`~hloscope.backends.lowering_facts.LoweringFacts`) into findings:

* an error raised while **tracing** (``ConcretizationTypeError``, ``TracerBoolConversionError``,
  a shape from a traced value ...) is a ``tracing`` finding: ``op`` is the exception class,
  ``node`` what raised it when the message says (``jnp.nonzero``, ``int``), ``source`` the
  user's line, ``suggestion`` the fix for that case (``size=``, the three-argument ``where``,
  ``static_argnames``, ``lax.cond`` ...). Nothing else can be checked then;
* a primitive with **no lowering** for the platform (``eig`` on TPU) is a ``no_lowering``
  finding per use; it is stood in for, so the rest of the program is still checked;
* the lowered module (HLO before optimizations) goes through the offline rules of
  :mod:`.hlo_check`: custom calls of another platform, host callbacks, 64-bit types on TPU,
  dynamic shapes. Each op's ``function`` is the Python function it was traced in
  (:data:`~.findings.TOP_LEVEL` for the checked function itself). For TPU, its dots and
  convolutions are also measured against the 128 x 128 MXU (:mod:`hloscope.analysis.mxu`;
  :attr:`~.findings.CheckReport.mxu`, performance warnings outside the verdict);
* host callbacks lowered for TPU off TPU cannot be built (JAX makes their send/recv with a TPU
  client): they are read from the jaxpr instead, as ``host_callback`` warnings;
* what ``jax.export`` refuses for the platform is an ``export`` warning: host callbacks
  (``serialization of host_callbacks is not yet implemented``), custom calls without
  compatibility guarantees (``cuhybrid_eig_real``), with the line of each.

This module never imports jax and runs nothing: it reads the lowering's facts.
"""

from __future__ import annotations

import re

from ...backends.lowering_facts import LoweringFacts, PrimitiveUse, RaisedError, UserLine
from ...errors import HloscopeError
from ...hlo.metadata import StackFrame
from ...hlo.model import Instruction, Module
from ...stages import Stage
from ..mxu import DEFAULT_MXU, mxu_findings
from ..provenance import user_frame
from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason
from .fixes import suggest
from .hlo_check import computation_function, scan_module, source_frame
from .message_advice import message_advice

__all__ = ["report_of", "tracing_trigger"]

# Exception classes of Python itself: their class rows in the fixes table are about shapes and
# slices, so they apply only when the message says it was one.
_BUILTIN_TRIGGERS = {"TypeError": "shape", "IndexError": "slice"}
_TRIGGERS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(r"Shapes must be 1D sequences of concrete values"), "shape"),
    (re.compile(r"Slice entries must be static integers"), "slice"),
    (re.compile(r"The size argument of jnp\.(\w+) must be statically specified"), None),
    (re.compile(r"The error arose for the first argument of jnp\.(\w+)\(\)"), None),
    (re.compile(r"The problem arose with the `(\w+)` function"), None),
    (re.compile(r"argument of jnp\.(\w+)"), None),
    (re.compile(r"It arose in the jnp\.(\w+) argument"), None),
    (re.compile(r"When jit-compiling jnp\.(\w+)"), None),
)
_DEPENDS_ON = re.compile(r"depends on the value of the argument ([^\s.]+)")
_NOISE = ("See https://", "The error occurred while tracing the function")
_EXPORT_TARGET = re.compile(r"stablehlo\.custom_call @([\w.$-]+)\(")
_EXPORT_LOCATION = re.compile(r'"([^"]+\.py)":(\d+):')
# Export errors that repeat what the lowering already said.
_ALREADY_SAID = (
    "MLIR translation rule for primitive",
    "is different from the lowering platform",
)


def report_of(
    facts: LoweringFacts, platform: Platform | str, *, mxu: int = DEFAULT_MXU
) -> CheckReport:
    """The findings of a :class:`~hloscope.backends.lowering_facts.LoweringFacts`."""
    target = Platform.parse(platform)
    names = _FunctionNames(facts.function)
    report = CheckReport(platform=target, program=facts.function)
    report.notes.append(_lowering_note(facts, target))
    error = facts.error
    if error is not None and error.step == "trace":
        report.extend([_tracing_finding(error, names)])
        return report
    report.extend(_missing_lowerings(facts, names))
    if facts.callbacks_stood_in:
        report.extend(_stood_in_callbacks(facts, names, target))
    if error is not None:
        report.extend([_lowering_finding(error, names)])
        report.notes.append("lowering failed, so the lowered module could not be checked")
        return report
    module = _check_lowered_module(report, facts, names, target, mxu)
    report.extend(_export_findings(facts, names, module))
    return report


# ---- function names -----------------------------------------------------------------------------


class _FunctionNames:
    """Python function names as a report shows them: the checked function is
    :data:`~.findings.TOP_LEVEL`, a function nested in it ``f.body`` (no ``<locals>``)."""

    __slots__ = ("qualname", "name")

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname
        self.name = qualname.rpartition(".")[2]

    def of(self, function: str | None) -> str:
        if not function or function in (self.qualname, self.name):
            return TOP_LEVEL
        nested = self.qualname + ".<locals>."
        if function.startswith(nested):
            return f"{self.name}.{function[len(nested) :]}".replace(".<locals>.", ".")
        return function.replace(".<locals>.", ".")

    def where(self, where: UserLine | None) -> str:
        return self.of(where.function) if where is not None else TOP_LEVEL


def _source(where: UserLine | None) -> str | None:
    return str(where) if where is not None else None


def _use_line(use: PrimitiveUse) -> UserLine | None:
    """Where a primitive was used: the innermost frame of its whole stack (its own and its
    callers') in the user's code, by the rule kernels' sources follow
    (:func:`~hloscope.analysis.provenance.user_frame`: not jax, flax, optax, numpy or another
    installed package). ``jnp.linalg.eigvals`` is a jitted function whose ``eig`` JAX made in
    its own files: the line is the user's call of ``eigvals``."""
    if not use.stack:
        return use.where
    frames = [StackFrame(line.file, line.line, line.function) for line in use.stack]
    chosen = user_frame(frames)
    return next(line for line, frame in zip(use.stack, frames) if frame is chosen)


# ---- tracing and lowering errors ----------------------------------------------------------------


def tracing_trigger(kind: str, message: str) -> str:
    """What a tracing error's message says raised it: ``"nonzero"``, ``"unique"``,
    ``"arange"``, ``"int"``, ``"shape"``, ``"slice"`` ..., or ``""``."""
    for pattern, name in _TRIGGERS:
        found = pattern.search(message)
        if found:
            return name or found.group(1)
    return ""


def _tracing_fix(kind: str, trigger: str) -> str:
    if trigger:
        advice = suggest(f"{kind}:{trigger}")
        if advice:
            return advice
    builtin = _BUILTIN_TRIGGERS.get(kind)
    if builtin is not None and trigger != builtin:
        return suggest("", Reason.TRACING)  # a TypeError that is not about a shape
    return suggest(kind, Reason.TRACING)


def _tracing_finding(error: RaisedError, names: _FunctionNames) -> Finding:
    trigger = tracing_trigger(error.kind, error.message)
    advice = _tracing_fix(error.kind, trigger)
    argument = _DEPENDS_ON.search(error.message)
    if argument and ("static_arg" in advice or "argument static" in advice):
        advice += f" (here the value depends on argument {argument.group(1)})"
    node = (
        f"jnp.{trigger}"
        if trigger and trigger not in ("shape", "slice", "int", "float", "bool", "complex", "index")
        else trigger
    )
    return Finding(
        op=error.kind,
        node=node,
        function=names.where(error.where),
        reason=Reason.TRACING,
        source=_source(error.where),
        suggestion=advice,
        detail=_informative(error.message),
    )


def _informative(message: str) -> str:
    """The lines of a JAX message that say something (not the docs link, not the "while
    tracing the function" line, which names the def rather than the failing line)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith(_NOISE)]
    return " ".join(kept or lines[:1])


def _lowering_finding(error: RaisedError, names: _FunctionNames) -> Finding:
    no_rule = error.kind == "NotImplementedError" or "Cannot lower" in error.message
    reason = Reason.NO_LOWERING if no_rule else Reason.COMPILE_ERROR
    # A message explain-error knows (a Pallas block shape, a kernel on sharded arrays) has
    # its own fix; others get the generic one.
    known = message_advice(f"{error.kind}: {error.message}")
    return Finding(
        op=error.kind,
        node="",
        function=names.where(error.where),
        reason=reason,
        source=_source(error.where),
        suggestion=known.suggestion if known is not None else suggest(error.kind, reason),
        detail=_informative(error.message),
    )


def _use_finding(
    primitive: str, number: int, use: PrimitiveUse, names: _FunctionNames, why: tuple[Reason, str]
) -> Finding:
    """The finding of ``use``, the ``number``-th of ``primitive`` the lowering stood in for;
    ``why`` is its reason and the detail that says what standing in did."""
    where = _use_line(use)
    return Finding(
        op=primitive,
        node=f"{primitive}.{number}",
        function=names.where(where),
        reason=why[0],
        source=_source(where),
        suggestion=suggest(primitive, why[0]),
        detail=why[1],
    )


def _missing_lowerings(facts: LoweringFacts, names: _FunctionNames) -> list[Finding]:
    return [
        _use_finding(
            missing.primitive,
            number,
            use,
            names,
            (
                Reason.NO_LOWERING,
                f"{missing.message} (stood in for, so the rest of the program was still checked)",
            ),
        )
        for missing in facts.missing
        for number, use in enumerate(missing.uses or (), 1)
    ]


def _stood_in_callbacks(
    facts: LoweringFacts, names: _FunctionNames, platform: Platform
) -> list[Finding]:
    why = (Reason.HOST_CALLBACK, _stood_in_detail(platform))
    findings = []
    counts: dict[str, int] = {}
    for use in facts.callbacks:
        counts[use.primitive] = counts.get(use.primitive, 0) + 1
        findings.append(_use_finding(use.primitive, counts[use.primitive], use, names, why))
    return findings


def _stood_in_detail(platform: Platform) -> str:
    lowered = (
        "send/recv host transfers"
        if platform is Platform.TPU
        else "an xla_ffi_python_gpu_callback custom call"
    )
    return (
        f"on {platform} a host callback lowers to {lowered}, which JAX builds with a "
        f"{platform} client this machine lacks: found in the jaxpr, stood in for the HLO check"
    )


# ---- the lowered module -------------------------------------------------------------------------


def _check_lowered_module(
    report: CheckReport,
    facts: LoweringFacts,
    names: _FunctionNames,
    platform: Platform,
    mxu: int = DEFAULT_MXU,
) -> Module | None:
    """Check the lowered module with the offline rules; return it (``None`` when there is
    no HLO or hloscope could not read it, and a note says so)."""
    if facts.hlo is None:
        report.notes.append(
            f"the lowered module could not be converted to HLO ({facts.hlo_error}); its "
            "custom calls and element types were not checked"
        )
        return None
    from ...hlo.parser import parse

    try:
        module = parse(facts.hlo, path=f"<{facts.function} lowered for {facts.platform}>")
    except HloscopeError as error:
        report.notes.append(f"hloscope could not read the lowered HLO: {error.one_line()}")
        return None

    def function_of(instruction: Instruction) -> str:
        frame = source_frame(instruction, user_only=True)
        if frame is not None and frame.function:
            return names.of(frame.function)
        return computation_function(instruction)

    findings, notes = scan_module(module, platform, stage=Stage.HLO, function_of=function_of)
    report.extend(findings)
    report.notes.extend(notes)
    if platform is Platform.TPU:
        report.mxu.extend(mxu_findings(module, mxu))
    return module


# ---- jax.export ---------------------------------------------------------------------------------


def _export_findings(
    facts: LoweringFacts, names: _FunctionNames, module: Module | None
) -> list[Finding]:
    findings: list[Finding] = []
    error = facts.export_error
    if error is not None and not any(text in error.message for text in _ALREADY_SAID):
        if "host_callbacks" in error.message:
            findings.append(_export_callbacks(facts, names, error.first_line))
        elif "custom calls whose targets have no compatibility guarantees" in error.message:
            findings.extend(_export_targets(error, names, module))
        else:
            findings.append(
                Finding(
                    op="jax.export",
                    node=error.kind,
                    function=names.where(error.where),
                    reason=Reason.EXPORT,
                    source=_source(error.where),
                    suggestion=suggest("", Reason.EXPORT),
                    detail=error.first_line,
                )
            )
    if facts.callbacks_stood_in and facts.callbacks:
        findings.append(
            _export_callbacks(
                facts,
                names,
                "serialization of host_callbacks is not yet implemented (what jax.export says "
                "of host callbacks on every platform; not asked here, since the callbacks could "
                f"not be lowered for {facts.platform} without its device)",
            )
        )
    return findings


def _export_callbacks(facts: LoweringFacts, names: _FunctionNames, detail: str) -> Finding:
    first = facts.callbacks[0].where if facts.callbacks else None
    return Finding(
        op="jax.export",
        node="host_callbacks",
        function=names.where(first),
        reason=Reason.EXPORT,
        source=_source(first),
        suggestion=suggest("host_callbacks", Reason.EXPORT),
        detail=detail,
    )


def _export_targets(
    error: RaisedError, names: _FunctionNames, module: Module | None
) -> list[Finding]:
    """One finding per custom-call target export names, at the first line it gives for it;
    where its ``loc(...)`` names no file (a kernel made inside a jitted library function
    says ``loc("eig")``), at the user line of the first custom call to it in the module."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for line in error.message.splitlines():
        target = _EXPORT_TARGET.search(line)
        if target is None or target.group(1) in seen:
            continue
        seen.add(target.group(1))
        locations = _EXPORT_LOCATION.findall(line)
        where = UserLine(locations[0][0], int(locations[0][1])) if locations else None
        if where is None and module is not None:
            where = _custom_call_line(module, target.group(1))
        findings.append(
            Finding(
                op=target.group(1),
                node="jax.export",
                function=names.where(where) if where and where.function else TOP_LEVEL,
                reason=Reason.EXPORT,
                source=_source(where),
                suggestion=suggest("", Reason.EXPORT),
                detail="jax.export: custom call without compatibility guarantees "
                "(jax.export.DisabledSafetyCheck.custom_call(target) accepts it at your risk)",
            )
        )
    return findings


def _custom_call_line(module: Module, target: str) -> UserLine | None:
    """The user line of the first custom call to ``target`` in ``module``."""
    for instruction in module.instructions():
        if instruction.opcode != "custom-call":
            continue
        if instruction.attrs.get("custom_call_target") != target:
            continue
        frame = source_frame(instruction, user_only=True)
        if frame is not None:
            return UserLine(frame.file, frame.line, frame.function)
    return None


# ---- notes --------------------------------------------------------------------------------------


def _lowering_note(facts: LoweringFacts, platform: Platform) -> str:
    how = (
        "on this machine"
        if platform is Platform.CPU
        # Whether or not this machine has one: the lowering never asks for the device.
        else f"by cross-platform lowering (no {platform.value.upper()} device used)"
    )
    if facts.error is not None and facts.error.step == "trace":
        return f"tracing {facts.function} failed (jax {facts.jax_version}); nothing was lowered"
    if facts.error is not None:
        return (
            f"lowering {facts.function} for {facts.platform} {how} failed (jax {facts.jax_version})"
        )
    note = f"lowered {facts.function} for {facts.platform} {how} with jax {facts.jax_version}"
    if platform is Platform.GPU:
        note += "; gpu means CUDA here (ROCm lowers to hipsolver_* kernels instead)"
    stood_in = [m.primitive for m in facts.missing]
    if facts.callbacks_stood_in:
        stood_in.append("host callbacks")
    if stood_in:
        note += f"; stood in for {', '.join(stood_in)} to check the rest"
    return note
