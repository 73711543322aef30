"""Pallas kernels that will not lower, partition or compile, in JAX's and Mosaic's words.

One recogniser, one regex alternation, a reader per message:

* ``Cannot lower pallas_call on platform: cpu`` / ``Only interpret mode is supported on CPU
  backend``: a kernel lowered for a platform that cannot run it;
* ``The Pallas TPU lowering currently requires that the last two dimensions of your block
  shape are divisible by 8 and 128 respectively``: a ``BlockSpec`` off the TPU's (8, 128)
  tiles; the block and array shapes are read from the message, and the advice gives blocks
  that fit them;
* ``Mosaic kernels cannot be automatically partitioned``: a kernel called on sharded
  arrays, which needs ``shard_map``;
* ``Unimplemented primitive in Pallas TPU lowering for tc: sort`` (``for KernelType.TC`` in
  other releases, the kernel type's enum printed whole): an op Mosaic has no lowering for,
  inside the kernel;
* ``Mosaic failed to compile TPU kernel: <why>``, with ``The MLIR operation involved:`` (the
  Mosaic op, ``tpu.matmul``, and its vector types) and ``at location: loc(...)`` (the kernel's
  line): the op is the Mosaic op, the advice follows the reason;
* ``Pallas TPU requires a libtpu version that's at most a month old``: a jax newer than its
  libtpu;
* ``Allocation (size=N) would exceed memory (size=M) :: ... space=vmem``: a kernel whose
  blocks do not fit in the core's VMEM;
* ``NotImplementedError: Only take_along_axis-like gathers supported`` (``Only float32 is
  supported``, Mosaic GPU's ``Only copies ... are supported``) quoted without its traceback: a
  form the kernel's lowering lacks -- a fallback, since a few of JAX's other modules say
  'Only ... supported' too (a refusal in sharding's words is left to that family).

The texts were made by JAX 0.10.2 and libtpu compiling for a TPU v5e
(``tests/data/pallas_errors/regenerate.py``) and read in users' threads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from ....hlo.metadata import StackFrame
from ....units import format_bytes
from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind, advise
from ..build import Kind, traced
from ..catalogue import words_of
from ..device import platform_in_log, platform_of
from ..log import Log, clean_message
from ..message_fixes import pointed_fixes
from ..mlir_location import (
    diagnostic_op,
    location_op,
    location_source,
    op_in_frames,
    op_in_locations,
)
from ..named_op import opcode_in
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import is_users, user_source

_RE, _TEXT = words_of(__name__)
# The most lines a reason that breaks after a colon is read on.
_REASON_LINES = 4
# What follows a message, within this many characters, still belongs to it.
_AFTER = 4096
# The most VMEM any TPU core has (v5e, v6e: 128 MiB): a kernel needing more cannot be given it.
_LARGEST_VMEM = 128 << 20

# Mosaic's reasons, first match wins: (pattern over reason and op, advice kind, advice).
_MOSAIC_ADVICE: tuple[tuple[re.Pattern[str], AdviceKind, str], ...] = (
    (_RE.mosaic_matmul_dtype, AdviceKind.CAST_DTYPE, _TEXT.mosaic_matmul_dtype),
    (_RE.mosaic_bf16_compare, AdviceKind.CAST_DTYPE, _TEXT.mosaic_bf16_compare),
    (_RE.mosaic_dtypes, AdviceKind.CAST_DTYPE, _TEXT.mosaic_dtypes),
    (_RE.mosaic_reshape, AdviceKind.FIX_SHAPES, _TEXT.mosaic_reshape),
    (_RE.mosaic_layout, AdviceKind.FIX_SHAPES, _TEXT.mosaic_layout),
    (_RE.mosaic_matmul_shape, AdviceKind.FIX_SHAPES, _TEXT.mosaic_matmul_shape),
)


# The forms whose failure is the pallas_call refused, with one advice whatever the message says
# (by the group that marks the form).
_PLAIN_ADVICE: dict[str, tuple[str, str]] = {
    "partition": (_TEXT.partition, AdviceKind.SHARD),
    "libtpu_age": (_TEXT.libtpu_age, AdviceKind.INSTALL),
    "mosaic_version": (_TEXT.mosaic_version, AdviceKind.INSTALL),
    "tpu_chip": (_TEXT.tpu_chip, AdviceKind.INSTALL),
    "tpu_chip2": (_TEXT.tpu_chip, AdviceKind.INSTALL),
}


def _pallas(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    failure = _read(log, m)
    if failure is not None:
        yield failure


def _read(log: Log, m: re.Match[str]) -> Failure | None:
    """The failure the form that matched says, by its reader; ``None`` where the reader finds
    the message is another's."""
    plain = next((group for group in _PLAIN_ADVICE if m[group]), None)
    if plain is not None:
        failure = _simple(log, m, "pallas_call", Reason.COMPILE_ERROR, _PLAIN_ADVICE[plain])
        other = _RE.not_tpu_kind.search(log.text, m.start(), log.line_end(m.start()))
        if other is not None:  # a TPU kernel run on another device
            device = other["kind"].lower()
            failure.device, failure.platform = device, platform_of(device)
        return failure
    if m["block"]:
        return _block_shape(log, m)
    if m["grid_ctx"] or m["grid_frame"]:
        return _no_grid(log, m)
    if m["primitive"]:
        primitive = m["primitive"].rstrip(".")
        advice = (_TEXT.unimplemented.format(primitive=primitive), AdviceKind.REPLACE_OP)
        return _simple(log, m, primitive, Reason.NO_LOWERING, advice)
    if m["lowering_frame"]:
        return _raised_in_lowering(log, m)
    if m["lowering_exc"]:
        return _lowering_exception(log, m)
    if m["mosaic"]:
        return _mosaic(log, m)
    if m["triton_compile"]:
        return _triton_compile(log, m)
    if m["smem"] or m["tsmem"]:
        return _shared_memory(log, m)
    if m["needed"]:
        return _vmem(log, m)
    if m["ref_prim"]:
        return _kernel_store(log, m)
    if m["only_supported"]:
        if _RE.only_sharding.search(log.text, m.start(), log.line_end(m.start())):
            return None  # a sharding rule's refusal
        if _RE.lowering_file.search(log.text):
            return None  # raised in a lowering the traceback shows: its frame's reading
        text = _TEXT.only_supported.format(what=m["only_what"])
        op = opcode_in(m["only_what"]) or "pallas_call"  # the op whose form is refused
        failure = _simple(log, m, op, Reason.NO_LOWERING, (text, AdviceKind.REPLACE_OP))
        failure.fallback = True  # the words are JAX's in other modules too, rarely
        return failure
    return _not_here(log, m)


