"""What every message states in the same words, read once for every failure.

A recogniser reads its family's message; some facts are stated the same way whatever the
family, and a failure whose recogniser did not read them would leave them empty though the
text has them. :func:`complete` fills them from the message's own paragraph:

* whether it is a warning (:mod:`.severity`): the program went on;
* the status code, canonical (``RESOURCE_EXHAUSTED``), also where an older XLA wrote it in
  words (``Resource exhausted:``, ``Invalid argument:``, ``Deadline exceeded:``);
* the platform a message names (``for platform CUDA``, ``on platform TPU``, ``platform: cuda``,
  a device's string: ``CudaDevice(id=0)``, ``(0x0x0_HBM0)``) where the recogniser found none,
  else the one the log as a whole shows (its libraries, device strings: :mod:`.device`);
* the numbers of a failed allocation (:mod:`.allocation`): requested, free, reservable bytes;
* the HLO instruction or kernel the message names (``%cublas-gemm.1 = ...``, ``Failed to
  launch CUDA kernel: fusion_1560``), else the executable whose run failed
  (``[executable_name='jit_equal']``), as the failure's node where the recogniser named none;
* the framework that ran and the libraries around its message (:mod:`.framework`); advice in
  JAX's words on another framework's log says so;
* the user's line, from the frames of the traceback that holds the message
  (:func:`~.user_line.message_stack`) where its recogniser read none, else from a line the
  message names in words (``defined at x.py:45``, ``occurs at source: x.py:30:8``), else
  from the call sites of an MLIR location it quotes (``loc(callsite("f"("x.py":16:11) ...``),
  else from the script's expression Julia's crash report names after the message (``in
  expression starting at /home/u/run.jl:65``).
"""

from __future__ import annotations

import re

from .allocation import read_allocation
from .device import platform_in_log, platform_of
from .framework import JAX_NAMES, Framework, framework_of, libraries_in
from .functions import paragraph_end
from .log import Log
from .mlir_location import diagnostic_op, source_in_locations
from .named_op import current_operation, generic_op, mosaic_op, op_called, op_named
from .record import Failure, Family
from .severity import is_warning_at
from .user_line import (
    callback_stack,
    filtered_first,
    is_users,
    julia_expression_after,
    message_stack,
    named_source,
    user_source,
)

__all__ = ["complete", "status_code_in"]

# XLA's status codes, and the words older releases (and TensorFlow) print them as.
_CODES = (
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
)
_WORDS = {code.replace("_", " ").capitalize(): code for code in _CODES}
_STATUS = re.compile(
    r"\b(?P<code>" + "|".join(_CODES) + r")(?=: )"
    # The words only where a code would stand: at the line's start, after a class or a tag.
    r"|(?:^|(?<=: )|(?<=\] ))(?P<words>"
    + "|".join(sorted(_WORDS, key=len, reverse=True))
    + r")(?=: )"
)
# A platform the message names in so many words, or by a device's own string: JAX's device
# reprs (CudaDevice(id=0), TpuDevice(id=0, ...), cuda(id=0)), a TPU's HBM (0x0x0_HBM0).
_PLATFORM = re.compile(
    r"\b(?:for|on) platforms?:? '?(?P<a>cuda|rocm|gpu|tpu|cpu|host|metal)\b"
    r"|\bplatform[:=] ?'?(?P<b>cuda|rocm|gpu|tpu|cpu)\b"
    r"|\b(?P<c>cuda|rocm|tpu|cpu)(?:Device)?\(id=\d"
    r"|\(0x\d+x\d+(?:x\d+)?_(?P<d>HBM)\d+\)"
    # TensorFlow's device names (`/job:localhost/replica:0/task:0/device:CPU:0`, `device:GPU:0`).
    r"|\bdevice:(?P<e>CPU|GPU|TPU):\d",
    re.I,
)
# The instruction or kernel a message names: an HLO instruction it prints (`%fusion.3 = f32[...]`
# or `%fusion.3 = (f32[...], ...)`), a GPU kernel it launched; else the compiled program whose
# run failed, as newer JAX tags its runtime errors (`[executable_name='jit_train_step']`).
_NODE = re.compile(
    r"(?:^|[\s:(])%(?P<hlo>[\w.-]+) = [(\w]"
    r"|launch (?:CUDA |ROCm |HIP |GPU )?kernel:? (?!CUDA_ERROR_|hipError)(?P<kernel>[\w.$-]+)"
    r"|\[executable_name='(?P<executable>[^'\n]+)'\]",
    re.I,
)
# An op's name (`dot_general`, `all-reduce`, `tpu.load`, `CropAndResize`), not a description of
# the failure (`out of memory`, `complex operand`) that a recogniser put where none was named.
_IDENTIFIER = re.compile(r"[\w./-]+\Z")
# The opcode HLO prints after an instruction's shape: `%all-reduce.0 = c64[16]{0} all-reduce(`.
_OPCODE = re.compile(r"[^\n]*?\s(?P<opcode>[a-z][\w-]*)\(")
# XLA's suffix that makes an instruction's name unique (`fusion.27`, `flash_attention.3`).
_UNIQUE_SUFFIX = re.compile(r"\.\d+\Z")


