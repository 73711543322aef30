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
from ..device import named_accelerator, platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import memory_was_free

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"Unable to initialize backend '(?P<ub>\w+)': ?(?P<ub_msg>[^\n]*)"
    r"|Requested backend (?P<rb>\w+), but it failed to initialize: ?(?P<rb_msg>[^\n]*)"
    r"|Backend '(?P<bf>\w+)' failed to initialize: ?(?P<bf_msg>[^\n]*)"
    r"|CUDA backend failed to initialize: ?(?P<cb_msg>[^\n]*)"
    r"|TPU initialization failed: ?(?P<ti_msg>[^\n]*)"
    r"|An NVIDIA (?P<nv>GPU) may be present on this machine, but a CUDA-enabled jaxlib is not "
    r"installed"
    # "Could not create cudnn handle: ...", "failed to create cublas handle: ...": keyed on
    # the library's name (a rarer letter than the sentence's), the verb read back.
    r"|c(?P<handle_lib>udnn|ublas) handle: ?(?P<handle_msg>\w+)"
    r"|DNN library initialization failed"
    # The TPU held by another process, in the words of libtpu's loader and the driver.
    r"|l(?P<held>ibtpu\.so already in use by another process)"
    r"|T(?P<held_tpu>he TPU is already in use by (?:process with pid (?P<held_pid>\d+)|another "
    r"process))"
    r"|/(?P<accel>dev/(?:accel|vfio/)\d+)"
    r"(?: \((?P<accel_why>[^)\n]+)\))?"
    # libtpu failing to bring the chips up, or crashing while it does.
    r"|Failed to (?:initialize TPU system(?: with error)?: ?|get global TPU topology\.? ?)"
    r"(?P<tpu_sys>[^\n]*)"
    r"|\*\*\* (?P<signal>SIG[A-Z]+) \([^\n]*received by PID"
    # A plugin or jaxlib of another version than the jax (or jaxlib) installed.
    r"|JAX plugin (?P<plugin>\w+) version (?P<plugin_v>\S+) is installed,\s+but it is not\s+"
    r"compatible with the installed jaxlib version (?P<plugin_jaxlib>\d[\w.+-]*?)"
    r"(?=,|\.?\s|\.?$)"
    r"|Mismatched PJRT plugin PJRT API version \((?P<pjrt_plugin>[\d.]+)\) and framework PJRT "
    r"API version \(?(?P<pjrt_framework>[\d.]+)"
    # The PJRT C API's own checks of what the other side passed: a struct of another size
    # (XLA's "Unexpected PJRT_X_Args size: expected 32, got 24. The plugin is likely built
    # with a later version than the framework", wrapped anywhere), an option it does not know.
    r"|Unexpected (?P<pjrt_struct>PJRT_\w+)\s+size:\s+expected \d+, got \d+"
    r"|Unexpected option name passed to (?P<pjrt_option>PJRT_Client_Create)"
    r"|jaxlib is version (?P<old_jaxlib>\S+), but this version of jax requires version "
    r">= (?P<min_jaxlib>\d[\w.]*\d)"
    r"|jaxlib version (?P<new_jaxlib>\S+) is newer than and incompatible with jax version "
    r"(?P<old_jax>\d[\w.]*\d)"
    # A PJRT plugin whose initialize() raised (jax 0.4.26 on; a plain literal start, as every
    # alternative here, keeps the scan fast): the exception after the
    # traceback says why -- a registration call of another jaxlib's signature, a CUDA library
    # its version check could not query.
    r"|Jax plugin configuration error: Exception when calling "
    r"jax_plugins\.(?P<pc_plugin>\w+)\.initialize\(\)",
    re.M,
)
_PID = re.compile(r"in use by process with pid (?P<pid>\d+|\.\.)")
# A backend JAX tries on the way to another one: its failure is an INFO line, not the error.
_PROBED = re.compile(r"\bINFO\b|^I\d{4} |xla_bridge\.py:\d+\]", re.M)
_DNN_FAILED = "DNN library initialization failed"
_CUDNN_CAUSES = re.compile(
    r"Loaded runtime CuDNN library: [^\n]*?compiled with: [\d.]+"
    r"|Could not create cudnn handle: \w+"
    r"|Memory usage: \d+ bytes free, \d+ bytes total"
)

