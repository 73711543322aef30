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
  blocks do not fit in the core's VMEM.

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
from ..device import platform_of
from ..log import Log, clean_message
from ..mlir_location import location_op, location_source
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import user_source

_PALLAS = re.compile(
    r"Cannot lower pallas_call on platform: ?(?P<platform>\w+)"
    r"|Only interpret mode is supported on CPU backend"
    r"|T(?P<block>he Pallas TPU lowering currently requires that the last two dimensions of "
    r"your block shape are divisible by (?P<sublanes>\d+) and (?P<lanes>\d+))"
    r"|M(?P<partition>osaic\s+kernels\s+cannot\s+be\s+automatically\s+partitioned)"
    r"|Unimplemented primitive in Pallas (?:TPU |GPU |Mosaic GPU |Triton )?lowering"
    r"(?: for [\w.]+)?: (?P<primitive>[\w.-]+)"
    # (Lower-case where a wrapper starts its message with it; the reason on the next line
    # where the message breaks after the colon.)
    # (Newer releases name the kernel's module and HLO instruction before the colon: "...
    # TPU kernel with MLIR module name `<no name>` HLO name `qmm_kernel.499`: <why>".)
    r"|[Mm](?P<mosaic>osaic failed to compile TPU kernel)"
    r"(?: with MLIR module name `[^`\n]*`(?: HLO name `(?P<mosaic_hlo>[^`\n]+)`)?)?"
    r":[ \t]*(?P<why>[^\n]{0,400})"
    # A kernel's lowering that raised (Mosaic's, Triton's): "LoweringException: Exception
    # while lowering eqn:" and the equation, whose primitive is the op.
    # (Its message is read by the handler, not matched: Mosaic's words after it are another
    # form's to match.)
    r"|L(?P<lowering_exc>owering(?:Exception|Error)): ?"
    # Any exception raised in a kernel language's lowering, read from its frame (a rule's
    # own ValueError: "Scan with 1 extensive output(s) is not supported.").
    r'|/(?P<lowering_frame>pallas/(?P<pl_lang>mosaic_gpu|mosaic|triton)/lowering\.py"?, '
    r"line \d+, in (?P<pl_rule>\w+))"
    # Pallas's TPU lowering refusing a libtpu older than the jax it runs with.
    r"|P(?P<libtpu_age>allas TPU requires a lib(?:tpu|TPU) version)"
    # A kernel serialized by a newer Pallas than the compiler reading it accepts: "Failed to
    # deserialize the Mosaic module: Unsupported version: expected <= 7 but got 8".
    r"|F(?P<mosaic_version>ailed to deserialize the Mosaic module)"
    # Triton's compiler refusing a kernel's source, at its line and column ("triton.compiler.
    # errors.CompilationError: at 219:6:", the source and a caret under it after): a GPU
    # kernel (jax-triton's, Pallas's Triton backend) that did not compile.
    r"|C(?P<triton_compile>ompilationError: at (?P<triton_at>\d+:\d+):)"
    # A GPU kernel's blocks asking more shared memory than the GPU gives a block: XLA's and
    # jaxlib's Triton path ("Shared memory size limit exceeded: requested 73728, available:
    # 65536"), Triton's own ("out of resource: shared memory, Required: 131072, Hardware
    # limit: 101376").
    r"|S(?P<smem>hared memory size limit exceeded)(?:[.:]? ?requested (?P<smem_need>\d+), "
    r"available:? (?P<smem_have>\d+))?"
    r"|o(?P<tsmem>ut of resource: shared memory), Required: (?P<tsmem_need>\d+), Hardware "
    r"limit: (?P<tsmem_have>\d+)"
    r"|Allocation \(size=(?P<needed>\d+)\) would exceed memory \(size=(?P<limit>\d+)\)"
    r"(?P<alloc>[^\n]{0,2000})"
)

