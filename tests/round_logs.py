"""The logs the explain-error round tests read by name, and the failure read first from one."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Failure

DATA = Path(__file__).parent / "data"
#: Where a log named by its leading words is looked for: the corpus, the family logs, the
#: blind made batch. The name must pick out one log among them all.
SEARCHED = (DATA / "error_logs", DATA / "family_logs", DATA / "made_errors_blind13")


def log(name: str) -> str:
    """The text of the one log whose file name starts with ``name``."""
    found = [path for folder in SEARCHED for path in sorted(folder.glob(f"{name}*.log"))]
    assert len(found) == 1, (name, found)
    return found[0].read_text()


def first(text: str) -> Failure:
    """The first failure explain-error reads in ``text`` (there must be one)."""
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]
