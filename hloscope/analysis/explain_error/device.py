"""Which device a message is about."""

from __future__ import annotations

import re

from ..unsupported.findings import Platform

_PLATFORM_WORD = re.compile(r"\b(XLA_[A-Z]+_JIT|cpu|gpu|tpu|cuda|rocm|CPU|GPU|TPU)\b")


def platform_of(word: str | None) -> Platform | None:
    """The platform a device word (``XLA_TPU_JIT``, ``device:GPU:0``, ``tpu``) means."""
    found = _PLATFORM_WORD.search(word or "")
    if not found:
        return None
    try:
        return Platform.parse(found.group())
    except ValueError:
        return None
