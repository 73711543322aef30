"""The bulk path's attribute checks take shortcuts that must answer what the plain tests did:
the search for a statement's right-hand side (``_EQUALS_RHS``) tried from the '(' and '['
where they are rare, and the brackets of each line paired off in place of counted.

Each shortcut is compared with the test it stands for, on texts made to take it (brackets
rare, brackets dense, lines of nested pairs, lines balanced but not nested, lines not
balanced), so a shortcut that answered otherwise would change which path reads a body.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hloscope.hlo.parser import _bulk

# What the tests look at: '=', blanks, brackets, name characters, quotes, line breaks.
_PIECES = st.sampled_from(
    [
        "=",
        " ",
        "\t",
        "(",
        "[",
        ")",
        "]",
        "{",
        "}",
        "a",
        "B_",
        "1",
        ".",
        "-",
        "\n",
        '"',
        ", ",
        "op_name=",
        "slice={[0:4]}",
        'op_name="jit(f)/dot"',
        "=b[",
        "= (",
        "=x.y-z [",
        "x = f32[] add(",
    ]
)
_FILLER = st.sampled_from(["", "q" * 700, 'metadata={op_type="Sum" source_line=12}' * 20])


def _equals_rhs_plainly(text: str) -> bool:
    return _bulk._EQUALS_RHS.search(text) is not None


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(_FILLER, _PIECES), max_size=40))
def test_the_right_hand_side_search_answers_as_the_regex(parts):
    text = "".join(filler + piece for filler, piece in parts)
    assert _bulk._equals_rhs(text) == _equals_rhs_plainly(text)


def test_the_right_hand_side_search_in_sparse_and_dense_brackets():
    sparse = ('metadata={op_name="a/b" source_line=3}' + "x" * 600 + "\n") * 50
    assert not _bulk._equals_rhs(sparse)  # every bracket tested from its '='
    assert _bulk._equals_rhs(sparse + "k=v, replica_groups=mesh[2]")
    assert _bulk._equals_rhs(sparse + "a= (")
    assert not _bulk._equals_rhs(sparse + "a=b\n[")  # not across a line
    # One bracket every few characters: the regex takes over, from after the last tested.
    dense = 'op_name="jit(f)/jit(g)/x"\n' * 400
    assert not _bulk._equals_rhs(dense)
    assert _bulk._equals_rhs(dense + "y, z = s32[] add(")
    assert _bulk._equals_rhs("=b[" + dense)


def _brackets_balanced_plainly(attrs: list[str]) -> bool:
    """Each line's brackets counted, as the bulk path did before pairing them off."""
    brackets = "\n".join(attrs).encode().translate(None, _bulk._NOT_A_BRACKET)
    return all(map(_bulk._balanced_counts, set(brackets.split(b"\n"))))


def _plain_attributes_plainly(attrs: list[str]) -> bool:
    joined = "\n".join(attrs)
    if "ROOT" in joined or _equals_rhs_plainly(joined):
        unquoted = _bulk._LINE_STRING.sub('""', joined)
        if "ROOT" in unquoted or _bulk._SQUEEZED.search(unquoted) is not None:
            return False
    if "*" in joined and "/*" in joined and _bulk._has_comment(joined):
        return False
    return _brackets_balanced_plainly(attrs)


_LINES = st.lists(
    st.sampled_from(
        [
            "",
            "dimensions={0}",
            "slice={[0:4], [0:2]}",
            'window={size=3}, metadata={op_name="a(b)"}',
            "{)(}",  # balanced counts, not nested: counted, not paired
            "][",
            "{",  # not balanced
            ")",
            "f={{{[()]}}}",
            "{}{}{}{}{}{}",
        ]
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=600, deadline=None)
@given(_LINES)
def test_attribute_lines_pass_as_when_their_brackets_were_counted(attrs):
    assert _bulk._plain_attributes(attrs) == _plain_attributes_plainly(attrs)


def test_nested_pairs_and_counted_brackets():
    assert _bulk._nested(b"{}\n{[]}\n\n{()(())}")
    assert not _bulk._nested(b"{}\n)(")  # balanced, not nested: left to the counts
    assert not _bulk._nested(b"{\n}")  # a pair never spans a line break
    assert _bulk._plain_attributes(["a={)(}", "b={}"])  # counts balance on each line
    assert not _bulk._plain_attributes(["a={", "}"])
    assert not _bulk._plain_attributes(["a={}", "b=[0:4]]"])