_INSTALL = (
    "the installed versions do not match: install the jax/jaxlib build for this machine "
    '(pip install -U "jax[cuda12]" for NVIDIA GPUs, "jax[tpu]" on a TPU VM) and the '
    "CUDA/cuDNN it was built against; check with jax.print_environment_info()"
)
_INSTALL_TORCH = (
    "the installed versions do not match: install torch, torch_xla and the libtpu (or CUDA "
    "build) torch_xla was built with, all of one release (torch_xla's own install line for "
    "the device), and check them with pip show torch torch_xla libtpu"
)
_RELEASE = (
    "another process holds the TPU{pid}: stop it (a notebook kernel, an earlier run still "
    "alive: `sudo lsof -w /dev/accel0` or `tpu-info`), or run one process per TPU host"
)
_HARMLESS = (
    "JAX tries every backend it knows and says so when one is absent; harmless unless you "
    "meant to run on it (JAX_PLATFORMS=cpu or =cuda stops the probe)"
)
_HANDLE_MEMORY = (
    "the library could not get GPU memory for its handle: another framework or process took "
    "it first (TF: tf.config.experimental.set_memory_growth; JAX: "
    "XLA_PYTHON_CLIENT_PREALLOCATE=false, or a lower XLA_PYTHON_CLIENT_MEM_FRACTION); when "
    "plenty is free, the cuDNN/cuBLAS version does not match the framework's"
)


def _backend(m: re.Match[str]) -> tuple[str, str]:
    """The backend's name and the rest of the message."""
    for name, rest in (("ub", "ub_msg"), ("rb", "rb_msg"), ("bf", "bf_msg")):
        if m[name]:
            return m[name], m[rest] or ""
    if m["cb_msg"] is not None:
        return "CUDA", m["cb_msg"]
    if m["ti_msg"] is not None:
        return "tpu", m["ti_msg"] or ""
    return "gpu", m["handle_msg"] or ""


def _advice(log: Log, m: re.Match[str], backend: str, message: str) -> tuple[str, AdviceKind]:
    mismatch = _OPENING.search(message)
    if mismatch is not None and mismatch["pjrt_plugin"]:
        text = _PJRT.format(plugin=mismatch["pjrt_plugin"], framework=mismatch["pjrt_framework"])
        return text, AdviceKind.INSTALL
    pid = _PID.search(message)
    if pid is not None:
        number = "" if pid["pid"] == ".." else f" (pid {pid['pid']})"
        return _RELEASE.format(pid=number), AdviceKind.RELEASE_DEVICE
    if _BUSY.search(message):  # the device file held, in the kernel's or libtpu's words
        return _RELEASE.format(pid="") + _STALE_LOCK, AdviceKind.RELEASE_DEVICE
    if _handle(m):
        if memory_was_free(log, m.end(), 512):
            return _INSTALL, AdviceKind.INSTALL
        return _HANDLE_MEMORY, AdviceKind.FREE_MEMORY
    if m.group().startswith(_DNN_FAILED):
        return suggest("xla:cudnn_init"), AdviceKind.INSTALL
    if m["ti_msg"] is not None:
        return (
            "the TPU runtime did not start with this process layout: check the worker "
            "addresses and how many processes share the host (one per host by default)",
            AdviceKind.OTHER,
        )
    if m["ub"] and _PROBED.search(log.before_on_line(m.start())) and backend != "cuda":
        return _HARMLESS, AdviceKind.HARMLESS
    if "libtpu.so" in message and "cannot open" in message:
        return _HARMLESS, AdviceKind.HARMLESS
    return _INSTALL, AdviceKind.INSTALL


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
)
_VERSION_FORMS = ("old_jaxlib", "new_jaxlib")
_BACKEND_LINE = re.compile(r"Unable to initialize backend|Requested backend|failed to initialize")
# libtpu's start-up in a crash's stack trace.
_TPU_START_FRAMES = re.compile(
    r"TpuPlatform_Initialize|TpuPlatform::Initialize|GetTpuClient|InitializePjRt|GetPjrtApi"
    r"|TpuClient|tpu_initializer|libtpu"
)
_STALE_LOCK = (
    "; when no process holds it (lsof shows none), a run killed before it let go left "
    "/tmp/libtpu_lockfile behind: remove it"
)
_CREATE = re.compile(r"(?:[Cc]ould not|failed to) create $")
_OPEN_DEVICE = re.compile(r"[Cc]ould(?:n't| not) open device:? $")


