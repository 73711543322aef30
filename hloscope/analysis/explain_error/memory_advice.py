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
from ..memory.oom_log import FixKind, OomFix, OomReport, oom_fixes
from .advice import AdviceKind
from .long_input import long_input, shapes_in
from .sizes import SIZE, bytes_of

__all__ = ["derivative_matrix_fix", "memory_fixes"]

_ARGUMENTS = re.compile(rf"^\s*arguments\s+(?P<size>{SIZE})\s*$", re.M)
_PROGRAM = re.compile(rf"^\s*program\s+(?P<size>{SIZE})\s*$", re.M)
# Fixes whose bytes are what must go, not what they free.
_MUST_GO = (FixKind.SMALLER_BATCH, FixKind.SMALLER_BLOCKS)
# XLA:TPU's sum of a program's temporaries, reported before any buffer is assigned.
_TEMPORARIES = re.compile(r"total memory required for HLO temporaries")
_REMAT_TEMPORARIES = (
    "recompute activations instead of keeping them for the backward pass: jax.checkpoint "
    "(jax.remat) around each layer or a scan's body, or a policy that saves less "
    "(jax.checkpoint_policies.nothing_saveable, dots_with_no_batch_dims_saveable)"
)
# How much past the device a program may be for a smaller batch to be the first thing to try.
_FAR_OVER = 1.5
_KINDS = {
    FixKind.DONATE: AdviceKind.DONATE,
    FixKind.REMAT: AdviceKind.REMAT,
    FixKind.BF16: AdviceKind.LOWER_PRECISION,
    FixKind.SMALLER_BATCH: AdviceKind.SMALLER_BATCH,
    FixKind.SMALLER_BLOCKS: AdviceKind.SMALLER_BLOCKS,
    FixKind.RAISE_VMEM_LIMIT: AdviceKind.RAISE_VMEM_LIMIT,
    FixKind.TILE_PADDING: AdviceKind.TILE_PADDING,
    FixKind.FEWER_SCALARS: AdviceKind.FEWER_SCALARS,
}
_SHORTER_SCALARS = (
    "or a shorter maximum input (sequence length, context, --max-model-len): the page and "
    "block tables a paged-attention kernel prefetches into SMEM grow with it"
)
# XLA:TPU's own word that a full SMEM is its bug, not the program's (libtpu of 2020).
_SMEM_BUG = "It should not be possible to run out of smem"


# A full Jacobian or Hessian asked of JAX on a line of the program's.
# (JAX's names: jax.jacobian, or jacfwd/jacrev/hessian as imported; not a method of another
# framework's, TF's tape.jacobian, nor a function of the program's own named jacobian.)
_DERIVATIVE_MATRIX = re.compile(
    r"\bjax\.(?P<api>jacfwd|jacrev|jacobian|hessian)\(|(?<![\w.])(?P<bare>jacfwd|jacrev|hessian)\("
)
_DERIVATIVE_PRODUCTS = (
    "the line asks jax.{api} for a whole {what} (every output's derivative by every input: "
    "their sizes multiplied), which is what does not fit: ask for products instead -- "
    "jax.jvp / jax.vjp (jax.linearize) of the directions needed, a Hessian-vector product "
    "(jax.jvp of jax.grad) -- or build it in chunks of rows (jax.lax.map over basis vectors, "
    "batch_size=...) and reduce each chunk before the next"
)


def derivative_matrix_fix(code_lines: list[str]) -> tuple[AdviceKind, str] | None:
    """The fix where the program's lines (``code_lines``, its frames' quoted code) ask for a
    full Jacobian or Hessian: its size is the product of the outputs' and the inputs', which
    no batch size or device fixes; products of it (jvp, vjp, Hessian-vector) or chunks of it
    do. ``None`` where no line asks for one."""
    for code in code_lines:
        found = _DERIVATIVE_MATRIX.search(code)
        if found is not None:
            api = found["api"] or found["bare"]
            what = "Hessian" if api == "hessian" else "Jacobian"
            return AdviceKind.OTHER, _DERIVATIVE_PRODUCTS.format(api=api, what=what)
    return None


def _with_bytes(text: str, freed: int | None, verb: str = "frees up to {}") -> str:
    return f"{text} ({verb.format(format_bytes(freed))})" if freed else text


