"""The backend did not start: JAX's ``Unable to initialize backend 'tpu': ABORTED: The TPU is
already in use by process with pid 2718466``, ``CUDA backend failed to initialize: Found cuDNN
version 8600, but JAX was built against version 8906``, ``Backend 'cuda' failed to
initialize``, ``Requested backend tpu_driver, but it failed to initialize``, a CUDA-enabled
jaxlib that is not installed, TPU initialization failures; cuDNN and cuBLAS that cannot create
their handles (``Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR``) or initialise
(``FAILED_PRECONDITION: DNN library initialization failed``).

Nothing was compiled: the advice is about the machine -- the process holding the device, the
versions installed, the memory a framework took first -- and the device is named back as the
log names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ...unsupported.fixes import suggest
from ..advice import AdviceKind
from ..build import make_failure
from ..device import named_accelerator, platform_of
from ..functions import jax_function, paragraph_end
from ..log import Log, status_before
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..user_line import user_source

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"Unable to initialize backend '(?P<ub>\w+)': ?(?P<ub_msg>[^\n]*)"
    r"|Requested backend (?P<rb>\w+), but it failed to initialize: ?(?P<rb_msg>[^\n]*)"
    r"|Backend '(?P<bf>\w+)' failed to initialize: ?(?P<bf_msg>[^\n]*)"
    r"|(?P<cb>CUDA) backend failed to initialize: ?(?P<cb_msg>[^\n]*)"
    r"|(?P<ti>TPU) initialization failed: ?(?P<ti_msg>[^\n]*)"
    r"|An NVIDIA (?P<nv>GPU) may be present on this machine, but a CUDA-enabled jaxlib is not "
    r"installed"
    r"|ould not create (?P<handle>cudnn|cublas) handle: ?(?P<handle_msg>\w+)"
    r"|failed to create (?P<cublas>cublas) handle: ?(?P<cublas_msg>\w+)"
    r"|DNN library initialization failed"
)
_PID = re.compile(r"in use by process with pid (?P<pid>\d+|\.\.)")
# A backend JAX tries on the way to another one: its failure is an INFO line, not the error.
_PROBED = re.compile(r"\bINFO\b|^I\d{4} |xla_bridge\.py:\d+\]", re.M)
_MEMORY_USAGE = re.compile(r"Memory usage: (?P<free>\d+) bytes free, (?P<total>\d+) bytes total")
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
    for name, rest in (("ub", "ub_msg"), ("rb", "rb_msg"), ("bf", "bf_msg"), ("cb", "cb_msg")):
        if m[name]:
            return m[name], m[rest] or ""
    if m["ti"]:
        return "tpu", m["ti_msg"] or ""
    return "gpu", m["handle_msg"] or m["cublas_msg"] or ""


def _advice(log: Log, m: re.Match[str], backend: str, message: str) -> tuple[str, AdviceKind]:
    pid = _PID.search(message)
    if pid is not None:
        number = "" if pid["pid"] == ".." else f" (pid {pid['pid']})"
        return _RELEASE.format(pid=number), AdviceKind.RELEASE_DEVICE
    if m["handle"] or m["cublas"]:
        usage = _MEMORY_USAGE.search(log.text, m.end(), m.end() + 512)
        if usage and int(usage["free"]) > int(usage["total"]) // 2:
            return _INSTALL, AdviceKind.INSTALL
        return _HANDLE_MEMORY, AdviceKind.FREE_MEMORY
    if m.group().startswith(_DNN_FAILED):
        return suggest("xla:cudnn_init"), AdviceKind.INSTALL
    if m["ti"]:
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


def _startup(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if (m["handle"] == "cudnn" or m["handle_msg"]) and _DNN_FAILED in log.text[
        m.end() : m.end() + 8192
    ]:
        return  # the DNN failure below says it, with these lines as its causes
    start = log.text.rfind("\n", 0, m.start()) + 1
    backend, message = _backend(m)
    text, kind = _advice(log, m, backend, message)
    platform = platform_of(backend) or platform_of("gpu" if backend == "gpu" else None)
    device = str(platform) if platform else backend
    name = named_accelerator(log.text) if platform and platform.value == "gpu" else None
    if name:
        device = f"gpu ({name})"
    hints = [message.strip()] if message.strip() else []
    if m.group().startswith(_DNN_FAILED):
        window = log.text[max(0, m.start() - 8192) : m.start()]
        hints = list(dict.fromkeys(c.group() for c in _CUDNN_CAUSES.finditer(window)))
    stack = log.traceback_before(start)
    op = {"cudnn": "cuDNN", "cublas": "cuBLAS"}.get(m["handle"] or m["cublas"] or "", "")
    if m.group().startswith(_DNN_FAILED):
        op = "cuDNN"
    yield make_failure(
        Family.BACKEND_STARTUP,
        log,
        m.start(),
        op=op or f"backend {backend}",
        reason=Reason.COMPILE_ERROR,
        advice=(text, kind),
        function=jax_function(log, m.start(), paragraph_end(log, m.start()), stack),
        stack=stack,
        source=user_source(stack),
        device=device,
        platform=platform,
        headline_at=start,
        status=status_before(log, m.start()),
        hints=hints,
    )


RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _OPENING, _startup)