def _no_grid(log: Log, m: re.Match[str]) -> Failure:
    """Pallas's assertion that a kernel's grid is in context, failed: program_id asked
    outside a kernel's grid (a pallas_call differentiated). Pallas's Python, so the platform
    is the log's to say, not the TPU's by default."""
    failure = _simple(log, m, "program_id", Reason.TRACING, (_TEXT.grid_ctx, AdviceKind.OTHER))
    platform = platform_in_log(log.text, m.start())
    failure.device, failure.platform = (str(platform), platform) if platform else (None, None)
    return failure


def verification_restated(log: Log, pos: int) -> bool:
    """Whether Pallas restates, after ``pos``, an MLIR verifier's refusal of a lowered kernel
    ("Pallas encountered an internal verification error ... Error details: 'tpu.matmul' op
    Expected matmul acc to be 32-bit"): that restatement names the op and its reason, which
    :mod:`.mosaic_names` reads with the fix the reason points to; the refusal it restates
    (MLIR's ``Verification failed:``, raised in the lowering) is no failure of its own."""
    end = min(len(log.text), pos + 4 * _AFTER)
    return _RE.verification_restated.search(log.text, pos, end) is not None


def _raised_in_lowering(log: Log, m: re.Match[str]) -> Failure | None:
    """An exception raised inside Mosaic's (or Triton's) lowering, from its innermost frame
    there: the rule's primitive is the op, the exception's words the reason."""
    window = log.text[m.end() : min(len(log.text), m.end() + 4096)]
    raised = _RE.raised_line.search(window)
    if raised is None or "/lowering.py" in window[: raised.start()]:
        return None  # no exception follows, or a deeper lowering frame reads it
    said = f"{raised['cls']}: {raised['msg']}"
    own = _RE.pallas.search(said)
    if own is not None and not own["only_supported"]:
        return None  # a message of its own that another form reads
    if verification_restated(log, m.end()):
        return None  # MLIR's verifier's refusal, restated by Pallas: mosaic_names.py's
    rule = _RE.rule.match(m["pl_rule"])
    primitive = rule["prim"] if rule else ""
    lang = m["pl_lang"]
    name = {"triton": "Triton", "mosaic_gpu": "Mosaic GPU"}.get(lang, "Mosaic")
    what = f"{primitive} ({clean_message(raised['msg'])[:160]})" if primitive else said[:200]
    text = _TEXT.lowering.format(language=name, what=what)
    # JAX shows the kernel's own line in the traceback it prints first, before the
    # transformation ("JaxStackTraceBeforeTransformation: <the same error>").
    before = log.text.rfind(f"JaxStackTraceBeforeTransformation: {said[:60]}", 0, m.start())
    failure = _simple(
        log,
        m,
        primitive or "pallas_call",
        Reason.NO_LOWERING,
        (text, AdviceKind.REPLACE_OP),
        stack_at=before if before >= 0 else None,
    )
    if lang != "mosaic":
        failure.device, failure.platform = "gpu", platform_of("gpu")
    return failure


