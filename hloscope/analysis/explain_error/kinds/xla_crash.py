"""XLA aborted on one of its own checks: a bug in the compiler, not an error in the program.

C++ code states what must hold with ``CHECK(cond)``; when it does not, the process aborts with
a fatal log line and a stack trace::

    F0912 11:59:01.941641  741969 shape_tree.cc:54] Check failed: result->children_start_id >= 0
    *** Check failure stack trace: ***
        @     0x7f0e2076c1f1  xla::internal::IndexTable::operator[]()
        @     0x7f0e204fd1d4  xla::HloDataflowAnalysis::GetValueSet()

(TensorFlow's logger writes the same as ``2024-02-27 16:32:33.075782: F
external/xla/xla/service/gpu/nvptx_compiler.cc:614] Check failed: ...``; a ``Non-OK-status:``
fatal line is a CHECK on a status.) ``RET_CHECK failure (external/xla/xla/service/cpu/
ir_emitter.cc:1144) cond`` is the same kind of check returned as an ``INTERNAL`` error instead
of an abort.

The failure names the file and line of the check, the condition, whose code it is (XLA,
Mosaic -- Pallas's TPU compiler --, PyTorch/XLA, jaxlib), the platform the file is for and the
first function of the stack trace past the logging machinery (the pass or emitter that
failed); the advice is how to report it with a dump that reproduces it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind, torch_xla_log
from ..build import Kind, own_line
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import LIBRARY_CHECK

__all__ = ["RECOGNISER"]

_SOURCE = r"[\w.+-]+(?:/[\w.+-]+)*\.(?:cc|h|cpp|hpp|c)"
_OPENING = re.compile(
    # The check's words; the glog line before them (`F0912 11:59:01.941641  741969
    # file.cc:54] `, TensorFlow's logger: `2024-02-27 16:32:33.075782: F external/...cc:614] `)
    # is read back from the match (a literal opening keeps the scan fast).
    r"C(?P<check>heck failed: [^\n]{0,400})"
    r"|N(?P<nonok>on-OK-status: [^\n]{0,400})"
    rf"|RET_CHECK failure \((?P<rfile>{_SOURCE}):(?P<rline>\d+)\) ?(?P<rcond>[^\n]{{0,400}})"
    # An abort or a crash whose stack is XLA's (the check's own line may be lost): absl's
    # signal handler, and Python's faulthandler with the frames of jax's compile.
    # absl's handler wrote "received by PID" before 2023, "received at time=" after.
    r"|\*\*\* (?P<signal>SIG[A-Z]+)(?: \([^)\n]*\))?,?[^\n]{0,60}?received (?:by PID|at time=)"
    r"|Python error: (?P<fatal>Aborted|Segmentation fault|Bus error|Illegal instruction"
    r"|Floating point exception)"
    # The shell's word for a process that died of a signal, all a log may keep of a crash.
    r"|S(?P<shell_segv>egmentation fault)(?:[ \t]+\(core dumped\))?[ \t]*$"
    r"|A(?P<shell_abort>borted)[ \t]+\(core dumped\)[ \t]*$"
    r"|B(?P<shell_bus>us error)[ \t]+\(core dumped\)[ \t]*$"
    # faulthandler's dump pasted without the "Fatal Python error" line above it, and absl's
    # program counter at the signal ("PC: @ 0x... (unknown) fn") without its "received" line.
    r"|C(?P<dump>urrent thread 0x[0-9a-f]+ \(most recent call first\):)"
    r"|P(?P<pc>C: @\s+0x[0-9a-f]+)"
    # LLVM, XLA's code generator for CPUs and GPUs, aborting on what XLA handed it ("LLVM
    # ERROR: Cannot select: X86ISD::...", "LLVM ERROR: Do not know how to split ..."): no
    # program error reaches LLVM, so it is XLA's bug whatever the sentence.
    r"|LLVM ERROR: (?P<llvm>[^\n]{0,400})",
    re.M,
)
# LLVM's target of the code it failed to generate: its instruction-selection nodes
# (X86ISD::, AArch64ISD::), its backends' names.
_LLVM_TARGETS = (
    (
        re.compile(r"\b(?:X86|AArch64|ARM|PPC|SystemZ|RISCV)(?:ISD)?::|\bx86|aarch64", re.I),
        Platform.CPU,
    ),
    (re.compile(r"\b(?:NVPTX|AMDGPU)(?:ISD)?::|nvptx|amdgcn|\bsm_\d+", re.I), Platform.GPU),
)
# The signal a shell's words mean.
_SHELL_SIGNALS = {"shell_segv": "SIGSEGV", "shell_abort": "SIGABRT", "shell_bus": "SIGBUS"}
# A log of a program that ran XLA: its frames, its loggers' files, its exception classes.
_XLA_CONTEXT = re.compile(
    r"[\\/](?:jax|jaxlib|torch_xla|tensorflow)[\\/]|external/xla/|xla::|XlaRuntimeError"
    r"|libtpu|\bTPU\b|xla_bridge|Pjrt|PJRT"
)
# faulthandler's frames of the thread that crashed, inside a framework that runs XLA.
_FRAMEWORK_FRAME = re.compile(r'File "[^"\n]*[\\/](?:jax|jaxlib|torch_xla|tensorflow)[\\/]')
_CONTEXT_WINDOW = 64 * 1024
# What a crash printed before the shell's word for it.
_EARLIER_CRASH = re.compile(
    r"Check failed: |RET_CHECK failure|\*\*\* SIG[A-Z]+|Python error: |PC: @|Current thread 0x"
    r"|LLVM ERROR: "
    # A fatal glog line: "F0123 06:16:37.7 ...] ", TensorFlow's "2022-01-23 06:16:37: F ".
    r"|(?:^|\n)F\d{4} \d\d:|\d: F (?:external/|tensorflow/|xla/)"
)
# "Check failed: cusolverDnCreate(&h) == CUSOLVER_STATUS_SUCCESS": a library's start-up call.
_LIBRARY_CALL = re.compile(LIBRARY_CHECK)
_FATAL_LINE = re.compile(
    rf"(?:^|(?<=\s))F(?:\d{{4}} \d\d:\d\d:[\d.]+\s+\d+|(?<=: F)) (?P<file>{_SOURCE}):"
    r"(?P<line>\d+)\] $"
)
# A crash is XLA's when its frames are XLA's compiler or runtime; libtpu starting up is a
# start-up failure (read by .backend_startup), not a compiler bug.
_XLA_FRAMES = re.compile(r"xla::|Tpu\w*Compiler|TpuCompiler_|tensorflow::|mlir::|Pjrt")
_START_UP_FRAMES = re.compile(
    r"TpuPlatform_Initialize|TpuPlatform::Initialize|GetTpuClient|InitializePjRt|GetPjrtApi"
)
# Python frames of JAX compiling, after "Fatal Python error" (faulthandler's `File "..."`).
_COMPILING = re.compile(r"in (?:backend_compile|compile_or_get_cached|_cached_compilation)\b")
# absl's frame: `@ 0x7f0e2076c1f1 xla::Fn()`, with the frame's size and `(unknown)` for its
# file in newer releases, after Ray's logger prefix (`[2024-01-23 ... E 26616 1368] logging.cc:
# 460: `) where Ray runs it.
_ABSL_FRAME = re.compile(
    r"^(?:\[[^\]\n]*\] logging\.cc:\d+:)?[ \t]*(?:@\s+0x[0-9a-f]+\s+(?:\d+\s+)?|\t)"
    r"(?:\(unknown\)\s+)?(?P<fn>[A-Za-z_][^\n]*?)\s*$",
    re.M,
)
# Frames of the logging and status machinery, not of the code whose check failed.
_MACHINERY = re.compile(
    r"^(?:absl::|tsl::|tensorflow::CurrentStackTrace|xla::status_macros::|\(unknown\)"
    r"|std::|pybind11::|nanobind::|_Py|Py[A-Z]|cfunction_)"
)
_STACK_WINDOW = 4096
# Where XLA's compiler lives: its passes, emitters and autotuners.
_COMPILER = re.compile(
    r"xla/service/|Compiler|Emitter|Autotun|Pass\b|Partition|Hlo|BufferAssignment", re.I
)
_JAX_ISSUES = "https://github.com/jax-ml/jax/issues"
# Whose code a source path is, first match wins.
_OWNERS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern), owner, where)
    for pattern, owner, where in (
        (r"torch_xla", "PyTorch/XLA", "https://github.com/pytorch/xla/issues"),
        (r"mosaic|jaxlib/tpu|mlir::tpu", "Mosaic (Pallas's TPU compiler)", _JAX_ISSUES),
        (r"jaxlib/", "jaxlib", _JAX_ISSUES),
        (r"xla/|xla::|tensorflow/compiler", "XLA", "https://github.com/openxla/xla/issues"),
    )
)
_PLATFORM_PATHS = (
    (re.compile(r"/gpu/|::gpu::|nvptx|cuda|rocm|triton", re.I), Platform.GPU),
    (re.compile(r"/cpu/|::cpu::"), Platform.CPU),
    # Not inside a word ("output", "Outputs" hold the letters), except libtpu's and Tpu's.
    (re.compile(r"(?<![a-z])tpu|libtpu|Tpu|TPU|[Mm]osaic"), Platform.TPU),
)
# Where the check's own file and frames name no platform, the log's start-up lines do: XLA's
# "XLA service 0x... initialized for platform CUDA", StreamExecutor's GPU, JAX's devices.
_LOG_PLATFORM = re.compile(
    r"initialized for platform (?P<word>\w+)"
    r"|StreamExecutor device \(\d+\): (?P<gpu>[^,\n]+)"
    r"|\b(?P<device>Tpu|Cuda|Rocm)Device\(id="
    # PyTorch/XLA: its device variable and the device an exception names ("device=TPU:6").
    r"|PJRT_DEVICE=(?P<pjrt>TPU|CUDA|GPU|CPU)\b|\bdevice=(?P<torch>TPU|GPU|CUDA):\d"
    # JAX's CUDA plugin in a frame's path: the process ran on a GPU.
    r"|(?P<cuda_plugin>jax_cuda\d+_plugin|jax_plugins/xla_cuda\d+)"
)
_PLATFORM_WORDS = {"host": Platform.CPU, "cuda": Platform.GPU, "rocm": Platform.GPU}
_REPORT = (
    "an internal check of {owner} failed{at}{cond}: a bug in {owner}, not an error in your "
    "program. Report it ({where}) with the versions ({versions}), this message and a small "
    "program that triggers it; {dump} Until it is fixed: try another {packages} version, or "
    "write the failing part of the program another way{component}"
)
_XLA_DUMP = (
    "XLA_FLAGS=--xla_dump_to=/tmp/xla_dump writes the HLO modules, and the "
    "*before_optimizations.txt one reproduces it without Python (attach it)."
)
_TORCH_DUMP = (
    "XLA_SAVE_TENSORS_FMT=hlo XLA_SAVE_TENSORS_FILE=/tmp/save.hlo (with XLA_IR_DEBUG=1 "
    "XLA_HLO_DEBUG=1) saves the graphs to attach."
)
_MOSAIC_DUMP = "pallas_call(..., debug=True) prints the kernel's Mosaic module to attach."


def _owner(text: str) -> tuple[str, str]:
    for pattern, owner, where in _OWNERS:
        if pattern.search(text):
            return owner, where
    return "XLA", "https://github.com/openxla/xla/issues"


def _frames(log: Log, end: int) -> list[str]:
    """The functions of the stack trace that follows the message, machinery left out."""
    window = log.text[end : end + _STACK_WINDOW]
    if "stack trace" not in window[:400].lower():
        return []
    return [
        found["fn"]
        for found in _ABSL_FRAME.finditer(window)
        if not _MACHINERY.match(found["fn"]) and "::" in found["fn"]
    ]


def _platform(text: str, log: Log | None = None) -> Platform | None:
    """The platform the check's file or frames are for, else the one the log started."""
    for pattern, platform in _PLATFORM_PATHS:
        if pattern.search(text):
            return platform
    found = _LOG_PLATFORM.search(log.text) if log is not None else None
    if found is None:
        return None
    if found["gpu"] or found["cuda_plugin"]:
        return Platform.GPU
    word = (found["word"] or found["device"] or found["pjrt"] or found["torch"] or "").lower()
    word = "cuda" if word == "gpu" else word
    return _PLATFORM_WORDS.get(word) or (Platform.TPU if word == "tpu" else None)


