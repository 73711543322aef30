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
* ``Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when
  one has already been registered``: TensorFlow and JAX loaded in one process each register
  the libraries -- harmless, reported as a warning after any real failure;
* ``Could not load dynamic library 'libcudnn.so.8'``, ``Unable to load cuSPARSE. Is it
  installed?``, ``Outdated cuDNN installation found``, ``CUDA driver version is insufficient
  for CUDA runtime version``, ``CUDA_ERROR_*`` codes other than out-of-memory, a ``ptxas``
  older than the PTX asked of it (``Unsupported .version 8.3; current version is '8.2'``):
  libraries or a driver missing or too old.

The device is the GPU; the advice is about what is installed and what holds the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line
from ..device import named_accelerator
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_graph import GRAPH_WORDS

__all__ = ["LIBRARY_CHECK", "LIBRARY_NAMES", "KERNEL_FAULTS", "RECOGNISER", "memory_was_free"]

#: The CUDA driver's codes of a kernel that faulted as it ran (after CUDA_ERROR_).
KERNEL_FAULTS = (
    r"ILLEGAL_ADDRESS|LAUNCH_FAILED|ILLEGAL_INSTRUCTION|MISALIGNED_ADDRESS|HARDWARE_STACK_ERROR"
    r"|ASSERT|LAUNCH_TIMEOUT|ECC_UNCORRECTABLE|INVALID_PC|INVALID_ADDRESS_SPACE"
)

