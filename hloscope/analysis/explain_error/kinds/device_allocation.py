"""The runtime could not allocate a buffer on the device: TPU's ``Error allocating device
buffer: Attempting to allocate 196.00M. That was not possible. There are 134.44M free.;
(0x0x0_HBM0)``, ``Attempting to reserve 3.95G at the bottom of memory``,
``RuntimeBufferAllocationFailure``; JAX's GPU ``Failed to allocate request for 176.00MiB
(184549376B) on device ordinal 0``, ``Out of memory allocating N bytes``,
``CUDA_ERROR_OUT_OF_MEMORY``; TensorFlow's ``OOM when allocating tensor with shape[...]`` and its
allocator's ``failed to allocate 7.35G (7889485824 bytes) from device``.

Unlike a compile-time report, these happen while the program loads or runs: what was asked
for may be small, and the memory is held by something else -- arrays of earlier steps,
another process, a framework's preallocation. The advice follows the numbers the message
gives: the bytes asked for against the bytes free (or allocated already), and for a TF tensor
its size from shape and type.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....units import format_bytes
from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import make_failure
from ..device import named_accelerator, platform_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from ..sizes import SIZE, bytes_of, tensor_bytes
from .bfc_summary import DUMP_LINE, read_dump

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    rf"Error allocating device buffer: Attempting to allocate (?P<eab>{SIZE})\. That was not "
    rf"possible\.(?: There are (?P<eab_free>{SIZE}) free\.)?(?:; \((?P<eab_mem>[^)\n]+)\))?"
    rf"|Attempting to reserve (?P<res>{SIZE}) at the bottom of memory\. That was not possible\."
    rf"(?: There are (?P<res_free>{SIZE}) free)?"
    rf"|Failed to allocate request for (?P<far>{SIZE}) \((?P<far_bytes>\d+)B\) on device "
    rf"ordinal (?P<ordinal>\d+)"
    r"|RuntimeBufferAllocationFailure"
    r"|Out of memory allocating (?P<oma>\d+) bytes"
    r"|OOM when allocating tensor (?:with|of) shape ?\[(?P<tf_shape>[\d, ]*)\]"
    r"(?: and type (?P<tf_type>\w+))?(?: on (?P<tf_dev>[^\s]+))?"
    rf"|failed to allocate (?P<fta>{SIZE}) \((?P<fta_bytes>\d+) bytes\) from device"
    r"|CUDA_ERROR_OUT_OF_MEMORY"
)
# The opening of a failure message, and any line of a BFC allocator's dump (a dump pasted
# alone is a GPU memory report of its own: :mod:`.bfc_summary`).
_FAILURE_OR_DUMP = re.compile(f"{_OPENING.pattern}|{DUMP_LINE.pattern}")
_ALLOCATED = re.compile(rf"Currently allocated:\s+(?P<size>{SIZE})")
_CAPACITY = re.compile(rf"HBM capacity (?P<size>{SIZE}):")
_TPU_WORDS = re.compile(r"HBM\d|/job:tpu_worker|XLA:TPU|\bTPU\b")
_GPU_WORDS = re.compile(r"device ordinal|device:GPU|/gpu:|hipError|CUDA_ERROR|GPU_\d_bfc", re.I)
# The TF node an OOM names: `[[{{node a/b/Op}}]]`, `[[Node: a/b/Op_1 = Op[...`, `[[node a/b/Tile
# (defined at FILE:LINE) ]]`, or the kernel file `OP_REQUIRES failed at tile_ops.cc:123`.
_TF_NODE = re.compile(
    r"\[\[\{\{node (?P<a>[^}\n]+)\}\}\]\]|\[\[Node: (?P<b>\S+) = (?P<optype>\w+)\["
    r"|\[\[node (?P<c>\S+)(?: \(defined at (?P<file>[^\n]+?):(?P<line>\d+)\))?"
)
_KERNEL_FILE = re.compile(r"OP_REQUIRES failed at (?P<kernel>[a-z_]+?)_ops?\.cc")
_BFC_LIMIT = re.compile(r"^Limit:\s+(?P<limit>\d+)\s*\n\s*InUse:\s+(?P<inuse>\d+)", re.M)
_FROM_DEVICE = 8 * 1024


def _device(log: Log, m: re.Match[str]) -> str | None:
    window = log.text[max(0, m.start() - 300) : log.line_end(m.end()) + 200]
    platform = "tpu" if _TPU_WORDS.search(window) or m["res"] else None
    if platform is None and (_GPU_WORDS.search(window) or m["far"] or m["fta"]):
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
    node = _TF_NODE.search(after)
    if node is not None:
        name = node["a"] or node["b"] or node["c"]
        where = f"{node['file']}:{node['line']}" if node["file"] else None
        return node["optype"] or _op_of_node(name), name, where
    kernel = _KERNEL_FILE.search(log.before_on_line(m.start()))
    if kernel is not None:
        return "".join(part.title() for part in kernel["kernel"].split("_")), "", None
    return "tensor allocation", "", None


def _fixes(log: Log, m: re.Match[str]) -> tuple[int | None, list[tuple[AdviceKind, str]]]:
    """The bytes asked for and the fixes, best first, as the message's numbers say."""
    asked = bytes_of(m["eab"] or m["res"] or m["far"] or m["fta"])
    if m["oma"]:
        asked = int(m["oma"])
    free = bytes_of(m["eab_free"] or m["res_free"])
    window = log.text[m.end() : m.end() + 2048]
    allocated = _ALLOCATED.search(window)
    capacity = _CAPACITY.search(window)
    held = ""
    if allocated and capacity:
        held = f" ({allocated['size']} of the device's {capacity['size']} is allocated already)"
    elif free is not None and asked is not None:
        held = f" (only {format_bytes(free)} free; {format_bytes(asked - free)} more is needed)"
    release = (
        AdviceKind.FREE_MEMORY,
        f"memory is held by something else{held}: arrays kept from earlier steps or cells "
        "(del them, jax.clear_caches(), restart the runtime), another process on the device "
        "(nvidia-smi / tpu-info), or a framework's preallocation (JAX: "
        "XLA_PYTHON_CLIENT_MEM_FRACTION or XLA_PYTHON_CLIENT_PREALLOCATE=false; TF: "
        "set_memory_growth)",
    )
    smaller = (
        AdviceKind.SMALLER_BATCH,
        "a smaller batch (or gradient accumulation): the buffers of a step shrink with it",
    )
    if m["tf_shape"] is not None:
        size = tensor_bytes(m["tf_shape"], m["tf_type"])
        limit = _BFC_LIMIT.search(log.text, max(0, m.start() - _FROM_DEVICE), m.start())
        over = ""
        if limit and size:
            room = int(limit["limit"]) - int(limit["inuse"])
            over = f"; the allocator had {format_bytes(max(room, 0))} left of its limit"
        first = size and f" (this tensor alone is {format_bytes(size)}{over})"
        batch = (
            AdviceKind.SMALLER_BATCH,
            f"a smaller batch: shape[{m['tf_shape']}] leads with the batch dimension{first or ''}",
        )
        return size, [batch, release]
    return asked, [release, smaller]