# The most lines a reason that breaks after a colon is read on.
_REASON_LINES = 4
# What follows a message, within this many characters, still belongs to it.
_AFTER = 4096
_BLOCK_DETAIL = re.compile(
    r"in pallas_call (?P<kernel>[\w.<>-]+) at (?P<at>[^\s,]+:\d+) has block shape "
    r"\((?P<block>[^\n]*?)\), array shape \((?P<array>[\d, ]*)\)"
)
_BLOCK_SIZE = re.compile(r"block_size=(\d+)|\b(\d+)\b|None|Squeezed\(\)|squeezed")
# The op Mosaic refused: after "The MLIR operation involved:", or an MLIR op's line of its own
# (`%424 = "tpu.load"(...) : ...`) where a wrapper printed it without those words.
# (After the words, the op may be printed without a result: `"func.func"() <{...}>`.)
_MLIR_OP = re.compile(
    r'(?:The MLIR operation involved:\s*\n\s*(?:%[\w#]+ = )?|^[ \t]*%[\w#]+ = )"(?P<op>[\w.]+)"'
    r"(?P<rest>[^\n]*)",
    re.M,
)
# The location to the line's end (a pasted log may cut it before its closing bracket).
_LOCATION = re.compile(r"at location: loc\((?P<loc>[^\n]*)")
_VMEM_WINDOW = re.compile(
    r"The window shape is (?P<window>\S+?), while the full shape is (?P<full>\S+?)\."
)

_ON_ONE_PLATFORM = (
    "Pallas kernels run on the GPU or TPU they were written for; elsewhere only with interpret=True"
)
_PARTITION = (
    "a Pallas kernel runs on one chip's arrays: call it inside jax.shard_map (mesh=..., "
    "in_specs=..., out_specs=... as the arguments are sharded), so each chip runs it on its "
    "own shard, or replicate its inputs"
)
_UNIMPLEMENTED = (
    "Mosaic has no lowering for {primitive} inside a TPU kernel: compute it outside the "
    "kernel (before or after the pallas_call, in plain JAX), or write it with the ops a kernel "
    "has (elementwise math, jnp.dot, reductions, iota, where)"
)
_VMEM = (
    "the kernel's blocks need {needed} of VMEM where there is {limit}: give the pallas_call a "
    "grid and BlockSpecs with smaller blocks (VMEM holds the blocks of one grid step, twice "
    "over for the pipeline){raise_it}"
)
_VMEM_RAISE = (
    ", or raise its limit with compiler_params=pltpu.CompilerParams(vmem_limit_bytes=...) "
    "while it stays below the chip's VMEM"
)
# The most VMEM any TPU core has (v5e, v6e: 128 MiB): a kernel needing more cannot be given it.
_LARGEST_VMEM = 128 << 20
_VMEM_WHOLE = "; {window} is the whole array: without a BlockSpec the kernel loads all of it"

