"""Byte counts as logs print them: ``196.00M``, ``2.99GiB``, ``3206250496B``, ``7,889,485,824
bytes``, and the size of a tensor from its shape and type."""

from __future__ import annotations

import math
import re

from ..memory.oom_log import parse_size

__all__ = ["SIZE", "bytes_of", "tensor_bytes"]

#: A printed size (a number and an optional 1024-based unit).
SIZE = r"[\d.]+\s*[KMGTP]?i?B?"
_ITEMSIZE = {"float": 4, "int32": 4, "half": 2, "bfloat16": 2, "double": 8, "int64": 8, "int8": 1}


def bytes_of(text: str | None) -> int | None:
    """Bytes of a printed size (``parse_size``, with thousands separators dropped)."""
    if not text:
        return None
    return parse_size(text.replace(",", ""))


def tensor_bytes(shape: str, dtype: str | None) -> int | None:
    """Bytes of a TF tensor ``shape[16,112,112,147]`` of ``dtype`` (4 bytes when unknown)."""
    dims = [int(d) for d in re.findall(r"\d+", shape)]
    if not dims:
        return None
    return math.prod(dims) * _ITEMSIZE.get((dtype or "float").lower(), 4)
