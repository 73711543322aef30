"""explain-error skips a recogniser whose regex cannot match the log (``literal_gate.py``): the
texts every match must contain, read from the regex's parse tree, none of them in the log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.literal_gate import literal_gate, may_match
from hloscope.analysis.explain_error.recogniser import Recogniser
from hloscope.analysis.explain_error.record import Family
from hloscope.analysis.explain_error.registry import RECOGNISERS

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    "pattern,gate",
    [
        (r"Barrier timed out\. Id: (\S+)", ("Barrier timed out. Id: ",)),
        # branches: one text each; a group's text runs on from the text before it
        (r"C(?P<check>heck failed)|N(?P<nonok>on-OK-status)", ("Check failed", "Non-OK-status")),
        (r"!(?P<op>= (?P<n>\d+))", ("!= ",)),
        # zero-width items leave the text whole; a lookahead's text stands in the log too
        (r"(?<![^\n])(?=Attempting to allocate )\w+", ("Attempting to allocate ",)),
        (r"^\bfailed to \w+ (?:buffer|array)s?", ("failed to ",)),
        # a repeat of at least one holds its text; the longest text of the sequence is kept
        (r"(?:ab)?x(?:defgh)+", ("defgh",)),
        (r"\w+Error: ", ("Error: ",)),  # what stands before the text need not be text
    ],
)
def test_the_gate_is_the_text_every_match_holds(pattern: str, gate: tuple[str, ...]) -> None:
    assert literal_gate(re.compile(pattern)) == gate


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?i)barrier timed out",  # case folded away: no text to look for
        r"Barrier|(?i:timed out)",
        r"ab|(?:x)?\d+",  # a branch that holds no text
        r"cu|hip",  # texts too short to be worth a search
    ],
)
def test_no_gate_where_some_match_need_hold_no_text(pattern: str) -> None:
    assert literal_gate(re.compile(pattern)) is None
    assert may_match(re.compile(pattern), "")


def _logs() -> list[str]:
    return [path.read_text(errors="replace") for path in sorted(DATA.rglob("*.log"))]


def test_every_recogniser_that_matches_a_log_passes_its_gate() -> None:
    # The gate is exact: over every log the tests hold, a regex that finds a match in it never
    # had its gate say it could not.
    logs = _logs()
    assert len(logs) > 400
    checked = 0
    for recogniser in RECOGNISERS:
        for text in logs:
            if recogniser.pattern.search(text) is not None:
                assert may_match(recogniser.pattern, text), (recogniser.family, text[:200])
                checked += 1
    assert checked > 300


def test_most_recognisers_have_a_gate() -> None:
    gated = [r for r in RECOGNISERS if literal_gate(r.pattern) is not None]
    assert len(gated) >= len(RECOGNISERS) * 3 // 4


def test_the_table_asks_the_gate_before_it_runs_a_regex(monkeypatch) -> None:
    from hloscope.analysis.explain_error import driver

    asked: list[str] = []

    def no_match(pattern: re.Pattern[str], text: str) -> bool:
        asked.append(pattern.pattern)
        return False

    def handler(log, match):  # pragma: no cover - the point is that it never runs
        raise AssertionError("the regex ran though its gate said it could not match")

    words = Recogniser(Family.XLA_CRASH, re.compile(r"all is well"), handler)
    monkeypatch.setattr(driver, "may_match", no_match)
    assert not explain_error("INFO: all is well\n", [words]).recognised
    assert asked == ["all is well"]
