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

Two checks are not the compiler's: one in PyTorch/XLA's runtime client as it sets up its
devices (``XrtComputationClient::InitializeDevices``, under ``xm.xla_device()``) is a runtime
that did not start (``backend_startup``: its configuration, XRT's or PJRT's), and a
``Non-OK-status`` whose status is a ``custom_partitioning`` rule's Python traceback is that
rule's failure (``sharding`` reads it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind, torch_xla_log
from ..build import Kind, own_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import LIBRARY_CHECK

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

# LLVM's target of the code it failed to generate, by its names.
_LLVM_TARGETS = ((_RE.llvm_cpu, Platform.CPU), (_RE.llvm_gpu, Platform.GPU))
# The signal a shell's words mean.
_SHELL_SIGNALS = {"shell_segv": "SIGSEGV", "shell_abort": "SIGABRT", "shell_bus": "SIGBUS"}
_CONTEXT_WINDOW = 64 * 1024
# "Check failed: cusolverDnCreate(&h) == CUSOLVER_STATUS_SUCCESS": a library's start-up call.
_LIBRARY_CALL = re.compile(LIBRARY_CHECK)
_STACK_WINDOW = 4096
_JAX_ISSUES = "https://github.com/jax-ml/jax/issues"
# Whose code a source path is, first match wins.
_OWNERS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (_RE.owner_torch_xla, "PyTorch/XLA", "https://github.com/pytorch/xla/issues"),
    (_RE.owner_mosaic, "Mosaic (Pallas's TPU compiler)", _JAX_ISSUES),
    (_RE.owner_jaxlib, "jaxlib", _JAX_ISSUES),
    (_RE.owner_tt_metal, "tt-metal", "https://github.com/tenstorrent/tt-metal/issues"),
    (
        _RE.owner_shardy,
        "Shardy (XLA's sharding compiler)",
        "https://github.com/openxla/shardy/issues",
    ),
    (_RE.owner_xla, "XLA", "https://github.com/openxla/xla/issues"),
)
# The platform a check's file or frames are for, first match wins.
_PLATFORM_PATHS = (
    (_RE.gpu_path, Platform.GPU),
    (_RE.cpu_path, Platform.CPU),
    (_RE.tpu_path, Platform.TPU),
)
_PLATFORM_WORDS = {"host": Platform.CPU, "cuda": Platform.GPU, "rocm": Platform.GPU}


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
        for found in _RE.absl_frame.finditer(window)
        if not _RE.machinery.match(found["fn"]) and "::" in found["fn"]
    ]


def _platform(text: str, log: Log | None = None) -> Platform | None:
    """The platform the check's file or frames are for, else the one the log started."""
    for pattern, platform in _PLATFORM_PATHS:
        if pattern.search(text):
            return platform
    found = _RE.log_platform.search(log.text) if log is not None else None
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


# How far under a check's line its own message may say what it found.
_BELOW_CHECK = 200


