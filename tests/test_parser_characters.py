"""Control characters and Unicode separators: refused where XLA's lexer refuses them, read where
it reads them, and never a hang (issue 18, point 17).

XLA's HloLexer takes only ' ', '\\t', '\\n' and '\\r' as whitespace and any other character that
starts no token as an error; inside a string or a comment every character but NUL is fine.
Python's ``\\s``, ``str.isspace`` and ``str.splitlines`` take \\x0b, \\x0c, \\x1c-\\x1f, \\x85,
\\u2028 and \\u2029 as blanks or line ends, which once made a name ending in U+001F loop forever.
The texts are built from pieces whose kind (code, string, comment) is known by construction, so
the expected verdict does not come from the lexer under test; jaxlib's parser checks the same
insertions where it is installed.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hloscope
from hloscope.hlo.errors import HloParseError

# Every C0 control but XLA's own whitespace, DEL, NEL and the Unicode line/paragraph separators.
REFUSED_OUTSIDE = [
    *(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"),
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
]
XLA_WHITESPACE = [" ", "\t", "\n", "\r"]

# (kind, text) pieces: a string piece is a whole double-quoted string, a comment piece a whole
# /* */ or // comment. Two programs of different shapes: a reduce with a called computation and
# a headerless tuple-shaped while body.
PROGRAMS = [
    [
        ("code", "HloModule ctl_reduce, entry_computation_layout={(f32[4,6]{1,0})->f32[4]{0}}\n\n"),
        ("code", "sum.1 {\n  lhs.2 = f32[] parameter(0)\n  rhs.3 = f32[] parameter(1)\n"),
        ("code", "  ROOT add.4 = f32[] add(lhs.2, rhs.3)\n}\n\n"),
        ("code", "ENTRY main.5 {\n  in.6 = f32[4,6]{1,0} parameter(0), metadata={op_name="),
        ("string", '"jit(step)/reduce_sum"'),
        ("code", " source_file="),
        ("string", '"/src/model.py"'),
        ("code", " source_line=12}\n  zero.7 = f32[] constant(0) "),
        ("comment", "/* the init value */"),
        ("code", "\n  ROOT r.8 = f32[4]{0} reduce(in.6, zero.7), dimensions={1}, to_apply=sum.1 "),
        ("comment", "// rows"),
        ("code", "\n}\n"),
    ],
    [
        ("code", "body {\n  t = (s32[], f32[3]) parameter(0)\n"),
        ("code", "  i = s32[] get-tuple-element(t), index=0\n"),
        ("code", "  x = f32[3] get-tuple-element(t), index=1\n  one = s32[] constant(1)\n"),
        ("code", "  j = s32[] add(i, one), frontend_attributes={_xla_note="),
        ("string", '"step"'),
        ("code", "}\n  ROOT out = (s32[], f32[3]) tuple(j, x)\n}\n"),
    ],
]


class _Hang(Exception):
    pass


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Fail instead of stalling CI: SIGALRM interrupts a Python loop that runs too long."""

    def on_alarm(signum, frame):
        raise _Hang(f"parse took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _slots(pieces: list[tuple[str, str]], inside: bool) -> list[int]:
    """Offsets in the joined text where an insertion lands in code (``inside=False``) or
    strictly inside a string or comment (``inside=True``)."""
    slots = []
    offset = 0
    after_line_comment = False  # a '//' comment runs up to the line break that follows it
    for kind, text in pieces:
        if kind == "code" and not inside:
            slots += range(offset + after_line_comment, offset + len(text) + 1)
        elif kind == "string" and inside:
            slots += range(offset + 1, offset + len(text))
        elif kind == "comment" and inside:
            start = 2
            end = len(text) - (2 if text.startswith("/*") else 0)
            slots += range(offset + start, offset + end + 1)
        offset += len(text)
        after_line_comment = text.startswith("//")
    return sorted(set(slots) - ({offset} if after_line_comment else set()))


def _text(pieces: list[tuple[str, str]]) -> str:
    return "".join(text for _, text in pieces)


def _parse_in_time(text: str) -> list[hloscope.Module] | HloParseError:
    with _time_limit(1.0):
        try:
            return hloscope.parse_modules(text)
        except HloParseError as error:
            return error


def test_the_programs_parse_as_they_are():
    for pieces in PROGRAMS:
        assert hloscope.parse_modules(_text(pieces))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_refused_character_in_code_is_an_error_at_its_place(data):
    pieces = data.draw(st.sampled_from(PROGRAMS))
    char = data.draw(st.sampled_from(REFUSED_OUTSIDE))
    text = _text(pieces)
    pos = data.draw(st.sampled_from(_slots(pieces, inside=False)))
    result = _parse_in_time(text[:pos] + char + text[pos:])
    assert isinstance(result, HloParseError), (pos, char)
    if char != "\0":  # NUL is refused as binary data, before any position is worked out
        assert result.line == text.count("\n", 0, pos) + 1
        assert result.column == pos - (text.rfind("\n", 0, pos) + 1) + 1
        assert f"U+{ord(char):04X}" in str(result)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_character_inside_a_string_or_comment_is_read(data):
    pieces = data.draw(st.sampled_from(PROGRAMS))
    char = data.draw(st.sampled_from([c for c in REFUSED_OUTSIDE if c not in "\0"]))
    text = _text(pieces)
    pos = data.draw(st.sampled_from(_slots(pieces, inside=True)))
    changed = text[:pos] + char + text[pos:]
    result = _parse_in_time(changed)
    assert not isinstance(result, HloParseError), (pos, char, str(result))
    original = hloscope.parse_modules(text)[0]
    assert [len(c.instructions) for c in result[0].computations] == [
        len(c.instructions) for c in original.computations
    ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_xla_whitespace_between_tokens_is_whitespace(data):
    pieces = PROGRAMS[0]
    text = _text(pieces)
    # Right after a ',' or before a '=' with a blank already there: a blank more changes nothing.
    slots = [i for i, ch in enumerate(text) if ch == "," and text[i + 1] == " "]
    pos = data.draw(st.sampled_from(slots)) + 1
    char = data.draw(st.sampled_from(XLA_WHITESPACE))
    result = _parse_in_time(text[:pos] + char + text[pos:])
    assert not isinstance(result, HloParseError), (pos, char, str(result))


def test_the_line_breaks_python_knows_do_not_split_a_string():
    """A metadata string holding \\x0c, \\x1e, \\x85 or \\u2028 stays one string on one line."""
    for char in ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]:
        text = _text(PROGRAMS[0]).replace("jit(step)", f"jit(st{char}ep)")
        module = hloscope.parse_modules(text)[0]
        inst = module.computations_by_name["main.5"].instructions[0]
        assert inst.metadata.op_name == f"jit(st{char}ep)/reduce_sum"
        assert module.computations_by_name["main.5"].root.line == (
            text[: text.index("ROOT r.8")].count("\n") + 1
        )
        assert not module.warnings  # read where it is, not re-flowed


def test_agrees_with_xla_on_each_character_at_each_kind_of_place():
    adapter = pytest.importorskip("hloscope.backends._jaxlib")
    pytest.importorskip("jax")
    for pieces in PROGRAMS:
        text = _text(pieces)
        places = _slots(pieces, inside=False)[::23] + _slots(pieces, inside=True)[::7]
        for pos in places:
            for char in REFUSED_OUTSIDE[1:]:
                changed = text[:pos] + char + text[pos:]
                xla_ok, _ = adapter.xla_accepts(changed)
                ours = _parse_in_time(changed)
                assert xla_ok == (not isinstance(ours, HloParseError)), (pos, char, xla_ok)


def _verdict(result: object) -> object:
    if isinstance(result, HloParseError):
        return (str(result).split(": ", 1)[-1], result.line, result.column)
    return [[len(c.instructions) for c in m.computations] for m in result]  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bytes_are_checked_as_their_text(data):
    # The bytes of a file are tested for refused characters as they are (plain ASCII needs no
    # scan of its text): every insertion, in code or not, reads as the same text does.
    pieces = data.draw(st.sampled_from(PROGRAMS))
    char = data.draw(st.sampled_from([c for c in REFUSED_OUTSIDE + XLA_WHITESPACE if c != "\0"]))
    text = _text(pieces)
    pos = data.draw(st.sampled_from(_slots(pieces, inside=data.draw(st.booleans()))))
    changed = text[:pos] + char + text[pos:]
    with _time_limit(1.0):
        try:
            from_bytes: object = hloscope.parse_modules(changed.encode("utf-8"))
        except HloParseError as error:
            from_bytes = error
    assert _verdict(from_bytes) == _verdict(_parse_in_time(changed))


def test_a_file_is_checked_as_its_text(tmp_path):
    text = _text(PROGRAMS[0])
    pos = text.index("ROOT r.8")
    for char, refused in (("\x1f", True), ("\r", False), (" ", False)):
        path = tmp_path / "m.hlo"
        path.write_bytes((text[:pos] + char + text[pos:]).encode())
        result: object
        try:
            result = hloscope.parse_modules(path)
        except HloParseError as error:
            result = error
        assert isinstance(result, HloParseError) is refused
        if refused:
            assert (result.line, result.column) == (text.count("\n", 0, pos) + 1, 3)


def test_a_refused_character_is_found_in_any_slice_of_the_text(monkeypatch):
    # The text is tested a slice at a time: with slices of 7 characters, a character refused
    # at any place in code, at a slice's first or last character too, is still found.
    from hloscope.hlo import _lex

    monkeypatch.setattr(_lex, "_SLICE", 7)
    text = _text(PROGRAMS[0])
    for pos in _slots(PROGRAMS[0], inside=False):
        result = _parse_in_time(text[:pos] + "\x1f" + text[pos:])
        assert isinstance(result, HloParseError), pos
        assert (result.line, result.column) == (
            text.count("\n", 0, pos) + 1,
            pos - (text.rfind("\n", 0, pos) + 1) + 1,
        )
    assert not isinstance(_parse_in_time(text), HloParseError)