def _llvm_target(message: str) -> Platform | None:
    """The platform of the code LLVM could not generate, from its target's names."""
    return next((platform for pattern, platform in _LLVM_TARGETS if pattern.search(message)), None)


def _short(path: str) -> str:
    """``external/xla/xla/service/gpu/x.cc`` -> ``xla/service/gpu/x.cc``."""
    return re.sub(r"^(?:external/[\w-]+/)?", "", path)


def _xla_crash(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    above = log.text[max(0, m.start() - 300) : m.start()]
    if (m["dump"] and "Python error: " in above) or (m["pc"] and " received " in above):
        return  # the dump of a fatal error or a signal read above
    if m["signal"] or m["fatal"] or m["dump"] or m["pc"] or _shell_signal(m):
        yield from _crash(log, m)
        return
    start = log.line_start(m.start())
    fatal = _FATAL_LINE.search(log.before_on_line(m.start())[-400:])
    if m["nonok"] and fatal is None:
        return  # a status CHECK is a crash only on a fatal line; elsewhere it is logged
    if m["check"] and _LIBRARY_CALL.search(m["check"]):
        return  # a CUDA library that did not start (read by .cuda_libraries), not XLA's bug
    path = (fatal["file"] if fatal else None) or m["rfile"] or ""
    line = (fatal["line"] if fatal else None) or m["rline"]
    condition = (m["check"] or m["nonok"] or m["rcond"] or m["llvm"] or "").strip()
    condition = re.sub(r"^heck failed: ", "", condition)
    frames = _frames(log, log.line_end(m.end()))
    context = " ".join([path, *frames[:3]])
    owner, where = _owner(context)
    component = f" (it failed in {frames[0]})" if frames else ""
    torch = owner == "PyTorch/XLA" or torch_xla_log(log.text)
    dump = _TORCH_DUMP if torch else _XLA_DUMP
    if owner.startswith("Mosaic"):
        dump = _MOSAIC_DUMP
    at = f" at {_short(path)}:{line}" if path else ""
    text = _REPORT.format(
        owner=owner,
        at=at,
        cond=f" ({condition[:160]})" if condition else "",
        where=where,
        dump=dump,
        component=component,
        versions="pip show torch torch_xla" if torch else "jax.print_environment_info()",
        packages="torch/torch_xla" if torch else "jax/jaxlib",
    )
    everything = " ".join([path, *frames])
    platform = _llvm_target(m["llvm"]) if m["llvm"] else None
    platform = platform or _platform(everything, log)
    hints = [f"{owner} source: {_short(path)}:{line}"] if path else []
    if frames:
        hints.append(f"failed in {frames[0]}")
    # The HLO instruction the check's condition names ("compare.5758 instruction contains
    # invalid operand id(s)", "%fusion.3"): the op it failed on.
    instruction = _INSTRUCTION.search(condition)
    check = "RET_CHECK" if m["rfile"] else ("LLVM ERROR" if m["llvm"] else "Check failed")
    failure = _KIND.failure(
        log,
        m.start(),
        op=instruction["hlo"] if instruction else check,
        # A check in a compiler pass is the compiler's; one elsewhere failed as it ran.
        reason=Reason.COMPILE_ERROR if _COMPILER.search(everything) else Reason.RUNTIME,
        advice=(text, AdviceKind.REPORT_BUG),
        node=f"{_short(path)}:{line}" if path else condition[:80],
        device=str(platform) if platform else None,
        platform=platform,
        status="INTERNAL" if m["rfile"] else None,  # an abort returns no status
        hints=hints,
    )
    # A CHECK that a call returned OK, failing with the call's own status ("... == OK()
    # (PERMISSION_DENIED: open(/dev/accel0): ... vs. OK)"): the status says what failed, and
    # whichever family reads it on this line explains the failure better than "a bug".
    failure.fallback = _CHECKED_STATUS.search(log.text, start, log.line_end(start)) is not None
    yield failure


# An HLO instruction's name (its opcode or target, XLA's unique suffix): not a file, a version
# or a member (`x.cc`, `0.4.26`, `shape.rank()`). (One printed whole, `%x = f32[] fusion(`,
# gives its opcode when the failure is completed.)
_INSTRUCTION = re.compile(r"(?<![\w./-])%?(?P<hlo>[a-z][a-z_-]*\.\d+)(?![\w.(/:-]| =)")
# The status a CHECK on a call's result printed beside OK: "(PERMISSION_DENIED: ... vs. OK)".
_CHECKED_STATUS = re.compile(r"\([A-Z][A-Z_]{3,}: [^\n]* vs\. OK\)")


_CRASH = (
    "{what}: a bug in {owner}, not an error in your program (the check that failed, when "
    "there was one, is printed just before: run with python -u so it is not lost). Report it "
    "({where}) with the versions ({versions}), this log and a small program that triggers "
    "it; {dump} Until it is fixed: try another {packages} version, or write the failing part "
    "of the program another way"
)


def _crash(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A process XLA aborted or crashed, read from its stack: absl's ``*** SIGABRT received by
    PID`` with XLA's frames, or ``Fatal Python error: Aborted`` in JAX's compile."""
    window = log.text[m.end() : m.end() + _STACK_WINDOW]
    signal = m["signal"] or _shell_signal(m)
    if m["signal"] or m["pc"]:
        if m["pc"]:  # the frame the signal stopped in is on the PC line itself
            window = log.text[m.start() + len("PC: ") : m.end()] + window
        if _XLA_FRAMES.search(window) is None or _START_UP_FRAMES.search(window):
            return
        frames = [f for f in _frames_of(window) if not f.startswith(("raise", "abort"))]
        what = f"XLA crashed ({m['signal'] or 'a signal'})"
    elif signal:
        before = log.text[max(0, m.start() - _CONTEXT_WINDOW) : m.start()]
        if _XLA_CONTEXT.search(before) is None:
            return  # a crash in a log with no sign of XLA is not for this tool to read
        if _EARLIER_CRASH.search(before[-_STACK_WINDOW * 4 :]):
            return  # the shell's last word on a crash read above (a check, a signal)
        frames = []
        what = f"the process running XLA crashed ({signal})"
    else:
        compiling = _COMPILING.search(window) is not None
        if not (compiling or _FRAMEWORK_FRAME.search(window) or _XLA_FRAMES.search(window)):
            return  # the user's own code crashed, not inside the framework
        before = log.text[max(0, m.start() - _STACK_WINDOW) : m.start()]
        if not compiling and _EARLIER_CRASH.search(before):
            return  # the abort of a fatal line or a check read above
        frames = []
        what = (
            "XLA aborted the process while JAX compiled the program"
            if compiling
            else f"the process crashed inside the framework ({m['fatal'] or 'a signal'})"
        )
    everything = " ".join(frames)
    owner, where = _owner(everything)
    torch = owner == "PyTorch/XLA" or torch_xla_log(log.text)
    text = _CRASH.format(
        what=what + (f" in {frames[0]}" if frames else ""),
        owner=owner,
        where=where,
        versions="pip show torch torch_xla" if torch else "jax.print_environment_info()",
        dump=_TORCH_DUMP if torch else _XLA_DUMP,
        packages="torch/torch_xla" if torch else "jax/jaxlib",
    )
    platform = _platform(everything, log)
    yield _KIND.failure(
        log,
        m.start(),
        op=signal or _FATAL_SIGNALS.get(m["fatal"] or "", "abort" if m["fatal"] else "crash"),
        reason=Reason.COMPILE_ERROR
        if _COMPILING.search(window) or _COMPILER.search(everything)
        else Reason.RUNTIME,
        advice=(text, AdviceKind.REPORT_BUG),
        node=frames[0] if frames else "",
        device=str(platform) if platform else None,
        platform=platform,
        hints=[f"failed in {frames[0]}"] if frames else [],
    )


# faulthandler's words for the signal that ended the process.
_FATAL_SIGNALS = {
    "Segmentation fault": "SIGSEGV",
    "Bus error": "SIGBUS",
    "Illegal instruction": "SIGILL",
    "Floating point exception": "SIGFPE",
}


def _shell_signal(m: re.Match[str]) -> str | None:
    return next((sig for group, sig in _SHELL_SIGNALS.items() if m[group]), None)


def _frames_of(window: str) -> list[str]:
    """The functions of an absl stack trace, machinery and unknown frames left out."""
    return [
        found["fn"] for found in _ABSL_FRAME.finditer(window) if not _MACHINERY.match(found["fn"])
    ]


# A crash is printed on a line of its own, after the logger's prefix (absl's `F... file:line]`).
_KIND = Kind(Family.XLA_CRASH, reading=own_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _OPENING, _xla_crash)
