"""Shared fixtures.

The HLO corpus lives in ``../shared/corpus`` beside the project. Tests that need it skip in a
user's clone where it is absent, but fail when ``CI=true`` so that CI always runs them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SAMPLES = ROOT / "samples"


def corpus_path() -> Path:
    if CORPUS.is_dir():
        return CORPUS
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but the HLO corpus is missing at {CORPUS}")
    pytest.skip("../shared/corpus is not present (a user's clone)")


@pytest.fixture(scope="session")
def corpus() -> Path:
    return corpus_path()


def oracle_lines() -> list[dict]:
    path = CORPUS / "oracle.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def oracle(corpus: Path) -> list[dict]:
    return oracle_lines()
