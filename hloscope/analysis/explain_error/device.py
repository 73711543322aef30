"""Which device a message is about: the platform a word means, the accelerator a log names
(``found GPU Tesla K80``, ``name: Tesla V100-SXM2-16GB, pci bus id``, TPU's ``HBM0``), and the
platform a log as a whole ran on, read from its structure where the failing message names none
(the libraries it loaded, its device strings, the backend it compiled for)."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ..unsupported.findings import Platform

__all__ = ["platform_of", "named_accelerator", "platform_in_log", "forget_platform_reads"]

# (IREE's PJRT plugins name their platforms after the device: iree_cpu, iree_cuda, iree_rocm.)
_PLATFORM_WORD = re.compile(
    r"(?:\b|(?<=\biree_))(XLA_[A-Z]+_JIT|cpu|gpu|tpu|cuda|rocm|xpu)(?:\b|_)", re.I
)
# Intel's GPUs, as their PJRT plugin (intel-extension-for-openxla) and PyTorch name them.
_XPU = "xpu"

# The lines TensorFlow, JAX and XLA print when they find a GPU, each naming it.
_GPU_NAME = re.compile(
    r"[Ff]ound (?:GPU|device \d+ with properties:\s*name:) ?(?P<a>[^\n,]+?)\s*(?:,|\n|$)"
    r"|physical GPU \(device: \d+, name: (?P<b>[^,\n]+)"
    r"|StreamExecutor device \(\d+\): (?P<c>[^,\n]+), Compute Capability"
)


def platform_of(word: str | None) -> Platform | None:
    """The platform a device word (``XLA_TPU_JIT``, ``device:GPU:0``, ``tpu``) means."""
    found = _PLATFORM_WORD.search(word or "")
    if not found:
        return None
    if found.group(1).lower() == _XPU:
        return Platform.GPU
    try:
        return Platform.parse(found.group(1))
    except ValueError:
        return None


def named_accelerator(text: str) -> str | None:
    """The GPU the log names where it started (``Tesla K80``), if any."""
    found = _GPU_NAME.search(text)
    if found is None:
        return None
    name = next(g for g in found.groups() if g).strip()
    return name if name and name != "<undefined>" else None


# A keyword given a platform as its value, in code or a repr: `platform='gpu'`, `backend="tpu"`,
# `device_kind=cpu` (an AbstractMesh's), `platforms=["cuda"]`, torch_xla's `PJRT_DEVICE=TPU`,
# PJRT's "PJRT_Api is set for device type tpu", JAX's environment (`JAX_PLATFORMS=cpu python
# x.py` on the command line a log opens with, `os.environ["JAX_PLATFORMS"] = "cpu"`).
_ASSIGNED = (
    r"(?:\b(?:platforms?|backend|device_kind|device_type|PJRT_DEVICE"
    # (JAX's own advice, "or set JAX_PLATFORMS=cpu to skip this backend", names no platform
    # the program ran on.)
    r"|(?<!set )JAX_PLATFORMS?(?:_NAME)?(?:['\"]\])?)\s*[=:]\s*[\[(]?['\"]?(?:iree_)?"
    r"|\bdevice type )"
)
# JAX's DeviceIdSet repr, a platform's name and device ids: "{CPU 0, 1}" (doubled braces:
# a str.format template).
_ID_SET = r"(?-i:\{{{0} \d+(?:, \d+)*\}})"
# Signs of the platform a log ran on, whatever sentence carries them: a GPU's libraries (CUDA,
# cuDNN, cuBLAS, cuSOLVER, cuFFT, NCCL, ROCm, HIP, Triton, ptxas), its device strings (cuda:0,
# gpu:0, /device:GPU:0, CudaDevice, the BFC allocator GPU_0_bfc); a TPU's (libtpu, TPU_0,
# TpuDevice, Mosaic's TPU compiler, XLA_TPU_JIT); XLA's own source paths in a backtrace or a
# status's trace (xla/service/gpu/..., stream_executor/cuda/..., backends/tpu/...); a CPU only
# where JAX says it fell back to one (a CpuDevice or TFRT_CPU_0 is no sign: JAX and TF hold
# host arrays on one beside any GPU).
_LOG_SIGNS = re.compile(
    # Triton's compiler, a GPU's alone, by its C++ namespace in an assertion or a backtrace
    # ("triton::tools::getBoolEnv", "std::vector<triton::codegen::...>") and its sources'
    # folder in a path ("/opt/openxla-triton/include/triton/Tools/Sys/GetEnv.hpp",
    # "jax/_src/pallas/triton/lowering.py"); first, before the word "Triton" that
    # :data:`_EXACT` holds to its capital.
    r"(?P<gpu>\btriton::\w|[/\\]triton[/\\]"
    r"|\b(?:lib)?(?:cudart|cudnn|cublas(?:Lt)?|cusolver|cufft|cusparse|nccl|nvrtc|"
    r"nvjitlink|rccl|miopen|rocblas|amdhip\d*)"
    r"|\b(?:CUDA|cuDNN|NCCL|ROCm|HIP|ptxas|nvptx|Triton|triton_gemm|CudaDevice|RocmDevice)\b"
    # JAX's GPU device before CudaDevice (jaxlib 0.4.x's StreamExecutorGpuDevice, its
    # GpuDevice) and TF's XLA device type for a GPU (XLA_GPU_JIT, as tf2xla names it).
    r"|\b(?:StreamExecutor)?GpuDevice\b|\bXLA_GPU_JIT\b"
    r"|\bCUDA_ERROR_|\bcuda(?:Error|Malloc)|\bhipError|\bsm_\d{2,3}\b"
    r"|\b(?:cuda|gpu|rocm):\d\b|/device:GPU:\d|\bGPU_\d+_bfc\b|\bjax_(?:cuda|rocm)\d*_plugin"
    # The PJRT plugin's own files (jax_plugins/xla_cuda12/xla_cuda_plugin.so), a wheel's tag
    # of the CUDA it was built for (jax[cuda12], jax-cuda12-plugin, jaxlib 0.4.30+cuda12.cudnn89),
    # XLA:GPU's PJRT client's file, NVIDIA's word for a GPU's generation ("compute capability").
    r"|\bxla_(?:cuda|rocm)(?:\d+\b|_plugin)|(?<![a-z])cuda1\d(?![\d])(?=[._\]-]|\b)"
    r"|\bse_gpu_pjrt_client\b|\bcompute ?capability\b"
    # A platform given as a value in code or a repr ("platform='gpu'", "device_kind=cuda").
    rf"|{_ASSIGNED}(?:gpu|cuda|rocm)\b"
    r"|(?:xla|service|backends|pjrt|stream_executor)/(?:gpu|cuda|rocm)/"
    # XLA:GPU's NCCL communicators ("initialize clique for rank 6", "acquire clique") and
    # their key as it prints it ("devices=[0,1]; stream=0; groups=[[0,1]]; root_device=0":
    # a process waiting for its peers' NCCL id), and StreamExecutor's copy of an
    # executable's constants to the GPU ("Failed to allocate N bytes for new constant").
    r"|\b(?:initialize|acquire) clique\b|\bdevices=\[[\d,]*\]; stream=\d+;"
    r"|\bbytes for new constant\b"
    # The GPU compiler's own parts (its autotuner and the buffer comparator that checks it,
    # Triton's symbolic tiling), the backend or kernel language named for the GPU, Apple's GPU
    # plugin (jax-metal, platform METAL), and a message that says what ran "on the GPU".
    r"|\bautotun(?:er|ing)\b|\bbuffer_comparator\b|\bsymbolic tile\b"
    # (the autotuner's own words when it has no reference run to check a candidate against)
    r"|\bno reference output found\b"
    r"|\b(?:XLA:|Pallas |Mosaic ?)GPU\b|\bjax[-_]metal\b|\bplatform METAL\b"
    r"|\bon (?:the )?GPUs?\b"
    # The vendor and its driver's library, TF's physical device, an AMD GPU's architecture
    # (gfx90a) or product line, Apple's Metal device.
    r"|\bNVIDIA\b|\blibcuda\b|physical_device:GPU:\d|\bgfx\d{3,4}[a-z]?\b|\bAMD Instinct\b"
    r"|\bMetal device\b"
    # Pallas's GPU-only modules in a traceback's frames: its GPU kernels and Mosaic GPU
    # (jax/experimental/pallas/ops/gpu/..., jax/_src/pallas/mosaic_gpu/...).
    r"|[/\\]pallas[/\\](?:ops[/\\])?gpu[/\\]|[/\\]pallas[/\\]mosaic_gpu[/\\]"
    # JAX's word for a platform a PJRT plugin brought: Intel's GPU plugin's ("Platform 'xpu'
    # is experimental", "backend 'xpu'"), and that plugin's own files
    # (jax_plugins/intel_extension_for_openxla/pjrt_plugin_xpu.so).
    r"|\b(?:[Pp]latform|backend) '(?-i:xpu)'|\bpjrt_plugin_xpu\b|\bintel_extension_for_openxla\b"
    # NVIDIA's LLVM IR (an intrinsic LLVM could not select: %llvm.nvvm.cp.async...) and a
    # Triton kernel's decorator named in its frontend's message.
    r"|\bllvm\.nvvm\.|@triton\.jit\b"
    # JAX's set of device ids in a sharding's repr, under the platform's name in capitals
    # (PositionalSharding([{GPU 0} {GPU 1}]), "{CPU 0, 1}", "{TPU 0, 1, 2, 3}").
    rf"|{_ID_SET.format('GPU')})"
    r"|(?P<tpu>\blibtpu|\bTPU_\d|\bTpuDevice\b|\bXLA_TPU_JIT\b|\btpu:\d\b|/device:TPU:\d"
    r"|\bMosaic(?! ?GPU)\b|\bTPU v\d|\bTPU_VISIBLE_CHIPS\b|\bTensorCore\b"
    # Pallas's TPU-only modules in a traceback's frames: its TPU kernels (flash and splash
    # attention) and its Mosaic lowering.
    r"|[/\\]pallas[/\\](?:ops[/\\])?tpu[/\\]|[/\\]pallas[/\\]mosaic[/\\]"
    r"|(?:xla|service|backends|pjrt|stream_executor)/tpu/"
    # libtpu's own sources in a status's trace, as its build names them ("=== Source Location
    # Trace: === learning/45eac/tpu/runtime/hal/..."), and the TPU core's sequencer that
    # halted ("at tag:pc TensorCoreSequencer:887:0x6f1").
    r"|\blearning/45eac/|\bTensorCoreSequencer\b"
    # The backend or kernel language named for the TPU, or what the TPU compiler did.
    r"|\b(?:XLA:|Pallas )TPU\b|\bTPU (?:lowering|kernel|compil(?:er|ation))\b"
    # TensorFlow's TPU compile op and its cache, by their sources in a log line's prefix
    # ("tpu_compile_op_common.cc:245] Compilation of ... failed",
    # "tpu_compilation_cache_interface.cc:441] TPU host compilation cache miss").
    r"|\btpu_compil(?:e|ation)_\w+\.cc\b|\bTPU host compilation\b"
    # TensorFlow's TPU graph ops, in a node's or a frame's name ("[[TPUReplicate/_compile/
    # _1039.../_4]]", "TpuCompileOp was cancelled", TPUPartitionedCall, TPUExecute).
    r"|\bTPU(?:Replicate\w*|Compile\w*|Execute\w*|PartitionedCall)\b"
    # XLA:TPU's flags (--xla_tpu_enable_...) and the TPU runtime's environment, in capitals
    # (TPU_PROCESS_BOUNDS, TPU_ACCELERATOR_TYPE; not a Python name's tpu_custom_call).
    r"|\bxla_tpu_\w+|(?-i:\bTPU_[A-Z][A-Z_]{3,}\b)"
    r"|\bon (?:the )?TPUs?\b"
    # The TPU's device files and a slice's accelerator type (v4-8, v5litepod-16, v6e-256).
    r"|/dev/(?:accel|vfio/)\d|\bv(?:2|3|4|5p|5e|5litepod|6e)-\d{1,4}\b"
    # A layout XLA:TPU tiled to its vector registers, in an HLO shape it prints
    # ("f32[64,20]{1,0:T(8,128)}", bf16's T(16,128), int8's T(32,128)); XLA:GPU tiles a few
    # layouts too, but not to these.
    r"|\{[\d,]*:T\((?:8|16|32),128\)"
    # Mosaic's TPU dialect in the MLIR a message quotes: an op in generic form
    # ("%97 = "tpu.memref_slice"(...)") and its tiled layout ("#tpu.tiled<(4,128),[23,1]>").
    r'|"tpu\.[a-z_]\w*"\(|#tpu\.tiled<'
    rf"|{_ASSIGNED}tpu\b|{_ID_SET.format('TPU')})"
    # A CPU where JAX says it fell back to one, or where it is the platform a value names
    # (an AbstractMesh's "device_kind=cpu", "platform='cpu'"; "Host" is XLA's own name of
    # the CPU platform: run_hlo_module's "--platform=Host", hlo_runner_main's
    # "--device_type=host", "Running HLO module with runner Host"); XLA's CPU backend's own
    # source paths (xla/service/cpu/..., xla/backends/cpu/...); a binary refusing the host
    # CPU it was started on for an instruction set it was built for (jaxlib's "built using
    # AVX instructions, which your CPU ... do not support", TensorFlow's "compiled to use
    # AVX instructions, but these aren't available on your machine"); XLA:CPU's host callback
    # runner passing on what a Python callback raised ("CpuCallback error calling callback").
    rf"|(?P<cpu>\bfalling back to cpu\b|{_ASSIGNED}(?:cpu|host)\b|\brunner Host\b"
    # TensorFlow's XLA service started for the CPU platform and its one device there ("XLA
    # service 0x55... initialized for platform Host", "StreamExecutor [0]: Host, Default
    # Version"); on a GPU machine it starts for CUDA too, and any accelerator's sign wins.
    r"|\binitialized for platform Host\b|\bStreamExecutor (?:\[\d+\]|device \(\d+\)): Host\b"
    r"|\bCpuCallback error\b"
    # XLA:CPU's compiler timing the program it compiled for the CPU ("Compiling [jit_f] for
    # CPU using JIT time", "Running HLO passes on [jit_f] for CPU"), and the executable it
    # made (PjRtCpuExecutable): the program itself ran there.
    r"|\b(?:Compiling|Running HLO passes on) \[[^\]\n]+\] for CPU\b|\bPjRtCpu\w*Executable\b"
    # JAX's factory of the CPU client named in a frame (jax/_src/xla_bridge.py's and
    # jaxlib/xla_client.py's make_cpu_client): the CPU backend was being made when it failed.
    r"|\bin make_cpu_client\b"
    rf"|{_ID_SET.format('CPU')}"
    r"|(?:xla|service|backends)/cpu/"
    r"|\b(?:built|compiled) (?:using|to use) [A-Z][\w.]*(?:(?:,| and|/) ?[A-Z][\w.]*)*"
    r" instructions\b)",
    re.I,
)
# Signs of a binary built inside Google's own tree, as on a public machine only libtpu is
# (jaxlib and XLA's GPU plugins are built from GitHub: "external/xla/xla/...", "xla/..."):
# XLA's sources under google3's "third_party/" in a status's trace, and Google's crash
# handler that prints on a fatal signal (coredump_hook, "Coroner", the symbolizer's
# stripped_domain link). Weak signs: a TPU only where the log has no other sign at all (a
# Googler's own build of XLA:GPU prints the same paths beside the GPU's signs).
_GOOGLE_BUILD = re.compile(
    r"\bthird_party/(?:tensorflow/compiler/)?xla/|\bcoredump_hook\.cc\b|\bCoroner\b"
    r"|\bsymbolize\.stripped_domain/"
)
# Words that are case-sensitive in the log (``HIP`` the runtime, not "hip"; ``Mosaic`` the
# compiler; ``TensorCore`` the TPU's core): the pattern ignores case, these are re-checked.
_EXACT = ("HIP", "Mosaic", "TensorCore", "Triton", "NVIDIA")
# A line that names a platform to say it is absent (a library a CPU-only machine could not
# load, a backend JAX probed for and did not find): no sign of where the program ran.
_ABSENT = re.compile(
    r"could not load|unable to (?:initialize|load)|not found|no such file|cannot open"
    r"|not installed|failed to (?:load|initialize)|is not available|no (?:gpu|tpu)"
    # The CUDA driver's first call failing: no NVIDIA driver (or device) answered.
    r"|failed call to cuInit"
    # A list of the devices a framework looked for or accepts ("no available devices found,
    # must be one of 'XPU', 'CUDA', or 'NPU'"; torch's "Expected one of cpu, cuda, ... device
    # type"): options named, none of them the one the program ran on.
    r"|no available devices|(?:must be|expected) one of"
    # A platform's flag refused by name ("No such compile option: 'xla_tpu_...'", "Unknown
    # flag in XLA_FLAGS: --xla_tpu_..."): the backend that refused it is not that platform's.
    r"|no such compile option|unknown flags? in XLA_FLAGS"
    # The platform an option needs, named to refuse it elsewhere ("QDWH implementation is only
    # supported on TPU", raised on a CPU).
    r"|\bonly (?:supported|implemented|available) (?:on|for)\b",
    re.I,
)

# A Python comment on a line of source a traceback or pytest quotes ("    # Mosaic-friendly
# dot_general", "x = f(y)  # on TPU this pads"): a '#' after a blank and before one. Not a
# Markdown heading at the line's start, nor a C++ backtrace's "#3 0x7f...".
_COMMENT = re.compile(r"[ \t]#(?:[ \t]|$)")


# A platform's XLA flag ("xla_tpu_megacore_fusion_allow_ags"), as a sign matches it.
_FLAG = re.compile(r"xla_(?:tpu|gpu)_\w+", re.I)


def _refused_flags(text: str) -> set[str]:
    """The platforms' flags a line of ``text`` refuses (:data:`_ABSENT`'s "No such compile
    option: 'xla_tpu_...'"): the source line that passed one is no sign of that platform."""
    refused: set[str] = set()
    for found in _FLAG.finditer(text):
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        if _ABSENT.search(text[start : end if end >= 0 else None]):
            refused.add(found.group(0))
    return refused


