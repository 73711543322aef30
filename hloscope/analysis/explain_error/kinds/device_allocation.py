"""The runtime could not allocate a buffer on the device: TPU's ``Error allocating device
buffer: Attempting to allocate 196.00M. That was not possible. There are 134.44M free.;
(0x0x0_HBM0)``, ``Attempting to reserve 3.95G at the bottom of memory``,
``RuntimeBufferAllocationFailure``; JAX's GPU ``Failed to allocate request for 176.00MiB
(184549376B) on device ordinal 0``, ``CUDA_ERROR_OUT_OF_MEMORY``; TensorFlow's ``OOM when
allocating tensor with shape[...]`` and its allocator's ``failed to allocate 7.35G
(7889485824 bytes) from device``.

Unlike a compile-time report, these happen while the program loads or runs: what was asked
for may be small, and the memory is held by something else -- arrays of earlier steps,
another process, a framework's preallocation. The advice follows the numbers the message
gives: the bytes asked for against the bytes free (or allocated already), and for a TF tensor
its size from shape and type.

XLA:CPU's ``Out of memory allocating N bytes.`` (its CpuDeviceMemory::Allocate, as the program
runs) is the host's memory, which no framework holds in advance: the program's buffers are
more than the machine has -- a smaller program or a bigger machine, not memory to free. (Its
platform is not named: the words are XLA:CPU's, but the log does not say CPU.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....units import format_bytes
from ...unsupported.findings import Reason
from ..advice import AdviceKind, torch_xla_log
from ..build import UNSET, Kind
from ..catalogue import words_of
from ..device import named_accelerator, platform_of
from ..log import Log
from ..memory_advice import derivative_matrix_fix
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..sizes import SIZE, bytes_of, tensor_bytes
from ..user_line import is_users
from .bfc_summary import ABSURD, DUMP_LINE, NO_DEVICE_HOLDS, read_dump
from .cuda_libraries import LIBRARY_NAMES
from .out_of_memory import program_over_limit

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

# The patterns built on sizes.SIZE, a size as every allocator prints it, stay beside it in code
# (the module's other words are in device_allocation.toml).
_BFC_LINE = (
    rf"|o(?P<bfc>ut of memory trying to allocate (?P<bfc_req>{SIZE}))"
    r"(?: \(rounded to (?P<bfc_rounded>\d+)\))?"
)
_OPENING = re.compile(
    # With or without "Error allocating device buffer: " before it (older TPU runtimes); after
    # it, the rest ("That was not possible. ...") may be cut off (a logger's line, a paste).
    rf"(?:Error allocating device buffer: |(?=Attempting to allocate {SIZE}\. That was not))"
    rf"Attempting to allocate (?P<eab>{SIZE})\.?(?:\s?That was not "
    rf"possible\.)?(?:\s?There are (?P<eab_free>{SIZE}) free\.)?(?:; \((?P<eab_mem>[^)\n]+)\))?"
    rf"|Attempting to reserve (?P<res>{SIZE}) at the bottom of memory\. That was not possible\."
    rf"(?: There are (?P<res_free>{SIZE}) free(?:, (?P<res_reserved>{SIZE}) reserved, and "
    rf"(?P<res_reservable>{SIZE}) reservable)?)?"
    # The StreamExecutor allocator's wording: JAX on GPUs, and older TPU runtimes (TF's,
    # jax's tpu_driver) that say it of TPU memory too.
    rf"|Failed to allocate request for (?P<far>{SIZE})(?: \((?P<far_bytes>\d+)B\))? on device "
    rf"ordinal (?P<ordinal>\d+)"
    # TF's allocator retrying with less: a warning it says is not a failure.
    # (`Allocator (GPU_0_bfc) ran out ...`; TF 1.x: `Ran out ...`: read from the "an").
    rf"|an out of memory trying to allocate (?P<warn>{SIZE})[^\n]{{0,120}}?\s*The caller "
    r"indicates that this is not a failure"
    # The BFC allocator's own line, without the retry's "not a failure": JAX's "Allocator
    # (GPU_0_bfc) ran out of memory trying to allocate 1.23TiB (rounded to N)requested by op",
    # TF 1.x's "Ran out of memory trying to allocate 144.00MiB. See logs for memory state."
    rf"{_BFC_LINE}"
    r"|RuntimeBufferAllocationFailure"
    r"|Out of memory allocating (?P<oma>\d+) bytes"
    # The GPU runtime loading an executable's constants onto the device (under any status
    # code: INTERNAL, RESOURCE_EXHAUSTED).
    r"|Failed to allocate (?P<ftc>\d+) bytes for new constant"
    r"|OOM when allocating tensor (?:with|of) shape ?\[(?P<tf_shape>[\d, ]*)\]"
    r"(?: and type (?P<tf_type>\w+))?(?: on (?P<tf_dev>[^\s]+))?"
    rf"|failed to allocate (?P<fta>{SIZE}) \((?P<fta_bytes>\d+) bytes\) from device"
    r"|CUDA_ERROR_OUT_OF_MEMORY"
    # PyTorch's caching allocator (CUDA or ROCm), as users of both frameworks paste it.
    # (Each alternative opens with its own literal: a group before it would cost the scan
    # its skip to the letters that can start one.)
    rf"|C(?P<t_cuda>UDA out of memory\. Tried to allocate (?P<toa>{SIZE}))"
    rf"|H(?P<t_hip>IP out of memory\. Tried to allocate (?P<toa_hip>{SIZE}))"
    # TensorFlow copying a tensor to a GPU that has no room for it.
    r"|D(?P<dst>st tensor is not initialized)"
    # A GPU runtime's or library's own call that found no memory (jaxlib's solver kernels:
    # "operation hipGetLastError() failed: out of memory"; "cudaMallocAsync(&data, size,
    # stream) failed: out of memory"): the call is read back from the line.
    r"|\)(?P<call_oom> failed: out of memory)\b"
)
# The failure messages a dump is read beside (its own allocator's line is the dump's).
_BESIDE_A_DUMP = re.compile(_OPENING.pattern.replace(_BFC_LINE, ""))
# The opening of a failure message, and any line of a BFC allocator's dump (a dump pasted
# alone is a GPU memory report of its own: :mod:`.bfc_summary`).
_FAILURE_OR_DUMP = re.compile(f"{_OPENING.pattern}|{DUMP_LINE.pattern}")
_ALLOCATED = re.compile(rf"Currently allocated:\s+(?P<size>{SIZE})")
_CAPACITY = re.compile(rf"HBM capacity (?P<size>{SIZE}):")
_FROM_DEVICE = 8 * 1024


def _device(log: Log, m: re.Match[str]) -> str | None:
    window = log.text[max(0, m.start() - 300) : log.line_end(m.end()) + 200]
    # The reservation's words and "Attempting to allocate" are XLA:TPU's runtime's alone (its
    # error E0100, RuntimeBufferAllocationFailure).
    platform = "tpu" if _RE.tpu_words.search(window) or m["res"] or m["eab"] else None
    if platform is None and m["far"] and not _RE.gpu_words.search(window):
        # The same words on both: the log's own words (a TPU VM, Colab's TPU) decide.
        platform = (
            "tpu" if _RE.tpu_words.search(log.text) and not _RE.gpu_words.search(log.text) else None
        )
    said_gpu = m["far"] or m["fta"] or m["warn"] or m["toa"] or m["toa_hip"] or m["call_oom"]
    if platform is None and (_RE.gpu_words.search(window) or said_gpu):
        platform = "gpu"
    if platform == "gpu":
        name = named_accelerator(log.text[: m.start()])
        return f"gpu ({name})" if name else "gpu"
    return platform


def _op_of_node(node: str) -> str:
    """``a/b/Upscale2D_2/Tile`` -> ``Tile``; ``.../AvgPool_1`` -> ``AvgPool``."""
    return re.sub(r"_\d+$", "", node.rsplit("/", 1)[-1])


def _tf_offender(log: Log, m: re.Match[str]) -> tuple[str, str, str | None]:
    """The op, node and ``file:line`` a TF OOM names (nearby, after the message)."""
    after = log.text[m.end() : m.end() + 2048]
    node = _RE.tf_node.search(after)
    if node is not None:
        name = node["a"] or node["b"] or node["c"]
        where = f"{node['file']}:{node['line']}" if node["file"] else None
        return node["optype"] or _op_of_node(name), name, where
    kernel = _RE.kernel_file.search(log.before_on_line(m.start()))
    if kernel is not None:
        return "".join(part.title() for part in kernel["kernel"].split("_")), "", None
    return "tensor allocation", "", None


# How far after the allocator's line XLA's buffer report may start (a traceback between).
_REPORT_AFTER = 16 * 1024
# The program's own requirement, as TPU's reservation report prints it.
_PROGRAM_NEEDS = re.compile(rf"Program requirement:\s+(?P<size>{SIZE})")


def _fixes(log: Log, m: re.Match[str]) -> tuple[int | None, list[tuple[AdviceKind, str]]]:
    """The bytes asked for and the fixes, best first, as the message's numbers say: what is
    free against what was asked (and, on TPU, against what is free in one piece and what the
    device holds at all); a PyTorch/XLA log gets PyTorch/XLA's advice."""
    asked = bytes_of(m["eab"] or m["res"] or m["far"] or m["fta"] or m["warn"] or m["bfc_req"])
    if m["bfc_rounded"]:
        asked = int(m["bfc_rounded"])
    if m["oma"] or m["ftc"]:
        asked = int(m["oma"] or m["ftc"])
    if m["warn"]:
        return asked, [(AdviceKind.HARMLESS, _TEXT.not_a_failure.format(asked=m["warn"].strip()))]
    free = bytes_of(m["eab_free"] or m["res_free"])
    reservable = bytes_of(m["res_reservable"])
    window = log.text[m.end() : m.end() + 2048]
    allocated = _ALLOCATED.search(window)
    capacity_found = _CAPACITY.search(window)
    capacity = bytes_of(capacity_found["size"]) if capacity_found else None
    program = _PROGRAM_NEEDS.search(window)
    needs = bytes_of(program["size"]) if program else asked
    torch = torch_xla_log(log.text)
    smaller = (
        AdviceKind.SMALLER_BATCH,
        "a smaller batch (or gradient accumulation): the buffers of a step shrink with it",
    )
    if m["tf_shape"] is not None:
        return _tf_tensor(log, m)
    if m["toa"] or m["toa_hip"]:
        return _torch(log, m)
    if m["dst"]:
        return None, [
            (AdviceKind.SMALLER_BATCH, _TEXT.dst),
            (AdviceKind.FREE_MEMORY, _TEXT.release_jax.format(held="")),
        ]
    if m["call_oom"]:  # a library allocating outside the framework's pool, however small
        return None, [
            (AdviceKind.FREE_MEMORY, _TEXT.release_jax.format(held=_TEXT.outside)),
            smaller,
        ]
    if asked and asked >= NO_DEVICE_HOLDS:
        return asked, [
            (AdviceKind.FIX_SHAPES, ABSURD.format(asked=format_bytes(asked))),
            smaller,
        ]
    if m["oma"]:
        # XLA:CPU's buffers are the host's memory, which no framework holds in advance: the
        # program's buffers are more than the machine can give.
        return asked, [smaller, (AdviceKind.BIGGER_DEVICE, _TEXT.host_bigger)]
    if capacity and needs and needs > capacity:
        text = _TEXT.too_big.format(
            asked=format_bytes(needs),
            capacity=format_bytes(capacity),
            over=format_bytes(needs - capacity),
            remat="torch.utils.checkpoint" if torch else "jax.checkpoint",
        )
        bigger = (
            AdviceKind.BIGGER_DEVICE,
            f"a device with more than {format_bytes(needs)} of memory, or more chips with the "
            "program sharded over them",
        )
        return asked, [(AdviceKind.SMALLER_BATCH, text), bigger]
    if asked and free is not None and reservable is not None and reservable < asked <= free:
        text = _TEXT.fragmented.format(
            free=format_bytes(free), asked=format_bytes(asked), reservable=format_bytes(reservable)
        )
        return asked, [(AdviceKind.DEFRAGMENT, text), smaller]
    held = ""
    if allocated and capacity_found:
        held = (
            f" ({allocated['size']} of the device's {capacity_found['size']} is allocated already)"
        )
    elif free is not None and asked is not None and asked > free:
        held = f" (only {format_bytes(free)} free; {format_bytes(asked - free)} more is needed)"
    elif free is not None and asked is not None:
        held = f" ({format_bytes(free)} is free, more than asked, but not in one piece)"
    release = (
        AdviceKind.FREE_MEMORY,
        (_TEXT.release_torch if torch else _TEXT.release_jax).format(held=held),
    )
    if m["ftc"]:  # a constant of the program's own: its size is the program's, then the rest
        return asked, [smaller, release]
    if m["eab_mem"] and _RE.tpu_core_memory.search(m["eab_mem"]) and free is not None:
        # One TPU core's HBM, which no other process can hold (libtpu takes the chips for one):
        # this program's own arrays fill it, most often a model placed whole on one core.
        how = _TEXT.shard_torch if torch else _TEXT.shard_jax
        said = _TEXT.tpu_core_full.format(memory=m["eab_mem"], held=held, how=how)
        core = (AdviceKind.BIGGER_DEVICE, said)
        return asked, [core, smaller, release]
    return asked, [release, smaller]


