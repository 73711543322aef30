"""Out-of-memory advice that follows the report's numbers, each fix with the bytes it frees.

:func:`~..memory.oom_log.oom_fixes` names the fixes the peak buffers point to (donation,
remat, bf16, a smaller batch). The report's totals say more: TPU's "Total hbm usage" splits
the memory into what the program's temporaries take and what its **arguments** take -- when
the arguments (the weights) alone fill the device, no batch size helps, and the fix is to
shard them, a bigger slice, or a lower precision; when the program needs far more than the
device has (1.5x and more), a smaller batch must remove most of it and a bigger device (or
sharding over more chips) is named first. The ranking here is that judgement, and the bytes
are the report's own.
"""

from __future__ import annotations

import re

from ...units import format_bytes
from ..memory.oom_log import FixKind, OomReport, oom_fixes
from .advice import AdviceKind
from .sizes import SIZE, bytes_of

__all__ = ["memory_fixes"]

_ARGUMENTS = re.compile(rf"^\s*arguments\s+(?P<size>{SIZE})\s*$", re.M)
_PROGRAM = re.compile(rf"^\s*program\s+(?P<size>{SIZE})\s*$", re.M)
# How much past the device a program may be for a smaller batch to be the first thing to try.
_FAR_OVER = 1.5
_KINDS = {
    FixKind.DONATE: AdviceKind.DONATE,
    FixKind.REMAT: AdviceKind.REMAT,
    FixKind.BF16: AdviceKind.LOWER_PRECISION,
    FixKind.SMALLER_BATCH: AdviceKind.SMALLER_BATCH,
}


def _with_bytes(text: str, freed: int | None, verb: str = "frees up to {}") -> str:
    return f"{text} ({verb.format(format_bytes(freed))})" if freed else text


def memory_fixes(report: OomReport, text: str) -> list[tuple[AdviceKind, str]]:
    """The fixes for ``report`` (read from ``text``, the report's own lines), best first."""
    base = [
        (
            _KINDS[fix.kind],
            _with_bytes(
                fix.fix,
                fix.bytes,
                "at least {} must go" if fix.kind is FixKind.SMALLER_BATCH else "frees up to",
            ),
        )
        for fix in oom_fixes(report)
    ]
    capacity, used = report.capacity_bytes, report.used_bytes
    arguments_match = _ARGUMENTS.search(text)
    arguments = bytes_of(arguments_match["size"]) if arguments_match else None
    over = report.exceeded_bytes or (used - capacity if used and capacity else None)
    bigger = (
        AdviceKind.BIGGER_DEVICE,
        _with_bytes(
            "a device with more memory, or more chips with the program sharded over them "
            "(a bigger slice)",
            over,
            "needs at least {} more",
        ),
    )
    if capacity and arguments and arguments >= 0.8 * capacity:
        shard = (
            AdviceKind.SHARD,
            f"the arguments alone (the weights: {format_bytes(arguments)}) take "
            f"{arguments * 100 // capacity}% of the device's {format_bytes(capacity)}: no batch "
            "size helps -- shard them over several chips (jax.sharding, a bigger slice), or "
            f"store them in bfloat16/int8 (bf16 frees up to {format_bytes(arguments // 2)} of "
            "f32 weights)",
        )
        precision = (
            AdviceKind.LOWER_PRECISION,
            _with_bytes("load the weights in bfloat16", arguments // 2),
        )
        return [shard, precision, bigger, *base]
    if capacity and used and used > _FAR_OVER * capacity:
        return [bigger, *base]
    if base and base[-1][0] is AdviceKind.SMALLER_BATCH and not report.buffers:
        return [base[-1], bigger, *base[:-1]]
    return [*base, bigger]