#: Past this many characters a log is read at its two ends and around the failure: the signs
#: of where it ran stand where it started (the libraries it loaded, the devices it found) and
#: where it stopped; its middle is a run's steps. (:data:`_LOG_SIGNS`'s hundred case-folded
#: branches cost about 3 s a megabyte: a 5 MB log read whole took 13 s.)
_WHOLE = 256 * 1024
_END = 32 * 1024
#: A long log is read in pieces of about this many characters, each cut at a line's start (a
#: sign never spans lines) and read once however many failures' windows hold it: a log of a
#: hundred failures read each one's window afresh (0.2 s a failure on a 1.7 MB log).
_PIECE = 16 * 1024


class _PieceSigns(NamedTuple):
    """What one piece of a log shows of a platform: each sign's word, its platform and
    whether its line says the platform is absent; the platforms' flags its lines refuse;
    whether it shows a binary of Google's own build."""

    signs: tuple[tuple[str, str, bool], ...]
    refused: frozenset[str]
    google_build: bool


@functools.lru_cache(maxsize=256)
def _piece_signs(piece: str) -> _PieceSigns:
    """The signs of a platform in ``piece`` (cached by its text: a long log's pieces are read
    once for all its failures; a short log is one piece)."""
    signs: list[tuple[str, str, bool]] = []
    absent_lines: dict[int, bool] = {}
    for found in _LOG_SIGNS.finditer(piece):
        word = found.group(0)
        if any(word.lower() == e.lower() and word != e for e in _EXACT):
            continue
        start = piece.rfind("\n", 0, found.start()) + 1
        if _COMMENT.search(piece, start, found.start()):
            continue  # a comment of the source a traceback quotes: no sign of where it ran
        if start not in absent_lines:
            end = piece.find("\n", found.end())
            absent_lines[start] = bool(_ABSENT.search(piece[start : end if end >= 0 else None]))
        signs.append((word, str(found.lastgroup), absent_lines[start]))
    return _PieceSigns(
        tuple(signs), frozenset(_refused_flags(piece)), bool(_GOOGLE_BUILD.search(piece))
    )