def _long_input_fix(report: OomReport, text: str) -> tuple[AdviceKind, str] | None:
    """Cap or bucket the input whose length the largest buffer shows far past the others'."""
    shaped = [b for b in report.buffers if b.shape]
    if not shaped:
        return None
    largest = max(shaped, key=lambda b: b.size_bytes)
    others = [b.shape or "" for b in shaped if b is not largest] + shapes_in(text)
    found = long_input(largest.shape or "", others)
    if found is None:
        return None
    axes = ", ".join(map(str, found.axes))
    return (
        AdviceKind.SHORTER_INPUT,
        f"one input is far longer than the rest: buffer {largest.rank} {found.shape} has length "
        f"{found.length} on axis {axes} where the log's other arrays have {found.typical} "
        f"({found.ratio}x); cap that input's length (truncate, or split it into windows) or "
        "bucket inputs by length (pad to a few fixed lengths, one compile each): capping it at "
        f"{found.typical} frees {format_bytes(found.frees)} of this buffer's "
        f"{format_bytes(found.bytes)}",
    )


def memory_fixes(report: OomReport, text: str) -> list[tuple[AdviceKind, str]]:
    """The fixes for ``report`` (read from ``text``, the report's own lines), best first. Tile
    padding that alone takes more than the program is over by stays first: no device size or
    batch is the question then."""
    fixes = _ranked(report, text)
    padding = [fix for fix in fixes if fix[0] is AdviceKind.TILE_PADDING]
    cause = oom_fixes(report)[:1]
    if padding and cause and cause[0].kind is FixKind.TILE_PADDING:
        return [*padding, *(fix for fix in fixes if fix[0] is not AdviceKind.TILE_PADDING)]
    return fixes


def _short_of(fix: OomFix, over: int | None) -> bool:
    """Whether ``fix`` frees less than the ``over`` bytes the program is past the device: a
    fix that cannot close the gap alone (bf16 of one buffer when gigabytes must go) is worth
    less than one that can (a smaller batch's bytes are what must go, by definition)."""
    return bool(over and fix.kind not in _MUST_GO and fix.bytes and fix.bytes < over)


def _ranked(report: OomReport, text: str) -> list[tuple[AdviceKind, str]]:
    over = report.exceeded_bytes or (
        report.used_bytes - report.capacity_bytes
        if report.used_bytes and report.capacity_bytes
        else None
    )
    fixes = sorted(oom_fixes(report), key=lambda fix: _short_of(fix, over))
    base = [
        (
            _KINDS[fix.kind],
            _with_bytes(
                fix.fix,
                fix.bytes,
                "at least {} must go" if fix.kind in _MUST_GO else "frees up to {}",
            ),
        )
        for fix in fixes
    ]
    if report.on_chip:  # a kernel's working set: no device size or batch enters it
        if _SMEM_BUG in text:
            bug = (
                AdviceKind.REPORT_BUG,
                "XLA:TPU says a full SMEM is its own bug: report it (with the HLO dump, "
                "XLA_FLAGS=--xla_dump_to=DIR, or PyTorch/XLA's XLA_SAVE_TENSORS_FILE) and "
                "meanwhile make the step smaller (fewer layers or a smaller batch per call)",
            )
            return [bug, *base]
        if base and base[0][0] is AdviceKind.FEWER_SCALARS:
            # What the user sets that the scalars grow with: an attention kernel's page and
            # block tables are as long as the longest sequence served.
            return [*base, (AdviceKind.SHORTER_INPUT, _SHORTER_SCALARS)]
        return base
    longer = _long_input_fix(report, text)
    if longer is not None:
        base.insert(0, longer)
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
    torch = report.framework == "torch_xla"
    if capacity and arguments and arguments >= 0.8 * capacity:
        shard = (
            AdviceKind.SHARD,
            f"the arguments alone (the weights: {format_bytes(arguments)}) take "
            f"{arguments * 100 // capacity}% of the device's {format_bytes(capacity)}: no batch "
            "size helps -- shard them over several chips ("
            + ("torch_xla's SPMD or FSDP" if torch else "jax.sharding")
            + ", a bigger slice), or "
            f"store them in bfloat16/int8 (bf16 frees up to {format_bytes(arguments // 2)} of "
            "f32 weights)",
        )
        precision = (
            AdviceKind.LOWER_PRECISION,
            _with_bytes("load the weights in bfloat16", arguments // 2),
        )
        return [shard, precision, bigger, *base]
    if _TEMPORARIES.search(text):
        # XLA:TPU adds up the program's temporaries before it assigns a buffer: activations
        # and intermediates, which a smaller batch shrinks and rematerialisation (recomputing
        # them in the backward pass) stops keeping; a bigger device last.
        batch = [fix for fix in base if fix[0] is AdviceKind.SMALLER_BATCH]
        rest = [fix for fix in base if fix[0] is not AdviceKind.SMALLER_BATCH]
        return [*batch, (AdviceKind.REMAT, _REMAT_TEMPORARIES), bigger, *rest]
    if capacity and used and used > _FAR_OVER * capacity:
        return [bigger, *base]
    if base and base[-1][0] is AdviceKind.SMALLER_BATCH and not report.buffers:
        return [base[-1], bigger, *base[:-1]]
    return [*base, bigger]
