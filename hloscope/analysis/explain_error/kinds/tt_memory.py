"""A Tenstorrent device's memory did not hold what its program needs, in tt-metal's words.

Tenstorrent's PJRT plugin (tt-xla, under JAX and PyTorch/XLA) compiles to tt-metal, whose
allocator spreads every buffer over banks of a memory -- each Tensix core's L1 SRAM, or the
card's DRAM -- and says how much did not fit, whatever op asked:

* ``Out of Memory: Not enough space to allocate 55444480 B L1 buffer across 70 banks, where
  each bank needs to store 792064 B, but bank size is 1393472 B`` (``TT_FATAL @ tt_metal/impl/
  allocator/bank_manager.cpp``);
* ``Statically allocated circular buffers on core range [(x=0,y=0) - (x=12,y=9)] grow to
  2101768 B which is beyond max L1 size of 1572864 B`` (a kernel's circular buffers, checked
  as the program is compiled for the cores).

Kind :attr:`~.record.Family.OUT_OF_MEMORY`; the device is none of XLA's three platforms, so
none is named. L1 is per core: smaller tiles or blocks fit it; DRAM holds the tensors: a
smaller batch or sequence, or more cards.
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


def _tt_memory(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["tt_banks"]:
        space, need, limit = m["tt_space"], m["tt_bytes"], ""
        op = f"{space} buffer"
    else:
        space, need, limit = m["tt_cb_space"], m["tt_cb_bytes"], f" ({m['tt_max']} B)"
        op = "circular buffers"
    if space.startswith("DRAM"):
        advice = (_TEXT.on_card.format(need=need, space=space), AdviceKind.SMALLER_BATCH)
    else:
        advice = (
            _TEXT.on_core.format(need=need, space=space, limit=limit),
            AdviceKind.SMALLER_BLOCKS,
        )
    yield _KIND.failure(log, m.start(), op=op, advice=advice)


_KIND = Kind(Family.OUT_OF_MEMORY, Reason.OUT_OF_MEMORY, own_line)
RECOGNISER = Recogniser(Family.OUT_OF_MEMORY, _RE.opening, _tt_memory)
