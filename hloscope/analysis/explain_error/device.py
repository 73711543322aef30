"""Which device a message is about: the platform a word means, and the accelerator a log names
(``found GPU Tesla K80``, ``name: Tesla V100-SXM2-16GB, pci bus id``, TPU's ``HBM0``)."""

from __future__ import annotations

import re

from ..unsupported.findings import Platform

__all__ = ["platform_of", "named_accelerator"]

_PLATFORM_WORD = re.compile(r"\b(XLA_[A-Z]+_JIT|cpu|gpu|tpu|cuda|rocm)(?:\b|_)", re.I)

# The lines TensorFlow, JAX and XLA print when they find a GPU, each naming it.
_GPU_NAME = re.compile(
    r"[Ff]ound (?:GPU|device \d+ with properties:\s*name:) ?(?P<a>[^\n,]+?)\s*(?:,|\n|$)"
    r"|physical GPU \(device: \d+, name: (?P<b>[^,\n]+)"
    r"|StreamExecutor device \(\d+\): (?P<c>[^,\n]+), Compute Capability"
)


def platform_of(word: str | None) -> Platform | None:
    """The platform a device word (``XLA_TPU_JIT``, ``device:GPU:0``, ``tpu``) means."""
    found = _PLATFORM_WORD.search(word or "")
    if not found:
        return None
    try:
        return Platform.parse(found.group(1))
    except ValueError:
        return None


def named_accelerator(text: str) -> str | None:
    """The GPU the log names where it started (``Tesla K80``), if any."""
    found = _GPU_NAME.search(text)
    if found is None:
        return None
    name = next(g for g in found.groups() if g).strip()
    return name if name and name != "<undefined>" else None