def _handle(m: re.Match[str]) -> str | None:
    """``cudnn`` or ``cublas`` when the match is a library that could not create its handle."""
    return f"c{m['handle_lib']}" if m["handle_lib"] else None


# The TPU's device file held: busy, in use, or refused to a second opener ("open(/dev/accel0):
# Operation not permitted", what the kernel says when another process holds the chip).
_BUSY = re.compile(
    r"[Dd]evice or resource busy|already in use|/dev/(?:accel|vfio/)\d+[^\n]*busy"
    r"|open\(/dev/(?:accel|vfio/)\d+\): Operation not permitted"
)
_MMAP_OR_BUSY = re.compile(r"mmap|busy|in use|not permitted|permission", re.I)
_PLUGIN = (
    "the {plugin} plugin ({version}) is not of jaxlib's version ({jaxlib}), so JAX does not use "
    "it and runs without that device: install the plugin of jaxlib's version (pip install "
    '"{package}-plugin=={jaxlib}" "{package}-pjrt=={jaxlib}"), or upgrade them together '
    '(pip install -U "jax[{extra}]")'
)
_PJRT = (
    "the PJRT plugin speaks PJRT API {plugin} and jaxlib {framework}: they are of different "
    'releases; install matching ones together (pip install -U "jax[cuda12]", or '
    '"jax[tpu]") or uninstall the stale plugin (JAX_PLATFORMS=cpu skips it meanwhile)'
)
_PJRT_ABI = (
    "the PJRT plugin and the framework that loads it (jaxlib, torch_xla) were built against "
    "different PJRT C APIs ({what} refused): install them as one release (pip install -U "
    '"jax[tpu]" or "jax[cuda12]"; libtpu of torch_xla\'s pin) or uninstall the stale plugin'
)
_JAX_JAXLIB = (
    "jax and jaxlib are of different releases ({detail}): install them together at one "
    'version (pip install -U jax jaxlib, or "jax[cuda12]"/"jax[tpu]" with the extras)'
)
_TPU_SYSTEM = (
    "libtpu could not bring the TPU chips up ({detail}): make sure no other process holds "
    "them (sudo lsof -w /dev/accel0, tpu-info), then restart the TPU VM if it persists; a "
    'libtpu of another release than jaxlib fails here too (pip install -U "jax[tpu]")'
)
_TPU_CRASH = (
    "libtpu crashed ({signal}) while it started the TPU{frame}: most often a second process "
    "loading libtpu on chips another one holds (one process per host, or split the chips "
    "with TPU_VISIBLE_DEVICES and TPU_PROCESS_BOUNDS), or a libtpu of another release than "
    'jaxlib (pip install -U "jax[tpu]")'
)


def _machine_form(log: Log, m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]] | None:
    """The op, device and advice of a message about the machine; ``None`` when the match is
    not one to report (a busy TPU said inside a backend's failure, read from that opening;
    a crash that is not libtpu's start-up)."""
    line = log.before_on_line(m.start())
    if (m["held"] or m["held_tpu"] or m["pjrt_plugin"]) and _BACKEND_LINE.search(line):
        return None
    if m["held"] or m["held_tpu"] or m["accel"]:
        found = _PID.search(log.text, m.start(), log.line_end(m.start()))
        pid = m["held_pid"] or (found["pid"] if found else None)
        number = f" (pid {pid})" if pid and pid != ".." else ""
        why = f" ({m['accel_why']})" if m["accel_why"] else ""
        text = _RELEASE.format(pid=number + why) + _STALE_LOCK
        return "backend tpu", "tpu", (text, AdviceKind.RELEASE_DEVICE)
    if m["tpu_sys"] is not None:
        detail = m["tpu_sys"].strip().lstrip(".").strip() or (
            "it could not read the global TPU topology"
            if "topology" in m.group()
            else "no reason given"
        )
        kind = AdviceKind.RELEASE_DEVICE if _MMAP_OR_BUSY.search(detail) else AdviceKind.INSTALL
        return "backend tpu", "tpu", (_TPU_SYSTEM.format(detail=detail[:200]), kind)
    if m["signal"]:
        window = log.text[m.end() : m.end() + 4096]
        frame = _TPU_START_FRAMES.search(window)
        if frame is None:
            return None
        text = _TPU_CRASH.format(signal=m["signal"], frame=f" (in {frame.group()})")
        return "libtpu", "tpu", (text, AdviceKind.INSTALL)
    if m["plugin"]:
        package = m["plugin"].removesuffix("_plugin").replace("_", "-")
        extra = package.removeprefix("jax-")
        text = _PLUGIN.format(
            plugin=m["plugin"],
            version=m["plugin_v"].rstrip(","),
            jaxlib=m["plugin_jaxlib"],
            package=package,
            extra=extra,
        )
        device = "tpu" if "tpu" in package else "gpu"
        return f"plugin {m['plugin']}", device, (text, AdviceKind.INSTALL)
    if m["pjrt_plugin"]:
        text = _PJRT.format(plugin=m["pjrt_plugin"], framework=m["pjrt_framework"])
        return "PJRT plugin", "", (text, AdviceKind.INSTALL)
    if m["pjrt_struct"] or m["pjrt_option"]:
        text = _PJRT_ABI.format(what=m["pjrt_struct"] or f"an option of {m['pjrt_option']}")
        return "PJRT plugin", "", (text, AdviceKind.INSTALL)
    if m["pc_plugin"]:
        return _plugin_initialize(log, m)
    return None


