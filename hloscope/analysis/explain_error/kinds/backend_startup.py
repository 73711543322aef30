"""The backend did not start: JAX's ``Unable to initialize backend 'tpu': ABORTED: The TPU is
already in use by process with pid 2718466``, ``CUDA backend failed to initialize: Found cuDNN
version 8600, but JAX was built against version 8906``, ``Backend 'cuda' failed to
initialize``, ``Requested backend tpu_driver, but it failed to initialize``, a CUDA-enabled
jaxlib that is not installed, TPU initialization failures; cuDNN and cuBLAS that cannot create
their handles (``Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR``) or initialise
(``FAILED_PRECONDITION: DNN library initialization failed``); a PJRT plugin whose
``initialize()`` raised (``Jax plugin configuration error``).

Nothing was compiled: the advice is about the machine -- the process holding the device, the
versions installed, the memory a framework took first -- and the device is named back as the
log names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ...unsupported.fixes import suggest
from ..advice import AdviceKind, torch_xla_log
from ..build import Kind, log_line
from ..catalogue import words_of
from ..device import named_accelerator, platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import memory_was_free

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_DNN_FAILED = "DNN library initialization failed"


def _backend(m: re.Match[str]) -> tuple[str, str]:
    """The backend's name and the rest of the message."""
    for name, rest in (("ub", "ub_msg"), ("rb", "rb_msg"), ("bf", "bf_msg")):
        if m[name]:
            return m[name], m[rest] or ""
    if m["cb_msg"] is not None:
        return "CUDA", m["cb_msg"]
    if m["ti_msg"] is not None:
        return "tpu", m["ti_msg"] or ""
    if m["nd_platform"]:
        return m["nd_platform"].lower(), m.group()
    return "gpu", m["handle_msg"] or ""


def _advice(log: Log, m: re.Match[str], backend: str, message: str) -> tuple[str, AdviceKind]:
    mismatch = _RE.opening.search(message)
    if mismatch is not None and mismatch["pjrt_plugin"]:
        text = _TEXT.pjrt.format(
            plugin=mismatch["pjrt_plugin"], framework=mismatch["pjrt_framework"]
        )
        return text, AdviceKind.INSTALL
    pid = _RE.pid.search(message)
    if pid is not None:
        number = "" if pid["pid"] == ".." else f" (pid {pid['pid']})"
        return _TEXT.release.format(pid=number), AdviceKind.RELEASE_DEVICE
    if _RE.busy.search(message):  # the device file held, in the kernel's or libtpu's words
        return _TEXT.release.format(pid="") + _TEXT.stale_lock, AdviceKind.RELEASE_DEVICE
    if _handle(m):
        # A CUDA runtime error met before the library's handle (cudaErrorSymbolNotFound,
        # cudaErrorInsufficientDriver): the driver and the CUDA the framework brings do not
        # go together; memory was never asked for.
        if memory_was_free(log, m.end(), 512) or m["handle_msg"].startswith("cudaError"):
            return _TEXT.install, AdviceKind.INSTALL
        return _TEXT.handle_memory, AdviceKind.FREE_MEMORY
    if m.group().startswith(_DNN_FAILED):
        return suggest("xla:cudnn_init"), AdviceKind.INSTALL
    if m["nd_platform"]:
        return _TEXT.no_devices.format(platform=m["nd_platform"]), AdviceKind.INSTALL
    if m["ti_msg"] is not None:
        return (
            "the TPU runtime did not start with this process layout: check the worker "
            "addresses and how many processes share the host (one per host by default)",
            AdviceKind.OTHER,
        )
    if m["ub"] and _RE.probed.search(log.before_on_line(m.start())) and backend != "cuda":
        return _TEXT.harmless, AdviceKind.HARMLESS
    if "libtpu.so" in message and "cannot open" in message and not _raised(log, m):
        # JAX probing for a TPU, logged, and going on without one; raised, the TPU was asked.
        return _TEXT.harmless, AdviceKind.HARMLESS
    return _TEXT.install, AdviceKind.INSTALL


