"""What the HLO text alone says about a platform: the offline rules of ``hloscope check``.

An HLO module already names everything that ties it to a platform, no framework needed:

* **custom-call targets** of another platform: ``lapack_*`` kernels exist only on CPU,
  ``cusolver_*`` only on NVIDIA GPUs, ``tpu_custom_call`` only on TPU (:data:`TARGETS` is the
  table, from what jax 0.10 emits per platform). Names that start with ``__``
  (``__cublas$gemm``, ``__onednn$matmul``) are made by a backend's own passes in *optimized*
  HLO: they say which backend compiled the module, not a portability problem, and are left out
  with a note. Only the module before optimizations shows what the program asks for, so that
  is the stage to check (the report says which stage it read);
* **host callbacks**: the ``xla_ffi_python_cpu_callback`` family of targets (what
  ``jax.pure_callback``, ``io_callback`` and ``jax.debug.print`` lower to on CPU and GPU), and
  ``send``/``recv`` host transfers (what they lower to on TPU). They compile, but stall the
  device on every call and block ``jax.export``: a warning on every platform, since a CPU
  module's callback becomes send/recv when the program is lowered for TPU (the verdict is the
  one the JAX check gives the same program);
* **64-bit floating point on TPU** (``f64``, ``c128``): TPUs have no 64-bit float hardware;
  XLA emulates some of it, slowly, and refuses the rest (``Element type C128 is not supported
  on TPU``). Counted per instruction (the type it produces, not each use), one finding per
  (opcode, type) with the first instruction and how many more in ``detail``, so a model in
  float64 gives a handful of lines, not thousands. ``s64``/``u64`` compile (XLA emulates
  them with pairs of 32-bit integers): a note says how many there are, as TensorFlow's check
  does for ``DT_INT64``;
* **dynamic shapes** (``s32[<=4]``, ``f32[?]``): one finding where a dynamic dimension
  *starts* (an instruction with a dynamic result and no dynamic operand), not at every op it
  flows through;
* **MXU alignment on TPU**: dots and convolutions whose sizes are not multiples of the matrix
  unit's (:mod:`hloscope.analysis.mxu`; 128 unless ``mxu=`` says otherwise, 256 for v6e).
  They only cost speed, so they go to :attr:`~.findings.CheckReport.mxu`, not to the
  findings, and leave the verdict as it is.

Each finding carries the op's source line: the innermost user frame of its metadata, else that
of the instruction that calls its computation (ops inside a jax-internal ``jit(eigh)`` have no
frames of their own), else none (TensorFlow records only its own ``ops.py``). Its ``function``
is the enclosing computation (the entry computation is :data:`~.findings.TOP_LEVEL`; a fused
computation counts as the computation of its fusion).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...dump import storage
from ...hlo.errors import HloParseError
from ...hlo.metadata import StackFrame
from ...hlo.model import Computation, Instruction, Module
from ...hlo.parser import parse_modules
from ...stages import Stage
from ..errors import StageNotInFile
from ..mxu import DEFAULT_MXU, mxu_findings
from ..provenance import is_user_frame
from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason
from .fixes import suggest

__all__ = [
    "file_modules_at_stage",
    "StageNotInFile",
    "TARGETS",
    "TargetRule",
    "ALL_PLATFORMS",
    "SIXTY_FOUR_BIT",
    "FLOAT64",
    "target_rule",
    "module_stage",
    "stage_file",
    "module_at_stage",
    "source_frame",
    "computation_function",
    "scan_module",
    "check_module",
    "check_modules",
]

ALL_PLATFORMS: frozenset[Platform] = frozenset(Platform)
_CPU = frozenset({Platform.CPU})
_GPU = frozenset({Platform.GPU})
_TPU = frozenset({Platform.TPU})

#: 64-bit element types TPUs lack, worst first (c128 is refused outright).
SIXTY_FOUR_BIT: tuple[str, ...] = ("c128", "f64", "s64", "u64")
#: The 64-bit types a TPU check reports as findings; the integer ones it only notes (XLA
#: emulates them on TPU with pairs of 32-bit integers).
FLOAT64: tuple[str, ...] = ("c128", "f64")


@dataclass(frozen=True, slots=True)
class TargetRule:
    """Custom-call targets matching ``pattern`` run only on ``platforms``; ``what`` says in
    a few words what they are."""

    pattern: re.Pattern[str]
    platforms: frozenset[Platform]
    what: str

    @property
    def is_callback(self) -> bool:
        return self.what.startswith("host callback")


def _rule(pattern: str, platforms: frozenset[Platform], what: str) -> TargetRule:
    return TargetRule(re.compile(pattern), platforms, what)


#: Which platforms provide which custom-call targets: what jax 0.10.2 lowers jnp.linalg,
#: callbacks and Pallas to per platform (research notes A3.2-A3.4). First match wins.
TARGETS: tuple[TargetRule, ...] = (
    _rule(r"^xla_(ffi_)?(partitioned_)?python_cpu_callback$", _CPU, "host callback (CPU)"),
    _rule(r"^xla_(ffi_)?(partitioned_)?python_gpu_callback$", _GPU, "host callback (GPU)"),
    _rule(r"^lapack_", _CPU, "LAPACK kernel of jaxlib's CPU backend"),
    _rule(r"^(cusolver_|cusparse_|cublas|cudnn|cu_|cuhybrid_)", _GPU, "CUDA library kernel"),
    _rule(r"^(hipsolver_|hipsparse_|hipblas|hip_|hiphybrid_)", _GPU, "ROCm library kernel"),
    _rule(r"^__gpu\$xla\.gpu\.triton$", _GPU, "Pallas Triton kernel"),
    _rule(r"^mosaic_gpu(_v\d+)?$", _GPU, "Pallas Mosaic GPU kernel"),
    _rule(r"^tpu_custom_call$", _TPU, "Pallas / Mosaic TPU kernel"),
    # The TPU linear-algebra targets: XLA's QR and Eigh expanders run on every backend (CPU
    # verified: jax's TPU lowering of eigh, qr and svd compiles on CPU), LU only on TPU
    # ("No registered implementation for untyped custom call to LuDecomposition for Host").
    _rule(r"^LuDecomposition$", _TPU, "TPU LU decomposition"),
    _rule(
        r"^(Eigh|Qr|ProductOfElementaryHouseholderReflectors)$",
        ALL_PLATFORMS,
        "XLA linear-algebra expander",
    ),
    _rule(
        r"^(Sharding|SPMDFullToShardShape|SPMDShardToFullShape|annotate_device_placement|"
        r"shape_assertion|AllocateBuffer|stablehlo\.dynamic_\w+)$",
        ALL_PLATFORMS,
        "XLA annotation",
    ),
)

# Opcodes whose result only carries a value made elsewhere (a tuple, a call's result, a loop's
# state, a fusion whose body is checked itself): counting them would count one value twice.
_CARRIERS = frozenset(
    {
        "tuple",
        "get-tuple-element",
        "fusion",
        "call",
        "while",
        "conditional",
        "async-start",
        "async-update",
        "async-done",
        "copy-start",
        "copy-done",
        "opt-barrier",
        "domain",
        "bitcast",
    }
)
# How many source lines a grouped finding's detail names before "and N more".
_LINES_SHOWN = 3
# How far up the callers of a computation a source line is looked for.
_CALLER_DEPTH = 8


def target_rule(target: str) -> TargetRule | None:
    """The :data:`TARGETS` row for a custom-call target, or ``None`` for an unknown one."""
    for rule in TARGETS:
        if rule.pattern.search(target):
            return rule
    return None


def module_stage(module: Module) -> Stage:
    """The stage a module comes from when nothing else says: a scheduled module
    (``is_scheduled=true``, which XLA prints after its passes) is optimized HLO."""
    try:
        scheduled = module.header_attrs.get("is_scheduled")
    except HloParseError:
        scheduled = None
    return Stage.OPTIMIZED_HLO if scheduled is True else Stage.HLO


def stage_file(path: Path | str, stage: Stage) -> Path | str | None:
    """The file of ``stage`` beside an XLA dump file of the other stage
    (``X.after_optimizations.txt`` <-> ``X.before_optimizations.txt``), when it exists.
    ``path`` may be a URL (:mod:`~hloscope.dump.storage`); the sibling is then one too."""
    names = {Stage.HLO: "before_optimizations", Stage.OPTIMIZED_HLO: "after_optimizations"}
    other = names[Stage.OPTIMIZED_HLO if stage is Stage.HLO else Stage.HLO]
    if stage not in names or other not in _name(path):
        return None
    if isinstance(path, str) and storage.is_url(path):
        remote = storage.join(storage.parent(path), _name(path).replace(other, names[stage]))
        return remote if storage.exists(remote) else None
    local = Path(path)
    sibling = local.with_name(local.name.replace(other, names[stage]))
    return sibling if sibling.is_file() else None


def _name(location: Path | str) -> str:
    """The file name of a local path or a URL."""
    return storage.basename(str(location))


def _parse_file(location: Path | str) -> list[Module]:
    if isinstance(location, str) and storage.is_url(location):
        return parse_modules(storage.read_bytes(location), path=location)
    return parse_modules(location)


def module_at_stage(module: Module, path: Path | str | None, stage: Stage | str) -> Module | None:
    """``module`` at ``stage``: itself when it is of that stage (:func:`module_stage`), else
    the module of the same name in the file of that stage beside ``path``
    (:func:`stage_file`); ``None`` when there is none. What ``hloscope check FILE --stage`` and
    the report's unsupported-ops section read, so both check the same module."""
    wanted = Stage.parse(stage)
    if module_stage(module) is wanted:
        return module
    sibling = stage_file(path, wanted) if path is not None else None
    if sibling is None:
        return None
    return next((m for m in _parse_file(sibling) if m.name == module.name), None)