def _device_allocation(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if _OPENING.match(log.text, m.start()) is None:
        yield from read_dump(log, m, _OPENING)
        return
    m = _OPENING.match(log.text, m.start()) or m
    start = log.text.rfind("\n", 0, m.start()) + 1
    stack = log.traceback_before(start) or log.traceback_after(m.end())
    device = _device(log, m)
    asked, fixes = _fixes(log, m)
    op, node, source = "device buffer", "", None
    if m["tf_shape"] is not None:
        op, node, source = _tf_offender(log, m)
    hints = [f"{format_bytes(asked)} ({asked} bytes) asked for"] if asked else []
    if m["eab_mem"]:
        hints.append(f"memory {m['eab_mem']} (TPU HBM)")
    (kind, text), *rest = fixes
    extra = {} if source is None else {"source": source}
    yield make_failure(
        Family.DEVICE_ALLOCATION,
        log,
        m.start(),
        op=op,
        reason=Reason.OUT_OF_MEMORY,
        advice=(text, kind),
        node=node,
        stack=stack,
        device=device,
        platform=platform_of(device),
        headline_at=start,
        status="RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED" in log.headline(start) else None,
        hints=hints,
        more_advice=[(str(k), t) for k, t in rest],
        **extra,
    )


RECOGNISER = Recogniser(Family.DEVICE_ALLOCATION, _FAILURE_OR_DUMP, _device_allocation)