# The forms about the machine rather than a backend's name: each read by _machine_form.
_MACHINE_FORMS = (
    "held",
    "held_tpu",
    "accel",
    "tpu_sys",
    "signal",
    "plugin",
    "pjrt_plugin",
    "pjrt_struct",
    "pjrt_option",
    "pc_plugin",
    "llvm_cpu",
    "infer_device",
)
_VERSION_FORMS = ("old_jaxlib", "new_jaxlib")


def _raised(log: Log, m: re.Match[str]) -> bool:
    """Whether the message is an exception raised (``RuntimeError: Unable to initialize
    backend ...``), not a line a logger wrote while JAX went on."""
    return _RE.raised.search(log.before_on_line(m.start())) is not None


def _handle(m: re.Match[str]) -> str | None:
    """``cudnn`` or ``cublas`` when the match is a library that could not create its handle."""
    return f"c{m['handle_lib']}" if m["handle_lib"] else None


def _machine_form(log: Log, m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]] | None:
    """The op, device and advice of a message about the machine; ``None`` when the match is
    not one to report (a busy TPU said inside a backend's failure, read from that opening;
    a crash that is not libtpu's start-up)."""
    line = log.before_on_line(m.start())
    if (m["held"] or m["held_tpu"] or m["pjrt_plugin"]) and _RE.backend_line.search(line):
        return None
    if m["held"] or m["held_tpu"] or m["accel"]:
        found = _RE.pid.search(log.text, m.start(), log.line_end(m.start()))
        pid = m["held_pid"] or (found["pid"] if found else None)
        number = f" (pid {pid})" if pid and pid != ".." else ""
        why = f" ({m['accel_why']})" if m["accel_why"] else ""
        text = _TEXT.release.format(pid=number + why) + _TEXT.stale_lock
        return "backend tpu", "tpu", (text, AdviceKind.RELEASE_DEVICE)
    if m["tpu_sys"] is not None:
        detail = m["tpu_sys"].strip().lstrip(".").strip() or (
            "it could not read the global TPU topology"
            if "topology" in m.group()
            else "no reason given"
        )
        kind = AdviceKind.RELEASE_DEVICE if _RE.mmap_or_busy.search(detail) else AdviceKind.INSTALL
        return "backend tpu", "tpu", (_TEXT.tpu_system.format(detail=detail[:200]), kind)
    if m["signal"]:
        window = log.text[m.end() : m.end() + 4096]
        frame = _RE.tpu_start_frames.search(window)
        if frame is None:
            return None
        text = _TEXT.tpu_crash.format(signal=m["signal"], frame=f" (in {frame.group()})")
        return "libtpu", "tpu", (text, AdviceKind.INSTALL)
    if m["plugin"]:
        package = m["plugin"].removesuffix("_plugin").replace("_", "-")
        extra = package.removeprefix("jax-")
        text = _TEXT.plugin.format(
            plugin=m["plugin"],
            version=m["plugin_v"].rstrip(","),
            jaxlib=m["plugin_jaxlib"],
            package=package,
            extra=extra,
        )
        device = "tpu" if "tpu" in package else "gpu"
        return f"plugin {m['plugin']}", device, (text, AdviceKind.INSTALL)
    if m["pjrt_plugin"]:
        text = _TEXT.pjrt.format(plugin=m["pjrt_plugin"], framework=m["pjrt_framework"])
        return "PJRT plugin", "", (text, AdviceKind.INSTALL)
    if m["pjrt_struct"] or m["pjrt_option"]:
        text = _TEXT.pjrt_abi.format(what=m["pjrt_struct"] or f"an option of {m['pjrt_option']}")
        return "PJRT plugin", "", (text, AdviceKind.INSTALL)
    if m["pc_plugin"]:
        return _plugin_initialize(log, m)
    if m["infer_device"]:
        return "device type", "", (_TEXT.infer_device, AdviceKind.INSTALL)
    if m["llvm_cpu"]:
        text = _TEXT.llvm_target.format(cpu=m["llvm_cpu"])
        return f"LLVM target {m['llvm_cpu']}", "gpu", (text, AdviceKind.INSTALL)
    return None


