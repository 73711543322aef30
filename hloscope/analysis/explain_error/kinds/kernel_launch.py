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
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family
from .cuda_libraries import KERNEL_FAULTS

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# A kernel that faulted as it ran, in the CUDA driver's codes or HIP's.
_FAULT = re.compile(r"\bCUDA_ERROR_(?:" + KERNEL_FAULTS + r")\b|" + _RE.hip_fault.pattern)
# CUDA's caps on a grid: x up to 2^31 - 1, y and z up to 65535.
_GRID_CAP = 65535


def _kernel_launch(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    rest = m["rest"]
    if _FAULT.search(rest):
        return  # the kernel ran and faulted: a runtime fault, read by xla_status
    dims = {d["what"]: d["dims"] for d in _RE.dimensions.finditer(rest)}
    code = _RE.code.search(rest)
    grid = [int(n) for n in dims.get("grid", "0x0x0").split("x")]
    over = _TEXT.over.format(grid=dims["grid"], cap=_GRID_CAP) if max(grid[1:]) > _GRID_CAP else ""
    said = "".join(f"{what} dimensions {d} " for what, d in dims.items())
    advice = _TEXT.advice.format(
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
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _kernel_launch)
