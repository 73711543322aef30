"""explain-error skips a recogniser whose regex cannot match the log (``literal_gate.py``): the
texts every match must contain, read from the regex's parse tree, none of them in the log; and
where it runs, without the branches whose texts the log lacks (the same matches, faster)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.line_scan import LineStartScan
from hloscope.analysis.explain_error.literal_gate import literal_gate, may_match, narrowed
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
        (r"(?<![^\n])(?=Attempting to allocate )\w+", ("\nAttempting to allocate ",)),
        (r"^\bfailed to \w+ (?:buffer|array)s?", ("\nfailed to ",)),
        (r"\bfailed to \w+ (?:buffer|array)s?", ("failed to ",)),
        # a repeat of at least one holds its text; the longest text of the sequence is kept
        (r"(?:ab)?x(?:defgh)+", ("defgh",)),
        (r"\w+Error: ", ("Error: ",)),  # what stands before the text need not be text
        # a line's start is a line end before the text (counted as one character)
        (r"(?m)^Foo", ("\nFoo",)),
        (r"(?<![^\n])(?=F\d{4} )\w+", ("\nF",)),
        (r"x+^Foo", ("\nFoo",)),
        # a lookahead's text runs on from the text before it, and so does what follows it
        (r"ab(?=cde)", ("abcde",)),
        (r"Error(?=:)\w*", ("Error:",)),
        # each branch runs on from the text before the alternation
        (r"Error: (?:foo|barbaz)\d", ("Error: foo", "Error: barbaz")),
        (r"(?<![^\n])(?=F\d|\d+: Fatal)", ("\nF", ": Fatal")),
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
        r"(?m)^\d+: ",  # a line's start alone, two characters: too short
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

    def handler(log, match):  # pragma: no cover - the point is that it never runs
        raise AssertionError("the regex ran though its gate said it could not match")

    words = Recogniser(Family.XLA_CRASH, re.compile(r"all is well"), handler)

    def none(pattern: re.Pattern[str], text: str) -> None:
        asked.append(pattern.pattern)
        return None

    monkeypatch.setattr(driver, "narrowed", none)
    assert not explain_error("INFO: all is well\n", [words]).recognised
    assert asked == ["all is well"]


def test_a_text_at_a_line_start_is_found_at_the_log_start_too() -> None:
    pattern = re.compile(r"(?m)^Fatal: ")
    assert may_match(pattern, "Fatal: x")  # no line end before the log's first line
    assert may_match(pattern, "ok\nFatal: x")
    assert not may_match(pattern, "ok Fatal: x")  # not at a line's start: cannot match
    assert pattern.search("ok Fatal: x") is None


def test_narrowing_drops_the_branches_whose_text_the_log_lacks() -> None:
    # The second branch opens at a line's start (no literal first character: it slows the
    # scan of the whole pattern); a log with no line that opens with "F" cannot hold its match.
    pattern = re.compile(r"(?m)Barrier (?P<id>\d+)|^F(?P<glog>\d{4}) ")
    text = "INFO ok\nBarrier 12 timed out\n"
    fast = narrowed(pattern, text)
    assert fast is not None and fast is not pattern
    assert fast.search("F1234 ") is None  # the branch is gone ...
    assert pattern.search("F1234 ") is not None
    assert fast.groupindex == pattern.groupindex  # ... and its group still there, unset
    (found,) = fast.finditer(text)
    assert (found.span(), found.groups()) == ((8, 18), ("12", None))
    # the log has the branch's text: it stays (tried at the lines it can open, below); the
    # pattern cannot match: nothing runs
    assert isinstance(narrowed(pattern, "F1234 x\n"), LineStartScan)
    assert narrowed(pattern, "INFO ok\n") is None
    assert narrowed(re.compile(r"Barrier (\d+)|Fatal"), "Barrier 1") is not None


def test_line_start_branches_are_tried_only_at_the_lines_they_can_open() -> None:
    pattern = re.compile(
        r"(?m)Barrier (?P<id>\d+)|^F(?P<glog>\d{4}) |(?<![^\n])(?=(?P<cls>\w+Error):)"
    )
    text = "F1234 boot\nBarrier 7\nINFO F9999 \nValueError: x\nF0001 y\nF12 no\n"
    scan = narrowed(pattern, text)
    assert isinstance(scan, LineStartScan)
    assert _matches(scan, text) == _matches(pattern, text)
    assert [m.group() or m["cls"] for m in scan.finditer(text)] == [
        "F1234 ",
        "Barrier 7",
        "ValueError",  # an empty match (a lookahead), its class in the group
        "F0001 ",
    ]


def test_after_an_empty_match_only_a_longer_one_at_the_same_place() -> None:
    # finditer's rule: an empty match at a place, then a match that is not empty there.
    pattern = re.compile(r"(?m)(?<![^\n])(?=ab)|^ab|cd")
    text = "ab\nab cd\nxab"
    expected = [(0, 0), (0, 2), (3, 3), (3, 5), (6, 8)]
    assert [m.span() for m in pattern.finditer(text)] == expected
    scan = narrowed(pattern, text)
    assert isinstance(scan, LineStartScan)
    assert [m.span() for m in scan.finditer(text)] == expected


def _matches(pattern: re.Pattern[str] | None, text: str) -> list[tuple[object, ...]]:
    if pattern is None:
        return []
    return [(m.span(), m.groups(), m.lastindex) for m in pattern.finditer(text)]


def test_every_recogniser_narrowed_finds_the_same_matches_in_every_log() -> None:
    logs = _logs()
    narrowed_some = 0
    for recogniser in RECOGNISERS:
        for text in logs:
            fast = narrowed(recogniser.pattern, text)
            narrowed_some += fast is not None and fast is not recogniser.pattern
            assert _matches(fast, text) == _matches(recogniser.pattern, text), (
                recogniser.family,
                text[:200],
            )
    assert narrowed_some > 100


# Regexes of the shapes the gate reads (runs, branches, lookaheads, line starts, repeats,
# groups) over a few letters, and texts over those letters: ``re`` itself says what matches.
_ATOMS = st.sampled_from(
    ["aba", "bab", "xab", "aba", "bab", "F1", "F", r"\d", "[ab]", r"\n", "a", r"\w", " "]
)
_ANCHORS = st.sampled_from(["^", r"(?<![^\n])", "$", r"\b", r"\A"])


def _pieces(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(["", "+", "*", "?", "{2}"])).map("".join),
        st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        inner.map(lambda p: f"(?={p})"),
        inner.map(lambda p: f"({p})"),
        inner.map(lambda p: f"(?!{p})"),
    )


_PIECE = st.recursive(st.one_of(_ATOMS, _ATOMS, _ANCHORS), _pieces, max_leaves=4)
_SEQUENCE = st.lists(_PIECE, min_size=1, max_size=4).map("".join)
_PATTERN = st.tuples(
    st.sampled_from(["", "(?m)"]), st.lists(_SEQUENCE, min_size=1, max_size=3)
).map(lambda p: p[0] + "|".join(p[1]))
# Texts made of the atoms' own words, so that the regexes match them often.
_TEXT = st.lists(
    st.sampled_from(["aba", "bab", "xab", "F1", "F", "1", "\n", " ", "a", "b"]), max_size=12
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_PATTERN, st.lists(_TEXT, min_size=1, max_size=4))
def test_the_gate_and_the_narrowing_are_exact_on_generated_regexes(
    source: str, texts: list[str]
) -> None:
    _assert_exact(source, texts)


def _assert_exact(source: str, texts: list[str]) -> None:
    """Every text ``source`` matches passes its gate; narrowed, it finds the same matches."""
    try:
        pattern = re.compile(source)
    except re.error:
        assume(False)  # a repeat of an anchor ("^+"): no regex
        return
    for text in texts:
        if pattern.search(text) is not None:
            assert may_match(pattern, text), (source, text, literal_gate(pattern))
        assert _matches(narrowed(pattern, text), text) == _matches(pattern, text), (source, text)


# Branches that open with a line's start (or none) and a word, as a lookahead or not, then any
# piece: the gates of line starts, lookaheads and branches, on texts of those words.
_BRANCH = st.tuples(
    st.sampled_from(["", "^", r"(?<![^\n])", r"\A", r"\b", r"\n"]),
    st.text(alphabet="abF1", min_size=2, max_size=4),
    st.booleans(),
    st.one_of(st.just(""), _PIECE),
).map(lambda b: f"{b[0]}(?={b[1]}){b[3]}" if b[2] else f"{b[0]}{b[1]}{b[3]}")
_WORDS_TEXT = st.lists(
    st.sampled_from(["ab", "ba", "F1", "aF", "1b", "\n", " ", "a", "F"]), max_size=10
).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    st.tuples(st.sampled_from(["", "(?m)"]), st.lists(_BRANCH, min_size=1, max_size=4)).map(
        lambda p: p[0] + "|".join(p[1])
    ),
    st.lists(_WORDS_TEXT, min_size=1, max_size=4),
)
def test_line_start_gates_are_exact_on_generated_regexes(source: str, texts: list[str]) -> None:
    _assert_exact(source, texts)


# Alternations of branches that open with a word, and branches that open at a line's start
# (some matching only an empty text: a lookahead): what a LineStartScan reads, on texts of
# those words' lines.
_TAIL = st.sampled_from(["", "a", "[ab]", "(F)", r"\d", "b+", "(?=a)", " ", r"(\w)", "1?"])
_OPENING = st.tuples(st.text(alphabet="abF1", min_size=1, max_size=3), _TAIL).map("".join)
_AT_LINE_START = st.tuples(
    st.sampled_from(["^", r"(?<![^\n])"]),
    st.text(alphabet="abF1", min_size=1, max_size=2),
    st.booleans(),
    _TAIL,
).map(lambda b: f"{b[0]}(?=({b[1]}){b[3]})" if b[2] else f"{b[0]}{b[1]}{b[3]}")
_LINES_TEXT = st.lists(
    st.sampled_from(["ab", "ba", "F1", "aF", "1b", "\n", "\n", " ", "a", "F", "b"]), max_size=14
).map("".join)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.one_of(_OPENING, _AT_LINE_START), min_size=1, max_size=4).map(
        lambda branches: "(?m)" + "|".join(branches)
    ),
    st.lists(_LINES_TEXT, min_size=1, max_size=4),
)
def test_line_start_scans_are_exact_on_generated_regexes(source: str, texts: list[str]) -> None:
    _assert_exact(source, texts)


class _Searched(str):
    """A text that notes each text searched for in it."""

    def __new__(cls, text: str) -> _Searched:
        made = super().__new__(cls, text)
        made.searched = []
        return made

    searched: list[str]

    def __contains__(self, word: object) -> bool:
        self.searched.append(str(word))
        return super().__contains__(word)


def test_a_text_with_a_character_the_log_lacks_is_not_searched_for() -> None:
    pattern = re.compile(r"Check failed: (\w+)|Non-OK-status: (\w+)")
    quiet = _Searched("INFO step 1 loss 0.5 lr 3e-4\n" * 100)  # no capital C or N, no colon
    assert not may_match(pattern, quiet)
    assert quiet.searched == []
    failed = _Searched("INFO step 1\nCheck failed: x == y\n")
    assert may_match(pattern, failed)
    assert failed.searched == ["Check failed: "]