def _opcode(named: re.Match[str]) -> str:
    """The op of the HLO instruction ``named``: the opcode printed after its shape, else
    (the line cut there) its name without XLA's unique suffix, which names an instruction
    after its opcode or the custom call's target (``%flash_attention.27``)."""
    end = named.string.find("\n", named.end())
    after = _OPCODE.match(named.string, named.end(), end if end >= 0 else len(named.string))
    if after and after["opcode"] != "custom-call":
        return after["opcode"]
    # A custom call's opcode says nothing of what ran: its name, the kernel's, does.
    return _UNIQUE_SUFFIX.sub("", named["hlo"])


# A driver's error code (CUDA's CUDA_ERROR_NOT_FOUND, ROCm's hipErrorNotFound).
_ERROR_CODE = re.compile(r"CUDA_ERROR_\w+|hipError\w+|cudaError\w+")


# MLIR's module op, which an error "'builtin.module' op ..." is reported on whatever op inside
# it failed.
_MLIR_MODULE = "builtin.module"


def _not_module(op: str | None) -> str | None:
    """``op``, unless it is MLIR's module (:data:`_MLIR_MODULE`)."""
    return None if op == _MLIR_MODULE else op


def _no_op(failure: Failure, line: str = "") -> bool:
    """Whether the op a recogniser read is no op but the message's exception class
    (``ValueError``, also where the recogniser kept no class but the message's ``line``
    opens with it qualified by its module: ``jax.errors.UnexpectedTracerError: ...``), a
    status code or a driver's error code: what failed, not where."""
    op = failure.finding.op
    if op == failure.error_class or op in _CODES or bool(_ERROR_CODE.fullmatch(op)):
        return True
    if op == _MLIR_MODULE:
        return True  # the module a diagnostic is attached to: where, not the op at fault
    return bool(op) and re.match(rf"\s*(?:\w+\.)+{re.escape(op)}: ", line) is not None


# An HLO instruction's name (`constant.341`, `reduce.1107.clone.1`): an operand a check's
# condition named, where the instruction on the message's line is the one it checked.
_INSTRUCTION_NAME = re.compile(r"[a-z][\w-]*(?:\.\d+)+(?:\.clone(?:\.\d+)?)*")


def _replaceable(failure: Failure, printed: re.Match[str], line_length: int) -> bool:
    """Whether the instruction ``printed`` on the message's line (of ``line_length``) is a
    better op than the recogniser's: that is a description, another instruction's name (an
    operand of it the condition named), or the message's status where the message ends its
    line to print the instruction it is about on the next (the verifier's "Expected
    instruction to have shape ...:" then "%reduce.1 = ..."; one named in passing on the
    status's own line, "All algorithms tried for %dot.128 = ...", leaves the status)."""
    op = failure.finding.op
    if not _IDENTIFIER.match(op):
        return True
    if not _INSTRUCTION_NAME.fullmatch(printed["hlo"]):
        return False  # an MLIR or LLO value (`%151 = dma.hbm_to_vmem ...`), no HLO instruction
    if _no_op(failure):
        return printed.start() >= line_length
    return op != printed["hlo"] and bool(_INSTRUCTION_NAME.fullmatch(op))


# What a device string's word means.
_DEVICE_WORDS = {"host": "cpu", "hbm": "tpu", "metal": "gpu"}  # METAL: Apple's GPU plugin
# How much of the message's paragraph the facts are read from.
_PARAGRAPH = 4096


# A line that starts another log record (a logger's level, glog's, a timestamp): the message
# before it has ended, and what it says (a DEBUG line's device_assignment) is not about it.
_NEW_RECORD = re.compile(r"(?:[A-Z]+:|[IWEF]\d{4} |\d{4}-\d\d-\d\d[ T]|\[)")


def _own_lines(region: str) -> str:
    """The message's own lines of ``region``: its first, and those after it up to the first
    that starts another log record."""
    lines = region.split("\n")
    own = [lines[0]]
    for line in lines[1:]:
        if _NEW_RECORD.match(line):
            break
        own.append(line)
    return "\n".join(own)


# A paragraph that is no continuation of the message before it: another log record, a
# traceback, an exception's message, a chain's line.
_NOT_CONTINUED = re.compile(
    _NEW_RECORD.pattern + r"|Traceback \(|The above exception|During handling"
    r"|[\w.]*(?:Error|Exception|Exit|Interrupt)\b:"
)