def file_modules_at_stage(
    path: Path | str, modules: list[Module], stage: str | None
) -> tuple[list[Module], list[str]]:
    """The modules of an HLO file at ``stage`` (default ``before``), read from the file of
    that stage beside it when the file holds the other one, with a note saying so. With no
    such file an explicit ``--stage`` cannot be honoured (an error), and the default checks
    the file as it is (its notes name the stage read). What ``hloscope check FILE`` and
    ``hloscope.check(FILE, stage=...)`` both read."""
    wanted = Stage.parse(stage or "before")
    staged, notes = [], []
    for found in modules:
        at = module_at_stage(found, path, wanted)
        if at is None and stage is not None:
            held = "optimized HLO" if module_stage(found) is Stage.OPTIMIZED_HLO else "HLO"
            beside = stage_file(path, wanted)
            why = (
                f"{_name(beside)} beside it has no module {found.name}"
                if beside is not None
                else f"no {wanted.dump_name} file is beside it"
            )
            raise StageNotInFile(
                f"{path}: --stage {stage} asked, but module {found.name} here is {held} and "
                f"{why}; leave out --stage to check the file as it is"
            )
        # `at` is not `found` only when it was read from the sibling file, which then exists.
        if at is not None and at is not found and (sibling := stage_file(path, wanted)):
            notes.append(
                f"read module {found.name} {wanted.short} optimizations from "
                f"{_name(sibling)}, beside {_name(path)}"
            )
        staged.append(at if at is not None else found)
    return staged, notes