# The exception a plugin's traceback ends with: its last "SomeError: message" line.
_RAISED_LINE = re.compile(r"^(?P<cls>[A-Za-z_][\w.]*(?:Error|Exception)): (?P<msg>[^\n]+)$", re.M)
_PLUGIN_INIT = (
    "the {plugin} plugin failed to initialize ({why}), so JAX runs without its device: its "
    "version does not match jaxlib's, or a CUDA library it checks is missing or broken; "
    'install them together at one version (pip install -U "jax[{extra}]"), and check what '
    "jax.print_environment_info() lists"
)


def _plugin_initialize(log: Log, m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]]:
    plugin = m["pc_plugin"]
    window = log.text[m.end() : min(len(log.text), m.end() + 8192)]
    raised = list(_RAISED_LINE.finditer(window))
    why = f"{raised[0]['cls'].rsplit('.', 1)[-1]}: {raised[0]['msg'][:160]}" if raised else ""
    device = "tpu" if "tpu" in plugin else "gpu"
    extra = plugin.removeprefix("xla_")  # xla_cuda12 -> cuda12
    text = _PLUGIN_INIT.format(plugin=plugin, why=why or "see its traceback", extra=extra)
    return f"plugin {plugin}", device, (text, AdviceKind.INSTALL)


def _versions(m: re.Match[str]) -> tuple[str, str, tuple[str, AdviceKind]]:
    if m["old_jaxlib"]:
        detail = f"jaxlib {m['old_jaxlib'].rstrip(',')}, jax needs >= {m['min_jaxlib']}"
    else:
        detail = f"jaxlib {m['new_jaxlib']} is newer than jax {m['old_jax']}"
    return "jaxlib", "", (_JAX_JAXLIB.format(detail=detail), AdviceKind.INSTALL)


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
    if m["handle_lib"] and not _CREATE.search(log.before_on_line(m.start())[-40:]):
        return  # the library named in another sentence
    if m["accel"] and not _OPEN_DEVICE.search(log.before_on_line(m.start())[-40:]):
        return  # a device path named elsewhere ("sudo lsof -w /dev/accel0")
    if any(m[g] is not None for g in (*_MACHINE_FORMS, *_VERSION_FORMS)):
        yield from _machine(log, m)
        return
    if _handle(m) == "cudnn" and _DNN_FAILED in log.text[m.end() : m.end() + 8192]:
        return  # the DNN failure below says it, with these lines as its causes
    backend, message = _backend(m)
    text, kind = _advice(log, m, backend, message)
    if kind is AdviceKind.INSTALL and torch_xla_log(log.text):
        text = _INSTALL_TORCH  # JAX's packages are not the ones this process loaded
    platform = platform_of(backend) or platform_of("gpu" if backend == "gpu" else None)
    device = str(platform) if platform else backend
    name = named_accelerator(log.text) if platform and platform.value == "gpu" else None
    if name:
        device = f"gpu ({name})"
    hints = [message.strip()] if message.strip() else []
    if m.group().startswith(_DNN_FAILED):
        window = log.text[max(0, m.start() - 8192) : m.start()]
        hints = list(dict.fromkeys(c.group() for c in _CUDNN_CAUSES.finditer(window)))
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
    )


# Nothing was compiled: the machine or its packages failed (a plugin refused, a cuDNN missing).
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _OPENING, _startup)