def _continued(log: Log, pos: int) -> str:
    """The message at ``pos`` continued after its paragraph's blank line: the next
    paragraph's own lines where it starts no record, traceback or other message (XLA:TPU's
    ``INTERNAL: ...`` then, after a blank line, ``Error encountered while compiling %call.1 =
    ...``); ``""`` where it does."""
    end = paragraph_end(log, pos)
    if not log.text.startswith("\n\n", end):
        return ""  # the paragraph ran on to the cap, or to the log's end
    start = end
    while log.text.startswith("\n", start):
        start += 1
    if start >= len(log.text) or _NOT_CONTINUED.match(log.text, start):
        return ""
    return _own_lines(log.text[start : min(paragraph_end(log, start), start + _PARAGRAPH)])


def _op_above(log: Log, start: int) -> str | None:
    """The op the line above the message's (at ``start``) names, where that line is an
    exception's that the message goes on from: PyTorch/XLA's "RuntimeError: Error while
    lowering: [] aten::as_strided, ..." above the check that failed as it lowered."""
    if start == 0:
        return None
    above = log.text[log.previous_line_start(start) : start - 1]
    return op_named(above) if _EXCEPTION_LINE.match(above) else None


# Python's words between an exception and the one raised while handling it, or from it.
_CHAINED = re.compile(
    r"^(?:During handling of the above exception, another exception occurred|The above "
    r"exception was the direct cause of the following exception):$",
    re.M,
)
# How much of the message's line is looked for again, and how far after it.
_REPEAT_KEY = 60
_REPEAT_WITHIN = 16384


def _op_where_raised_again(log: Log, pos: int) -> str | None:
    """The op the message at ``pos`` names where a framework raised it again, chained after
    it, with the node it was running added below it (PyTensor's "Apply node that caused the
    error: ..." under the same IndexError its JAX backend raised first)."""
    key = log.text[pos : log.line_end(pos)][:_REPEAT_KEY]
    chained = _CHAINED.search(log.text, pos, pos + _REPEAT_WITHIN)
    if len(key) < _REPEAT_KEY // 2 or chained is None:
        return None
    again = log.text.find(key, chained.end(), chained.end() + _REPEAT_WITHIN)
    if again < 0:
        return None
    end = min(paragraph_end(log, again), again + _PARAGRAPH)
    return op_named(_own_lines(log.text[again:end]))


# An exception's line: its class and message ("RuntimeError: ...", "jax.errors.X: ...").
_EXCEPTION_LINE = re.compile(r"[\w.]*(?:Error|Exception): ")


def status_code_in(line: str) -> str | None:
    """The status code a line states, canonical (``Resource exhausted:`` is
    ``RESOURCE_EXHAUSTED``); the first one when a wrapper repeats it."""
    found = _STATUS.search(line)
    if found is None:
        return None
    return found["code"] or _WORDS[found["words"]]