# ---- where an op came from ----------------------------------------------------------------------


def source_frame(instruction: Instruction, *, user_only: bool = False) -> StackFrame | None:
    """The frame an op came from: the innermost user frame of ``instruction``, else of the
    instruction that calls its computation (up the call chain), else (unless ``user_only``)
    its innermost frame of any kind; ``None`` when there is none."""
    fallback = None
    current: Instruction | None = instruction
    for _ in range(_CALLER_DEPTH):
        if current is None:
            break
        stack = current.stack
        for frame in stack:
            if is_user_frame(frame):
                return frame
        if stack and fallback is None:
            fallback = stack[0]
        current = _first_caller(current.computation)
    return None if user_only else fallback


def _user_source(instruction: Instruction) -> str | None:
    # Only the user's own lines: TensorFlow records ops.py:1221 for every op, which would
    # point every finding of a TF module at the same framework line.
    frame = source_frame(instruction, user_only=True)
    return f"{frame.file}:{frame.line}" if frame is not None else None


def _first_caller(computation: Computation | None) -> Instruction | None:
    if computation is None or computation.is_entry:
        return None
    callers = computation.callers
    return callers[0] if callers else None


def _enclosing(computation: Computation | None) -> Computation | None:
    """The computation an op runs in for a reader: a fused computation's caller's."""
    for _ in range(_CALLER_DEPTH):
        if computation is None or not computation.is_fusion_computation:
            return computation
        caller = _first_caller(computation)
        computation = caller.computation if caller is not None else None
    return computation


