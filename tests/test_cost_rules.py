"""Every opcode of the opcode table has exactly one cost rule, or is on purpose without one.

Before the cost model became a package, an opcode added to ``hloscope/hlo/opcodes.py`` and
forgotten in the cost rules silently got the default (boundary bytes, no FLOPs): a new
arithmetic op would have cost nothing. Now the table is checked against the rules, and the
opcodes left without one (``NO_XLA_RULE_OPCODES``) are checked against XLA: it must not know
them either, or there is an XLA rule to follow.
"""

from __future__ import annotations

import itertools

import pytest
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis import cost
from hloscope.analysis.cost import NO_XLA_RULE_OPCODES, instruction_cost, module_cost
from hloscope.analysis.cost import _shapes as shapes
from hloscope.analysis.cost._rules import opcodes_without_rule, rule_sets
from hloscope.hlo import placement
from hloscope.hlo.opcodes import OPCODES


def one_op_module(opcode: str, shape: str = "f32[4]{0}") -> str:
    return (
        "HloModule m\n\nENTRY main {\n"
        f"  p = {shape} parameter(0)\n  ROOT r = {shape} {opcode}(p)\n}}\n"
    )


def test_every_opcode_of_the_table_has_a_cost_rule_or_is_listed_without_one():
    assert opcodes_without_rule(OPCODES) == []


def test_an_opcode_added_to_the_table_without_a_rule_is_caught():
    # What the test above sees the day someone adds a row to the table and no rule.
    assert opcodes_without_rule([*OPCODES, "frobnicate"]) == ["frobnicate"]


def test_no_opcode_is_priced_by_two_rules():
    # The rules are tried in order: an opcode in two sets would never reach the second.
    sets = rule_sets()
    for (name_a, a), (name_b, b) in itertools.combinations(sets.items(), 2):
        assert not a & b, f"{sorted(a & b)} in both {name_a!r} and {name_b!r}"


def test_the_rules_name_only_opcodes_of_the_table():
    # A misspelt opcode in a rule set would price nothing and leave the real one unruled.
    ruled = frozenset().union(*rule_sets().values())
    assert sorted(ruled - set(OPCODES)) == []


def test_xla_does_not_know_the_opcodes_left_without_a_rule():
    """Each opcode on the no-rule list is one XLA's parser (the XLA this cost model follows)
    calls unknown; once a jaxlib knows one, it has a cost rule to follow and the list is
    wrong."""
    needs_framework("jax")
    from hloscope.backends._jaxlib import xla_parse

    assert NO_XLA_RULE_OPCODES
    for opcode in sorted(NO_XLA_RULE_OPCODES):
        with pytest.raises(Exception, match=f"Unknown opcode: {opcode}"):
            xla_parse(one_op_module(opcode))


def test_opcodes_without_a_rule_cost_what_xla_gives_the_default_rule():
    """They cost what XLA's default rule gives a ``copy`` of the same shape (the operand
    read, the result written, no FLOPs), unflagged; an opcode the table does not know costs
    the same but is flagged."""
    needs_framework("jax")
    from hloscope.backends._jaxlib import xla_cost_analysis

    shape = "f32[3,5]{1,0}"
    xla = xla_cost_analysis(one_op_module("copy", shape))
    for opcode in sorted(NO_XLA_RULE_OPCODES):
        module = hloscope.parse(one_op_module(opcode, shape))
        c = instruction_cost(module.entry.root)
        assert (c.flops, c.transcendentals, c.bytes_accessed) == (0, 0, xla["bytes accessed"])
        assert c.flag == "" and module_cost(module).flagged == []
    unknown = instruction_cost(hloscope.parse(one_op_module("frobnicate", shape)).entry.root)
    assert unknown.bytes_accessed == xla["bytes accessed"] and "unknown opcode" in unknown.flag


SCAN_BODIES = {
    "add": "  ROOT s = f32[] add(x, y)\n",
    "add_multiply": "  s = f32[] add(x, y)\n  ROOT m = f32[] multiply(s, y)\n",
    "add_exp": "  s = f32[] add(x, y)\n  ROOT e = f32[] exponential(s)\n",
}


