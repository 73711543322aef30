"""C escapes as XLA prints strings (octal for bytes >= 0x80) and names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hloscope.hlo.errors import DecodeError
from hloscope.hlo.escapes import c_escape, c_unescape, quoted_string_at


def test_octal_utf8_and_simple_escapes():
    assert c_unescape(r"caf\303\251") == "café"
    assert c_unescape(r"a\nb\t\"q\"\\") == 'a\nb\t"q"\\'
    assert c_unescape(r"\x41\101") == "AA"
    assert c_escape('café\n"') == r"caf\303\251\n\""


@given(st.text())
def test_escape_round_trip(text):
    assert c_unescape(c_escape(text)) == text.encode("utf-8", "replace").decode("utf-8", "replace")


def test_quoted_string_at_reports_offsets():
    assert quoted_string_at('x="a\\"b" rest', 2) == ('a"b', 8)
    with pytest.raises(DecodeError) as info:
        quoted_string_at('x="open', 2)
    assert info.value.offset == 2
    with pytest.raises(DecodeError):
        c_unescape(r"\q")
