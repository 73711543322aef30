"""What a kernel of the bench is, timed alone (:class:`~.kernels.KernelTiming`) or inside the
program (:class:`~.traced.TracedKernel`), and its entry in the bench JSON, the same keys both
ways."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..analysis.roofline import Roofline

__all__ = ["TimedKernel", "kernel_contract"]


@dataclass(slots=True, kw_only=True)
class TimedKernel:
    """The fields both kinds of timed kernel have; each says how it has its time
    (:attr:`median_s`) or, below resolution, the time it is known to be under (:attr:`below_s`)."""

    name: str
    kind: str
    where: str
    flops: int  # per execution
    bytes: int  # per execution (through HBM on a TPU module)
    source: str
    roofline: Roofline
    share: float = 0.0

    @property
    def median_s(self) -> float | None:
        raise NotImplementedError

    @property
    def below_s(self) -> float | None:
        raise NotImplementedError


def kernel_contract(
    kernel: TimedKernel,
    *,
    time_s: float | None,
    executions: float,
    rates: tuple[float | None, float | None],
    timed: str,
    asynchronous: bool,
) -> dict[str, Any]:
    """The kernel's entry in the bench JSON: ``rates`` are its FLOP/s and bytes/s, ``timed``
    how it was timed (``alone``, ``in program``)."""
    bound = kernel.roofline.bound
    return {
        "name": kernel.name,
        "median_s": kernel.median_s,
        "share": kernel.share,
        "flops": kernel.flops,
        "bytes": kernel.bytes,
        "bound": bound.value if bound is not None else None,
        "source": kernel.source,
        "time_s": time_s,
        "executions": executions,
        "flops_per_s": rates[0],
        "bytes_per_s": rates[1],
        "roofline_fraction": kernel.roofline.fraction,
        "timed": timed,
        "below_s": kernel.below_s,
        "async": asynchronous,
    }
