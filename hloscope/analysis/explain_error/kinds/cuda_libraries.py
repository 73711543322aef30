"""The CUDA libraries under XLA did not start: read by their names and status codes, not by
one sentence each.

A GPU backend loads cuDNN, cuBLAS, cuSOLVER, cuFFT, cuSPARSE and NCCL, and each fails in its
own words; what they share is the library's name and its status enum, which this module keys
on:

* ``Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0`` (TF and XLA's
  ``cuda_dnn.cc``): the cuDNN found is older than the one the framework was built against;
  the advice names both versions;
* ``operation cusolverDnCreate(&handle) failed: cuSolver internal error`` (jaxlib's GPU
  kernels), ``cusolver error: CUSOLVER_STATUS_INTERNAL_ERROR, when calling
  `cusolverDnCreate(handle)``` (PyTorch), ``Check failed: cusolverDnCreate(...) ==
  CUSOLVER_STATUS_SUCCESS``: a library that could not create its handle -- almost always no
  GPU memory left for its workspace, else a library of another CUDA release;
* any other ``CU{SOLVER,BLAS,DNN,FFT,SPARSE,RAND}_STATUS_*`` code a message states, ``NCCL
  operation ncclCommInitRank(...) failed: unhandled cuda error``, PyTorch's ``NCCL error``;
* TensorFlow's (and Horovod's) ``ncclCommInitRank failed: unhandled system error``, NCCL's call
  quoted without its arguments, read as XLA's ``NCCL operation ncclCommInitRank(...)`` is;
* ``Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when
  one has already been registered``: TensorFlow and JAX loaded in one process each register
  the libraries -- harmless, reported as a warning after any real failure;
* ``failed call to cuInit: CUDA_ERROR_NO_DEVICE``: the CUDA driver did not start -- the
  failure where the process stopped there, a warning where JAX fell back to the CPU and went
  on, harmless where the process went on with a TPU (a CUDA plugin on a TPU VM);
* ``Could not load dynamic library 'libcudnn.so.8'``, ``Unable to load cuSPARSE. Is it
  installed?``, ``Outdated cuDNN installation found``, ``CUDA driver version is insufficient
  for CUDA runtime version``, ``CUDA_ERROR_*`` codes other than out-of-memory, a ``ptxas``
  older than the PTX asked of it (``Unsupported .version 8.3; current version is '8.2'``):
  libraries or a driver missing or too old;
* a library that started and whose call then failed on the device as the program ran
  (``UNKNOWN: CUDNN_STATUS_EXECUTION_FAILED ... while running replica 0``, TF's ``failed to run
  cuBLAS routine cublasSgemm_v2: CUBLAS_STATUS_EXECUTION_FAILED``, jaxlib's ``operation
  cusolverDnXsyevBatched(...) failed: cuSolver invalid value error``): nothing is missing, the
  call was refused or faulted -- XLA's or the framework's bug (``xla_crash``), install second.

The device is the GPU; the advice is about what is installed and what holds the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..catalogue import words_of
from ..device import named_accelerator
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_graph import GRAPH_WORDS

__all__ = ["LIBRARY_CHECK", "LIBRARY_NAMES", "KERNEL_FAULTS", "RECOGNISER", "memory_was_free"]

_RE, _TEXT = words_of(__name__)
#: The CUDA driver's codes of a kernel that faulted as it ran (after CUDA_ERROR_), a regex.
KERNEL_FAULTS = _RE.kernel_faults.pattern
#: The names of the CUDA libraries' calls (``cusolverDnCreate``, jaxlib's ``gpusolverDnCreate``).
LIBRARY_NAMES = _RE.library_names.pattern
#: A check's condition about a CUDA library's start: its status enum, handle or create call.
LIBRARY_CHECK = _RE.library_check.pattern
# cuda_graph's words: a CUDA graph failing as the program ran is its failure.
_GRAPH = re.compile(GRAPH_WORDS, re.I)
# Each library's name by the word its calls carry.
_NAMES = {
    "solver": "cuSOLVER",
    "blas": "cuBLAS",
    "dnn": "cuDNN",
    "fft": "cuFFT",
    "sparse": "cuSPARSE",
    "rand": "cuRAND",
    "nccl": "NCCL",
}
# Words found as they are in a failed call's reason (`in`).
_NO_IMAGE_WORDS = "no kernel image is available for execution on the device"


def _library(word: str) -> str:
    low = word.lower()
    if low.startswith(("hip", "roc")):
        return word  # ROCm's own (hipSOLVER, rocBLAS)
    for key, name in _NAMES.items():
        if key in low:
            return name
    return word


def _cuinit_said(m: re.Match[str]) -> str:
    """What a failed cuInit said: its CUDA_ERROR_ code, else its words."""
    code = _RE.cuda_code.search(m["cuinit_why"])
    return code.group() if code else (m["cuinit_why"].strip()[:80] or "cuInit failed")


def _read(log: Log, m: re.Match[str]) -> tuple[str, list[tuple[AdviceKind, str]]] | None:
    """The op and the advice, best first, of a match; ``None`` when it is not a message."""
    if m["cuinit"]:
        coded = _RE.cuda_code.search(m["cuinit_why"])
        words = _cuinit_said(m)
        return (coded.group() if coded else "cuInit"), [
            (AdviceKind.INSTALL, _TEXT.status.format(library="CUDA", code=words))
        ]
    if m["loaded"]:
        built = m["built"]
        text = _TEXT.version.format(loaded=m["loaded"], built=built, major=built.split(".")[0])
        return "cuDNN", [(AdviceKind.INSTALL, text)]
    if m["comm_init"]:  # NCCL's communicator refused, its call quoted without arguments
        return m["comm_init"], _nccl(m["comm_why"].strip(), m["comm_why"])
    if m["factory"]:
        return m["factory"], [(AdviceKind.HARMLESS, _TEXT.registered.format(factory=m["factory"]))]
    if m["dl"] or m["load"] or m["outdated"]:
        library = _library(m["dl"] or m["load"] or m["outdated"])
        return library, [(AdviceKind.INSTALL, _TEXT.missing.format(library=library))]
    if m["driver"] or m["old_driver"] or m["ptxas"] or m["ptx_version"]:
        op = "ptxas" if m["ptxas"] or m["ptx_version"] else "CUDA driver"
        return op, [(AdviceKind.INSTALL, _TEXT.driver)]
    if m["no_image"] or m["no_function"] or m["no_function_words"]:
        return "no kernel image", [(AdviceKind.INSTALL, _TEXT.no_image)]
    if m["op_failed"] and _NO_IMAGE_WORDS in m["why"]:
        return "no kernel image", [(AdviceKind.INSTALL, _TEXT.no_image)]
    if m["cuda_error"]:
        if "Failed to launch" in log.before_on_line(m.start()):
            return None  # a launch XLA set up and the driver refused: kernel_launch's
        if _GRAPH.search(log.text, log.line_start(m.start()), log.line_end(m.start())):
            return None  # a CUDA graph failing as the program ran: cuda_graph's
        code = f"C{m['cuda_error']}"
        return code, [(AdviceKind.INSTALL, _TEXT.status.format(library="CUDA", code=code))]
    if m["lib_words"] or m["lib_doc"]:
        if ") failed: " in log.before_on_line(m.start()):
            return None  # the call that failed, read with it
        library = _library(m["lib_words"]) if m["lib_words"] else "a CUDA math library"
        code = f"{m['lib_words']} {m['lib_status']}" if m["lib_words"] else m[0]
        what = library if m["lib_words"] else "cuBLAS/cuSOLVER/cuSPARSE"
    elif m["op_failed"]:
        called = _RE.called.search(log.before_on_line(m.start() + 1)[-480:])
        if called is None:
            return None  # another call that failed
        library, code = _library(called["call"]), m["why"].strip().rstrip(".")
        what = called["call"]
    elif m["tick_call"]:
        said = _RE.when_calling.search(log.before_on_line(m.start()))
        if said is None or "_STATUS_" in said["code"]:
            return None  # named in prose or code; or its status code, read already, says it
        library, code, what = _library(m["tick_call"]), said["code"].strip(), m["tick_call"]
    elif m["check"]:
        found = _RE.library_check.search(m["check"])
        library = _library(found.group() if found else "CUDA")
        code, what = m["check"].strip()[:160], f"Check failed ({library})"
    else:
        code = "NCCL error" if m["nccl"] else "C" + (m["status"] or m["cufft"] or "")
        library, what = _library(code), code
        line = log.before_on_line(m.start())
        if re.search(r"handle:? ?$", line) or line.rstrip().endswith("!="):
            return None  # a handle the start-up reader explains; a comparison in code
    line = log.text[log.line_start(m.start()) : log.line_end(m.start())]
    if library == "NCCL":
        return what, _nccl(code, line)
    status = (AdviceKind.INSTALL, _TEXT.status.format(library=library, code=code))
    ran = _RE.ran_failed.search(code) and not _RE.create.search(f"{what} {code}")
    # A fatal CHECK on a library's status whose line names no handle, creation or start-up
    # (cuDNN's "Failed to set cuDNN stream", a descriptor it refused): the library had
    # started and was in use, so the process aborted on a call as the program ran.
    if ran or (m["check"] and not _RE.create.search(line)):
        # The library ran: its call failed on the device (XLA's crash, see _cuda_library).
        return what, [
            (AdviceKind.REPORT_BUG, _TEXT.ran_failed.format(library=library, code=code)),
            status,
        ]
    if _RE.create.search(line) or (m["lib_words"] and _RE.create_words.search(code)):
        why = f" ({code})" if code else ""
        memory = (AdviceKind.FREE_MEMORY, _TEXT.handle_memory.format(library=library, why=why))
        install = (AdviceKind.INSTALL, _TEXT.handle_install.format(library=library))
        plenty = memory_was_free(log, m.end(), 1024)
        return what, [install, memory] if plenty else [memory, install]
    return what, [status]


def memory_was_free(log: Log, pos: int, within: int) -> bool:
    """Whether the device had more than half its memory free by the ``Memory usage: N bytes
    free, M bytes total`` a library printed within ``within`` characters after ``pos``, where
    a handle could not be made: then memory was not what failed, the versions were."""
    usage = _RE.memory_usage.search(log.text, pos, pos + within)
    return usage is not None and int(usage["free"]) > int(usage["total"]) // 2


def _nccl(code: str, line: str) -> list[tuple[AdviceKind, str]]:
    """NCCL's failure: the job's other processes when it says so, else this machine's set-up."""
    local = (
        AdviceKind.INSTALL,
        _TEXT.nccl_local.format(code=code or "no reason given"),
    )
    hosts = (AdviceKind.CHECK_HOSTS, _TEXT.nccl_hosts)
    return [hosts, local] if _RE.nccl_remote.search(line) else [local, hosts]


