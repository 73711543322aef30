"""Which opcodes are collectives, and how their asynchronous forms pair up.

XLA writes a collective in one of three ways:

* **sync**: one instruction (``all-reduce``, ``all-gather``, ``collective-permute``...);
* **a start/done pair**: ``all-reduce-start`` ... ``all-reduce-done`` (also ``all-gather``,
  ``collective-permute``, and ``send``/``send-done``, ``recv``/``recv-done``), the form GPU and
  TPU schedules use so that compute can run while the data moves;
* **an async wrapper**: ``async-start`` calling a computation whose root is the collective
  (``reduce-scatter``, ``all-to-all``...), ended by ``async-done`` (``async-update`` between).

:class:`CollectiveKind` names the collective the way ``--json`` does: XLA's opcode without
``-start``.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CollectiveKind", "kind_of_opcode", "START_OPCODES", "DONE_OPCODES"]


class CollectiveKind(StrEnum):
    """A collective, named as XLA's opcode without ``-start``."""

    ALL_REDUCE = "all-reduce"
    ALL_GATHER = "all-gather"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_TO_ALL = "all-to-all"
    RAGGED_ALL_TO_ALL = "ragged-all-to-all"
    COLLECTIVE_PERMUTE = "collective-permute"
    COLLECTIVE_BROADCAST = "collective-broadcast"
    SEND = "send"
    RECV = "recv"


#: The first half of a start/done pair, by the kind it starts: ``KIND-start`` (``send`` and
#: ``recv`` are their own start: XLA's ``send``/``recv`` always pair with ``send-done``/
#: ``recv-done``).
START_OPCODES: dict[str, CollectiveKind] = {
    **{
        f"{kind}-start": kind
        for kind in (
            CollectiveKind.ALL_REDUCE,
            CollectiveKind.ALL_GATHER,
            CollectiveKind.COLLECTIVE_PERMUTE,
        )
    },
    "send": CollectiveKind.SEND,
    "recv": CollectiveKind.RECV,
}

#: The opcodes that end an asynchronous collective: each pair's ``KIND-done``, and an async
#: wrapper's ``async-done``.
DONE_OPCODES: frozenset[str] = frozenset(
    {f"{kind}-done" for kind in START_OPCODES.values()} | {"async-done"}
)

_SYNC: dict[str, CollectiveKind] = {
    kind.value: kind
    for kind in CollectiveKind
    if kind not in (CollectiveKind.SEND, CollectiveKind.RECV)
}


def kind_of_opcode(opcode: str) -> CollectiveKind | None:
    """The collective a synchronous opcode is (``None`` for anything else, starts included)."""
    return _SYNC.get(opcode)