@pytest.mark.parametrize("length", [8, 64])
@pytest.mark.parametrize("body", sorted(SCAN_BODIES))
@pytest.mark.parametrize("reverse", [False, True])
def test_a_scan_costs_what_xla_says(length, body, reverse):
    """``scan`` was on the no-rule list until XLA was asked: this XLA knows it, and prices it
    as its computation once plus the default bytes."""
    needs_framework("jax")
    from hloscope.backends._jaxlib import xla_cost_analysis

    flags = ", is_reverse=true" if reverse else ""
    text = (
        "HloModule m\n\nstep {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        + SCAN_BODIES[body]
        + f"}}\n\nENTRY main {{\n  p = f32[{length}]{{0}} parameter(0)\n"
        + "  z = f32[] constant(0)\n"
        + f"  ROOT r = (f32[{length}]{{0}}, f32[]) scan(p, z), dimensions={{0}}, num_carries=1,"
        + f" to_apply=step{flags}\n}}\n"
    )
    xla = xla_cost_analysis(text)
    total = module_cost(hloscope.parse(text)).total
    assert (total.flops, total.transcendentals, total.bytes_accessed) == (
        xla["flops"],
        xla.get("transcendentals", 0),
        xla["bytes accessed"],
    )
    assert total.flag == ""


def test_the_shape_cache_stays_within_its_limit_and_changes_no_cost(monkeypatch):
    """A module of many distinct shapes fills the one shape cache past a (lowered) limit: it
    keeps at most the limit, and every cost is what an unbounded cache gives."""
    lines = ["HloModule shapes", "", "ENTRY main {"]
    names = []
    for n in range(1, 41):
        lines.append(f"  p{n} = f32[{n},3]{{1,0}} parameter({n - 1})")
        lines.append(f"  e{n} = f32[{n},3]{{1,0}} exponential(p{n})")
        lines.append(f"  t{n} = f32[3,{n}]{{1,0}} transpose(e{n}), dimensions={{1,0}}")
        names.append(f"t{n}")
    shapes_text = ", ".join(f"f32[3,{n}]{{1,0}}" for n in range(1, 41))
    lines += [f"  ROOT out = ({shapes_text}) tuple({', '.join(names)})", "}", ""]
    text = "\n".join(lines)

    unbounded = module_cost(hloscope.parse(text)).to_dict()
    monkeypatch.setattr(shapes, "SHAPE_CACHE_LIMIT", 8)
    monkeypatch.setattr(shapes, "_shape_cache", {})
    bounded = module_cost(hloscope.parse(text)).to_dict()
    assert len(shapes._shape_cache) == 8
    assert bounded == unbounded
    # 40 x (3n floats read and written by exp, again by the transpose), the tuple's pointers.
    assert unbounded["total"]["bytes_accessed"] == sum(4 * 4 * 3 * n for n in range(1, 41)) + (
        8 * 40
    )


def test_placement_lives_in_hlo_and_the_cost_names_are_the_same_objects():
    # Importers of hloscope.analysis.cost (graphviz, passes, extract, fusions) and of
    # hloscope.hlo.placement must get one Role enum, or role comparisons would fail.
    for name in placement.__all__:
        if name != "CONTROL_FLOW_OPCODES":
            assert getattr(cost, name) is getattr(placement, name), name


def test_shape_minor_to_major_is_the_layout_or_xlas_default() -> None:
    """One rule for cost's transpose-is-bitcast test and extract's physical orders."""
    from hloscope.hlo.shape import parse_shape

    assert parse_shape("f32[2,3,4]{0,2,1}").minor_to_major == (0, 2, 1)
    assert parse_shape("f32[2,3,4]").minor_to_major == (2, 1, 0)
    assert parse_shape("f32[]").minor_to_major == ()
    # A layout that does not name every dimension is not the array's: the default holds.
    assert parse_shape("f32[2,3]{}").minor_to_major == (1, 0)
