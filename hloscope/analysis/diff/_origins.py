"""Where a kernel came from, across A and B: every frame of its ops' call stacks, paired.

A replaced line has no counterpart in B (``softmax(QK^T)V`` by hand became one call of
``jax.nn.dot_product_attention``), but the code that called it does: ``o = attention(q, k,
v)`` in ``block`` is the same line in both. So each kernel is described by all the frames its
ops were called through, with their depth (0: the innermost user line), and the frames of A
are paired with those of B by :func:`~._line_pairing.pair_lines` (function and code text, then
op names, then order). Two kernels are related when a frame of one is paired with a frame of
the other; the innermost such frame says how closely (:func:`origin_score`): the attention
kernels of A and B share ``block``'s call line, a layer-norm kernel of B only the loss
function's.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._line_pairing import pair_lines, source_lines
from ._sides import DiffSide

# A kernel's frames: "file:line (function)" -> the smallest depth any of its ops has it at.
Frames = dict[str, int]


def kernel_frames(side: DiffSide) -> list[Frames]:
    """Per kernel, every frame of its ops' stacks (the source line where a side has no
    stack) and its smallest depth."""
    out: list[Frames] = [{} for _ in side.kernels]
    for op in side.ops:
        frames = out[op.kernel]
        if op.stack:
            for depth, (file, line, _, function) in enumerate(op.stack):
                where = f"{file}:{line} ({function})" if function else f"{file}:{line}"
                if frames.get(where, depth + 1) > depth:
                    frames[where] = depth
        elif op.where and op.where not in frames:
            frames[op.where] = 0
    return out


def frame_pairs(
    a: DiffSide, b: DiffSide, frames_a: list[Frames], frames_b: list[Frames]
) -> dict[str, str]:
    """Each frame of A -> the frame of B it became, one to one (``pair_lines`` over every
    frame, callers included: a caller's line holds no op of its own more often than not)."""
    return pair_lines(_frame_lines(a, frames_a), _frame_lines(b, frames_b))


def _frame_lines(side: DiffSide, frames: list[Frames]) -> list:
    names: dict[str, set[str]] = {}
    for kernel in frames:
        for where in kernel:
            names.setdefault(where, set())
    for op in side.ops:
        if op.where and op.name:
            names.setdefault(op.where, set()).add(op.name)
    return source_lines(names, side.source_files)


def origin_score(fa: Frames, fb: Frames, pairs: Mapping[str, str]) -> tuple[int, int] | None:
    """How closely two kernels are related by where they came from: ``(-depth, shared)``,
    the innermost frame of ``fa`` whose pair is a frame of ``fb`` (deeper on either side
    counts) and how many frames are shared; ``None`` when no frame is."""
    best: int | None = None
    shared = 0
    for where, depth in fa.items():
        partner = pairs.get(where)
        if partner is None or partner not in fb:
            continue
        shared += 1
        deepest = max(depth, fb[partner])
        if best is None or deepest < best:
            best = deepest
    return None if best is None else (-best, shared)