def _xla_crash(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    above = log.text[max(0, m.start() - 300) : m.start()]
    if (m["dump"] and "Python error: " in above) or (m["pc"] and " received " in above):
        return  # the dump of a fatal error or a signal read above
    if m["signal"] or m["fatal"] or m["dump"] or m["pc"] or _shell_signal(m):
        yield from _crash(log, m)
        return
    if m["pbfile"]:
        yield _protobuf(log, m)
        return
    assertion = _assertion_site(log, m) if m["assertion"] or m["unreachable"] else None
    if (m["assertion"] or m["unreachable"]) and assertion is None:
        return  # an assert() outside the compiler stack: the program's own, or another tool's
    if m["irbug"] and _RE.earlier_crash.search(
        log.text[max(0, m.start() - _STACK_WINDOW) : m.start()]
    ):
        return  # the closing sentence of a RET_CHECK read above
    start = log.line_start(m.start())
    fatal = _RE.fatal_line.search(log.before_on_line(m.start())[-400:])
    if m["nonok"] and fatal is None:
        return  # a status CHECK is a crash only on a fatal line; elsewhere it is logged
    if m["nonok"] and _RE.callback_raised.search(log.text, m.end(), log.line_end(m.end()) + 200):
        return  # a Python rule XLA called raised (custom_partitioning's): .sharding reads it
    if m["check"] and _LIBRARY_CALL.search(m["check"]):
        return  # a CUDA library that did not start (read by .cuda_libraries), not XLA's bug
    if m["rcond"] and _RE.no_dnn.match(m["rcond"].strip()):
        yield _no_dnn(log, m)
        return
    site = assertion or {}
    path = (fatal["file"] if fatal else None) or m["rfile"] or m["tfile"] or site.get("file", "")
    line = (fatal["line"] if fatal else None) or m["rline"] or m["tline"] or site.get("line")
    condition = m["check"] or m["nonok"] or m["rcond"] or m["tcond"] or m["llvm"] or m["acond"]
    condition = condition or ""
    condition = condition or site.get("said", "")
    condition = re.sub(r"^heck failed: ", "", condition.strip())
    if m["irbug"]:
        condition = f"T{m['irbug']}"  # the opening keeps the sentence's first letter out
    frames = _frames(log, log.line_end(m.end())) or site.get("fn", "").split()[-1:]
    if _client_starting(log, m, path, frames):
        yield _client_start(log, m, condition, " ".join([path, *frames]))
        return
    context = " ".join([path, *frames[:3]])
    owner, where = _owner(context)
    component = f" (it failed in {frames[0]})" if frames else ""
    torch = owner == "PyTorch/XLA" or torch_xla_log(log.text)
    dump = _TEXT.torch_dump if torch else _TEXT.xla_dump
    if owner.startswith("Mosaic"):
        dump = _TEXT.mosaic_dump
    at = f" at {_short(path)}:{line}" if path else ""
    text = _TEXT.report.format(
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
    instruction = _RE.instruction.search(condition)
    check = "RET_CHECK" if m["rfile"] else ("LLVM ERROR" if m["llvm"] else "Check failed")
    check = "Assertion" if m["assertion"] else ("UNREACHABLE" if m["unreachable"] else check)
    check = "TT_FATAL" if m["tfile"] else check
    check = "LLVM IR verifier" if _RE.llvm_verifier.search(condition) else check
    fixes = [(AdviceKind.REPORT_BUG, text)]
    if _RE.dialect_twice.search(condition):  # two MLIRs in one process: not a bug to report
        fixes.insert(0, (AdviceKind.INSTALL, _TEXT.dialect_twice))
    devices = _RE.device_compare.search(condition)
    if devices:  # the check caught the program's operands on two devices: that first
        said = _TEXT.devices.format(got=devices["got"], want=devices["want"])
        fixes.insert(0, (AdviceKind.SAME_DEVICES, said))
    if _RE.not_xla_tensor.search(log.text, m.start(), log.line_end(m.end()) + _BELOW_CHECK):
        fixes.insert(0, (AdviceKind.EXPLICIT_TRANSFER, _TEXT.not_xla_tensor))
    failure = _KIND.failure(
        log,
        m.start(),
        op=instruction["hlo"] if instruction else check,
        # A check in a compiler pass is the compiler's; one elsewhere failed as it ran.
        reason=Reason.COMPILE_ERROR
        if m["irbug"] or _RE.compiler.search(everything)
        else Reason.RUNTIME,
        fixes=fixes,
        node=f"{_short(path)}:{line}" if path else condition[:80],
        device=str(platform) if platform else None,
        platform=platform,
        status="INTERNAL" if m["rfile"] else None,  # an abort returns no status
        hints=hints,
    )
    # A CHECK that a call returned OK, failing with the call's own status ("... == OK()
    # (PERMISSION_DENIED: open(/dev/accel0): ... vs. OK)"): the status says what failed, and
    # whichever family reads it on this line explains the failure better than "a bug".
    # So is a check whose own message says what it found ("Check failed: xtensor: Input
    # tensor is not an XLA tensor: CPUFloatType", CHECK(cond) << "message").
    failure.fallback = (
        _RE.checked_status.search(log.text, start, log.line_end(start)) is not None
        or ": " in condition
    )
    yield failure


def _assertion_site(log: Log, m: re.Match[str]) -> dict[str, str] | None:
    """The file, line and function of a failed ``assert()`` (glibc's words before
    "Assertion" on its line), or the file, line and message (the line above) of an
    ``llvm_unreachable()``, where they are the compiler stack's; else ``None``."""
    if m["unreachable"]:
        if not _RE.assert_owner.search(m["ufile"]):
            return None
        start = log.line_start(m.start())
        said = log.text[log.previous_line_start(start) : max(start - 1, 0)].strip()
        return {"file": m["ufile"], "line": m["uline"], "fn": "", "said": said}
    site = _RE.assert_site.search(log.before_on_line(m.start())[-800:])
    if site is None or not _RE.assert_owner.search(site.group()):
        return None
    # "virtual LogicalResult mlir::sdy::(anonymous namespace)::Pattern::matchAndRewrite(CallOp,
    # ...) const": its qualified name, without the return type, the anonymous namespace and
    # the parameters.
    name = site["fn"].replace("(anonymous namespace)::", "").split("(")[0]
    return {"file": site["file"], "line": site["line"], "fn": name}


def _crash(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    """A process XLA aborted or crashed, read from its stack: absl's ``*** SIGABRT received by
    PID`` with XLA's frames, or ``Fatal Python error: Aborted`` in JAX's compile."""
    window = log.text[m.end() : m.end() + _STACK_WINDOW]
    signal = m["signal"] or _shell_signal(m)
    if m["signal"] or m["pc"]:
        if m["pc"]:  # the frame the signal stopped in is on the PC line itself
            window = log.text[m.start() + len("PC: ") : m.end()] + window
        if _RE.xla_frames.search(window) is None or _RE.start_up_frames.search(window):
            return
        frames = [f for f in _frames_of(window) if not f.startswith(("raise", "abort"))]
        what = f"XLA crashed ({m['signal'] or 'a signal'})"
    elif signal:
        before = log.text[max(0, m.start() - _CONTEXT_WINDOW) : m.start()]
        if _RE.xla_context.search(before) is None:
            return  # a crash in a log with no sign of XLA is not for this tool to read
        if _RE.earlier_crash.search(before[-_STACK_WINDOW * 4 :]):
            return  # the shell's last word on a crash read above (a check, a signal)
        frames = []
        what = f"the process running XLA crashed ({signal})"
    else:
        starting = _RE.starting.search(window)
        if starting is not None:
            yield from _start_crash(log, m, starting)
            return
        compiling = _RE.compiling.search(window) is not None
        if not (compiling or _RE.framework_frame.search(window) or _RE.xla_frames.search(window)):
            return  # the user's own code crashed, not inside the framework
        before = log.text[max(0, m.start() - _STACK_WINDOW) : m.start()]
        if not compiling and _RE.earlier_crash.search(before):
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
    text = _TEXT.crash.format(
        what=what + (f" in {frames[0]}" if frames else ""),
        owner=owner,
        where=where,
        versions="pip show torch torch_xla" if torch else "jax.print_environment_info()",
        dump=_TEXT.torch_dump if torch else _TEXT.xla_dump,
        packages="torch/torch_xla" if torch else "jax/jaxlib",
    )
    platform = _platform(everything, log)
    yield _KIND.failure(
        log,
        m.start(),
        op=signal or _FATAL_SIGNALS.get(m["fatal"] or "", "abort" if m["fatal"] else "crash"),
        reason=Reason.COMPILE_ERROR
        if _RE.compiling.search(window) or _RE.compiler.search(everything)
        else Reason.RUNTIME,
        advice=(text, AdviceKind.REPORT_BUG),
        node=frames[0] if frames else "",
        device=str(platform) if platform else None,
        platform=platform,
        hints=[f"failed in {frames[0]}"] if frames else [],
        more_advice=[] if torch else [(str(AdviceKind.INSTALL), _TEXT.crash_upgrade)],
    )


def _protobuf(log: Log, m: re.Match[str]) -> Failure:
    """protobuf's fatal check, which aborts the process: a .proto registered twice (two
    packages' copies of TSL/XLA in one process) is the installation's to fix; any other check
    of protobuf's a bug to report."""
    window = log.text[max(0, m.start() - 400) : log.line_end(m.end()) + 400]
    twice = _RE.proto_twice.search(window)
    fixes = []
    if twice:
        fixes.append((AdviceKind.INSTALL, _TEXT.proto_twice.format(proto=twice["proto"])))
    text = _TEXT.protobuf_check.format(said=m["pbmsg"].strip()[:160])
    fixes.append((AdviceKind.REPORT_BUG, text))
    return _KIND.failure(
        log,
        m.start(),
        op="protobuf",
        reason=Reason.RUNTIME,
        fixes=fixes,
        node=f"{_short(m['pbfile'])}:{m['pbline']}",
    )


def _no_dnn(log: Log, m: re.Match[str]) -> Failure:
    """XLA:GPU's check that the backend has its DNN library, failed: the library did not
    start with the backend (a start-up failure, though a compile meets it)."""
    lib = " or MIOpen" if "rocm" in m["rfile"].lower() else ""
    return _START_KIND.failure(
        log,
        m.start(),
        op="cuDNN",
        node=f"{_short(m['rfile'])}:{m['rline']}",
        advice=(_TEXT.no_dnn.format(lib=lib), AdviceKind.INSTALL),
        device="gpu",
        platform=Platform.GPU,
        status="INTERNAL",
    )


def _client_starting(log: Log, m: re.Match[str], path: str, frames: list[str]) -> bool:
    """Whether a check failed in PyTorch/XLA's runtime client as it set up its devices: its
    C++ frames after (``XrtComputationClient::InitializeDevices``, in absl's form or as a
    plain list) or the Python frames of the traceback before (``xm.xla_device()``'s
    ``get_xla_supported_devices``)."""
    if not _RE.torch_client.search(path) and not torch_xla_log(log.text):
        return False
    around = log.text[max(0, m.start() - _STACK_WINDOW) : m.end() + _STACK_WINDOW]
    return _RE.client_start.search(" ".join([*frames, around])) is not None


def _client_start(log: Log, m: re.Match[str], condition: str, everything: str) -> Failure:
    """PyTorch/XLA's runtime that did not come up on the machine's devices: its
    configuration (XRT's, PJRT's) does not fit them."""
    platform = _platform(everything, log)
    if platform is None and _RE.client_tpu.search(f"{condition} {everything}"):
        platform = Platform.TPU
    said = f" ({condition[:160]})" if condition else ""
    return _START_KIND.failure(
        log,
        m.start(),
        op="device setup",
        node=condition[:80],
        fixes=[
            (AdviceKind.OTHER, _TEXT.client_start.format(cond=said)),
            (AdviceKind.INSTALL, _TEXT.client_install),
        ],
        device=str(platform) if platform else None,
        platform=platform,
    )


def _start_crash(log: Log, m: re.Match[str], starting: re.Match[str]) -> Iterator[Failure]:
    """A crash in JAX's start of a backend (faulthandler's frames): a runtime that did not
    start, whose pieces are missing or of releases that do not go together."""
    frame = starting.group().removeprefix("in ")
    yield _START_KIND.failure(
        log,
        m.start(),
        op=_FATAL_SIGNALS.get(m["fatal"] or "", "abort" if m["fatal"] else "crash"),
        node=frame,
        advice=(_TEXT.start_crash.format(frame=frame), AdviceKind.INSTALL),
        hints=[f"crashed in {frame}"],
    )


# faulthandler's words for the signal that ended the process.
_FATAL_SIGNALS = {
    "Segmentation fault": "SIGSEGV",
    "Bus error": "SIGBUS",
    "Illegal instruction": "SIGILL",
    "Floating point exception": "SIGFPE",
}


def _shell_signal(m: re.Match[str]) -> str | None:
    if m["shell_named"]:
        return m["shell_signal"]
    return next((sig for group, sig in _SHELL_SIGNALS.items() if m[group]), None)


def _frames_of(window: str) -> list[str]:
    """The functions of an absl stack trace, machinery and unknown frames left out."""
    return [
        found["fn"]
        for found in _RE.absl_frame.finditer(window)
        if not _RE.machinery.match(found["fn"])
    ]


# A crash is printed on a line of its own, after the logger's prefix (absl's `F... file:line]`).
_KIND = Kind(Family.XLA_CRASH, reading=own_line)
# A crash while the backend started: the runtime did not start.
_START_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _xla_crash)