# Mosaic's reasons, first match wins: (pattern over reason and op, advice kind, advice).
_MOSAIC_ADVICE: tuple[tuple[re.Pattern[str], AdviceKind, str], ...] = tuple(
    (re.compile(pattern, re.I), kind, text)
    for pattern, kind, text in (
        (
            # The element type as Mosaic prints it in a vector type: `vector<128x128xi32>`.
            r"Bad lhs/rhs type|data type in matrix multiplication"
            r"|tpu\.matmul.*(?:\b|(?<=\dx))[iu](?:4|16|32|64)\b",
            AdviceKind.CAST_DTYPE,
            "the TPU's matrix unit multiplies bf16 and f32 operands (and int8 or fp8 on the "
            "chips that have them): cast the operands of jnp.dot in the kernel (to bf16 or "
            "f32) and accumulate with preferred_element_type=jnp.float32",
        ),
        (
            r"does not support this comparison|arith\.cmpf.*bf16",
            AdviceKind.CAST_DTYPE,
            "this TPU compares bf16 vectors in float32 only: cast both sides to jnp.float32 "
            "before the comparison in the kernel",
        ),
        (
            # Types that do not match or that the op does not take, in Mosaic's and its
            # verifier's words ("Expected matching lhs and rhs dtypes", "unsupported element
            # type"); not a layout's words.
            r"(?:matching|unsupported|mismatched)\s[\w ]{0,20}(?:dtypes?|element types?)\b"
            r"|(?:dtypes?|element types?) (?:do not|must) match",
            AdviceKind.CAST_DTYPE,
            "the op is given element types it does not take together on this chip: cast its "
            "operands in the kernel to one type the chip's units have (f32, or bf16 for a "
            "matrix product with preferred_element_type=jnp.float32)",
        ),
        (
            r"shape cast|tpu\.reshape|vector\.shape_cast",
            AdviceKind.FIX_SHAPES,
            "Mosaic reshapes only what keeps the last two dimensions on (8, 128) tiles: "
            "reshape outside the kernel (the BlockSpecs can hand the kernel the layout it "
            "needs), or keep the minor dimension a multiple of 128 and the second-minor one "
            "of 8",
        ),
        (
            r"layout does not match|Failed to verify layout|layouts? unsupported"
            r"|unsupported layout",
            AdviceKind.FIX_SHAPES,
            "the kernel expects another tiling of an operand than the array XLA hands it: "
            "give that operand a shape whose last two dimensions are multiples of (8, 128), "
            "or a block that is its whole shape",
        ),
        (
            r"tpu\.matmul|unsupported operand shapes",
            AdviceKind.FIX_SHAPES,
            "the matrix product's blocks are off the (8, 128) tiles the matrix unit takes: "
            "make the dimensions of each jnp.dot in the kernel multiples of 128 (8 for the "
            "rows), padding the arrays outside the kernel",
        ),
    )
)
_MOSAIC_VERSION = (
    "the kernel's Mosaic module is of a newer version than the TPU compiler (libtpu) reading "
    "it: the jax that wrote the kernel and the libtpu are of different releases. Install "
    'them together (pip install -U "jax[tpu]"), or, where another framework pins libtpu '
    "(torch_xla), the jax of its pin"
)
_LIBTPU_AGE = (
    "the libtpu installed is older than the jax it runs with allows for Pallas kernels: "
    'install the pair jax pins (pip install -U "jax[tpu]"), or a jax of the libtpu\'s own '
    "release; a package that pulled in a newer jax alone (pip show jax libtpu) causes it"
)
_MOSAIC_DEFAULT = (
    "Mosaic could not compile the kernel's {op}: the op and its vector types are printed "
    "above; change that operation in the kernel (shapes on (8, 128) tiles, element types the "
    "chip's vector units have)"
)