def forget_platform_reads() -> None:
    """Forget the pieces of logs read so far (a benchmark reads each log as the first time)."""
    _piece_signs.cache_clear()


def _piece_start(text: str, offset: int) -> int:
    """The start of the piece of ``text`` that holds ``offset``: the first line's start at or
    after the last multiple of :data:`_PIECE` at or before it, or that multiple itself in a
    line longer than a piece (a notebook's JSON on one line: pieces stay small)."""
    at = min(offset - offset % _PIECE, len(text))
    if at == 0:
        return 0
    line = text.find("\n", at - 1, at + _PIECE)
    return at if line < 0 else line + 1


def _pieces(text: str, around: int | None) -> list[str]:
    """``text`` where it is short; else the pieces that hold its two ends and the text around
    offset ``around``, each once."""
    if len(text) <= _WHOLE:
        return [text]
    spans = [(0, _END), (len(text) - _END, len(text))]
    if around is not None:
        spans.append((max(0, around - _END // 2), min(len(text), around + _END // 2)))
    starts: set[int] = set()
    for first, last in spans:
        starts.update(range(first - first % _PIECE, last, _PIECE))
    pieces = []
    for start in sorted(starts):
        begin, end = _piece_start(text, start), _piece_start(text, start + _PIECE)
        if begin < end:
            pieces.append(text[begin:end])
    return pieces


def platform_in_log(text: str, around: int | None = None) -> Platform | None:
    """The platform ``text`` as a whole ran on: the accelerator with more signs (GPU or TPU),
    or the CPU where the log names only it, or the TPU where it shows only a binary of
    Google's own build (:data:`_GOOGLE_BUILD`); None where it names none or both alike. A
    long log is read at its ends and around offset ``around`` (the failure), where given."""
    read = [_piece_signs(piece) for piece in _pieces(text, around)]
    # (the code that passed a flag the backend refused is no sign of that platform either)
    refused = frozenset().union(*(piece.refused for piece in read))
    counts = {"gpu": 0, "tpu": 0, "cpu": 0}
    for piece in read:
        for word, platform, absent in piece.signs:
            if word not in refused and (not absent or platform == "cpu"):
                counts[platform] += 1
    gpu, tpu = counts["gpu"], counts["tpu"]
    if gpu != tpu:
        return Platform.GPU if gpu > tpu else Platform.TPU
    if not gpu and counts["cpu"]:
        return Platform.CPU
    google_build = any(piece.google_build for piece in read)
    return Platform.TPU if not gpu and google_build else None