def computation_function(instruction: Instruction) -> str:
    """The ``function`` of a finding on ``instruction``: its enclosing computation's name
    (a fused computation counts as its fusion's computation), :data:`~.findings.TOP_LEVEL` for
    the entry computation."""
    computation = _enclosing(instruction.computation)
    if computation is None:
        return TOP_LEVEL
    return TOP_LEVEL if computation.is_entry else computation.name


FunctionOf = Callable[[Instruction], str]


# ---- the rules ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Scan:
    """What one module scan gathers before it becomes findings."""

    module: Module
    platform: Platform
    stage: Stage
    function_of: FunctionOf
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    internal: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)

    def finding(
        self,
        instruction: Instruction,
        op: str,
        reason: Reason,
        *,
        suggestion: str,
        detail: str,
        dtype: str | None = None,
        warning: bool | None = None,
        members: Sequence[Instruction] = (),
    ) -> Finding:
        return Finding(
            op=op,
            node=instruction.name,
            function=self.function_of(instruction),
            reason=reason,
            dtype=dtype,
            source=_user_source(instruction),
            suggestion=suggestion,
            detail=detail,
            warning=warning,
            instructions=tuple(members) or (instruction,),
        )


def _custom_call(scan: _Scan, instruction: Instruction) -> None:
    try:
        target = instruction.attrs.get("custom_call_target")
    except HloParseError:
        target = None
    if not isinstance(target, str) or not target:
        return
    rule = target_rule(target)
    if rule is None:
        if target.startswith("__"):
            scan.internal[target] = scan.internal.get(target, 0) + 1
        else:
            scan.unknown[target] = scan.unknown.get(target, 0) + 1
        return
    provided = scan.platform in rule.platforms
    if rule.is_callback:
        scan.findings.append(_callback_finding(scan, instruction, target, rule, provided))
    elif not provided:
        where = ", ".join(sorted(p.value for p in rule.platforms))
        scan.findings.append(
            scan.finding(
                instruction,
                target,
                Reason.CUSTOM_CALL,
                suggestion=suggest(target, Reason.CUSTOM_CALL),
                detail=f"{rule.what}, provided on {where} only, not on {scan.platform}",
            )
        )


#: What a host callback becomes when JAX lowers the program for each platform itself
#: (``jax/_src/callback.py``): the CPU and GPU custom calls, send/recv transfers on TPU.
_CALLBACK_LOWERED = {
    Platform.CPU: "an xla_ffi_python_cpu_callback custom call",
    Platform.GPU: "an xla_ffi_python_gpu_callback custom call",
    Platform.TPU: "send/recv host transfers",
}


