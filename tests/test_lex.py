"""The shared lexical pieces (hloscope/hlo/_lex.py), and the one-attribute fast read that is
built on them (hloscope/hlo/attributes/_mapping.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CORPUS as RUN_CORPUS

import hloscope
from hloscope.hlo import _lex
from hloscope.hlo.attributes import Attributes, read_metadata, split_attributes
from hloscope.hlo.errors import DecodeError, HloParseError
from hloscope.hlo.metadata import EMPTY_METADATA
from hloscope.hlo.opcodes import (
    CALLED_COMPUTATION_ATTRS,
    CATEGORIES,
    COMPUTATION_LIST_ATTRS,
    SINGLE_COMPUTATION_ATTRS,
    Category,
    category_of,
)

# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "_x", "fusion.12", "add-dependency", "p0.1-2_b", "A9"])
def test_names(name):
    assert _lex.NAME_RE.fullmatch(name)


@pytest.mark.parametrize("name", ["9a", ".a", "-a", "é", "añadir", "名前", "a b", "%a"])
def test_not_names(name):
    assert _lex.NAME_RE.fullmatch(name) is None


def test_non_ascii_letters_end_a_name():
    # XLA's IsIdentifierChar is absl::ascii_isalnum plus "_.-": "é" is not a name character.
    assert _lex.NAME_RE.match("caféx").group() == "caf"


def test_parser_rejects_non_ascii_names_like_xla():
    with pytest.raises(HloParseError):
        hloscope.parse("HloModule m\nENTRY e {\n  ROOT café = f32[] parameter(0)\n}\n")


# --- strings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, body",
    [
        ('""', ""),
        ('"abc"', "abc"),
        (r'"a\"b"', r"a\"b"),
        (r'"a\\"', r"a\\"),
        ('"x\\\ny"', "x\\\ny"),
    ],
)
def test_strings(text, body):
    assert _lex.string_at(text + " tail", 0) == (body, len(text))


def test_unterminated_string():
    assert _lex.string_at('"abc', 0) is None
    assert _lex.string_at(r'"abc\"', 0) is None


def test_quoted_variants():
    one_line = re.compile(_lex.quoted('"', newline=False))
    assert one_line.match('"a\nb"') is None
    assert re.compile(_lex.quoted("'")).fullmatch(r"'x\'y'")
    assert re.compile(_lex.quoted('"', capture=True)).match('"q" r').group(1) == "q"


# --- whitespace and comments ---------------------------------------------------------------


def test_skip_ws_skips_block_comments():
    text = "  /* a */ \n /* b\n c */x"
    assert text[_lex.skip_ws(text, 0)] == "x"
    assert _lex.skip_ws("x", 0) == 0
    assert _lex.skip_ws("/* open", 0) == 0  # an unterminated comment is not whitespace


def test_line_comment_pattern():
    m = re.compile(_lex.LINE_COMMENT).match("// note (\nnext")
    assert m.group() == "// note ("


# --- bracket matching ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, close",
    [
        ("(a, b)", 5),
        ("{a, {b}, [c]} tail", 12),
        ('{"}"}', 4),
        ('("(", ")")', 9),
        ("(/* ) */ x)", 10),
        ("{x", -1),
        ('{"x}', -1),
    ],
)
def test_find_closing(text, close):
    assert _lex.find_closing(text, 0) == close


def test_find_closing_mismatch_is_an_error():
    with pytest.raises(DecodeError, match="expected '}', found '\\)'") as info:
        _lex.find_closing("{a)", 0)
    assert info.value.offset == 2


def test_find_closing_value_tokens_skip_single_quotes_and_line_comments():
    assert _lex.find_closing("{'}' // }\n}", 0, _lex.VALUE_TOKENS) == 10


# --- comma lists ---------------------------------------------------------------------------


def test_split_top_level():
    assert _lex.split_top_level('a, f(b, c), {d, e}, "x, y"') == [
        ("a", 0),
        (" f(b, c)", 2),
        (" {d, e}", 11),
        (' "x, y"', 19),
    ]
    assert _lex.split_top_level("") == [("", 0)]
    assert _lex.split_top_level("a,") == [("a", 0), ("", 2)]


def test_cursor_comma_list():
    c = _lex.Cursor("{ a, b /* c */ , d }")
    assert c.comma_list("{", "}", c.ident) == ["a", "b", "d"]
    c.done()
    c = _lex.Cursor("( )")
    assert c.comma_list("(", ")", c.ident) == []
    with pytest.raises(DecodeError, match="expected '}'"):
        c = _lex.Cursor("{a b}")
        c.comma_list("{", "}", c.ident)


# --- the opcode tables -----------------------------------------------------------------------


def test_category_is_a_str_enum():
    assert category_of("add") == "elementwise" and category_of("add") is Category.ELEMENTWISE
    assert category_of("quantum-teleport") == "unknown"
    assert f"{category_of('fusion')}" == "fusion"
    assert CATEGORIES[0] == "elementwise" and len(CATEGORIES) == 15


def test_one_called_computation_table():
    assert set(CALLED_COMPUTATION_ATTRS) == {*SINGLE_COMPUTATION_ATTRS, *COMPUTATION_LIST_ATTRS}


# --- the one-attribute fast read agrees with the full split --------------------------------

CORPUS = RUN_CORPUS / "generated"


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (a user's clone)")
    files = sorted(CORPUS.glob("*/*after_optimizations.txt"), key=lambda p: p.stat().st_size)
    return files[:3] + files[-1:]


def test_fast_read_equals_full_decode_on_corpus():
    checked = 0
    for path in _corpus_files():
        module = hloscope.parse(path)
        for inst in module.instructions():
            text = inst.attr_text
            full = Attributes(text, inst.opcode)
            names = list(full)  # the full split
            expected = {name: full[name] for name in names}
            for name in names:
                one = Attributes(text, inst.opcode)  # fresh: nothing split yet
                assert one.get(name) == expected[name], (path.name, inst.name, name)
                assert one.raw(name) == full.raw(name)
                assert one.offset(name) == full.offset(name)
                checked += 1
            assert Attributes(text, inst.opcode).get("no_such_attribute") is None
            md = read_metadata(text)
            if md is not None:
                assert md == expected.get("metadata", EMPTY_METADATA)
            assert inst.metadata == expected.get("metadata", EMPTY_METADATA)
    assert checked > 1000


@pytest.mark.parametrize(
    "text",
    [
        "index=1, index=2",
        'metadata={op_name="a"}, metadata={op_name="b"}',
        "dimensions={0,1, index=2",
        'custom_call_target="abc, index=2',
    ],
)
def test_fast_read_still_reports_errors(text):
    name = text.split("=", 1)[0]
    with pytest.raises(HloParseError):
        Attributes(text)[name]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fast_read_of_odd_texts_matches_split():
    for text in [
        "calls=%a, %b",
        "a=1,b=2",
        'x=/*c*/1, y="s, t"',
        'metadata={op_name="x" profile_type={1}}',
        'metadata={source_line=3 op_name="a\\"b"}',
        'backend_config={"a":{"b":1}}, metadata={op_name="m"}',
    ]:
        full = {n: r for n, r, _ in split_attributes(text)}
        for name in [*full, "metadata", "zz"]:
            got = Attributes(text).get(name)
            want = Attributes(text)[name] if name in full else None
            assert got == want, (text, name)
