"""What the explain-error tests of one rule ask: the first failure a log is read to.

``first`` of a text (it must be recognised: the assertion shows the log's opening), ``spent`` of
a corpus log by name (a log of a spent blind part, read to learn a cause from)."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import Failure, explain_error

CORPUS = Path(__file__).parent / "data" / "error_logs"


def first(text: str) -> Failure:
    explanation = explain_error(text)
    assert explanation.recognised, text[:200]
    return explanation.failures[0]


def spent(name: str) -> Failure:
    return first((CORPUS / f"{name}.log").read_text())