def _callback_finding(
    scan: _Scan, instruction: Instruction, target: str, rule: TargetRule, provided: bool
) -> Finding:
    """A host callback is a warning on every platform: its custom call names the platform the
    module was lowered for, but the callback itself is not tied to it (lowered for another
    platform, JAX makes that platform's form of it), so the program still compiles there --
    what ``hloscope check SCRIPT.py:FUNCTION`` finds by lowering it for the platform."""
    what = instruction.metadata.op_type or "callback"
    lowered = ""
    if not provided:
        lowered = (
            f"; this module was lowered for another platform: lowered for {scan.platform} it "
            f"becomes {_CALLBACK_LOWERED[scan.platform]}"
        )
    return scan.finding(
        instruction,
        target,
        Reason.HOST_CALLBACK,
        suggestion=suggest(target, Reason.HOST_CALLBACK),
        detail=f"{rule.what}: {what} runs Python on the host; jax.export refuses it{lowered}",
    )


def _host_transfers(scan: _Scan, instructions: Sequence[Instruction]) -> None:
    """``send``/``recv`` with ``is_host_transfer=true``: one finding per (opcode, computation,
    source), with the number of transfers."""
    groups: dict[tuple[str, str, str | None], list[Instruction]] = {}
    for instruction in instructions:
        if instruction.opcode not in ("send", "recv"):
            continue
        try:
            to_host = instruction.attrs.get("is_host_transfer") is True
        except HloParseError:
            to_host = False
        if to_host:
            key = (instruction.opcode, scan.function_of(instruction), _user_source(instruction))
            groups.setdefault(key, []).append(instruction)
    for (opcode, _, _), members in groups.items():
        first = members[0]
        direction = "to" if opcode == "send" else "from"
        count = f"{len(members)} transfers" if len(members) > 1 else "1 transfer"
        scan.findings.append(
            scan.finding(
                first,
                opcode,
                Reason.HOST_CALLBACK,
                suggestion=suggest(opcode, Reason.HOST_CALLBACK),
                detail=f"{count} {direction} the host ({_names(members)}): a host callback "
                "on TPU, or an explicit host transfer",
            )
        )


def _sixty_four_bit(scan: _Scan, instructions: Sequence[Instruction]) -> None:
    """64-bit types for TPU: one finding per (opcode, type) of the float types, worst first;
    the integer types in one note (TPU emulates them, as TensorFlow's check says too)."""
    groups: dict[tuple[str, str], list[Instruction]] = {}
    for instruction in instructions:
        if instruction.opcode in _CARRIERS or _is_inner_parameter(instruction):
            continue
        for dtype in _wide_types(instruction):
            groups.setdefault((dtype, instruction.opcode), []).append(instruction)
    order = {dtype: i for i, dtype in enumerate(SIXTY_FOUR_BIT)}
    integers: list[Instruction] = []
    for (dtype, opcode), members in sorted(groups.items(), key=lambda g: order[g[0][0]]):
        if dtype not in FLOAT64:
            integers.extend(members)
            continue
        first = members[0]
        scan.findings.append(
            scan.finding(
                first,
                opcode,
                Reason.DTYPE,
                dtype=dtype,
                members=members,
                suggestion=suggest(dtype, Reason.DTYPE),
                detail=f"{_instructions(len(members), opcode)} {dtype} "
                f"({_names(members)}){_from_lines(members)}; {_TPU_SAYS[dtype]}",
            )
        )
    if integers:
        kinds = ", ".join(sorted({t for i in integers for t in _wide_types(i)} - set(FLOAT64)))
        scan.notes.append(
            f"{_instructions(len(integers), 'instruction')} {kinds} ({_names(integers)})"
            f"{_from_lines(integers)}: TPU emulates 64-bit integers with pairs of 32-bit ones "
            "(slower; int32 avoids it)"
        )