_BYTES = rf"(?:\d+ bytes|{SIZE})"
_TORCH_NUMBERS = re.compile(
    # PyTorch 1.x to 2.0: "(GPU 0; 8.00 GiB total capacity; 6.1 GiB already allocated; 0 bytes
    # free; 7.2 GiB reserved in total by PyTorch)".
    rf"(?P<total>{_BYTES}) total capacity; (?P<allocated>{_BYTES}) already allocated; "
    rf"(?P<free>{_BYTES}) free(?:; (?P<reserved>{_BYTES}) reserved in total by PyTorch)?"
    # PyTorch 2.1 on: "GPU 0 has a total capac(i)ty of 6.00 GiB of which 0 bytes is free. Of
    # the allocated memory 2.93 GiB is allocated by PyTorch, and 2.30 GiB is reserved by
    # PyTorch but unallocated."
    rf"|total capac\w+ of (?P<total2>{_BYTES}) of which (?P<free2>{_BYTES}) is free\.[^\n]*?"
    rf"(?P<allocated2>{_BYTES}) is allocated by PyTorch, and (?P<unallocated>{_BYTES}) is "
    r"reserved by PyTorch but unallocated"
)


def _torch_held(said: re.Match[str]) -> tuple[int | None, int | None, int | None, int | None]:
    """PyTorch's allocated, reserved, cached (reserved but unallocated) and total bytes, in
    either release's words; cached worked out where only reserved and allocated are said."""
    allocated = bytes_of(said["allocated"] or said["allocated2"])
    reserved = bytes_of(said["reserved"])
    cached = bytes_of(said["unallocated"]) if said["unallocated"] else None
    if cached is None and reserved is not None and allocated is not None:
        cached = reserved - allocated
    return allocated, reserved, cached, bytes_of(said["total"] or said["total2"])