def _kernel_store(log: Log, m: re.Match[str]) -> Failure | None:
    """A kernel that stored (or read) a value of another dtype or shape than its Ref's; the
    store's primitive is the op. ``None`` where no Pallas frame shows the Ref is a kernel's."""
    if not _RE.pallas_frame.search(log.text, max(0, m.start() - _AFTER), m.start()):
        return None
    what, prim = m["ref_what"], m["ref_prim"]
    detail = f"the Ref's {what} is {m['ref_has']}, the value's {m['ref_value']}"
    text = _TEXT.kernel_store.format(prim=prim, what=what, detail=detail)
    kind = AdviceKind.CAST_DTYPE if what == "dtype" else AdviceKind.FIX_SHAPES
    stack = _kernel_frames(log.traceback_before(m.start()))
    reason = Reason.DTYPE if what == "dtype" else Reason.TRACING
    return _KIND.failure(
        log, m.start(), stack=stack, op=prim, reason=reason, advice=(text, kind), hints=[detail]
    )


def _lowering_exception(log: Log, m: re.Match[str]) -> Failure | None:
    """``jax._src.pallas.mosaic.lowering.LoweringException: Exception while lowering eqn:``
    with the equation on the lines after it."""
    message = log.text[m.end() : log.line_end(m.end())][:300]
    language = _RE.kernel_language.search(log.before_on_line(m.start())[-120:])
    if language is None and "lowering eqn" not in message:
        return None  # another library's lowering error
    if _RE.mosaic_own.search(message):
        return None  # Mosaic's own words after the class: .mosaic_names reads them
    equation = _RE.equation.search(log.text, m.end(), min(len(log.text), m.end() + 600))
    primitive = equation["prim"] if equation else ""
    lang = (language["lang"] if language else "mosaic").lower()
    gpu = lang in ("triton", "mosaic_gpu")
    name = {"triton": "Triton", "mosaic_gpu": "Mosaic GPU"}.get(lang, "Mosaic")
    text = _TEXT.lowering.format(language=name, what=primitive or "an op of the kernel")
    failure = _simple(
        log, m, primitive or "pallas_call", Reason.NO_LOWERING, (text, AdviceKind.REPLACE_OP)
    )
    if gpu:
        failure.device, failure.platform = "gpu", platform_of("gpu")
    return failure


def _simple(
    log: Log,
    m: re.Match[str],
    op: str,
    reason: Reason,
    advice: tuple[str, str],
    source: str | None = None,
    stack_at: int | None = None,
) -> Failure:
    at = m.start() if stack_at is None else stack_at
    stack = _kernel_frames(log.traceback_before(at))
    called = _users_line(log, at, stack)
    kernel = source or user_source(stack)
    failure = _KIND.failure(
        log,
        m.start(),
        stack=stack,
        op=op,
        reason=reason,
        advice=advice,
        source=called or kernel,
        device=_kernel_platform(log, m),
        platform=platform_of(_kernel_platform(log, m)),
    )
    if called and kernel and called != kernel:
        failure.hints.append(_TEXT.kernel_line.format(where=kernel))
    return failure