_TPU_SAYS = {
    "c128": "TPU refuses it (INVALID_ARGUMENT: Element type C128 is not supported on TPU)",
    "f64": "TPUs have no 64-bit floating point: XLA emulates some of it, slowly, and fails on "
    "the rest (UNIMPLEMENTED while rewriting X64 element types)",
}


def _from_lines(members: Sequence[Instruction]) -> str:
    lines = list(dict.fromkeys(s for s in map(_user_source, members) if s))
    shown = ", ".join(lines[:_LINES_SHOWN])
    more = f" and {len(lines) - _LINES_SHOWN} more" if len(lines) > _LINES_SHOWN else ""
    return f" from {shown}{more}" if shown else ""


def _instructions(count: int, opcode: str) -> str:
    """``3 add instructions produce`` / ``1 add produces`` (``opcode="instruction"``: no
    repetition)."""
    noun = "instructions" if opcode == "instruction" else f"{opcode} instructions"
    return f"{count} {noun} produce" if count > 1 else f"1 {opcode} produces"


def _is_inner_parameter(instruction: Instruction) -> bool:
    computation = instruction.computation
    return instruction.opcode == "parameter" and not (computation and computation.is_entry)


def _wide_types(instruction: Instruction) -> list[str]:
    text = instruction.shape_text
    if text and not any(t in text for t in SIXTY_FOUR_BIT):
        return []  # the common case: no need to build the shape
    try:
        leaves = [s.element_type for s in instruction.shape.walk()]
    except HloParseError:
        return []
    return [t for t in SIXTY_FOUR_BIT if t in leaves]


def _dynamic_shapes(scan: _Scan, instructions: Sequence[Instruction]) -> None:
    """Where dynamic dimensions start: one finding per (opcode, function, source)."""
    dynamic = [i for i in instructions if _is_dynamic(i)]
    if not dynamic:
        return
    origins: dict[tuple[str, str, str | None], list[Instruction]] = {}
    for instruction in dynamic:
        if instruction.opcode in _CARRIERS or _is_inner_parameter(instruction):
            continue
        if any(_is_dynamic(operand) for operand in instruction.operands):
            continue
        key = (instruction.opcode, scan.function_of(instruction), _user_source(instruction))
        origins.setdefault(key, []).append(instruction)
    for (opcode, _, _), members in origins.items():
        first = members[0]
        made_by = f" (made by {first.metadata.op_type})" if first.metadata.op_type else ""
        scan.findings.append(
            scan.finding(
                first,
                opcode,
                Reason.DYNAMIC_SHAPE,
                # It compiled (every platform pads bounded dimensions): a warning, not a wall.
                warning=True,
                suggestion=suggest("", Reason.DYNAMIC_SHAPE),
                detail=f"{first.shape_text}: a data-dependent size starts here{made_by} "
                f"({_names(members)}); {len(dynamic)} instructions of the module carry dynamic "
                "shapes",
            )
        )


def _is_dynamic(instruction: Instruction) -> bool:
    text = instruction.shape_text
    if text and "<=" not in text and "?" not in text:
        return False
    try:
        return instruction.shape.is_dynamic
    except HloParseError:
        return False


def _names(members: Sequence[Instruction], shown: int = 2) -> str:
    names = ", ".join(m.name for m in members[:shown])
    return names + (f", +{len(members) - shown} more" if len(members) > shown else "")


