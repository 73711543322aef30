"""Helpers to walk the HLO corpus of this run (``conftest.CORPUS``: ../shared/corpus, or
tests/data in a plain clone) and parse each file once per session."""

from __future__ import annotations

import functools
from pathlib import Path

from conftest import CORPUS

NOT_MODULES = (
    "buffer-assignment",
    "memory-usage-report",
    "live-range",
    ".error.txt",
    "SOURCE.py",
    "debug_options",
)


def module_files() -> list[Path]:
    """Every corpus file that holds HLO module text, in a stable order."""
    if not CORPUS.is_dir():
        return []
    files = sorted((CORPUS / "generated").glob("*/*.txt")) + sorted(
        (CORPUS / "xla-tests").glob("*")
    )
    return [f for f in files if f.is_file() and not any(tag in f.name for tag in NOT_MODULES)]


def oracle_path(line: dict) -> Path:
    if line["root"] == "xla-tests":
        return CORPUS / "xla-tests" / line["file"]
    return CORPUS / line["root"] / line["file"]


@functools.cache
def parsed(path: Path):
    import hloscope

    return hloscope.parse_modules(path)