def _torch(log: Log, m: re.Match[str]) -> tuple[int | None, list[tuple[AdviceKind, str]]]:
    """PyTorch's "CUDA out of memory. Tried to allocate X (GPU 0; T total capacity; A already
    allocated; F free; R reserved in total by PyTorch)": fragmentation when reserved is far
    above allocated, else a full GPU."""
    tried = m["toa"] or m["toa_hip"]
    asked = bytes_of(tried)
    said = _TORCH_NUMBERS.search(log.text, m.end(), min(len(log.text), log.line_end(m.end()) + 200))
    free_it = (AdviceKind.FREE_MEMORY, _TEXT.release_jax.format(held=""))
    if said is None:
        full = _TEXT.torch_full.format(total="memory", allocated="most", free="little", asked=tried)
        return asked, [(AdviceKind.SMALLER_BATCH, full), free_it]
    allocated, reserved, cached, total = _torch_held(said)
    # Fragmentation when the cache could hold the request and is a real share of the GPU
    # ("reserved >> allocated", as PyTorch puts it), not a few MiB of a full one.
    if cached is not None and asked and cached >= asked and cached >= (total or 0) // 10:
        text = _TEXT.torch_fragmented.format(
            cached=format_bytes(cached),
            allocated=said["allocated"] or said["allocated2"],
            asked=tried,
        )
        return asked, [(AdviceKind.DEFRAGMENT, text), (AdviceKind.SMALLER_BATCH, "a smaller batch")]
    free = bytes_of(said["free"] or said["free2"])
    held = (reserved or (allocated or 0) + (cached or 0)) if allocated is not None else None
    if total and free is not None and held is not None and asked:
        elsewhere = total - held - free
        if elsewhere > asked and elsewhere > total // 4:
            text = _TEXT.torch_elsewhere.format(
                elsewhere=format_bytes(elsewhere), total=format_bytes(total), asked=tried
            )
            return asked, [
                (AdviceKind.FREE_MEMORY, text),
                (AdviceKind.SMALLER_BATCH, "a smaller batch"),
            ]
    text = _TEXT.torch_full.format(
        total=said["total"] or said["total2"],
        allocated=said["allocated"] or said["allocated2"],
        free=said["free"] or said["free2"],
        asked=tried,
    )
    return asked, [(AdviceKind.SMALLER_BATCH, text), free_it]


