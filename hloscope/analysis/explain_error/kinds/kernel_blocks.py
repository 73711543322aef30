"""A kernel's block size that does not divide the dimension it tiles.

Pallas kernels (and the Triton kernels written like them) split each dimension into blocks of
a size the caller picks, and refuse a size that leaves a part block, in the kernel's own
f-string words: ``kv_seq_len=4992 should be divisible by block_k_major=512`` (JAX's Pallas TPU
flash attention, also as PyTorch/XLA calls it), ``q_seq_len=8192 should be divisible by
block_q_dq=1024`` (its backward pass). Read by the words and the block parameter's name and
value, whichever framework wraps them; the advice is a block that divides the dimension,
computed from the two sizes. Kind :attr:`~.record.Family.PALLAS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# The smallest block offered: a TPU lane row, and more than a GPU warp needs.
_SMALLEST = 128


def _choice(dim: str, size: int, bsize: int) -> str:
    """What to do: the largest power of two under the block (128 at least) that divides the
    dimension, or padding where none does."""
    fit = bsize // 2
    while fit >= _SMALLEST and size % fit:
        fit //= 2
    if fit < _SMALLEST:
        return _TEXT.pad.format(dim=dim, size=size, bsize=bsize)
    return _TEXT.divides.format(dim=dim, fit=fit, bsize=bsize)


def _kernel_blocks(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    said = _RE.dimension.search(log.before_on_line(m.start()))
    if said is None:
        return  # a block named without the dimension it tiles: not this check
    size, bsize = int(said["size"]), int(m["kb_bsize"])
    if bsize == 0 or size % bsize == 0:
        return  # the sizes divide: the words are quoted, not a refusal
    choice = _choice(said["dim"], size, bsize)
    text = _TEXT.advice.format(
        dim=said["dim"], size=size, block=m["kb_block"], bsize=bsize, choice=choice
    )
    yield _KIND.failure(
        log,
        m.start(),
        op=m["kb_block"],
        advice=(text, AdviceKind.SMALLER_BLOCKS),
    )


_KIND = Kind(Family.PALLAS, Reason.TRACING, own_line)
RECOGNISER = Recogniser(Family.PALLAS, _RE.opening, _kernel_blocks)