def complete(failure: Failure, log: Log) -> None:
    """Fill what ``failure``'s message states and its recogniser left empty."""
    start = log.line_start(failure.offset)
    line = log.text[start : log.line_end(failure.offset)]
    region = log.text[start : min(paragraph_end(log, failure.offset), start + _PARAGRAPH)]
    # A recogniser that knows better (an allocator's failure logged at the W level) has said
    # False; otherwise the line's prefix decides.
    if failure.finding.warning is None and is_warning_at(log.text, failure.offset):
        failure.finding.warning = True
    if failure.status is None:
        failure.status = status_code_in(line)
    if failure.platform is None:
        named = _PLATFORM.search(_own_lines(region))
        if named is not None:
            word = next(g for g in named.groups() if g)
            failure.platform = platform_of(_DEVICE_WORDS.get(word.lower(), word))
            failure.device = failure.device or word
    if failure.platform is None:  # the message names none: the log as a whole may
        failure.platform = platform_in_log(log.text, failure.offset)
    if failure.allocation is None:
        failure.allocation = read_allocation(region)
    named_node = _NODE.search(_own_lines(region))
    if named_node is not None and not failure.finding.node:
        failure.finding.node = named_node["hlo"] or named_node["kernel"] or named_node["executable"]
    # The instruction on the message's own line (or opening the next, the line wrapped before
    # it) is what failed; one printed further below, as a check's dump of the module, may be
    # any.
    on_line = named_node if named_node and named_node.start() <= len(line) + 1 else None
    if on_line and on_line["hlo"] and _replaceable(failure, on_line, len(line)):
        failure.finding.op = _opcode(on_line)
    # Else the op the message names in passing, on its line or those it wrapped onto; also
    # where the recogniser's op is only the message's exception or error code.
    if not _IDENTIFIER.match(failure.finding.op) or _no_op(failure, line):
        own = _own_lines(region)
        # (The Mosaic op a compiler's refusal quotes first: its words, "Slice sizes along tiled
        # dimensions", describe that op's operands, not an HLO op.)
        named_op = mosaic_op(own) or op_named(own) or op_named(_continued(log, failure.offset))
        named_op = named_op or _not_module(diagnostic_op(own))
        # (An XLA dialect's op in generic form last: a module's dump may print many.)
        # (MLIR's note of the op a diagnostic was on, before any op a module's dump prints.)
        named_op = named_op or _op_above(log, start) or current_operation(own) or generic_op(own)
        named_op = named_op or _op_where_raised_again(log, failure.offset)
        # Else the op of JAX's the user's line called, the frame inside it in the traceback,
        # where the recogniser named nothing (its exception class it names on purpose: a
        # tracing error's op is the function JAX names, else the class).
        if not named_op and not _IDENTIFIER.match(failure.finding.op):
            stack = failure.stack or message_stack(log, failure.offset)
            named_op = op_called(stack, is_users)
        failure.finding.op = named_op or failure.finding.op
    # The line an MLIR location in the message gives its op (a Mosaic or lowering
    # diagnostic's) is where the op was made: the traceback's user frame only called the
    # compiler.
    end = min(paragraph_end(log, failure.offset), failure.offset + _PARAGRAPH)
    located = source_in_locations(log.text[failure.offset : end])
    if failure.family is Family.PALLAS and failure.finding.source and log.in_chain(failure.offset):
        # A kernel's location is inside its body; where JAX re-raised the error at the
        # program's pallas_call, that call is the user's line (the recogniser said the body's
        # line beside it). Older JAX raised it once, at the compiled call: its location is
        # the nearer line there.
        located = None
    failure.finding.source = located or failure.finding.source
    # A callback's line that raised, where the message quotes the callback's traceback: the
    # traceback around the message reaches only the call that ran the compiled program.
    quoted = user_source(callback_stack(log, failure.offset))
    failure.finding.source = quoted or failure.finding.source
    if not failure.finding.source:
        _user_line(failure, log)
    _filtered_user_line(failure, log)
    _frameworks(failure, log, region)


def _filtered_user_line(failure: Failure, log: Log) -> None:
    """The user's line read again from JAX's filtered traceback where it was read from the
    frames of the unfiltered one it caused (:func:`~.user_line.filtered_first`)."""
    if not failure.stack or failure.finding.source != user_source(failure.stack):
        return  # a line the message or its MLIR location names, not the frames'
    filtered = filtered_first(log, failure.offset, failure.stack)
    failure.finding.source = user_source(filtered) or failure.finding.source


def _user_line(failure: Failure, log: Log) -> None:
    """The innermost user frame of the message's traceback, whatever its shape; its frames
    become the failure's stack where the recogniser kept none."""
    stack = failure.stack or message_stack(log, failure.offset)
    failure.finding.source = user_source(stack)
    if not failure.stack:
        failure.stack = stack
    elif failure.finding.source is None:
        # The recogniser's frames (TF's "The op is created at:", cut before the user's)
        # hold none of the user's: the traceback the message ends may, or the last one of
        # the chain it starts (a library's KeyError, re-raised at the user's call).
        failure.finding.source = user_source(message_stack(log, failure.offset))
        failure.finding.source = failure.finding.source or user_source(
            log.outer_frames(failure.offset)
        )
    if failure.finding.source is None:  # a line the message names in words, no traceback
        end = min(paragraph_end(log, failure.offset), failure.offset + _PARAGRAPH)
        message = log.text[failure.offset : end]
        # else the op's MLIR location, whose call sites are the lines that made it.
        failure.finding.source = named_source(message) or source_in_locations(message)
    if failure.finding.source is None:  # a Julia process a signal killed: the script's line
        failure.finding.source = julia_expression_after(log, failure.offset)


_OTHER_FRAMEWORK = (
    "this log is {framework}'s, and the advice names JAX's API: the cause is XLA's and the "
    "same, the calls to change are {framework}'s counterparts"
)


def _frameworks(failure: Failure, log: Log, region: str) -> None:
    """The framework and libraries of the message's traceback (else of the whole log)."""
    around = log.text[log.traceback_start(failure.offset) : failure.offset] + region
    framework = framework_of(around) or framework_of(log.text)
    failure.framework = str(framework) if framework else None
    failure.libraries = libraries_in(around)
    if framework is Framework.PYTORCH_XLA and JAX_NAMES.search(failure.finding.suggestion):
        failure.hints.insert(0, _OTHER_FRAMEWORK.format(framework="PyTorch/XLA"))
