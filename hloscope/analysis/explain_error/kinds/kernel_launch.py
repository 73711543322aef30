"""XLA launched one of its GPU kernels with dimensions the GPU refuses: a bug in XLA.

``INTERNAL: Failed to launch CUDA kernel: triton_gemm_dot_0 with block dimensions: 128x1x1
and grid dimensions: 4x1x102400 and shared memory size: 65536: CUDA_ERROR_INVALID_VALUE``:
the driver refused the launch itself (a grid's y or z over 65535, more shared memory than the
GPU has), before the kernel ran. The kernel is XLA's (a fusion, a Triton GEMM), chosen for the
program's shapes, so it is XLA's to fix; a kernel that faulted as it ran
(``CUDA_ERROR_ILLEGAL_ADDRESS``) is another failure, :mod:`.xla_status`'s.

The kernel, its dimensions and the driver's code are read from the message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import KERNEL_FAULTS

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"Failed to launch (?P<runtime>CUDA|ROCm|HIP|GPU) kernel:? "
    r"(?!CUDA_ERROR_|hipError)(?P<kernel>[\w.$-]+)"
    r"(?P<rest>[^\n]*)",
)
_DIMENSIONS = re.compile(r"(?P<what>block|grid) dimensions: (?P<dims>\d+x\d+x\d+)")
_CODE = re.compile(r"\b(?P<code>CUDA_ERROR_[A-Z_]+|hipError\w+)\b")
_FAULT = re.compile(
    r"\bCUDA_ERROR_(?:" + KERNEL_FAULTS + r")\b"
    r"|\bhipError(?:IllegalAddress|LaunchFailure|IllegalInstruction|Assert)\b"
)
# CUDA's caps on a grid: x up to 2^31 - 1, y and z up to 65535.
_GRID_CAP = 65535
_ADVICE = (
    "XLA launched its kernel {kernel} with {dims}and the {runtime} driver refused the launch "
    "({code}){over}: a bug in XLA's choice of launch dimensions, not an error in your program. "
    "Report it (https://github.com/openxla/xla/issues) with the versions "
    "(jax.print_environment_info()) and XLA_FLAGS=--xla_dump_to=/tmp/xla_dump; until it is "
    "fixed, change the shapes that kernel sees (fewer batch elements per call, the long axis "
    "leading) or turn its emitter off (a Triton kernel: "
    "XLA_FLAGS=--xla_gpu_enable_triton_gemm=false)"
)


def _kernel_launch(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    rest = m["rest"]
    if _FAULT.search(rest):
        return  # the kernel ran and faulted: a runtime fault, read by xla_status
    dims = {d["what"]: d["dims"] for d in _DIMENSIONS.finditer(rest)}
    code = _CODE.search(rest)
    grid = [int(n) for n in dims.get("grid", "0x0x0").split("x")]
    over = (
        f": its grid {dims['grid']} passes the {_GRID_CAP} CUDA allows in y and z"
        if max(grid[1:]) > _GRID_CAP
        else ""
    )
    said = "".join(f"{what} dimensions {d} " for what, d in dims.items())
    advice = _ADVICE.format(
        kernel=m["kernel"],
        dims=said or "its launch dimensions ",
        runtime=m["runtime"],
        code=code["code"] if code else "refused",
        over=over,
    )
    yield _KIND.failure(
        log,
        m.start(),
        op=m["kernel"],
        advice=(advice, AdviceKind.REPORT_BUG),
        platform=Platform.GPU,
        headline_at=log.line_start(m.start()),
    )


_KIND = Kind(Family.XLA_CRASH, Reason.RUNTIME)
RECOGNISER = Recogniser(Family.XLA_CRASH, _OPENING, _kernel_launch)
