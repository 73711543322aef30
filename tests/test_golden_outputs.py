"""Restructuring the inside must not change what a user sees.

Every case of ``tests/golden/outputs.py`` (``--json`` of summary, fusions, check, graph,
recompiles on a dump, passes, explain and diff, on the samples, ``tests/data`` and the shared
corpus) is run again and compared with the record made before the change.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import outputs  # noqa: E402  (tests/golden is not a package)
from conftest import shared_corpus_path  # noqa: E402

CASES = list(outputs.cases())
SHARED_DIGESTS = json.loads(outputs.SHARED_RECORD.read_text())


def _first_difference(recorded: str, now: str) -> str:
    lines = difflib.unified_diff(
        recorded.splitlines(), now.splitlines(), "recorded", "now", lineterm="", n=2
    )
    return "\n".join(list(lines)[:40])


@pytest.mark.parametrize("case", [c for c in CASES if not c.shared], ids=lambda c: c.name)
def test_project_output_unchanged(case: outputs.Case) -> None:
    assert outputs.record_path(case).is_file(), f"no record for {case.name}: record again"
    recorded, now = outputs.read_record(case), outputs.run(case)
    assert now == recorded, _first_difference(recorded, now)


def test_shared_corpus_output_unchanged() -> None:
    shared_corpus_path("the shared corpus's recorded outputs")
    shared = [c for c in CASES if c.shared]
    assert {c.name for c in shared} == set(SHARED_DIGESTS), "cases and record differ"
    changed = [c.name for c in shared if outputs.digest(outputs.run(c)) != SHARED_DIGESTS[c.name]]
    assert not changed, f"{len(changed)} outputs changed, first: {changed[:5]}"


def test_every_project_record_has_its_case() -> None:
    names = {outputs.record_path(c).name for c in CASES if not c.shared}
    stale = sorted(p.name for p in outputs.DATA_RECORD.glob("*.txt.gz") if p.name not in names)
    assert not stale, f"records with no case: {stale}"
    assert len(names) > 100