def _pallas(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["block"]:
        yield _block_shape(log, m)
    elif m["partition"]:
        yield _simple(log, m, "pallas_call", Reason.COMPILE_ERROR, (_PARTITION, AdviceKind.SHARD))
    elif m["primitive"]:
        primitive = m["primitive"].rstrip(".")
        advice = (_UNIMPLEMENTED.format(primitive=primitive), AdviceKind.REPLACE_OP)
        yield _simple(log, m, primitive, Reason.NO_LOWERING, advice)
    elif m["lowering_frame"]:
        failure = _raised_in_lowering(log, m)
        if failure is not None:
            yield failure
    elif m["lowering_exc"]:
        failure = _lowering_exception(log, m)
        if failure is not None:
            yield failure
    elif m["mosaic"]:
        yield _mosaic(log, m)
    elif m["libtpu_age"]:
        advice = (_LIBTPU_AGE, AdviceKind.INSTALL)
        yield _simple(log, m, "pallas_call", Reason.COMPILE_ERROR, advice)
    elif m["mosaic_version"]:
        advice = (_MOSAIC_VERSION, AdviceKind.INSTALL)
        yield _simple(log, m, "pallas_call", Reason.COMPILE_ERROR, advice)
    elif m["triton_compile"]:
        yield _triton_compile(log, m)
    elif m["smem"] or m["tsmem"]:
        failure = _shared_memory(log, m)
        if failure is not None:
            yield failure
    elif m["needed"]:
        failure = _vmem(log, m)
        if failure is not None:
            yield failure
    else:
        yield _not_here(log, m)


# The class path before "LoweringException": the kernel language whose lowering raised.
_KERNEL_LANGUAGE = re.compile(r"(?i)(?P<lang>mosaic_gpu|mosaic|triton|pallas)[\w.]*$")
# The equation being lowered: "  c:f32[8,128] = cumsum[axis=1 reverse=False] b".
_EQUATION = re.compile(r"^\s*[\w:\[\],. ]*?= (?P<prim>[a-z_][\w-]*)(?:\[|\s)", re.M)
_LOWERING = (
    "the kernel's lowering ({language}) could not lower {what}: compute it outside the kernel "
    "(before or after the pallas_call, in plain JAX), or write it with the ops a kernel has "
    "(elementwise math, jnp.dot, reductions, iota, where); the error after 'Exception while "
    "lowering eqn' says what it lacks"
)


# The exception line that ends a traceback, and a further frame of the same traceback.
_RAISED_LINE = re.compile(r"^(?P<cls>[A-Za-z_][\w.]*(?:Error|Exception)): ?(?P<msg>[^\n]*)$", re.M)
_RULE = re.compile(r"^_?(?P<prim>[a-z]\w*?)_lowering_rule$")


def _raised_in_lowering(log: Log, m: re.Match[str]) -> Failure | None:
    """An exception raised inside Mosaic's (or Triton's) lowering, from its innermost frame
    there: the rule's primitive is the op, the exception's words the reason."""
    window = log.text[m.end() : min(len(log.text), m.end() + 4096)]
    raised = _RAISED_LINE.search(window)
    if raised is None or "/lowering.py" in window[: raised.start()]:
        return None  # no exception follows, or a deeper lowering frame reads it
    said = f"{raised['cls']}: {raised['msg']}"
    if _PALLAS.search(said) is not None:
        return None  # a message of its own that another form reads
    rule = _RULE.match(m["pl_rule"])
    primitive = rule["prim"] if rule else ""
    lang = m["pl_lang"]
    name = {"triton": "Triton", "mosaic_gpu": "Mosaic GPU"}.get(lang, "Mosaic")
    what = f"{primitive} ({clean_message(raised['msg'])[:160]})" if primitive else said[:200]
    text = _LOWERING.format(language=name, what=what)
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


def _lowering_exception(log: Log, m: re.Match[str]) -> Failure | None:
    """``jax._src.pallas.mosaic.lowering.LoweringException: Exception while lowering eqn:``
    with the equation on the lines after it."""
    message = log.text[m.end() : log.line_end(m.end())][:300]
    language = _KERNEL_LANGUAGE.search(log.before_on_line(m.start())[-120:])
    if language is None and "lowering eqn" not in message:
        return None  # another library's lowering error
    if re.search(r"legalize|Mosaic failed", message):
        return None  # Mosaic's own words after the class: .mosaic_names reads them
    equation = _EQUATION.search(log.text, m.end(), min(len(log.text), m.end() + 600))
    primitive = equation["prim"] if equation else ""
    lang = (language["lang"] if language else "mosaic").lower()
    gpu = lang in ("triton", "mosaic_gpu")
    name = {"triton": "Triton", "mosaic_gpu": "Mosaic GPU"}.get(lang, "Mosaic")
    text = _LOWERING.format(language=name, what=primitive or "an op of the kernel")
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
    return _KIND.failure(
        log,
        m.start(),
        stack=stack,
        op=op,
        reason=reason,
        advice=advice,
        source=source or user_source(stack),
        device=_kernel_platform(log, m),
        platform=platform_of(_kernel_platform(log, m)),
    )


# The primitive a frame's line binds (jax-triton's "out_flat = triton_kernel_call_p.bind(").
_BOUND = re.compile(r"\b(?P<prim>[a-z_]\w*)_p\.bind\(")
_TRITON_COMPILE = (
    "Triton could not compile the kernel: its source at {at} (printed under the message, a "
    "caret under the place) is code this Triton refuses. Fix the kernel there; where the "
    "kernel is a library's and worked before, install the Triton (and jax-triton) release the "
    "library was written for"
)


def _bound_primitive(log: Log, m: re.Match[str]) -> str | None:
    """The primitive the frames before ``m`` bound last (the innermost bind: the kernel's
    call into JAX), if any."""
    bound = [b["prim"] for b in _BOUND.finditer(log.text, max(0, m.start() - _AFTER), m.start())]
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
        (_TRITON_COMPILE.format(at=m["triton_at"]), AdviceKind.OTHER),
    )
    failure.platform, failure.device = Platform.GPU, "gpu"  # Triton compiles for GPUs alone
    return failure