def _bound_primitive(log: Log, m: re.Match[str]) -> str | None:
    """The primitive the frames before ``m`` bound last (the innermost bind: the kernel's
    call into JAX), if any."""
    bound = [b["prim"] for b in _RE.bound.finditer(log.text, max(0, m.start() - _AFTER), m.start())]
    return bound[-1] if bound else None


def _triton_compile(log: Log, m: re.Match[str]) -> Failure:
    """Triton's CompilationError: the op is the primitive the frames before it bound (the
    kernel's call into JAX), else Triton's kernel."""
    op = _bound_primitive(log, m) or "triton kernel"
    failure = _simple(
        log,
        m,
        op,
        Reason.COMPILE_ERROR,
        (_TEXT.triton_compile.format(at=m["triton_at"]), AdviceKind.OTHER),
    )
    failure.platform, failure.device = Platform.GPU, "gpu"  # Triton compiles for GPUs alone
    return failure


def _shared_memory(log: Log, m: re.Match[str]) -> Failure | None:
    """A GPU kernel over the shared memory a block may use; XLA's own fusion (``context:
    [Fusion``) is the compiler's tiling, not a kernel of the program's: not read here."""
    if "[Fusion" in log.text[m.end() : log.line_end(m.start())]:
        return None
    need = m["smem_need"] or m["tsmem_need"]
    have = m["smem_have"] or m["tsmem_have"]
    text = _TEXT.shared_memory.format(
        need=f"{need} bytes" if need else "more", have=f"{have} bytes" if have else "less"
    )
    failure = _simple(
        log,
        m,
        _bound_primitive(log, m) or "gpu kernel",
        Reason.OUT_OF_MEMORY,
        (text, AdviceKind.SMALLER_BLOCKS),
    )
    failure.platform, failure.device = Platform.GPU, "gpu"  # shared memory is a GPU's
    return failure


def _kernel_platform(log: Log, m: re.Match[str]) -> str:
    """The platform of the kernel whose message ``m`` opens: the GPU where its line names a
    GPU backend of Pallas, else the TPU."""
    start = log.line_start(m.start())
    return "gpu" if _RE.gpu_backend.search(log.text, start, log.line_end(m.start())) else "tpu"


def _users_line(log: Log, at: int, stack: list[StackFrame]) -> str | None:
    """The user's line of the kernel's failure at ``at`` (``stack`` its traceback and the
    chain's, as :func:`_kernel_frames` made them plain): the program's call of the kernel.

    JAX re-raises a kernel's error at the program's line, the last traceback of the chain;
    where it put the kernel's own frames in that traceback (a Mosaic error's, from its MLIR
    location) the innermost is the kernel's line, and the user's. Else the trace JAX took
    before transforming shows the pallas_call inside a jitted function (nearer than the jit
    call the last traceback ends at), unless what it shows is the kernel's body, a frame of
    Pallas's own modules called; the last traceback's line is the user's then.
    """
    own = stack
    last = _kernel_frames(log.outer_frames(at))
    if last:
        own = own[: len(own) - len(last)]
    else:
        own, last = [], own
    innermost = _innermost_users(last)
    if innermost is not None and innermost[1] is not None and _in_pallas(innermost[1]):
        return f"{innermost[0].file}:{innermost[0].line}"
    traced = _innermost_users(own)
    if traced is not None and (traced[1] is None or not _in_pallas(traced[1])):
        return f"{traced[0].file}:{traced[0].line}"
    return user_source(last)


def _innermost_users(stack: list[StackFrame]) -> tuple[StackFrame, StackFrame | None] | None:
    """The innermost user frame of ``stack`` (innermost first) and the frame that called it."""
    for i, frame in enumerate(stack):
        if is_users(frame):
            return frame, stack[i + 1] if i + 1 < len(stack) else None
    return None


def _in_pallas(frame: StackFrame) -> bool:
    return _RE.pallas_module.search(frame.file) is not None


def _kernel_frames(stack: list[StackFrame]) -> list[StackFrame]:
    """The traceback with Mosaic's frames made plain: JAX names the frames of a kernel's op
    after its MLIR location (``in reshape/reshape"(callsite("k``); the function is the last
    name there (``k``), and the frame that repeats the one before it is dropped."""
    out: list[StackFrame] = []
    for frame in stack:
        if '"' in frame.function:
            name = frame.function.rsplit('("', 1)[-1].strip('"( ')
            frame = StackFrame(frame.file, frame.line, name)
        if out and (out[-1].file, out[-1].line, out[-1].function) == (
            frame.file,
            frame.line,
            frame.function,
        ):
            continue
        out.append(frame)
    return out


