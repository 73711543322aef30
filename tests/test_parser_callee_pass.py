"""The bulk path's test for calls to unknown computations over a whole column of attribute
texts (``_names._unknown_callee_in_lines``) reads every called attribute in one pass from
each '=' (``_CALLED_ANY``). It must read every name the pass per attribute read
(``_CALLED_VALUES``), so that it never misses a call the exact test
(``_names._unknown_callee``) finds: the texts below name known and unknown computations under
each called attribute, inside brace lists, after other attributes and in metadata strings.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hloscope.hlo.opcodes import CALLED_COMPUTATION_ATTRS
from hloscope.hlo.parser import _names

_KNOWN = dict.fromkeys(["f", "g.1", "body_2"])
_NAMES = st.sampled_from(["f", "g.1", "body_2", "h", "%f", "%h", "x-1"])
_ATTRS = st.sampled_from([*CALLED_COMPUTATION_ATTRS, "xcalls", "op_name", "dimensions"])


@st.composite
def _attribute(draw: st.DrawFn) -> str:
    attr = draw(_ATTRS)
    names = draw(st.lists(_NAMES, min_size=1, max_size=3))
    form = draw(st.sampled_from(["one", "list", "braces", "inner", "string"]))
    if form == "one":
        return f"{attr}={names[0]}"
    if form == "list":
        return f"{attr}=" + ", ".join("%" + n.lstrip("%") for n in names)
    if form == "braces":
        return f"{attr}={{" + ", ".join(names) + "}"
    if form == "inner":  # another attribute inside a brace list
        return f"{attr}={{{draw(_ATTRS)}={names[0]}}}"
    return f'metadata={{op_name="{attr}={names[0]}"}}'


_TEXTS = st.lists(st.lists(_attribute(), max_size=4).map(", ".join), min_size=1, max_size=8)


def _names_per_attribute(text: str) -> set[str]:
    """The names the pass per attribute read, before the one pass."""
    values = []
    for attr, pattern in _names._CALLED_VALUES.items():
        if attr + "=" in text:
            values += pattern.findall(text)
    return set(_names._NAME_LIST.findall("\n".join(values)))


@settings(max_examples=800, deadline=None)
@given(_TEXTS)
def test_one_pass_reads_every_name_the_passes_per_attribute_read(texts):
    joined = "\n".join(texts)
    one_pass = set(_names._NAME_LIST.findall("\n".join(_names._CALLED_ANY.findall(joined))))
    assert one_pass >= _names_per_attribute(joined)
    # Never a miss: where the exact test finds an unknown callee, the pass raised the alarm.
    if any(_names._unknown_callee(text, _KNOWN) for text in texts):
        assert _names._unknown_callee_in_lines(joined, _KNOWN)


def test_every_called_attribute_is_read_in_one_pass():
    for attr in CALLED_COMPUTATION_ATTRS:
        text = f'metadata={{op_name="x"}}\ndimensions={{0}}, {attr}=%h, source_line=3'
        assert _names._CALLED_ANY.findall(text) == ["%h"]
        assert _names._unknown_callee_in_lines(text, _KNOWN)
        assert not _names._unknown_callee_in_lines(text.replace("%h", "%f"), _KNOWN)
    assert _names._CALLED_ANY.findall("branch_computations={%f, %g.1}") == ["{%f, %g.1}"]
    assert _names._CALLED_ANY.findall("calls=%f, %h, metadata={}") == ["%f, %h"]