def _tf_tensor(log: Log, m: re.Match[str]) -> tuple[int | None, list[tuple[AdviceKind, str]]]:
    """A TF tensor that could not be allocated: its size from shape and type, and what its
    allocator had left."""
    size = tensor_bytes(m["tf_shape"], m["tf_type"])
    limit = _RE.bfc_limit.search(log.text, max(0, m.start() - _FROM_DEVICE), m.start())
    over = ""
    if limit and size:
        room = int(limit["limit"]) - int(limit["inuse"])
        over = f"; the allocator had {format_bytes(max(room, 0))} left of its limit"
    first = size and f" (this tensor alone is {format_bytes(size)}{over})"
    batch = (
        AdviceKind.SMALLER_BATCH,
        f"a smaller batch: shape[{m['tf_shape']}] leads with the batch dimension{first or ''}",
    )
    if size and size >= NO_DEVICE_HOLDS:  # no device holds one such tensor: its shape is wrong
        return size, [(AdviceKind.FIX_SHAPES, ABSURD.format(asked=format_bytes(size))), batch]
    return size, [batch, (AdviceKind.FREE_MEMORY, _TEXT.release_jax.format(held=""))]


def _device_allocation(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if _OPENING.match(log.text, m.start()) is None:
        yield from read_dump(log, m, _BESIDE_A_DUMP)
        return
    m = _OPENING.match(log.text, m.start()) or m
    after = log.text[m.end() : m.end() + _REPORT_AFTER]
    # (The BFC allocator's words, and the StreamExecutor allocator's failed request.)
    if (m["bfc"] or m["far"]) and "BufferAssignment OOM" in after:
        return  # XLA's buffer report follows: .out_of_memory reads the two as one
    if m["bfc"] and program_over_limit(log, m.start()):
        return  # the compiled program is over the device's limit: .out_of_memory reads it
    if m["bfc"] and DUMP_LINE.search(after):
        return  # the allocator's dump follows: read with its numbers (.bfc_summary)
    start = log.line_start(m.start())
    stack = log.traceback_before(start) or log.traceback_after(m.end())
    device = _device(log, m)
    asked, fixes = _fixes(log, m)
    derivative = derivative_matrix_fix([log.code_of(f) for f in stack if is_users(f)])
    if derivative is not None:  # a whole Jacobian or Hessian asked for: its products fit
        fixes = [derivative, *fixes]
    op, node, source = "device buffer", "", None
    if m["tf_shape"] is not None:
        op, node, source = _tf_offender(log, m)
    if m["dst"]:
        run = _RE.to_run.search(log.text, max(0, m.start() - 400), m.start())
        op = run["op"] if run else "tensor copy"
    if m["call_oom"]:
        call = _RE.gpu_call.search(log.before_on_line(m.start() + 1)[-480:])
        if call is None or re.match(LIBRARY_NAMES, call["call"], re.I):
            return  # another program's call; a CUDA library's (read by .cuda_libraries)
        op = call["call"]
    hints = [f"{format_bytes(asked)} ({asked} bytes) asked for"] if asked else []
    if m["eab_mem"]:
        hints.append(f"memory {m['eab_mem']} (TPU HBM)")
    if m["res_reservable"]:
        hints.append(
            f"{m['res_free']} free, {m['res_reserved']} reserved, {m['res_reservable']} "
            "reservable (the largest region the program's memory can take)"
        )
    failure = _KIND.failure(
        log,
        m.start(),
        op=op,
        fixes=fixes,
        node=node,
        stack=stack,
        device=device,
        platform=platform_of(device),
        headline_at=start,
        status="RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED" in log.headline(start) else None,
        hints=hints,
        source=UNSET if source is None else source,
    )
    if m["bfc"]:
        # The allocator logs its failure at the W level, then the program stops: a failure.
        failure.finding.warning = False
    yield failure


# A bare status code of this family's kind (read by .xla_status where no words of this
# module's are there) gives way to a failure this module read from the same message.
_KIND = Kind(Family.DEVICE_ALLOCATION, Reason.OUT_OF_MEMORY)
RECOGNISER = Recogniser(
    Family.DEVICE_ALLOCATION,
    _FAILURE_OR_DUMP,
    _device_allocation,
    generic_ops=frozenset({"RESOURCE_EXHAUSTED"}),
)
