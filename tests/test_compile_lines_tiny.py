"""compile-time's "tiny ops" finding: a line of the user's code that made many ops on arrays
of at most TINY_ELEMENTS elements (plumbing and larger arrays not counted)."""

from __future__ import annotations

from hloscope.analysis.compile_lines import TINY_MIN_OPS, Cause, compile_findings, line_counts
from hloscope.hlo.parser import parse

SOURCE = "/home/u/prog.py"


def _module(tiny: int, large: int, tiny_shape: str = "f32[4]{0}") -> str:
    """``tiny`` adds on ``tiny_shape`` from line 7 and ``large`` multiplies on f32[64] from
    line 9, chained, with parameters and a tuple (plumbing) around them."""
    md = 'metadata={{source_file="' + SOURCE + '" source_line={line}}}'
    lines = [f"  p = {tiny_shape} parameter(0)", "  q = f32[64]{0} parameter(1)"]
    prev = "p"
    for i in range(tiny):
        lines.append(f"  t{i} = {tiny_shape} add({prev}, p), {md.format(line=7)}")
        prev = f"t{i}"
    big = "q"
    for i in range(large):
        lines.append(f"  b{i} = f32[64]{{0}} multiply({big}, q), {md.format(line=9)}")
        big = f"b{i}"
    lines.append(f"  ROOT r = ({tiny_shape}, f32[64]{{0}}) tuple({prev}, {big})")
    return "HloModule m\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"


def _tiny(text: str) -> list[tuple[str, int]]:
    found = compile_findings(parse(text), None, {SOURCE: "x = 1\n" * 20})
    return [(f.source, f.instructions) for f in found if f.cause is Cause.TINY_OPS]


def test_the_line_of_many_tiny_ops_is_found_and_larger_arrays_are_not_counted():
    assert _tiny(_module(TINY_MIN_OPS + 20, 700)) == [(f"{SOURCE}:7", TINY_MIN_OPS + 20)]


def test_scalars_count_as_tiny_and_too_few_make_no_finding():
    assert _tiny(_module(TINY_MIN_OPS, 10, tiny_shape="f32[]")) == [(f"{SOURCE}:7", TINY_MIN_OPS)]
    assert _tiny(_module(TINY_MIN_OPS - 1, 700)) == []


def test_line_counts_count_every_instruction_of_a_line():
    counts = {c.source: c.instructions_before for c in line_counts(parse(_module(30, 12)), None)}
    assert counts == {f"{SOURCE}:7": 30, f"{SOURCE}:9": 12}
