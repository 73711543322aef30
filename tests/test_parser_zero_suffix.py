"""Names whose numeric suffix starts with 0 (``x.0``, ``x.05``, ``x.-0``): XLA's uniquer reads
each as (base, number), so two distinct names may still be one pair; the negative suffixes'
pattern runs only where ``.-0`` occurs, and finds them all where it does."""

from __future__ import annotations

import pytest

import hloscope
from hloscope.hlo.parser._names import names_distinct


@pytest.mark.parametrize(
    ("names", "distinct"),
    [
        (["a", "b", "c.1"], True),
        (["x", "x.0"], False),  # x.0 is (x, 0), as x is
        (["x.5", "x.05"], False),
        (["x.-0", "x"], False),  # only a negative zero suffix: its own pattern finds it
        (["y", "x.-0", "z.7"], True),
        (["x.-0", "x.-00"], False),
        (["x.0", "y.-0"], True),  # both patterns, no collision
        (["x.0", "y.-0", "y"], False),  # both patterns, the negative one collides
    ],
)
def test_names_distinct_reads_every_zero_suffix(names: list[str], distinct: bool) -> None:
    assert names_distinct(names) is distinct


def test_a_negative_zero_suffix_is_renamed_as_xla_renames_it() -> None:
    text = (
        "HloModule m\n"
        "ENTRY e {\n"
        "  x = f32[] parameter(0)\n"
        "  x.-0 = f32[] negate(x)\n"
        "  ROOT r = f32[] add(x, x.-0)\n"
        "}\n"
    )
    names = [i.name for i in hloscope.parse(text).entry.instructions]
    assert names[0] == "x" and names[1] != "x.-0" and len(set(names)) == 3
