"""XLA status errors JAX raised: element types, FFI handlers, the verifier, other codes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ....hlo.opcodes import OPCODES
from ...unsupported.findings import Platform, Reason
from ..advice import Advice, AdviceKind, advise
from ..build import Kind, traced
from ..callback_results import checked_callback, refused_result
from ..catalogue import words_of
from ..device import platform_of
from ..forms import Form, alternation, form_of
from ..functions import jax_function, paragraph_end
from ..log import Log, class_before, clean_message, status_before
from ..named_op import traced_primitive
from ..recogniser import Recogniser
from ..record import Failure, Family
from . import device_allocation, distributed, out_of_memory
from .cuda_libraries import KERNEL_FAULTS

_RE, _TEXT = words_of(__name__)

_STATUS_FORMS: tuple[Form, ...] = (
    Form("element_type", _RE.element_type.pattern, "", Reason.DTYPE, (), _TEXT.element_type),
    Form("x64_rewrite", _RE.x64_rewrite.pattern, "", Reason.DTYPE, (), _TEXT.x64_rewrite),
    Form("invalid_type", _RE.invalid_type.pattern, "", Reason.DTYPE, (), _TEXT.invalid_type),
    Form(
        "tpu_driver_x64",
        _RE.tpu_driver_x64.pattern,
        "64-bit types",
        Reason.DTYPE,
        ("f64",),
        _TEXT.tpu_driver_x64,
    ),
    # A complex operand where the op (a decomposition, a comparison) takes real types only
    # on that backend: the status code, then a complex element type in the message. jax 0.1
    # `jnp.linalg.qr` of complex64: "Unimplemented: complex comparison 'LT'"; jax 0.2.9
    # `jnp.linalg.eigh` on TPU: "Invalid argument: Type of the input matrix must be float: got
    # c64[10,10]".
    Form(
        "complex_unimplemented",
        _RE.complex_unimplemented.pattern,
        "",
        Reason.DTYPE,
        ("complex",),
        _TEXT.complex_operand,
    ),
    Form(
        "complex_invalid",
        _RE.complex_invalid.pattern,
        "",
        Reason.DTYPE,
        ("complex",),
        _TEXT.complex_operand,
    ),
    Form(
        "unimplemented",
        _RE.unimplemented.pattern,
        "UNIMPLEMENTED",
        Reason.COMPILE_ERROR,
        (),
        _TEXT.unimplemented,
    ),
    # jax 0.10.2, `lax.dot(a, b, preferred_element_type=jnp.float32)` of float4_e2m1fn arrays
    # on CPU: XLA's operand_upcaster makes an f32 convert that keeps the operand's 4-bit
    # element size, and the verifier refuses it.
    Form(
        "custom_element_size",
        _RE.custom_element_size.pattern,
        "",
        Reason.DTYPE,
        ("xla:custom_element_size",),
        _TEXT.custom_element_size,
    ),
    # A dot algorithm the device has no kernel for (its name says the element types).
    Form(
        "dot_algorithm",
        _RE.dot_algorithm.pattern,
        "dot",
        Reason.DTYPE,
        (),
        _TEXT.dot_algorithm,
    ),
    # XLA's verifier refusing an op that mixes float widths (torch_xla's autocast, TF's
    # mixed_float16): the frontend's module, not a pass of XLA's, made it.
    Form(
        "mixed_precision",
        _RE.mixed_precision.pattern,
        "HLO instruction",
        Reason.DTYPE,
        (),
        _TEXT.mixed_precision,
    ),
    Form(
        "torch_type",
        _RE.torch_type.pattern,
        "",
        Reason.DTYPE,
        (),
        _TEXT.torch_type,
    ),
    Form(
        "hlo_verifier",
        _RE.hlo_verifier.pattern,
        "HLO verifier",
        Reason.COMPILE_ERROR,
        ("xla:hlo_verifier",),
        _TEXT.hlo_verifier,
    ),
    # jax 0.10.2, `jax.ffi.ffi_call("a_target_nobody_registered", ...)` on CPU.
    Form(
        "ffi_not_found",
        _RE.ffi_not_found.pattern,
        "",
        Reason.CUSTOM_CALL,
        ("xla:ffi_not_found",),
        _TEXT.ffi_not_found,
    ),
    # jax 0.10.2, `ffi_call(..., custom_call_api_version=1)` of a target registered as a
    # typed FFI handler (or not at all).
    Form(
        "custom_call_not_found",
        _RE.custom_call_not_found.pattern,
        "",
        Reason.CUSTOM_CALL,
        ("xla:custom_call_not_found",),
        _TEXT.custom_call_not_found,
    ),
    # jax 0.10.2, an FFI handler (lapack_spotrf_ffi) given int32 operands or an int32
    # attribute where it binds float32 buffers and a uint8 scalar.
    Form(
        "ffi_operands",
        _RE.ffi_operands.pattern,
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        _TEXT.ffi_operands,
    ),
    Form(
        "ffi_arity",
        _RE.ffi_arity.pattern,
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        _TEXT.ffi_arity,
    ),
    # jax 0.10.2, a jaxlib LAPACK handler (lapack_spotrf_ffi) given a vector: jaxlib's own
    # FFI helpers check ranks and sizes.
    Form(
        "ffi_helpers",
        _RE.ffi_helpers.pattern,
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        _TEXT.ffi_helpers,
    ),
    # A Python callback inside the compiled program raised (jax.pure_callback,
    # jax.debug.callback, io_callback; Equinox's error_if and checkify are built on them):
    # XLA passes the exception on as INTERNAL ("Intercepted XLA runtime error: INTERNAL:
    # CpuCallback error: ValueError: ..."), which is the callback's error, not XLA's.
    Form(
        "callback_raised",
        _RE.callback_raised.pattern,
        "",
        Reason.RUNTIME,
        ("xla:callback",),
        _TEXT.callback_raised,
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
        _TEXT.kernel_fault,
    ),
    # The same faults in the CUDA runtime API's names and in HIP's (ROCm).
    Form(
        "kernel_fault_runtime",
        _RE.kernel_fault_runtime.pattern,
        "cudaErrorIllegalAddress",
        Reason.RUNTIME,
        ("xla:illegal_address",),
        _TEXT.kernel_fault,
    ),
    Form(
        "kernel_fault_hip",
        _RE.kernel_fault_hip.pattern,
        "hipErrorIllegalAddress",
        Reason.RUNTIME,
        ("xla:illegal_address",),
        _TEXT.kernel_fault,
    ),
    # checkify's check (jax.experimental.checkify), thrown after the call.
    Form(
        "checkify_check",
        _RE.checkify_check.pattern,
        "FailedCheckError",
        Reason.RUNTIME,
        ("xla:callback",),
        _TEXT.checkify_check,
    ),
    Form(
        "equinox_check",
        _RE.equinox_check.pattern,
        "EqxRuntimeError",
        Reason.RUNTIME,
        ("xla:callback",),
        _TEXT.equinox_check,
    ),
    # XLA's backend refusing under INTERNAL what it does not support: a refusal, not a crash.
    Form(
        "internal_refusal",
        _RE.internal_refusal.pattern,
        "INTERNAL",
        Reason.COMPILE_ERROR,
        (),
        _TEXT.internal_refusal,
    ),
    # The status codes of XLA's other refusals, read only where JAX raised them as its XLA
    # runtime error (a TensorFlow FAILED_PRECONDITION is about variables, not XLA).
    Form(
        "invalid_argument",
        _RE.invalid_argument.pattern,
        "INVALID_ARGUMENT",
        Reason.COMPILE_ERROR,
        ("xla:INVALID_ARGUMENT",),
        _TEXT.invalid_argument,
    ),
    Form(
        "not_found",
        _RE.not_found.pattern,
        "NOT_FOUND",
        Reason.COMPILE_ERROR,
        ("xla:NOT_FOUND",),
        _TEXT.not_found,
    ),
    Form(
        "failed_precondition",
        _RE.failed_precondition.pattern,
        "FAILED_PRECONDITION",
        Reason.COMPILE_ERROR,
        ("xla:FAILED_PRECONDITION",),
        _TEXT.failed_precondition,
    ),
)
# XLA's other status codes, read as the code alone where JAX raised them and no other family
# explained the message: what each says in general, the message's own words say the rest.
_OTHER_CODES: dict[str, str] = {
    "INTERNAL": _TEXT.internal,
    "UNKNOWN": _TEXT.unknown,
    "ABORTED": _TEXT.aborted,
    "DEADLINE_EXCEEDED": _TEXT.deadline_exceeded,
    "RESOURCE_EXHAUSTED": _TEXT.resource_exhausted,
    "UNAVAILABLE": _TEXT.unavailable,
    "OUT_OF_RANGE": _TEXT.out_of_range,
    "PERMISSION_DENIED": _TEXT.permission_denied,
    "CANCELLED": _TEXT.cancelled,
    "DATA_LOSS": _TEXT.data_loss,
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
# XLA's PrimitiveType numbers (xla_data.proto) of the types PyTorch/XLA's conversion names.
_XLA_TYPES = {
    1: "pred",
    2: "s8",
    3: "s16",
    4: "s32",
    5: "s64",
    6: "u8",
    7: "u16",
    8: "u32",
    9: "u64",
    10: "f16",
    11: "f32",
    12: "f64",
    15: "c64",
    16: "bf16",
    18: "c128",
}
# The exceptions JAX raises XLA's status errors as (jax 0.4.36 on; XlaRuntimeError before).
_XLA_RUNTIME_CLASSES = ("JaxRuntimeError", "XlaRuntimeError")
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
    elif group == "invalid_type":
        facts.op, facts.dtype = m["it_op"], m["it_type"].lower()
    elif group == "x64_rewrite":
        hlo = m["hlo"][:2048]
        opcode = _RE.hlo_op.search(hlo)
        found = set(_RE.x64_types.findall(hlo))
        types = [t for t in ("f64", "c128", "s64", "u64") if t in found]  # floats decide
        # (JAX's primitive, where its metadata names it, is what the user called: the
        # opcode of its lowering, dot or custom-call, is not.)
        facts.op = traced_primitive(hlo) or (opcode["opcode"] if opcode else "X64 rewriting")
        facts.dtype = ",".join(types) or None
        facts.platform, facts.device = Platform.TPU, "TPU (64-bit types are rewritten for TPU)"
    elif group == "tpu_driver_x64":
        facts.platform, facts.device = Platform.TPU, "TPU driver"
    elif group == "custom_element_size":
        _read_verifier_hlo(log, m, facts)
    elif group == "hlo_verifier":
        facts.op = _verifier_op(log, m) or facts.op
    elif group == "torch_type":
        facts.op = m["tt_node"]
        facts.dtype = _XLA_TYPES.get(int(m["tt_type"]))
    elif group == "mixed_precision":
        _read_mixed_instruction(m["mp_hlo"], facts)
    elif group == "dot_algorithm":
        facts.dtype = ",".join(dict.fromkeys(t.lower() for t in m["da_types"].split("_")[:2]))
    elif group.startswith("complex_"):
        _read_complex_input(log, m, facts)
    elif group == "callback_raised":
        # The API named, else the one JAX's check of its results implies, else the class raised.
        api = _RE.callback_api.search(log.text)
        facts.op = api["cb_api"] if api else checked_callback(m["cb_msg"]) or m["cb_class"]
        facts.op = facts.op.rsplit(".", 1)[-1]
        facts.hints.append(
            _TEXT.callback_error.format(cls=m["cb_class"], msg=clean_message(m["cb_msg"]))
        )
    elif group in ("equinox_check", "checkify_check"):
        said = m["eq_msg"] or m["ck_msg"]
        facts.hints.append(_TEXT.check_message.format(said=clean_message(said)))
    elif group in ("ffi_not_found", "custom_call_not_found"):
        _read_missing_target(m, group, facts)
    elif group in ("ffi_operands", "ffi_arity", "ffi_helpers"):
        _read_ffi_operands(log, m, group, facts)
    elif group == "unimplemented":
        facts.op = _class_named(m["umsg"]) or form.op
    elif group == "internal_refusal":
        facts.op = _opcode_named(m["ir_msg"]) or form.op
        facts.hints.append(clean_message(m["ir_msg"]))
    return facts


# XLA's C++ names of its HLO ops ("AllReduceStart", "PartitionId"), as its own messages of
# what it does not implement print them ("Requested AllReduceStart not implemented on GPU").
_OP_CLASSES = frozenset(
    "".join(part.capitalize() for part in opcode.split("-")) for opcode in OPCODES
)


def _class_named(message: str) -> str | None:
    """The first HLO op ``message`` names by XLA's C++ name for it, as written (a name of
    two words or more: "Call", "Map" and the like are English as well)."""
    for word in re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b", message):
        if word in _OP_CLASSES:
            return word
    return None


def _opcode_named(message: str) -> str | None:
    """The HLO op a refusal's prose names, as a word or its participle ("sorted inputs":
    sort, "gathered": gather); English words that are also opcodes ("not", "and") are not."""
    for word in re.findall(r"[a-z][a-z-]*", message.lower()):
        for stem in (word, word.removesuffix("ed"), word.removesuffix("ing")):
            if stem in OPCODES and not _RE.english_opcodes.match(stem):
                return stem
    return None


# The complex element type a message names, as JAX spells dtypes.
_COMPLEX_DTYPES = {"c64": "complex64", "c128": "complex128", "complex": "complex64"}


def _read_complex_input(log: Log, m: re.Match[str], facts: _Status) -> None:
    kind = m["cu_type"] or m["ci_type"]
    facts.dtype = _COMPLEX_DTYPES.get(kind, kind)
    around = log.text[max(0, m.start() - 4096) : paragraph_end(log, m.end()) + 2048]
    ops = _RE.linalg_ops.findall(around)
    named = _RE.operand_type_for.search(m.group())  # XLA naming the op: "... for FFT: c128[8]"
    facts.op = named["op"].lower() if named else ops[-1] if ops else "complex operand"
    facts.hints.append(clean_message(m["cu_msg"] or m["ci_msg"]))


def _read_verifier_hlo(log: Log, m: re.Match[str], facts: _Status) -> None:
    hlo = m["ces_hlo"][:2048]
    opcode, named = _RE.hlo_op.search(hlo), _RE.hlo_name_type.match(hlo)
    facts.op = opcode["opcode"] if opcode else "HLO instruction"
    if named:
        facts.node, facts.dtype = named["name"], named["etype"]
    facts.device = "CPU or GPU (XLA's CPU/GPU backends)"
    op_name = _RE.op_name.search(hlo)
    if op_name:
        facts.hints.append(_TEXT.made_from.format(op_name=op_name["op_name"]))
    after = _RE.failed_after.search(log.text, m.end(), paragraph_end(log, m.end()) + 256)
    if after:
        facts.hints.append(_TEXT.verifier_after.format(pass_name=after["pass"]))


def _verifier_op(log: Log, m: re.Match[str]) -> str | None:
    """The opcode of the instruction the HLO verifier refused, where its message names it
    (a binary op, the instruction it prints, a compare's type); ``None`` where it names none."""
    found = _RE.verifier_op.search(log.text, m.end(), paragraph_end(log, m.end()) + 1)
    if found is None:
        return None
    return "compare" if found["vo_compare"] else found["vo_binop"] or found["vo_instr"]


def _crashed(log: Log, start: int, form: Form) -> bool:
    """Whether the form says XLA failed inside: INTERNAL, or its verifier refusing under
    INTERNAL (or no code) what its own passes made. Under INVALID_ARGUMENT or
    FAILED_PRECONDITION the verifier refused the module as a status, like any refusal."""
    if form.group != "hlo_verifier":
        return form.group in _CRASH_FORMS
    code = status_before(log, start)
    if code is None:  # TensorFlow names the code by its exception's class
        return not _RE.verifier_refusal_class.match(class_before(log, start) or "")
    return not _RE.verifier_refusal.match(code)


def _read_mixed_instruction(hlo: str, facts: _Status) -> None:
    """The op and instruction a mixed-precision refusal prints, and the float types it mixes
    (``%add.281 = f32[16384,768]{1,0} add(f32[...] %dot.276, bf16[...] %broadcast.280)``)."""
    instruction = _RE.hlo_instruction.match(hlo.strip())
    if instruction:
        facts.op, facts.node = instruction["opcode"], instruction["name"]
    types = list(dict.fromkeys(_RE.float_types.findall(hlo)))
    facts.dtype = ",".join(types) or None


def _read_missing_target(m: re.Match[str], group: str, facts: _Status) -> None:
    if group == "ffi_not_found":
        facts.op, word = m["nf_target"], m["nf_platform"].strip()
    else:
        facts.op, word = m["cn_target"], m["cn_platform"]
        if m["cn_api"] == "untyped":
            facts.hints.append(_TEXT.untyped_api)
    facts.platform = _FFI_PLATFORMS.get(word.lower()) or platform_of(word)
    facts.device = word
    facts.hints.append(_TEXT.looked_up)


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
    wrong = list(dict.fromkeys(w.group() for w in _RE.wrong.finditer(log.text, m.end(), end)))
    facts.hints.extend(wrong)
    dtypes = [w for w in _RE.wrong.finditer(log.text, m.end(), end) if "type" in w["what"]]
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
    alone = not before.strip() and _RE.xla_log.search(log.text, 0, _XLA_LOG_SCAN) is not None
    wrapped = alone or _RE.status_wrapper.search(before[-80:]) is not None
    coded = bare_code or form.group == "internal_refusal"
    if coded and error_class not in _XLA_RUNTIME_CLASSES and not wrapped:
        return  # a status code alone, not raised by JAX as XLA's: not ours to explain
    if (
        bare_code
        and wrapped
        and _RE.libtpu_probe.search(log.text, m.end(), log.line_end(m.start()))
    ):
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
    if form.group.startswith("complex_") and facts.op == "fft" and facts.dtype == "complex128":
        # An FFT's operand is complex by nature: refused at 128 bits, complex64 is the fix.
        advice = Advice(_TEXT.complex_width_fix.format(op=facts.op), AdviceKind.CAST_DTYPE)
    elif form.group.startswith("complex_"):
        advice = Advice(_TEXT.complex_fix.format(op=facts.op), AdviceKind.REPLACE_OP)
    elif form.group in _KERNEL_FAULTS:
        facts.op = _fault_code(m)
        advice = Advice(_TEXT.illegal_address.format(code=facts.op), AdviceKind.REPORT_BUG)
        facts.platform, facts.device = Platform.GPU, "gpu"
        more = [(str(AdviceKind.INSTALL), _TEXT.illegal_address_cuda)]
    elif form.group == "callback_raised" and (got := refused_result(m["cb_msg"])):
        # JAX's own check of what the callback returned against the result it was declared.
        kind = AdviceKind.FIX_SHAPES if got == "shape" else AdviceKind.CAST_DTYPE
        advice = Advice(_TEXT.callback_result_fix.format(what=got), kind)
    elif form.group in ("callback_raised", "equinox_check", "checkify_check"):
        advice = Advice(_TEXT.callback_fix, AdviceKind.OTHER)
    elif _unregistered_target(form, m):
        # No handler of that name on this platform: most often the package that registers
        # it was not imported or installed (a JAX extension registers its handlers when
        # imported, a build for CUDA only has none for the host); else the call is replaced.
        more = [(str(AdviceKind.REPLACE_OP), advice.text)]
        advice = Advice(_TEXT.load_target.format(target=facts.op), AdviceKind.INSTALL)
    elif form.group == "dot_algorithm":
        types = " and ".join((facts.dtype or "").split(","))
        advice = Advice(_TEXT.dot_algorithm_fix.format(types=types), AdviceKind.CAST_DTYPE)
    elif form.group == "torch_type":
        said = _TEXT.torch_type_fix.format(
            node=facts.op, dtype=facts.dtype or "its type", number=m["tt_type"]
        )
        advice = Advice(said, AdviceKind.CAST_DTYPE)
    elif form.group == "mixed_precision":
        said = _TEXT.mixed_precision_fix.format(
            op=facts.op, types=" and ".join((facts.dtype or "").split(",")) or "mixed"
        )
        advice = Advice(said, AdviceKind.CAST_DTYPE)
        more = [(str(AdviceKind.REPORT_BUG), _TEXT.internal_report)]
    elif form.group == "internal_refusal":
        said = f" {facts.op}" if facts.op != form.op else ""
        more = [(str(AdviceKind.REPLACE_OP), _TEXT.internal_refusal_other)]
        advice = Advice(_TEXT.internal_refusal_fix.format(op=said), AdviceKind.INSTALL)
    elif form.group in _CRASH_FORMS:
        # XLA's own INTERNAL that no family explains, or its verifier refusing what its own
        # passes made: what the code means is a bug to report, a crash of the compiler's.
        advice = Advice(_TEXT.internal_report, AdviceKind.REPORT_BUG)
    status = status_before(log, start)
    if form.group == "unimplemented" or (form.group in _GENERIC_STATUS and form.op.isupper()):
        status = form.op
    yield (_CRASH_KIND if _crashed(log, start, form) else _KIND).failure(
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


_XLA_LOG_SCAN = 1 << 20


def _unregistered_target(form: Form, m: re.Match[str]) -> bool:
    """Whether the message says no handler of the target's name is registered for the
    platform, with no API version named (an untyped or typed call names the version that did
    not match, a registration to redo rather than a library to load)."""
    if form.group == "ffi_not_found":
        return True
    return form.group == "custom_call_not_found" and not m["cn_api"]


# The readers that explain memory and multi-host messages from their own words.
_MORE_PRECISE = (out_of_memory.RECOGNISER, device_allocation.RECOGNISER, distributed.RECOGNISER)


def _other_family(log: Log, m: re.Match[str], form: Form) -> Failure | None:
    """A bare status whose message is about memory or a multi-host job, as that family's
    failure; ``None`` when it is XLA's refusal."""
    start = log.line_start(m.start())
    message = log.text[m.end() : log.line_end(m.start())][:300]
    what = f"{form.op}: {clean_message(message)[:120]}"
    family: Family | None = None
    if form.op == "RESOURCE_EXHAUSTED" and _RE.memory_words.search(message):
        family = Family.OUT_OF_MEMORY if _RE.compile_words.search(message) else None
        family = family or Family.DEVICE_ALLOCATION
        advice = Advice(_TEXT.memory_fix.format(what=what), AdviceKind.SMALLER_BATCH)
        more = [(str(AdviceKind.FREE_MEMORY), _TEXT.free_device)]
    elif form.op in ("DEADLINE_EXCEEDED", "UNAVAILABLE", "ABORTED", "CANCELLED") and (
        _RE.hosts_words.search(message)
    ):
        family, advice, more = (
            Family.DISTRIBUTED,
            Advice(_TEXT.hosts_fix.format(what=what), AdviceKind.CHECK_HOSTS),
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