def _cuda_library(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _read(log, m)
    if read is None:
        return
    op, advice = read
    name = named_accelerator(log.text)
    device, platform = (f"gpu ({name})" if name else "gpu"), Platform.GPU
    after = log.text[m.end() :]
    on_tpu = bool(m["cuinit"]) and _RE.went_on_tpu.search(after) is not None
    if on_tpu:  # a GPU probed for on a TPU VM: the TPU ran
        advice = [(AdviceKind.HARMLESS, _TEXT.cuinit_tpu.format(code=_cuinit_said(m)))]
        device, platform = "tpu", Platform.TPU
    # Only a library that ran and failed is advised to report a bug first (_read).
    kind = _RAN if advice[0][0] is AdviceKind.REPORT_BUG else _KIND
    failure = kind.failure(log, m.start(), op=op, fixes=advice, device=device, platform=platform)
    if m["cuinit"] and not on_tpu and _RE.went_on_cpu.search(after):
        # JAX fell back to the CPU and went on: a later failure is the one, this a warning.
        failure.finding.warning = True
        failure.hints.append(_TEXT.cuinit_cpu)
    if m["factory"]:
        failure.finding.warning = True  # printed at the E level, but nothing failed
        failure.hints.append("not a failure: look for the error after these lines")
    yield failure


# Nothing was compiled: the machine's libraries failed.
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
# The libraries started, and one's call failed on the device as the program ran.
_RAN = Kind(Family.XLA_CRASH, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _cuda_library)