def _not_here(log: Log, m: re.Match[str]) -> Failure:
    device = m["platform"] or "cpu"
    advice = advise(("pallas_call", "tpu_custom_call"), Reason.NO_LOWERING)
    fixes = [(advice.kind, advice.text)]
    if device.lower() == "cpu":  # Pallas's interpreter runs any kernel there (a test, a laptop)
        fixes.insert(0, (AdviceKind.OTHER, _TEXT.interpret))
    return _KIND.failure(
        log,
        m.start(),
        stack=log.traceback_before(m.start()),
        op="pallas_call",
        reason=Reason.NO_LOWERING,
        fixes=fixes,
        device=device,
        platform=platform_of(device),
        hints=[_TEXT.on_one_platform],
    )


def _sizes(text: str) -> list[int | None]:
    """The block's sizes as the message prints them (``Blocked(block_size=100)``, ``None``)."""
    out: list[int | None] = []
    for found in _RE.block_size.finditer(text):
        number = found.group(1) or found.group(2)
        out.append(int(number) if number else None)
    return out


def _fitting(block: list[int | None], array: list[int], sublanes: int, lanes: int) -> str:
    """Blocks that fit: the last two sizes rounded up to ``(sublanes, lanes)`` multiples (the
    array's own size when that is smaller)."""
    fitted = []
    for i, size in enumerate(block):
        whole = array[i] if i < len(array) else None
        align = {len(block) - 2: sublanes, len(block) - 1: lanes}.get(i)
        if size is None or align is None or whole is None:
            fitted.append(str(size if size is not None else whole))
            continue
        rounded = math.ceil(size / align) * align
        fitted.append(str(whole if rounded >= whole else rounded))
    return f"({', '.join(fitted)})"


def _block_shape(log: Log, m: re.Match[str]) -> Failure:
    sublanes, lanes = int(m["sublanes"]), int(m["lanes"])
    detail = _RE.block_detail.search(log.text, m.end(), m.end() + _AFTER)
    text = _TEXT.block_shape.format(sublanes=sublanes, lanes=lanes)
    source = None
    kernel = "pallas_call"
    if detail is not None:
        block = _sizes(detail["block"])
        array = [int(n) for n in re.findall(r"\d+", detail["array"])]
        shown = ", ".join("None" if b is None else str(b) for b in block)
        fitted = _fitting(block, array, sublanes, lanes)
        text += _TEXT.block_fitting.format(shown=shown, array=tuple(array), fitted=fitted)
        kernel = detail["kernel"]
        source = detail["at"]
    failure = _simple(
        log, m, "pallas_call", Reason.COMPILE_ERROR, (text, AdviceKind.FIX_SHAPES), source=None
    )
    failure.finding.node = kernel
    if failure.finding.source is None and source is not None:
        failure.finding.source = source  # the kernel's line when no traceback came with it
    return failure


