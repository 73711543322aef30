"""XLA status errors JAX raised: element types, FFI handlers, the verifier, other codes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...unsupported.findings import Platform, Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, traced
from ..device import platform_of
from ..forms import Form, alternation, form_of
from ..functions import jax_function, paragraph_end
from ..log import Log, class_before, clean_message, status_before
from ..recogniser import Recogniser
from ..record import Failure, Family
from . import device_allocation, distributed, out_of_memory
from .cuda_libraries import KERNEL_FAULTS

_KERNEL_FAULT_MEANING = (
    "a GPU kernel faulted as it ran (memory outside its buffers, an illegal instruction, a "
    "device-side assert)"
)
_COMPLEX_MEANING = (
    "the op takes real operands only on this backend, and one of its operands is complex"
)
_STATUS_FORMS: tuple[Form, ...] = (
    Form(
        "element_type",
        r"Element type (?P<etype>\w+) is not supported on (?P<eplat>\w+)",
        "",
        Reason.DTYPE,
        (),
        "the device has no support for this element type",
    ),
    Form(
        "x64_rewrite",
        r"While rewriting computation to not contain X64 element types, XLA encountered an "
        r"HLO for which this rewriting is not implemented: ?(?P<hlo>[^\n]*)",
        "",
        Reason.DTYPE,
        (),
        "TPU emulates 64-bit types by rewriting them, and this op has no rewrite",
    ),
    Form(
        "tpu_driver_x64",
        r"64-bit data types are not yet supported on the TPU driver API",
        "64-bit types",
        Reason.DTYPE,
        ("f64",),
        "the TPU driver API has no 64-bit types",
    ),
    # A complex operand where the op (a decomposition, a comparison) takes real types only
    # on that backend: the status code, then a complex element type in the message. jax 0.1
    # `jnp.linalg.qr` of complex64: "Unimplemented: complex comparison 'LT'"; jax 0.2.9
    # `jnp.linalg.eigh` on TPU: "Invalid argument: Type of the input matrix must be float: got
    # c64[10,10]".
    Form(
        "complex_unimplemented",
        r"U(?:NIMPLEMENTED|nimplemented): "
        r"(?P<cu_msg>[^\n]{0,200}?\b(?P<cu_type>c64|c128|complex(?:64|128)?)\b[^\n]{0,200})",
        "",
        Reason.DTYPE,
        ("complex",),
        _COMPLEX_MEANING,
    ),
    Form(
        "complex_invalid",
        r"I(?:NVALID_ARGUMENT|nvalid argument): "
        r"(?P<ci_msg>[^\n]{0,200}?\b(?P<ci_type>c64|c128|complex(?:64|128)?)\b[^\n]{0,200})",
        "",
        Reason.DTYPE,
        ("complex",),
        _COMPLEX_MEANING,
    ),
    Form(
        "unimplemented",
        r"U(?:NIMPLEMENTED|nimplemented): "
        r"(?!While rewriting computation|Element type|No registered implementation|No FFI handler)"
        r"(?P<umsg>[^\n]+)",
        "UNIMPLEMENTED",
        Reason.COMPILE_ERROR,
        (),
        "XLA does not implement what the program asks for on this platform",
    ),
    # jax 0.10.2, `lax.dot(a, b, preferred_element_type=jnp.float32)` of float4_e2m1fn arrays
    # on CPU: XLA's operand_upcaster makes an f32 convert that keeps the operand's 4-bit
    # element size, and the verifier refuses it.
    Form(
        "custom_element_size",
        r"The XLA CPU/GPU backend does not support custom element sizes on non-sub-byte "
        r"types: ?(?P<ces_hlo>[^\n]*)",
        "",
        Reason.DTYPE,
        ("xla:custom_element_size",),
        "an array of a sub-byte type (float4, int4, int2, ...) was widened inside one op; "
        "the CPU and GPU backends keep sub-byte element sizes only on sub-byte types",
    ),
    Form(
        "hlo_verifier",
        r"during context \[hlo verifier\]: ",
        "HLO verifier",
        Reason.COMPILE_ERROR,
        ("xla:hlo_verifier",),
        "XLA's HLO verifier refused the module the compiler's passes made of the program",
    ),
    # jax 0.10.2, `jax.ffi.ffi_call("a_target_nobody_registered", ...)` on CPU.
    Form(
        "ffi_not_found",
        r"No FFI handler registered for (?P<nf_target>\S+) on a platform "
        r"(?P<nf_platform>[^\n(]+?)(?: \([^)\n]*\))?[ \t]*(?=\n|\Z)",
        "",
        Reason.CUSTOM_CALL,
        ("xla:ffi_not_found",),
        "no FFI handler of that name is registered for the platform the program runs on",
    ),
    # jax 0.10.2, `ffi_call(..., custom_call_api_version=1)` of a target registered as a
    # typed FFI handler (or not at all).
    Form(
        "custom_call_not_found",
        r"No registered implementation for (?:(?P<cn_api>untyped|typed) )?custom call to "
        r"(?P<cn_target>\S+) for (?:platform )?(?P<cn_platform>\w+)",
        "",
        Reason.CUSTOM_CALL,
        ("xla:custom_call_not_found",),
        "no custom-call implementation of that name and API version is registered for the platform",
    ),
    # jax 0.10.2, an FFI handler (lapack_spotrf_ffi) given int32 operands or an int32
    # attribute where it binds float32 buffers and a uint8 scalar.
    Form(
        "ffi_operands",
        r"Failed to decode all FFI handler operands \(bad operands at: (?P<fo_at>[\d, ]+)\)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "the FFI handler was given operands or attributes of other types or ranks than it "
        "binds; it checks them when the program runs ([execute]), not when it compiles",
    ),
    Form(
        "ffi_arity",
        r"Wrong number of (?P<fa_what>arguments|results|attributes): expected "
        r"(?P<fa_expected>\d+) but got (?P<fa_got>\d+)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "the FFI handler was called with another number of operands, results or attributes "
        "than it binds; it checks them when the program runs ([execute])",
    ),
    # jax 0.10.2, a jaxlib LAPACK handler (lapack_spotrf_ffi) given a vector: jaxlib's own
    # FFI helpers check ranks and sizes.
    Form(
        "ffi_helpers",
        r"jaxlib/ffi_helpers\.h: (?P<fh_msg>[^\n]+)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "a jaxlib kernel (LAPACK, cuSOLVER, ...) refused the shape of an operand",
    ),
    # A Python callback inside the compiled program raised (jax.pure_callback,
    # jax.debug.callback, io_callback; Equinox's error_if and checkify are built on them):
    # XLA passes the exception on as INTERNAL ("Intercepted XLA runtime error: INTERNAL:
    # CpuCallback error: ValueError: ..."), which is the callback's error, not XLA's.
    Form(
        "callback_raised",
        # jax 0.5 on: "CpuCallback error calling callback: Traceback ...", the class last.
        r"CpuCallback error(?: calling callback)?: (?:Traceback \(most recent call last\):"
        r"[^\n]*\n(?:[ \t][^\n]*\n){0,60}?)?[ \t]*(?P<cb_class>[\w.]*(?:Error|Exception)): ?"
        r"(?P<cb_msg>[^\n]*)",
        "",
        Reason.RUNTIME,
        ("xla:callback",),
        "a Python callback in the compiled program raised; the error is the callback's own",
    ),
    # Equinox's runtime checks (eqx.error_if, and the libraries on it: diffrax's and
    # optimistix's step limits) raise their message as EqxRuntimeError.
    # A GPU kernel that faulted as it ran (read or wrote outside its memory, an illegal
    # instruction, a device-side assert), as the CUDA driver or HIP reports it, whatever
    # sentence (a kernel launch, a stream's synchronisation, an event) carries the code.
    Form(
        "illegal_address",
        r"CUDA_ERROR_(?P<ia_cuda>" + KERNEL_FAULTS + r")\b",
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        Reason.RUNTIME,
        ("xla:illegal_address",),
        _KERNEL_FAULT_MEANING,
    ),
    # The same faults in the CUDA runtime API's names and in HIP's (ROCm).
    Form(
        "kernel_fault_runtime",
        r"cudaError(?P<ia_rt>IllegalAddress|LaunchFailure|IllegalInstruction|MisalignedAddress"
        r"|Assert|HardwareStackError)\b",
        "cudaErrorIllegalAddress",
        Reason.RUNTIME,
        ("xla:illegal_address",),
        _KERNEL_FAULT_MEANING,
    ),
    Form(
        "kernel_fault_hip",
        r"hipError(?P<ia_hip>IllegalAddress|LaunchFailure|IllegalInstruction|Assert)\b",
        "hipErrorIllegalAddress",
        Reason.RUNTIME,
        ("xla:illegal_address",),
        _KERNEL_FAULT_MEANING,
    ),
    # checkify's check (jax.experimental.checkify), thrown after the call.
    Form(
        "checkify_check",
        r"FailedCheckError: (?P<ck_msg>[^\n]+)",
        "FailedCheckError",
        Reason.RUNTIME,
        ("xla:callback",),
        "a runtime check of the program (checkify.check) failed",
    ),
    Form(
        "equinox_check",
        r"E(?:qx|quinox)RuntimeError: (?P<eq_msg>[^\n]+)",
        "EqxRuntimeError",
        Reason.RUNTIME,
        ("xla:callback",),
        "a runtime check of the program (eqx.error_if, or a library built on it) failed",
    ),
    # The status codes of XLA's other refusals, read only where JAX raised them as its XLA
    # runtime error (a TensorFlow FAILED_PRECONDITION is about variables, not XLA).
    Form(
        "invalid_argument",
        r"INVALID_ARGUMENT: ",
        "INVALID_ARGUMENT",
        Reason.COMPILE_ERROR,
        ("xla:INVALID_ARGUMENT",),
        "XLA refused an argument of the program, an option or an operand",
    ),
    Form(
        "not_found",
        r"NOT_FOUND: ",
        "NOT_FOUND",
        Reason.COMPILE_ERROR,
        ("xla:NOT_FOUND",),
        "XLA did not find something the program names (a kernel, a target, a file)",
    ),
    Form(
        "failed_precondition",
        r"FAILED_PRECONDITION: ",
        "FAILED_PRECONDITION",
        Reason.COMPILE_ERROR,
        ("xla:FAILED_PRECONDITION",),
        "the runtime was not in the state the call needs (a device library, a buffer)",
    ),
)
# XLA's other status codes, read as the code alone where JAX raised them and no other family
# explained the message: what each says in general, the message's own words say the rest.
_OTHER_CODES: dict[str, str] = {
    "INTERNAL": "an internal error of XLA or of a library it called (a compiler pass, a "
    "kernel launch, an autotuner): a bug to report with the program when it repeats",
    "UNKNOWN": "the runtime gave the error no category; the message's words say what failed",
    "ABORTED": "the runtime stopped the operation (a device or process it needed went away)",
    "DEADLINE_EXCEEDED": "an operation waited longer than its timeout (a collective, a barrier, "
    "a connection)",
    "RESOURCE_EXHAUSTED": "a resource ran out (device or host memory, a limit)",
    "UNAVAILABLE": "a device or service the program needs could not be reached",
    "OUT_OF_RANGE": "an index, size or value was out of the range the op accepts",
    "PERMISSION_DENIED": "the process may not use a device or file it needs",
    "CANCELLED": "the operation was cancelled (often after another one failed first)",
    "DATA_LOSS": "data was lost or corrupted (a checkpoint, a transfer)",
}
_STATUS_FORMS = _STATUS_FORMS + tuple(
    Form(
        f"status_{code.lower()}",
        f"{code}: ",
        code,
        Reason.COMPILE_ERROR,
        (f"xla:{code}",),
        meaning,
    )
    for code, meaning in _OTHER_CODES.items()
)
_STATUS = alternation(_STATUS_FORMS)
# The forms that only say a status code (or a stage): dropped where a specific form explained
# the same message (see _drop_generic).
_GENERIC_STATUS = frozenset(
    {
        "invalid_argument",
        "not_found",
        "failed_precondition",
        "hlo_verifier",
        *(f"status_{code.lower()}" for code in _OTHER_CODES),
    }
)
_GENERIC_OPS = frozenset(
    {"UNIMPLEMENTED", *(f.op for f in _STATUS_FORMS if f.group in _GENERIC_STATUS)}
)
# The exceptions JAX raises XLA's status errors as (jax 0.4.36 on; XlaRuntimeError before).
_XLA_RUNTIME_CLASSES = ("JaxRuntimeError", "XlaRuntimeError")
# `%bitcast-convert.5 = s64[3]{0} bitcast-convert(f64[3]{0} %p)`: the opcode and element types.
_HLO_OP = re.compile(r"= *[^ \n]+ (?P<opcode>[a-z][\w-]*)\(")
_HLO_NAME_TYPE = re.compile(r"%?(?P<name>[\w.-]+) = (?P<etype>[a-z]\w*)\[")
_OP_NAME = re.compile(r'op_name="(?P<op_name>[^"\n]*)"')
_X64_TYPES = re.compile(r"\b(f64|c128|s64|u64)\[")
_FAILED_AFTER = re.compile(r"Failed after (?P<pass>[\w-]+)")
_WRONG = re.compile(
    r"Wrong (?P<what>[a-z][a-z ]*?): expected (?P<expected>\w+) but got (?P<got>\w+?)"
    r"(?=Wrong |\s|$)"
)
# What an FFI handler's platform word (`on a platform Host (canonical host)`, `CUDA`) means.
_FFI_PLATFORMS = {"host": Platform.CPU, "cuda": Platform.GPU, "rocm": Platform.GPU}


@dataclass(slots=True)
class _Status:
    """What a status message says beyond its form: the offender, the dtype, the device, and
    notes on where it failed."""

    op: str
    node: str = ""
    dtype: str | None = None
    device: str | None = None
    platform: Platform | None = None
    hints: list[str] = field(default_factory=list)


def _status_facts(log: Log, m: re.Match[str], form: Form) -> _Status:
    facts = _Status(op=form.op)
    group = form.group
    if group == "element_type":
        facts.dtype, facts.op, facts.device = m["etype"].lower(), m["etype"], m["eplat"]
        facts.platform = platform_of(facts.device)
    elif group == "x64_rewrite":
        hlo = m["hlo"][:2048]
        opcode = _HLO_OP.search(hlo)
        found = set(_X64_TYPES.findall(hlo))
        types = [t for t in ("f64", "c128", "s64", "u64") if t in found]  # floats decide
        facts.op = opcode["opcode"] if opcode else "X64 rewriting"
        facts.dtype = ",".join(types) or None
        facts.platform, facts.device = Platform.TPU, "TPU (64-bit types are rewritten for TPU)"
    elif group == "tpu_driver_x64":
        facts.platform, facts.device = Platform.TPU, "TPU driver"
    elif group == "custom_element_size":
        _read_verifier_hlo(log, m, facts)
    elif group.startswith("complex_"):
        _read_complex_input(log, m, facts)
    elif group == "callback_raised":
        facts.op = m["cb_class"].rsplit(".", 1)[-1]
        facts.hints.append(f"the callback's error: {m['cb_class']}: {clean_message(m['cb_msg'])}")
    elif group in ("equinox_check", "checkify_check"):
        said = m["eq_msg"] or m["ck_msg"]
        facts.hints.append(f"the check's message: {clean_message(said)}")
    elif group in ("ffi_not_found", "custom_call_not_found"):
        _read_missing_target(m, group, facts)
    elif group in ("ffi_operands", "ffi_arity", "ffi_helpers"):
        _read_ffi_operands(log, m, group, facts)
    return facts


_COMPLEX_FIX = (
    "{op} takes real operands only on this backend: run it on the CPU (jax.jit(f, "
    "backend='cpu'), or jax.device_put(x, jax.devices('cpu')[0])), or work on the real and "
    "imaginary parts (a Hermitian n x n eigenproblem is the real symmetric 2n x 2n one "
    "[[Re, -Im], [Im, Re]])"
)
_ILLEGAL_ADDRESS = (
    "a GPU kernel faulted ({code}; most often it read or wrote outside its buffers): in a "
    "kernel of your own (Pallas, Triton, "
    "an FFI call) an index past the end; otherwise a bug in XLA or the driver -- rerun with "
    "CUDA_LAUNCH_BLOCKING=1 (or under compute-sanitizer) to find the kernel, and report it "
    "with XLA_FLAGS=--xla_dump_to=/tmp/xla_dump and the versions (jax.print_environment_info())"
)
_ILLEGAL_ADDRESS_CUDA = (
    "older CUDA toolkits' ptxas miscompiles some kernels into exactly this: install a current "
    'CUDA with the jax build for it (pip install -U "jax[cuda12]") and run again'
)
_INTERNAL_REPORT = (
    "XLA (or a library it called) failed inside with no error of the program's named: if it "
    "repeats, report it (https://github.com/openxla/xla/issues, or jax-ml/jax's) with the "
    "versions (jax.print_environment_info()), this message and a small program; "
    "XLA_FLAGS=--xla_dump_to=/tmp/xla_dump writes the modules that reproduce it. Until it is "
    "fixed, try another jax/jaxlib version"
)
_CALLBACK_FIX = (
    "the error is your program's own check or callback, raised while the compiled program "
    "ran: read its message above (a solver's step limit, a value out of range) and fix the "
    "input or the check; with Equinox, eqx.filter_jit shows where it was raised and "
    "EQX_ON_ERROR=breakpoint stops there"
)
# The complex element type a message names, as JAX spells dtypes.
_COMPLEX_DTYPES = {"c64": "complex64", "c128": "complex128", "complex": "complex64"}
# A decomposition or op named in the traceback's functions or source lines around the message.
_LINALG_OPS = re.compile(r"\b(eigh|eigvalsh|eig|eigvals|svd|qr|cholesky|lu|schur|hessenberg)\b")


def _read_complex_input(log: Log, m: re.Match[str], facts: _Status) -> None:
    kind = m["cu_type"] or m["ci_type"]
    facts.dtype = _COMPLEX_DTYPES.get(kind, kind)
    around = log.text[max(0, m.start() - 4096) : paragraph_end(log, m.end()) + 2048]
    ops = _LINALG_OPS.findall(around)
    facts.op = ops[-1] if ops else "complex operand"
    facts.hints.append(clean_message(m["cu_msg"] or m["ci_msg"]))


def _read_verifier_hlo(log: Log, m: re.Match[str], facts: _Status) -> None:
    hlo = m["ces_hlo"][:2048]
    opcode, named = _HLO_OP.search(hlo), _HLO_NAME_TYPE.match(hlo)
    facts.op = opcode["opcode"] if opcode else "HLO instruction"
    if named:
        facts.node, facts.dtype = named["name"], named["etype"]
    facts.device = "CPU or GPU (XLA's CPU/GPU backends)"
    op_name = _OP_NAME.search(hlo)
    if op_name:
        facts.hints.append(f"made from {op_name['op_name']} (the op_name XLA kept)")
    after = _FAILED_AFTER.search(log.text, m.end(), paragraph_end(log, m.end()) + 256)
    if after:
        facts.hints.append(f"the verifier ran after XLA's {after['pass']} pass (compile time)")


def _read_missing_target(m: re.Match[str], group: str, facts: _Status) -> None:
    if group == "ffi_not_found":
        facts.op, word = m["nf_target"], m["nf_platform"].strip()
    else:
        facts.op, word = m["cn_target"], m["cn_platform"]
        if m["cn_api"] == "untyped":
            facts.hints.append(
                "the call used the legacy (untyped) custom-call API: a handler registered "
                "with jax.ffi.register_ffi_target is typed FFI, called with "
                "custom_call_api_version=4 (ffi_call's default)"
            )
    facts.platform = _FFI_PLATFORMS.get(word.lower()) or platform_of(word)
    facts.device = word
    facts.hints.append("XLA looks handlers up by name and platform when it compiles the call")


def _read_ffi_operands(log: Log, m: re.Match[str], group: str, facts: _Status) -> None:
    if group == "ffi_arity":
        facts.node = m["fa_what"]
        facts.hints.append(f"{m['fa_what']}: expected {m['fa_expected']}, got {m['fa_got']}")
        return
    if group == "ffi_helpers":
        facts.hints.append(clean_message(m["fh_msg"]))
        return
    facts.node = f"operands at {m['fo_at'].strip()}"
    end = min(paragraph_end(log, m.end()), m.end() + 2048)
    wrong = list(dict.fromkeys(w.group() for w in _WRONG.finditer(log.text, m.end(), end)))
    facts.hints.extend(wrong)
    dtypes = [w for w in _WRONG.finditer(log.text, m.end(), end) if "type" in w["what"]]
    if dtypes:
        facts.dtype = dtypes[0]["got"].lower()


def _glued_path_start(log: Log, pos: int) -> int:
    """Where a message that opens with a path ends up starting (``./jaxlib/ffi_helpers.h: ...``
    is matched from ``jaxlib``): the class and status code are read before that."""
    before = log.before_on_line(pos)
    if not before.endswith("/"):
        return pos
    glued = re.search(r"[\w./-]*$", before)
    return pos - len(glued.group()) if glued else pos


# The forms that say XLA failed inside (INTERNAL with no other family's reading, the HLO
# verifier refusing a module its own passes made): a bug of XLA's, as a CHECK is.
_CRASH_FORMS = ("status_internal", "hlo_verifier")
# The forms of a GPU kernel's fault as it ran, and the code each names.
_KERNEL_FAULTS = ("illegal_address", "kernel_fault_runtime", "kernel_fault_hip")


def _fault_code(m: re.Match[str]) -> str:
    if m["ia_cuda"]:
        return f"CUDA_ERROR_{m['ia_cuda']}"
    return f"cudaError{m['ia_rt']}" if m["ia_rt"] else f"hipError{m['ia_hip']}"


def _xla_status(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_STATUS_FORMS, m)
    start = _glued_path_start(log, m.start())
    error_class = class_before(log, start)
    bare_code = form.group in _GENERIC_STATUS and form.group != "hlo_verifier"
    before = log.before_on_line(start)
    # A code at a line's start is the message pasted alone (the class left out), in a log of
    # a program that ran XLA.
    alone = not before.strip() and _XLA_LOG.search(log.text, 0, _XLA_LOG_SCAN) is not None
    wrapped = alone or _STATUS_WRAPPER.search(before[-80:]) is not None
    if bare_code and error_class not in _XLA_RUNTIME_CLASSES and not wrapped:
        return  # a status code alone, not raised by JAX as XLA's: not ours to explain
    if bare_code and wrapped and _LIBTPU_PROBE.search(log.text, m.end(), log.line_end(m.start())):
        # libtpu logging that its TPU_* variables are unset, as it does in any process that
        # imports it on a machine without a TPU: JAX goes on with another device. A TPU that
        # fails to start says so in words backend_startup reads.
        return
    if bare_code:
        moved = _other_family(log, m, form)
        if moved is not None:
            yield moved
            return
    facts = _status_facts(log, m, form)
    # A runtime's log line comes before the traceback of the call that raised it.
    stack = log.traceback_before(m.start()) or log.traceback_after(m.end())
    function = jax_function(log, m.start(), paragraph_end(log, m.start()), stack)
    more: list[tuple[str, str]] = []
    keys = (*(facts.dtype or "").split(","), *form.fix_keys)
    if form.group == "custom_element_size":
        keys = form.fix_keys  # the fix is about the sub-byte operand, not the wide type
    advice = advise(keys, form.reason)
    if form.group.startswith("complex_"):
        advice = Advice(_COMPLEX_FIX.format(op=facts.op), AdviceKind.REPLACE_OP)
    elif form.group in _KERNEL_FAULTS:
        facts.op = _fault_code(m)
        advice = Advice(_ILLEGAL_ADDRESS.format(code=facts.op), AdviceKind.REPORT_BUG)
        facts.platform, facts.device = Platform.GPU, "gpu"
        more = [(str(AdviceKind.INSTALL), _ILLEGAL_ADDRESS_CUDA)]
    elif form.group in ("callback_raised", "equinox_check", "checkify_check"):
        advice = Advice(_CALLBACK_FIX, AdviceKind.OTHER)
    elif form.group in _CRASH_FORMS:
        # XLA's own INTERNAL that no family explains, or its verifier refusing what its own
        # passes made: what the code means is a bug to report, a crash of the compiler's.
        advice = Advice(_INTERNAL_REPORT, AdviceKind.REPORT_BUG)
    status = status_before(log, start)
    if form.group == "unimplemented" or (form.group in _GENERIC_STATUS and form.op.isupper()):
        status = form.op
    yield (_CRASH_KIND if form.group in _CRASH_FORMS else _KIND).failure(
        log,
        m.start(),
        op=facts.op,
        reason=form.reason,
        advice=advice,
        node=facts.node,
        function=function,
        dtype=facts.dtype,
        stack=stack,
        device=facts.device,
        platform=facts.platform,
        error_class=error_class,
        status=status,
        hints=[form.meaning, *facts.hints],
        more_advice=more,
    )


# A status raised through another wrapper than JAX's: the runtime's "Bad StatusOr access",
# PyTorch/XLA's and TensorFlow's RuntimeError around the code.
_STATUS_WRAPPER = re.compile(
    r"Bad StatusOr access: $|Intercepted XLA runtime error: ?$|\bRuntimeError: $|\] ?$"
    # XLA's runtime logging a step that failed: "Execution of replica 0 failed: INTERNAL: ...".
    r"|Execution of replica \d+ failed: $|Execution of \w+ failed: $"
)
# Signs that a log is of a program that ran XLA (its frames, loggers, classes, devices),
# looked for in its first part.
_XLA_LOG = re.compile(
    r"[\\/](?:jax|jaxlib|torch_xla)[\\/]|external/xla/|xla::|XlaRuntimeError|JaxRuntimeError"
    r"|libtpu|\bTPU\b|\bjax\b|\bXLA\b"
    # XLA's other frontends (Julia's Reactant, Elixir's EXLA, Zig's zml) and the dialects of
    # the modules they hand it (a quoted `module @f attributes {mhlo.num_partitions = 1}`).
    r"|\bReactant\b|\bEXLA\b|\bzml\b|\b(?:mhlo|stablehlo|sdy)\.\w"
)
_XLA_LOG_SCAN = 1 << 20
# libtpu's start-up probe of its environment ("unexpected worker hostname 'WARNING: could not
# determine TPU worker hostnames...' from env var TPU_WORKER_HOSTNAMES").
_LIBTPU_PROBE = re.compile(r"from env var TPU_\w+|set env var `TPU_\w+` manually")
# What a bare code's message is about, when it is another family's: memory, or the processes of
# a multi-host job (the coordination service, its barriers and heartbeats).
_MEMORY_WORDS = re.compile(r"alloc|memory|\bHBM\b|\bbytes\b|\bOOM\b", re.I)
_COMPILE_WORDS = re.compile(r"compil|program|exceeds|memory space", re.I)
_HOSTS_WORDS = re.compile(
    r"coordinat|barrier|heartbeat|\btasks?\b|\bpeer|preempt|distributed|/job:|grpc"
    r"|failed to connect|remote host",
    re.I,
)
_MEMORY_FIX = (
    "the device ran out of memory ({what}): lower the batch (or the sequence length), shard "
    "the arrays over more devices, and free what else holds the device (another process; "
    "JAX's preallocation: XLA_PYTHON_CLIENT_PREALLOCATE=false)"
)
_HOSTS_FIX = (
    "a process of the multi-host job did not answer in time ({what}): check that every host "
    "was launched with the same jax.distributed.initialize arguments and is still alive (the "
    "first error of the other processes' logs says why one stopped)"
)


# The readers that explain memory and multi-host messages from their own words.
_MORE_PRECISE = (out_of_memory.RECOGNISER, device_allocation.RECOGNISER, distributed.RECOGNISER)


def _other_family(log: Log, m: re.Match[str], form: Form) -> Failure | None:
    """A bare status whose message is about memory or a multi-host job, as that family's
    failure; ``None`` when it is XLA's refusal."""
    start = log.line_start(m.start())
    message = log.text[m.end() : log.line_end(m.start())][:300]
    what = f"{form.op}: {clean_message(message)[:120]}"
    family: Family | None = None
    if form.op == "RESOURCE_EXHAUSTED" and _MEMORY_WORDS.search(message):
        family = Family.OUT_OF_MEMORY if _COMPILE_WORDS.search(message) else None
        family = family or Family.DEVICE_ALLOCATION
        advice = Advice(_MEMORY_FIX.format(what=what), AdviceKind.SMALLER_BATCH)
        more = [(str(AdviceKind.FREE_MEMORY), "free the device: another process, preallocation")]
    elif form.op in ("DEADLINE_EXCEEDED", "UNAVAILABLE", "ABORTED", "CANCELLED") and (
        _HOSTS_WORDS.search(message)
    ):
        family, advice, more = (
            Family.DISTRIBUTED,
            Advice(_HOSTS_FIX.format(what=what), AdviceKind.CHECK_HOSTS),
            [],
        )
    if family is None:
        return None
    end = min(paragraph_end(log, m.start()), start + 4096)
    if any(r.pattern.search(log.text, start, end) for r in _MORE_PRECISE):
        return None  # that family's own reader explains the message (the code is dropped)
    stack = log.traceback_before(m.start())
    # A status of another family's (memory, hosts) that the family's own reader left.
    return Kind(family, Reason.RUNTIME, traced).failure(
        log,
        m.start(),
        stack=stack,
        op=form.op,
        advice=advice,
        headline_at=start,
        status=form.op,
        more_advice=more,
        hints=[form.meaning],
    )


_KIND = Kind(Family.XLA_STATUS)
# XLA's own INTERNAL no family explains, or its verifier refusing what its passes made.
_CRASH_KIND = Kind(Family.XLA_CRASH)
RECOGNISER = Recogniser(Family.XLA_STATUS, _STATUS, _xla_status, generic_ops=_GENERIC_OPS)