#: The names of the CUDA libraries' calls (``cusolverDnCreate``, jaxlib's ``gpusolverDnCreate``).
LIBRARY_NAMES = r"cu(?:solver|blas|dnn|fft|sparse|rand)|gpu(?:solver|blas|dnn|fft|sparse)|nccl"
_LIBRARY = LIBRARY_NAMES
#: A check's condition about a CUDA library's start: its status enum, handle or create call.
LIBRARY_CHECK = (
    r"(?i:cu(?:solver|blas|dnn|fft|sparse|rand)|nccl)\w*?(?:_STATUS_|Create|Init|handle)"
)
_OPENING = re.compile(
    r"Loaded runtime CuDNN library:? (?P<loaded>\d[\d.]*)(?: \(compatibility version [\d.]+\))?"
    r" but source was compiled with:? (?P<built>\d[\d.]*\d)"
    # jaxlib: "operation cusolverDnCreate(&handle) failed: cuSolver internal error".
    # Keyed on ") failed: " (a rarer character than the words' first letters); the call is
    # read back from the line.
    r"|\)(?P<op_failed> failed: ?(?P<why>[^\n]{0,200}))"
    # PyTorch: "cusolver error: 7, when calling `cusolverDnCreate(handle)`".
    rf"|`(?P<tick_call>(?i:{_LIBRARY})\w*)\("
    # A CHECK on a library's call or status (TF: "Check failed: cusolverDnCreate(&h) ==
    # CUSOLVER_STATUS_SUCCESS"; MXNet: "Check failed: err == CUSOLVER_STATUS_SUCCESS (7 vs. 0)").
    r"|Check failed: (?P<check>[^\n]{0,200}?" + LIBRARY_CHECK + r"[^\n]{0,200})"
    # The libraries' status enums and NCCL's results, whatever sentence carries them.
    r"|C(?P<status>U(?:SOLVER|BLAS|DNN|FFT|SPARSE|RAND)_STATUS_(?!SUCCESS\b)[A-Z_]+)"
    r"|C(?P<cufft>UFFT_(?:INTERNAL_ERROR|ALLOC_FAILED|SETUP_FAILED|EXEC_FAILED|INVALID_PLAN"
    r"|NOT_SUPPORTED))"
    r"|N(?P<nccl>CCL error)"
    # A library's status in words where no call is named: jaxlib's and XLA's own strings
    # ("cuSolver internal error", "cuBlas allocation failure", hipSolver's), and the
    # libraries' own (cublasGetStatusString's "an unsupported value or parameter was passed
    # to the function"). A call's failure (") failed: ...") is its reader's.
    r"|(?P<lib_words>(?:cu|hip|roc)(?:Solver|SOLVER|solver|Blas|BLAS|blas|Sparse|SPARSE|FFT)) "
    r"(?P<lib_status>has not been initialized|allocation fail(?:ed|ure)|invalid value error"
    r"|architecture mismatch error|mapping error|execution failed|internal error"
    r"|matrix type not supported error|not supported error|zero pivot error"
    r"|invalid license error)"
    r"|a(?P<lib_doc>n unsupported value or parameter was passed to the function"
    r"|n internal cu\w+ operation failed)"
    r"|Unable to register (?P<factory>\w+) factory: Attempting to register factory for plugin"
    r"|Could not load dynamic library '(?P<dl>lib\w+)"
    r"|Unable to load (?P<load>cu\w+|CUDA|NCCL|cuDNN)\. Is it installed\?"
    r"|Outdated (?P<outdated>\w+) installation found"
    r"|C(?P<driver>UDA driver version is insufficient for CUDA runtime version)"
    # Not out of memory (.device_allocation), not a kernel's fault as it ran (.xla_status).
    r"|C(?P<cuda_error>UDA_ERROR_(?!OUT_OF_MEMORY\b|(?:" + KERNEL_FAULTS + r")\b)[A-Z_]+)"
    r"|T(?P<old_driver>he NVIDIA driver on your system is too old)"
    # ptxas older than the PTX asked of it.
    # ptxas older than the PTX or the GPU asked of it ("Value 'sm_80' is not defined for
    # option 'gpu-name'": a ptxas that does not know this GPU; "PTX with .target 'sm_90a'
    # cannot be compiled for architecture 'sm_90'").
    r"|p(?P<ptxas>txas[^\n]{0,160}?(?:too old|older than|Unsupported \.version|not supported"
    r"|is not defined for option 'gpu-name'|cannot be compiled for architecture))"
    # A build with no code for this GPU's architecture (the words of CUDA's
    # cudaErrorNoKernelImageForDevice, whatever call reported it).
    r"|n(?P<no_image>o kernel image is available for execution on the device)"
    # The same for a kernel looked up in a build for other GPUs: CUDA's and HIP's
    # InvalidDeviceFunction (code 98 in both), by name, by words or by number.
    r"|(?:cuda|hip)(?P<no_function>Error_?t?\(98\)|ErrorInvalidDeviceFunction)"
    r"|(?:CUDA|HIP) error: (?P<no_function_words>invalid device function)"
    r"|U(?P<ptx_version>nsupported \.version \d+\.\d+; current version is)"
)
# The call before ") failed: ": "operation cusolverDnCreate(&handle" (jaxlib, XLA's NCCL),
# its arguments any expressions (XLA's NCCL calls pass "ToNcclCount(dtype, count)").
_CALLED = re.compile(
    rf"operation (?P<call>(?i:{_LIBRARY})\w*)\((?:[^()\n]|\([^()\n]*\)){{0,400}}\)$"
)
_GRAPH = re.compile(GRAPH_WORDS, re.I)
_MEMORY_USAGE = re.compile(r"Memory usage: (?P<free>\d+) bytes free, (?P<total>\d+) bytes total")
# The words of a handle that could not be made (the failure is about memory or versions).
_CREATE = re.compile(r"Create|\bhandle\b|NOT_INITIALIZED|ALLOC_FAILED|INTERNAL_ERROR", re.I)
# The same codes in jaxlib's words, where no call is named: most often its handle's creation,
# the first call a library makes.
_CREATE_WORDS = re.compile(r"internal error|not been initialized|allocation fail")
# NCCL's failures between processes or hosts rather than inside one machine's libraries.
_NCCL_REMOTE = re.compile(r"remote|network|timed? ?out|connection|peer", re.I)
_NAMES = {
    "solver": "cuSOLVER",
    "blas": "cuBLAS",
    "dnn": "cuDNN",
    "fft": "cuFFT",
    "sparse": "cuSPARSE",
    "rand": "cuRAND",
    "nccl": "NCCL",
}