def _mosaic(log: Log, m: re.Match[str], why: str | None = None) -> Failure:
    """Mosaic's refusal at ``m``: ``why`` is its reason (the match's own by default; the
    other wordings of :mod:`.mosaic_names` pass theirs)."""
    why = (m["why"] if why is None else why).strip()
    window = log.text[m.end() : m.end() + _AFTER]
    lines = iter(window.lstrip("\n").split("\n")[:_REASON_LINES])
    while not why or why.endswith(":"):  # the message went on after a colon: so does its reason
        more = next(lines, "").strip()
        if not more:
            break
        why = f"{why} {clean_message(more)}".strip()
    involved = _RE.mlir_op.search(window)
    op = involved["op"] if involved else "tpu_custom_call"
    described = f"{why} {op} {involved['rest'] if involved else ''}"
    kind, text = AdviceKind.OTHER, _TEXT.mosaic_default.format(op=op)
    for pattern, rule_kind, rule_text in _MOSAIC_ADVICE:
        if pattern.search(described):
            kind, text = rule_kind, rule_text
            break
    # A reason no rule knows that points to shapes ("DMA source and target shape mismatch"):
    # the kernel's shapes, in Mosaic's words (said once the op is known, below).
    shapes = kind is AdviceKind.OTHER and pointed_fixes(why)[:1] == [AdviceKind.FIX_SHAPES]
    source = None
    located = _RE.location.search(window)
    if located is not None:
        source = location_source(located["loc"])
        if involved is None:  # the location's name stack names the op ("/dot_general")
            op = location_op(located["loc"]) or op
    elif involved is None:  # the frames JAX made of the location name it (dot_general"("k),
        # or a location in MLIR's own form, else MLIR's diagnostic does ('tpu.matmul' op ...)
        frames = log.traceback_before(m.start())
        op = op_in_frames(frames) or op_in_locations(window) or diagnostic_op(why) or op
    if shapes:
        kind, text = AdviceKind.FIX_SHAPES, _TEXT.mosaic_shapes.format(op=op, why=why)
    reason = Reason.DTYPE if kind is AdviceKind.CAST_DTYPE else Reason.COMPILE_ERROR
    failure = _simple(log, m, op, reason, (text, kind), source=source)
    if kind is AdviceKind.CAST_DTYPE:  # a kernel the user did not write has a plain-XLA twin
        failure.more_advice.append((str(AdviceKind.REPLACE_OP), _TEXT.mosaic_library_kernel))
    failure.hints.append(_TEXT.mosaic_reason.format(why=why))
    failure.finding.node = m.groupdict().get("mosaic_hlo") or ""  # the kernel's instruction
    _name_operand(failure, why, involved["rest"] if involved else "")
    _already_tiled(failure, why)
    return failure


def _already_tiled(failure: Failure, why: str) -> None:
    """A layout mismatch of an operand whose shape already sits on (8, 128) tiles: the shape
    is not what to change -- the kernel was compiled for another layout of it than the array
    passed (so the advice to pad it would contradict the message's own numbers)."""
    operand, layouts = _RE.operand.search(why), _RE.layouts.search(why)
    if operand is None or layouts is None or not operand["shape"]:
        return
    dims = [int(d) for d in re.findall(r"\d+", operand["shape"].split("[", 1)[1])]
    if len(dims) < 2 or dims[-1] % 128 or dims[-2] % 8:
        return
    failure.finding.suggestion = _TEXT.already_tiled.format(
        index=operand["index"],
        shape=operand["shape"],
        expected=layouts["expected"],
        got=layouts["got"],
    )


def _name_operand(failure: Failure, why: str, involved: str) -> None:
    """The operand Mosaic refused (its number and shape) as the node, the layouts it expected
    and got, and the vector types of the op involved, as the message gives them."""
    operand = _RE.operand.search(why)
    if operand is not None:
        shape = f" {operand['shape']}" if operand["shape"] else ""
        failure.finding.node = f"operand {operand['index']}{shape}"
    layouts = _RE.layouts.search(why)
    if layouts is not None:
        failure.hints.append(
            _TEXT.layout_hint.format(expected=layouts["expected"], got=layouts["got"])
        )
    types = list(dict.fromkeys(_RE.vector_type.findall(involved)))
    if types:
        failure.hints.append(_TEXT.operand_types.format(types=", ".join(types)))


def _vmem(log: Log, m: re.Match[str]) -> Failure | None:
    allocation = m["alloc"] or ""
    if "space=vmem" not in allocation:
        return None  # another memory space's allocation: the out-of-memory family reads it
    needed, limit = int(m["needed"]), int(m["limit"])
    raisable = needed <= _LARGEST_VMEM
    text = _TEXT.vmem.format(
        needed=format_bytes(needed),
        limit=format_bytes(limit),
        raise_it=_TEXT.vmem_raise if raisable else _TEXT.vmem_no_raise,
    )
    window = _RE.vmem_window.search(allocation)
    if window is not None and window["window"] == window["full"]:
        text += _TEXT.vmem_whole.format(window=window["window"])
    failure = _simple(log, m, "vmem", Reason.OUT_OF_MEMORY, (text, AdviceKind.SMALLER_BLOCKS))
    failure.status = (
        "RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED" in log.headline(m.start()) else None
    )
    if raisable:
        failure.more_advice.append((str(AdviceKind.RAISE_VMEM_LIMIT), _TEXT.raise_vmem_limit))
    return failure


_KIND = Kind(Family.PALLAS, reading=traced)
RECOGNISER = Recogniser(Family.PALLAS, _RE.pallas, _pallas)
