"""Reading XLA's text reports from a dump: a file as UTF-8 text (or one clear error), and the
numbers as XLA prints them (``1.2KiB``, ``12 345``).

Shared by the buffer-assignment reader (:mod:`hloscope.dump.buffers`) and the memory-usage
report reader (:mod:`hloscope.dump.memory_report`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import DumpFormatError
from .storage import read_bytes

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["parse_human_bytes", "read_dump_text"]


def read_dump_text(path: str | Path) -> str:
    """Read a dump file (a local path or a URL, :mod:`~hloscope.dump.storage`) as UTF-8
    text, or raise :class:`DumpFormatError` saying why not, naming the location and line."""
    where = os.fspath(path)
    data = read_bytes(where)  # DumpFormatError (no such file, cannot read) with the location
    nul = data.find(b"\0")
    if nul >= 0:
        raise DumpFormatError(
            "binary data, not a text dump", path=where, line=data.count(b"\n", 0, nul) + 1
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DumpFormatError("bytes that are not UTF-8 text", path=where, line=line) from None


_HUMAN_UNITS = {
    "B": 1,
    "KiB": 1 << 10,
    "MiB": 1 << 20,
    "GiB": 1 << 30,
    "TiB": 1 << 40,
    "PiB": 1 << 50,
}
_HUMAN = re.compile(r"^\s*(?P<num>-?[\d.]+)\s*(?P<unit>B|KiB|MiB|GiB|TiB|PiB)\s*$")


def parse_human_bytes(text: str) -> int | None:
    """``"1.2KiB"`` -> 1229, ``"40B"`` -> 40: XLA's ``HumanReadableNumBytes``, rounded back."""
    m = _HUMAN.match(text)
    if m is None:
        return None
    try:
        return round(float(m.group("num")) * _HUMAN_UNITS[m.group("unit")])
    except ValueError:
        return None


def _int(text: str) -> int:
    """An integer as the live-range printer writes it, with spaces as thousands separators."""
    return int(text.replace(" ", "").replace("\u202f", "").replace(",", ""))