_NO_IMAGE_WORDS = "no kernel image is available for execution on the device"
_NO_IMAGE = (
    "the installed build has no GPU code for this GPU's architecture (compute capability): "
    'install the framework\'s build for your CUDA and GPU (pip install -U "jax[cuda12]"; an '
    "older jaxlib may not know a newer GPU), and check nvidia-smi's GPU against the build's "
    "supported architectures (on an AMD GPU: a ROCm build that lists this GPU's gfx target)"
)
_VERSION = (
    "cuDNN {loaded} is loaded, but the framework was built against cuDNN {built}: the one "
    "loaded must be of the same major version and at least that minor one. Install cuDNN "
    "{built} or newer of major {major} (pip install 'nvidia-cudnn-cu12>={built}' or the "
    "framework's CUDA extra, which brings it), and make sure no older libcudnn comes first "
    "(LD_LIBRARY_PATH, a conda or torch package of another cuDNN)"
)
_HANDLE_MEMORY = (
    "{library} could not create its handle{why}: almost always no GPU memory was left for its "
    "workspace -- JAX preallocates 75% of the GPU (XLA_PYTHON_CLIENT_PREALLOCATE=false, or a "
    "lower XLA_PYTHON_CLIENT_MEM_FRACTION), TensorFlow takes it all unless "
    "tf.config.experimental.set_memory_growth, or another process holds it (nvidia-smi)"
)
_HANDLE_INSTALL = (
    "{library} does not match the CUDA the framework was built for: install the framework's "
    'CUDA build and its libraries together (pip install -U "jax[cuda12]", which brings them; '
    "no other CUDA toolkit first on LD_LIBRARY_PATH), and check with "
    "jax.print_environment_info() or nvidia-smi"
)
_STATUS = (
    "{library} failed ({code}): a CUDA library of another release than the framework's, a "
    "driver too old for it, or no GPU memory left for its workspace; install the framework's "
    "CUDA build with its libraries together and free the GPU (other processes, preallocation)"
)
_NCCL_LOCAL = (
    "NCCL could not set up or run a collective between the GPUs ({code}): run with "
    "NCCL_DEBUG=INFO to see why; most often NCCL of another CUDA release than the framework's "
    '(install them together: pip install -U "jax[cuda12]"), a container\'s /dev/shm too small '
    "(docker --shm-size=1g or --ipc=host), or peer-to-peer between the GPUs refused "
    "(NCCL_P2P_DISABLE=1 to test)"
)
_NCCL_HOSTS = (
    "another process of the job stopped or cannot be reached: check that every host runs, "
    "with the same jax.distributed.initialize arguments, and that the hosts reach each other "
    "(NCCL_SOCKET_IFNAME names the network interface to use)"
)
_REGISTERED = (
    "TensorFlow and JAX (or two TensorFlow builds) loaded in one process each register "
    "{factory}: the second registration is refused and the first is used -- harmless; import "
    "one framework per process, or ignore it"
)
_MISSING = (
    "{library} was not found or is older than the framework needs, so the GPU is not used: "
    'install the framework with its CUDA libraries (pip install -U "jax[cuda12]", or '
    "tensorflow[and-cuda]) or put the right CUDA/cuDNN on LD_LIBRARY_PATH"
)
_DRIVER = (
    "the NVIDIA driver is older than the CUDA release the framework (or ptxas) needs: update "
    "the driver (nvidia-smi shows its CUDA version), or install the framework's build for "
    'an older CUDA; with JAX, pip install -U "jax[cuda12]" brings a ptxas that fits'
)


def _library(word: str) -> str:
    low = word.lower()
    if low.startswith(("hip", "roc")):
        return word  # ROCm's own (hipSOLVER, rocBLAS)
    for key, name in _NAMES.items():
        if key in low:
            return name
    return word