def _notes(scan: _Scan) -> None:
    stage = "optimized HLO" if scan.stage is Stage.OPTIMIZED_HLO else "HLO before optimizations"
    first = [f"checked the {stage} of module {scan.module.name} for {scan.platform}"]
    if scan.stage is Stage.OPTIMIZED_HLO:
        first.append(
            "an optimized module is already rewritten for the backend that compiled it; the "
            "module before optimizations (--stage before; for a file, the "
            "before_optimizations file beside it) shows what the program itself asks for"
        )
    scan.notes[:0] = first  # what was read comes before what was found in it
    if scan.internal:
        scan.notes.append(
            f"not checked: {_counted(scan.internal)} (backend-internal custom calls, made by "
            "XLA's passes for the backend that compiled the module)"
        )
    if scan.unknown:
        scan.notes.append(
            f"unknown custom-call targets: {_counted(scan.unknown)} (registered by a library "
            f"hloscope does not know: make sure {scan.platform} provides them)"
        )


def _counted(counts: dict[str, int], shown: int = 4) -> str:
    items = [f"{name} ×{n}" if n > 1 else name for name, n in list(counts.items())[:shown]]
    rest = len(counts) - shown
    return ", ".join(items) + (f" and {rest} more" if rest > 0 else "")


# ---- entry points -------------------------------------------------------------------------------


def scan_module(
    module: Module,
    platform: Platform | str,
    *,
    stage: Stage | str | None = None,
    function_of: FunctionOf | None = None,
) -> tuple[list[Finding], list[str]]:
    """The findings and notes of the offline rules (see the module docstring) on ``module``.

    ``stage`` is the stage the module comes from (default: :func:`module_stage` guesses);
    ``function_of`` names the function of a finding's instruction (default: its enclosing
    computation, :data:`~.findings.TOP_LEVEL` for the entry).
    """
    target = Platform.parse(platform)
    scan = _Scan(
        module=module,
        platform=target,
        stage=Stage.parse(stage) if stage is not None else module_stage(module),
        function_of=function_of or computation_function,
    )
    instructions = _entry_first(module)
    for instruction in instructions:
        if instruction.opcode == "custom-call":
            _custom_call(scan, instruction)
    _host_transfers(scan, instructions)
    if target is Platform.TPU:
        _sixty_four_bit(scan, instructions)
    _dynamic_shapes(scan, instructions)
    _notes(scan)
    return scan.findings, scan.notes


def _entry_first(module: Module) -> list[Instruction]:
    """Every instruction, the entry computation's first: findings then list the checked
    function before the functions it calls, and "the first instruction" of a group is the
    one nearest the top."""
    entry = [c for c in module.computations if c.is_entry]
    rest = [c for c in module.computations if not c.is_entry]
    return [i for c in (*entry, *rest) for i in c.instructions]


def check_module(
    module: Module,
    platform: Platform | str,
    *,
    stage: Stage | str | None = None,
    mxu: int = DEFAULT_MXU,
) -> CheckReport:
    """A :class:`~.findings.CheckReport` of the offline rules on one module."""
    return check_modules([module], platform, stage=stage, mxu=mxu)


def check_modules(
    modules: Iterable[Module],
    platform: Platform | str,
    *,
    stage: Stage | str | None = None,
    program: str | None = None,
    mxu: int = DEFAULT_MXU,
) -> CheckReport:
    """One report for several modules (a dump folder's ``--all-modules``). With more than one
    module, each finding's ``function`` is prefixed with its module's name (``jit_f/<top>``).
    For TPU, the MXU alignment warnings for an ``mxu`` x ``mxu`` array come too
    (:attr:`~.findings.CheckReport.mxu`, each naming its module)."""
    modules = list(modules)
    target = Platform.parse(platform)
    report = CheckReport(
        platform=target, program=program or ", ".join(m.name for m in modules) or "(no module)"
    )
    several = len(modules) > 1
    for module in modules:
        findings, notes = scan_module(module, target, stage=stage)
        if several:
            for finding in findings:
                finding.function = f"{module.name}/{finding.function}"
        report.extend(findings)
        report.notes.extend(notes)
        if target is Platform.TPU:
            report.mxu.extend(mxu_findings(module, mxu))
    report.mxu.sort(key=lambda f: -f.wasted_flops)  # stable: each module's order kept in ties
    return report
