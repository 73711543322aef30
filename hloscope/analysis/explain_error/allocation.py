"""The numbers of a failed allocation, in whatever words the message gives them.

Allocators state the same facts in many sentences: what was asked for (``Out of memory while
trying to allocate 6291456 bytes``, ``Failed to allocate request for 32.00MiB (33554432B)``,
``Attempting to reserve 6.48G at the bottom of memory``, ``Allocation (size=N) would exceed
memory (size=M)``), what was free (``There are 142.58M free``, ``6.78G free, 0B reserved, and
3.33G reservable``), the allocator's limit and use (``Limit: 7455476941``, ``InUse: ...``,
PyTorch's ``15.90 GiB total capacity; 14.73 GiB already allocated; 9.75 MiB free``), a
memory space's use against its capacity (``Used 29.80G of 7.98G hbm``, ``Exceeded hbm
capacity by 21.82G``), and which memory (``memory space vmem``, ``space=smem``, a TPU's
``(0x0x0_HBM0)``). :func:`read_allocation` reads each fact by its own words wherever it is
in the message, so a new sentence around known words still gives its numbers.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .sizes import SIZE, bytes_of

__all__ = ["Allocation", "read_allocation"]


def _amount_of(name: str) -> str:
    """A size, and the exact byte count some messages add in brackets ("176.00MiB
    (184549376B)"), as groups ``<name>_size`` and ``<name>_exact``."""
    return (
        rf"(?P<{name}_size>{SIZE})(?:\s*bytes)?"
        rf"(?:\s*\(\s*(?P<{name}_exact>[\d,]+)\s*(?:B|bytes)\s*\))?"
    )


_REQUESTED = re.compile(
    rf"(?:allocat(?:e|ing)|reserv(?:e|ing))\s+(?:request\s+for\s+)?{_amount_of('r')}"
    r"|Allocation \(size=(?P<a_exact>\d+)\)",
    re.I,
)
_FREE = re.compile(rf"{_amount_of('f')} free\b|\bfree(?: memory)?\s*[:=]\s*{_amount_of('g')}", re.I)
_RESERVED = re.compile(rf"{_amount_of('s')} reserved\b(?=[,.;\s])")
_RESERVABLE = re.compile(rf"{_amount_of('v')} reservable\b")
_LIMIT = re.compile(
    r"\bLimit:\s+(?P<l_exact>[\d,]+)\b|would exceed memory \(size=(?P<m_exact>\d+)\)"
)
_IN_USE = re.compile(rf"\bInUse:\s+(?P<i_exact>[\d,]+)\b|{_amount_of('u')} already allocated\b")
# A device's whole memory in prose or key: value ("15.90 GiB total capacity", "Total memory:").
_TOTAL = re.compile(
    rf"{_amount_of('t')} total capacity\b|\bTotal memory\s*[:=]\s*{_amount_of('m')}", re.I
)
_USED_OF = re.compile(rf"Used (?P<used>{SIZE}) of (?P<cap>{SIZE}) (?P<space>[a-z]+)\b", re.I)
_EXCEEDED = re.compile(rf"Exceeded (?P<space>[a-z]+) capacity by (?P<over>{SIZE})", re.I)
_SPACE = re.compile(
    r"memory space (?P<a>[a-z]+)\b|space=(?P<b>[a-z]+)\b|_(?P<c>HBM)\d\)"
    r"|\b(?P<d>HBM|VMEM|SMEM|CMEM) (?:capacity|limit)\b|\b(?P<e>host) memory\b",
    re.I,
)


#: The figures a message gives in words of their own, each read by :func:`_amount`.
_AMOUNTS = {
    "requested_bytes": _REQUESTED,
    "free_bytes": _FREE,
    "reserved_bytes": _RESERVED,
    "reservable_bytes": _RESERVABLE,
    "limit_bytes": _LIMIT,
    "in_use_bytes": _IN_USE,
}


def _figure(label: str) -> Any:
    """A byte count a message may state (``None`` where it does not), with the word that
    names it when the figures are said in one line."""
    return field(default=None, metadata={"label": label})


@dataclass(frozen=True, slots=True)
class Allocation:
    """What a message says of one failed allocation; ``None`` where it says nothing."""

    #: The allocation that failed, and what the allocator had left in its own terms: free
    #: bytes, bytes it holds reserved, and the largest piece it could still reserve.
    requested_bytes: int | None = _figure("requested")
    free_bytes: int | None = _figure("free")
    reserved_bytes: int | None = _figure("reserved")
    reservable_bytes: int | None = _figure("reservable")
    #: What an allocator already holds and its limit (TF's BFC "InUse:"/"Limit:", PyTorch's
    #: "already allocated").
    in_use_bytes: int | None = _figure("in use")
    limit_bytes: int | None = _figure("limit")
    #: A memory space's use against its capacity (XLA:TPU's "Used 29.80G of 7.98G hbm") and
    #: by how much the program exceeds it.
    used_bytes: int | None = _figure("used")
    capacity_bytes: int | None = _figure("capacity")
    exceeded_bytes: int | None = _figure("over by")
    #: Which memory ran out, lower case: ``hbm``, ``vmem``, ``smem``, ``cmem``, ``host``.
    memory_space: str | None = None

    def figures(self) -> list[tuple[str, int]]:
        """The byte counts the message stated, each with its word, in the order above."""
        stated = ((f.metadata.get("label"), getattr(self, f.name)) for f in fields(self))
        return [(label, value) for label, value in stated if label and value is not None]

    @property
    def fragmented(self) -> bool:
        """Whether less can be reserved in one piece than is free (TPU's "reservable" below
        "free"): the free memory is in pieces, not too little."""
        free, reservable = self.free_bytes, self.reservable_bytes
        return free is not None and reservable is not None and reservable < free

    def to_dict(self) -> dict[str, int | str | bool | None]:
        return {**asdict(self), "fragmented": self.fragmented}


def read_allocation(text: str) -> Allocation | None:
    """The allocation facts of a message (its text from the headline to its paragraph's end);
    ``None`` when it states none."""
    used, exceeded = _USED_OF.search(text), _EXCEEDED.search(text)
    found = Allocation(
        **{name: _amount(pattern.search(text)) for name, pattern in _AMOUNTS.items()},
        used_bytes=bytes_of(used["used"]) if used else None,
        capacity_bytes=bytes_of(used["cap"]) if used else _amount(_TOTAL.search(text)),
        exceeded_bytes=bytes_of(exceeded["over"]) if exceeded else None,
        memory_space=_space(text, used, exceeded),
    )
    return None if found == Allocation() else found


def _amount(m: re.Match[str] | None) -> int | None:
    """The bytes of a matched amount: the exact count (a group ``*_exact``: in brackets after a
    size, or a count alone) when given, else the size (``*_size``)."""
    if m is None:
        return None
    groups = {k: v for k, v in m.groupdict().items() if v}
    exact = next((v for k, v in groups.items() if k.endswith("_exact")), None)
    if exact:
        return int(exact.replace(",", ""))
    size = next((v for k, v in groups.items() if k.endswith("_size")), None)
    return bytes_of(size)


def _space(text: str, *matches: re.Match[str] | None) -> str | None:
    for m in matches:
        if m is not None:
            return m["space"].lower()
    found = _SPACE.search(text)
    if found is None:
        return None
    return next(g for g in found.groups() if g).lower()