def _read(log: Log, m: re.Match[str]) -> tuple[str, list[tuple[AdviceKind, str]]] | None:
    """The op and the advice, best first, of a match; ``None`` when it is not a message."""
    if m["loaded"]:
        built = m["built"]
        text = _VERSION.format(loaded=m["loaded"], built=built, major=built.split(".")[0])
        return "cuDNN", [(AdviceKind.INSTALL, text)]
    if m["factory"]:
        return m["factory"], [(AdviceKind.HARMLESS, _REGISTERED.format(factory=m["factory"]))]
    if m["dl"] or m["load"] or m["outdated"]:
        library = _library(m["dl"] or m["load"] or m["outdated"])
        return library, [(AdviceKind.INSTALL, _MISSING.format(library=library))]
    if m["driver"] or m["old_driver"] or m["ptxas"] or m["ptx_version"]:
        op = "ptxas" if m["ptxas"] or m["ptx_version"] else "CUDA driver"
        return op, [(AdviceKind.INSTALL, _DRIVER)]
    if m["no_image"] or m["no_function"] or m["no_function_words"]:
        return "no kernel image", [(AdviceKind.INSTALL, _NO_IMAGE)]
    if m["op_failed"] and _NO_IMAGE_WORDS in m["why"]:
        return "no kernel image", [(AdviceKind.INSTALL, _NO_IMAGE)]
    if m["cuda_error"]:
        if "Failed to launch" in log.before_on_line(m.start()):
            return None  # a launch XLA set up and the driver refused: kernel_launch's
        if _GRAPH.search(log.text, log.line_start(m.start()), log.line_end(m.start())):
            return None  # a CUDA graph failing as the program ran: cuda_graph's
        code = f"C{m['cuda_error']}"
        return code, [(AdviceKind.INSTALL, _STATUS.format(library="CUDA", code=code))]
    if m["lib_words"] or m["lib_doc"]:
        if ") failed: " in log.before_on_line(m.start()):
            return None  # the call that failed, read with it
        library = _library(m["lib_words"]) if m["lib_words"] else "a CUDA math library"
        code = f"{m['lib_words']} {m['lib_status']}" if m["lib_words"] else m[0]
        what = library if m["lib_words"] else "cuBLAS/cuSOLVER/cuSPARSE"
    elif m["op_failed"]:
        called = _CALLED.search(log.before_on_line(m.start() + 1)[-480:])
        if called is None:
            return None  # another call that failed
        library, code = _library(called["call"]), m["why"].strip().rstrip(".")
        what = called["call"]
    elif m["tick_call"]:
        said = re.search(
            r"error: ?(?P<code>[^,\n]+), when calling $", log.before_on_line(m.start())
        )
        if said is None or "_STATUS_" in said["code"]:
            return None  # named in prose or code; or its status code, read already, says it
        library, code, what = _library(m["tick_call"]), said["code"].strip(), m["tick_call"]
    elif m["check"]:
        found = re.search(LIBRARY_CHECK, m["check"])
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
    if _CREATE.search(line) or (m["lib_words"] and _CREATE_WORDS.search(code)):
        why = f" ({code})" if code else ""
        memory = (AdviceKind.FREE_MEMORY, _HANDLE_MEMORY.format(library=library, why=why))
        install = (AdviceKind.INSTALL, _HANDLE_INSTALL.format(library=library))
        plenty = memory_was_free(log, m.end(), 1024)
        return what, [install, memory] if plenty else [memory, install]
    return what, [(AdviceKind.INSTALL, _STATUS.format(library=library, code=code))]


def memory_was_free(log: Log, pos: int, within: int) -> bool:
    """Whether the device had more than half its memory free by the ``Memory usage: N bytes
    free, M bytes total`` a library printed within ``within`` characters after ``pos``, where
    a handle could not be made: then memory was not what failed, the versions were."""
    usage = _MEMORY_USAGE.search(log.text, pos, pos + within)
    return usage is not None and int(usage["free"]) > int(usage["total"]) // 2


def _nccl(code: str, line: str) -> list[tuple[AdviceKind, str]]:
    """NCCL's failure: the job's other processes when it says so, else this machine's set-up."""
    local = (
        AdviceKind.INSTALL,
        _NCCL_LOCAL.format(code=code or "no reason given"),
    )
    hosts = (AdviceKind.CHECK_HOSTS, _NCCL_HOSTS)
    return [hosts, local] if _NCCL_REMOTE.search(line) else [local, hosts]


def _cuda_library(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    read = _read(log, m)
    if read is None:
        return
    op, advice = read
    name = named_accelerator(log.text)
    (kind, text), *more = advice
    failure = _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(text, kind),
        device=f"gpu ({name})" if name else "gpu",
        platform=Platform.GPU,
        more_advice=[(str(k), t) for k, t in more],
    )
    if m["factory"]:
        failure.finding.warning = True  # printed at the E level, but nothing failed
        failure.hints.append("not a failure: look for the error after these lines")
    yield failure


# Nothing was compiled: the machine's libraries failed.
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _OPENING, _cuda_library)