_SHARED_MEMORY = (
    "the kernel's blocks need {need} of shared memory, and the GPU gives a block {have}: use "
    "smaller block sizes (BLOCK_M/N/K, a Pallas BlockSpec's block_shape) or fewer pipeline "
    "stages (num_stages); a library's kernel tuned for a bigger GPU needs its smaller tiling"
)


def _shared_memory(log: Log, m: re.Match[str]) -> Failure | None:
    """A GPU kernel over the shared memory a block may use; XLA's own fusion (``context:
    [Fusion``) is the compiler's tiling, not a kernel of the program's: not read here."""
    if "[Fusion" in log.text[m.end() : log.line_end(m.start())]:
        return None
    need = m["smem_need"] or m["tsmem_need"]
    have = m["smem_have"] or m["tsmem_have"]
    text = _SHARED_MEMORY.format(
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


# The GPU's Pallas backends as a message names them ("Unimplemented primitive in Pallas GPU
# lowering", "Mosaic GPU", Triton): a kernel for the GPU; every other Pallas message is TPU's.
_GPU_BACKEND = re.compile(r"\bPallas (?:GPU|Mosaic GPU|Triton)\b|\bMosaic ?GPU\b|\bTriton\b")


def _kernel_platform(log: Log, m: re.Match[str]) -> str:
    """The platform of the kernel whose message ``m`` opens: the GPU where its line names a
    GPU backend of Pallas, else the TPU."""
    start = log.line_start(m.start())
    return "gpu" if _GPU_BACKEND.search(log.text, start, log.line_end(m.start())) else "tpu"


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
    return _KIND.failure(
        log,
        m.start(),
        stack=log.traceback_before(m.start()),
        op="pallas_call",
        reason=Reason.NO_LOWERING,
        advice=advise(("pallas_call", "tpu_custom_call"), Reason.NO_LOWERING),
        device=device,
        platform=platform_of(device),
        hints=[_ON_ONE_PLATFORM],
    )


def _sizes(text: str) -> list[int | None]:
    """The block's sizes as the message prints them (``Blocked(block_size=100)``, ``None``)."""
    out: list[int | None] = []
    for found in _BLOCK_SIZE.finditer(text):
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
    detail = _BLOCK_DETAIL.search(log.text, m.end(), m.end() + _AFTER)
    text = (
        f"make the last two dimensions of each block multiples of {sublanes} and {lanes}, or "
        "the array's own sizes (pad an array whose size is neither)"
    )
    source = None
    kernel = "pallas_call"
    if detail is not None:
        block = _sizes(detail["block"])
        array = [int(n) for n in re.findall(r"\d+", detail["array"])]
        shown = ", ".join("None" if b is None else str(b) for b in block)
        text += (
            f": the block ({shown}) of the array {tuple(array)} could be "
            f"{_fitting(block, array, sublanes, lanes)}"
        )
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
    involved = _MLIR_OP.search(window)
    op = involved["op"] if involved else "tpu_custom_call"
    described = f"{why} {op} {involved['rest'] if involved else ''}"
    kind, text = AdviceKind.OTHER, _MOSAIC_DEFAULT.format(op=op)
    for pattern, rule_kind, rule_text in _MOSAIC_ADVICE:
        if pattern.search(described):
            kind, text = rule_kind, rule_text
            break
    source = None
    located = _LOCATION.search(window)
    if located is not None:
        source = location_source(located["loc"])
        if involved is None:  # the location's name stack names the op ("/dot_general")
            op = location_op(located["loc"]) or op
    reason = Reason.DTYPE if kind is AdviceKind.CAST_DTYPE else Reason.COMPILE_ERROR
    failure = _simple(log, m, op, reason, (text, kind), source=source)
    failure.hints.append(f"Mosaic's reason: {why}")
    failure.finding.node = m.groupdict().get("mosaic_hlo") or ""  # the kernel's instruction
    _name_operand(failure, why, involved["rest"] if involved else "")
    _already_tiled(failure, why)
    return failure


def _already_tiled(failure: Failure, why: str) -> None:
    """A layout mismatch of an operand whose shape already sits on (8, 128) tiles: the shape
    is not what to change -- the kernel was compiled for another layout of it than the array
    passed (so the advice to pad it would contradict the message's own numbers)."""
    operand, layouts = _OPERAND.search(why), _LAYOUTS.search(why)
    if operand is None or layouts is None or not operand["shape"]:
        return
    dims = [int(d) for d in re.findall(r"\d+", operand["shape"].split("[", 1)[1])]
    if len(dims) < 2 or dims[-1] % 128 or dims[-2] % 8:
        return
    failure.finding.suggestion = (
        f"operand {operand['index']} ({operand['shape']}) already sits on (8, 128) tiles, so its "
        f"shape is not the problem: the kernel was compiled for the layout "
        f"{layouts['expected']} of it and is passed {layouts['got']}; the operand's shape or "
        "rank when the kernel was traced differs from the array passed (compare the kernel's "
        "BlockSpecs and shapes with the arrays given to it)"
    )


# What Mosaic's reason says of the operand it refused: `operand 3: XLA layout does not match
# MLIR layout for an operand of shape f32[16,3072]: expected {1,0:T(128)S(1)}, got {...}`.
_OPERAND = re.compile(r"operand (?P<index>\d+)\b(?:[^\n]*?of shape (?P<shape>[a-z]\w*\[[\d,]*\]))?")
_LAYOUTS = re.compile(r"expected (?P<expected>\{[^}\n]*\}), got (?P<got>\{[^}\n]*\})")
_VECTOR_TYPE = re.compile(r"(?:vector|memref)<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>")


def _name_operand(failure: Failure, why: str, involved: str) -> None:
    """The operand Mosaic refused (its number and shape) as the node, the layouts it expected
    and got, and the vector types of the op involved, as the message gives them."""
    operand = _OPERAND.search(why)
    if operand is not None:
        shape = f" {operand['shape']}" if operand["shape"] else ""
        failure.finding.node = f"operand {operand['index']}{shape}"
    layouts = _LAYOUTS.search(why)
    if layouts is not None:
        failure.hints.append(
            f"layout: the kernel expects {layouts['expected']}, XLA gives {layouts['got']}"
        )
    types = list(dict.fromkeys(_VECTOR_TYPE.findall(involved)))
    if types:
        failure.hints.append(f"operand types: {', '.join(types)}")


def _vmem(log: Log, m: re.Match[str]) -> Failure | None:
    allocation = m["alloc"] or ""
    if "space=vmem" not in allocation:
        return None  # another memory space's allocation: the out-of-memory family reads it
    needed, limit = int(m["needed"]), int(m["limit"])
    raisable = needed <= _LARGEST_VMEM
    text = _VMEM.format(
        needed=format_bytes(needed),
        limit=format_bytes(limit),
        raise_it=_VMEM_RAISE if raisable else " (no chip's VMEM holds more than 128 MiB)",
    )
    window = _VMEM_WINDOW.search(allocation)
    if window is not None and window["window"] == window["full"]:
        text += _VMEM_WHOLE.format(window=window["window"])
    failure = _simple(log, m, "vmem", Reason.OUT_OF_MEMORY, (text, AdviceKind.SMALLER_BLOCKS))
    failure.status = (
        "RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED" in log.headline(m.start()) else None
    )
    if raisable:
        failure.more_advice.append(
            (
                str(AdviceKind.RAISE_VMEM_LIMIT),
                "raise the kernel's VMEM limit (compiler_params=pltpu.CompilerParams("
                "vmem_limit_bytes=...)) when what it needs is below the chip's VMEM",
            )
        )
    return failure


_KIND = Kind(Family.PALLAS, reading=traced)
RECOGNISER = Recogniser(Family.PALLAS, _PALLAS, _pallas)