def _plugin_initialize(log: Log, m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]]:
    plugin = m["pc_plugin"]
    window = log.text[m.end() : min(len(log.text), m.end() + 8192)]
    raised = list(_RE.raised_line.finditer(window))
    why = f"{raised[0]['cls'].rsplit('.', 1)[-1]}: {raised[0]['msg'][:160]}" if raised else ""
    device = "tpu" if "tpu" in plugin else "gpu"
    extra = plugin.removeprefix("xla_")  # xla_cuda12 -> cuda12
    text = _TEXT.plugin_init.format(plugin=plugin, why=why or "see its traceback", extra=extra)
    return f"plugin {plugin}", device, (text, AdviceKind.INSTALL)


def _versions(m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]]:
    if m["old_jaxlib"]:
        detail = f"jaxlib {m['old_jaxlib'].rstrip(',')}, jax needs >= {m['min_jaxlib']}"
    else:
        detail = f"jaxlib {m['new_jaxlib']} is newer than jax {m['old_jax']}"
    return "jaxlib", "", (_TEXT.jax_jaxlib.format(detail=detail), AdviceKind.INSTALL)


def _machine(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _versions(m) if any(m[g] for g in _VERSION_FORMS) else _machine_form(log, m)
    if read is None:
        return
    op, device, (text, kind) = read
    start = log.line_start(m.start())
    platform = platform_of(device) if device else platform_of(log.headline(start))
    hints = []
    if m["plugin"]:
        hints.append("a RuntimeWarning: the program runs on, without the plugin's device")
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(text, kind),
        device=device or None,
        platform=platform,
        hints=hints,
    )


def _startup(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["handle_lib"] and not _RE.create.search(log.before_on_line(m.start())[-40:]):
        return  # the library named in another sentence
    if m["accel"] and not _RE.open_device.search(log.before_on_line(m.start())[-40:]):
        return  # a device path named elsewhere ("sudo lsof -w /dev/accel0")
    if any(m[g] is not None for g in (*_MACHINE_FORMS, *_VERSION_FORMS)):
        yield from _machine(log, m)
        return
    if _handle(m) == "cudnn" and _DNN_FAILED in log.text[m.end() : m.end() + 8192]:
        return  # the DNN failure below says it, with these lines as its causes
    backend, message = _backend(m)
    text, kind = _advice(log, m, backend, message)
    if kind is AdviceKind.INSTALL and torch_xla_log(log.text):
        text = _TEXT.install_torch  # JAX's packages are not the ones this process loaded
    platform = platform_of(backend) or platform_of("gpu" if backend == "gpu" else None)
    device = str(platform) if platform else backend
    name = named_accelerator(log.text) if platform and platform.value == "gpu" else None
    if name:
        device = f"gpu ({name})"
    hints = [message.strip()] if message.strip() else []
    # A handle refused with no sign that memory was free: a full device first, then a CUDA
    # or cuDNN that does not go with the driver (the two causes its threads end on).
    more = [(str(AdviceKind.INSTALL), _TEXT.install)] if kind is AdviceKind.FREE_MEMORY else []
    if m.group().startswith(_DNN_FAILED):
        window = log.text[max(0, m.start() - 8192) : m.start()]
        hints = list(dict.fromkeys(c.group() for c in _RE.cudnn_causes.finditer(window)))
    op = {"cudnn": "cuDNN", "cublas": "cuBLAS"}.get(_handle(m) or "", "")
    if m.group().startswith(_DNN_FAILED):
        op = "cuDNN"
    yield _KIND.failure(
        log,
        m.start(),
        op=op or f"backend {backend}",
        reason=Reason.COMPILE_ERROR,
        advice=(text, kind),
        device=device,
        platform=platform,
        hints=hints,
        more_advice=more,
    )


# Nothing was compiled: the machine or its packages failed (a plugin refused, a cuDNN missing).
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _startup)
