"""A kernel's entry in the bench JSON, the same keys whether it was timed alone
(:class:`~.kernels.KernelTiming`) or inside the program (:class:`~.traced.TracedKernel`)."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["TimedKernel", "kernel_contract"]


class TimedKernel(Protocol):
    """What the entry reads of a kernel, timed alone or in the program (a protocol, so that
    this module imports neither kind of kernel: each of them imports it)."""

    @property
    def name(self) -> str: ...
    @property
    def median_s(self) -> float | None: ...
    @property
    def share(self) -> float | None: ...
    @property
    def flops(self) -> float: ...
    @property
    def bytes(self) -> float: ...
    @property
    def source(self) -> str | None: ...
    @property
    def below_s(self) -> float | None: ...
    @property
    def roofline(self) -> Any: ...


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
