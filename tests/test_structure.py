# ruff: noqa: E501 (HLO text as XLA prints it: long lines)
"""Structure numbers (hloscope.hlo.structure) and the costs memoised by them.

A number is shared only by bodies that differ in nothing but names, metadata and the names of
alike leaf callees; whatever else differs (operand order, a layout, a constant, a callee's
content) gives another number. The cost model costs each distinct body once, so each memoised
cost is checked against costing that body alone in a fresh analysis, and the whole module
against XLA's own cost analysis.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES, corpus_path, oracle_lines
from corpus_files import module_files, oracle_path

import hloscope
from hloscope.analysis.cost import _analysis as cost_module
from hloscope.analysis.cost import body_costs, instruction_cost, module_cost
from hloscope.analysis.fusions import fusion_report
from hloscope.hlo import structure
from hloscope.hlo.structure import structure_id

# Seven reductions of a difference. fused.1, fused.2 and fused.plain differ only in names,
# metadata and which of two alike adders they call; each of the others differs from them in
# one thing.
ALIKE = """HloModule alike

add.1 {
  x.1 = f32[] parameter(0)
  y.1 = f32[] parameter(1)
  ROOT s.1 = f32[] add(x.1, y.1)
}

add.2 {
  x.2 = f32[] parameter(0)
  y.2 = f32[] parameter(1)
  ROOT s.2 = f32[] add(x.2, y.2)
}

mul_add {
  x.3 = f32[] parameter(0)
  y.3 = f32[] parameter(1)
  m.3 = f32[] multiply(x.3, y.3)
  ROOT s.3 = f32[] add(m.3, x.3)
}

fused.1 {
  p.1 = f32[8,16]{1,0} parameter(0)
  q.1 = f32[8,16]{1,0} parameter(1)
  d.1 = f32[8,16]{1,0} subtract(p.1, q.1), metadata={op_name="jit(f)/layer_0/sub" source_file="m.py" source_line=3}
  c.1 = f32[] constant(0)
  ROOT r.1 = f32[8]{0} reduce(d.1, c.1), dimensions={1}, to_apply=add.1, metadata={op_name="jit(f)/layer_0/sum"}
}

fused.2 {
  p.2 = f32[8,16]{1,0} parameter(0)
  q.2 = f32[8,16]{1,0} parameter(1)
  d.2 = f32[8,16]{1,0} subtract(p.2, q.2), metadata={op_name="jit(f)/layer_1/sub" source_file="m.py" source_line=3}
  c.2 = f32[] constant(0)
  ROOT r.2 = f32[8]{0} reduce(d.2, c.2), dimensions={1}, to_apply=add.2, metadata={op_name="jit(f)/layer_1/sum"}
}

fused.plain {
  p.7 = f32[8,16]{1,0} parameter(0)
  q.7 = f32[8,16]{1,0} parameter(1)
  d.7 = f32[8,16]{1,0} subtract(p.7, q.7)
  c.7 = f32[] constant(0)
  ROOT r.7 = f32[8]{0} reduce(d.7, c.7), dimensions={1}, to_apply=add.1
}

fused.callee {
  p.3 = f32[8,16]{1,0} parameter(0)
  q.3 = f32[8,16]{1,0} parameter(1)
  d.3 = f32[8,16]{1,0} subtract(p.3, q.3)
  c.3 = f32[] constant(0)
  ROOT r.3 = f32[8]{0} reduce(d.3, c.3), dimensions={1}, to_apply=mul_add
}

fused.order {
  p.4 = f32[8,16]{1,0} parameter(0)
  q.4 = f32[8,16]{1,0} parameter(1)
  d.4 = f32[8,16]{1,0} subtract(q.4, p.4)
  c.4 = f32[] constant(0)
  ROOT r.4 = f32[8]{0} reduce(d.4, c.4), dimensions={1}, to_apply=add.1
}

fused.constant {
  p.5 = f32[8,16]{1,0} parameter(0)
  q.5 = f32[8,16]{1,0} parameter(1)
  d.5 = f32[8,16]{1,0} subtract(p.5, q.5)
  c.5 = f32[] constant(1)
  ROOT r.5 = f32[8]{0} reduce(d.5, c.5), dimensions={1}, to_apply=add.1
}

fused.layout {
  p.6 = f32[8,16]{0,1} parameter(0)
  q.6 = f32[8,16]{0,1} parameter(1)
  d.6 = f32[8,16]{0,1} subtract(p.6, q.6)
  c.6 = f32[] constant(0)
  ROOT r.6 = f32[8]{0} reduce(d.6, c.6), dimensions={1}, to_apply=add.1
}

ENTRY main {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[8,16]{1,0} parameter(1)
  at = f32[8,16]{0,1} copy(a)
  bt = f32[8,16]{0,1} copy(b)
  k1 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.1
  k2 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.2
  k3 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.callee
  k4 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.order
  k5 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.constant
  k6 = f32[8]{0} fusion(at, bt), kind=kInput, calls=fused.layout
  k7 = f32[8]{0} fusion(a, b), kind=kInput, calls=fused.plain
  ROOT t = (f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(k1, k2, k3, k4, k5, k6, k7)
}
"""


def _ids(module) -> dict[str, int]:
    return {c.name: structure_id(c) for c in module.computations}


def test_bodies_alike_but_for_names_metadata_and_alike_callees_share_a_number():
    ids = _ids(hloscope.parse(ALIKE))
    assert ids["fused.1"] == ids["fused.2"] == ids["fused.plain"]
    assert ids["add.1"] == ids["add.2"]


@pytest.mark.parametrize("other", ["callee", "order", "constant", "layout"])
def test_one_difference_gives_another_number(other):
    ids = _ids(hloscope.parse(ALIKE))
    assert ids[f"fused.{other}"] != ids["fused.1"]
    assert len({ids[f"fused.{o}"] for o in ("callee", "order", "constant", "layout")}) == 4


def test_numbers_do_not_depend_on_the_order_they_are_asked_in():
    forward = _ids(hloscope.parse(ALIKE))
    module = hloscope.parse(ALIKE)
    backward = {c.name: structure_id(c) for c in reversed(module.computations)}
    groups = lambda ids: sorted(sorted(n for n in ids if ids[n] == v) for v in set(ids.values()))  # noqa: E731
    assert groups(forward) == groups(backward)


def test_metadata_is_kept_where_a_string_could_hide_it():
    # The second op's backend_config is a string: the metadata beside it stays in the key
    # (exact, a miss at worst), so the op names tell the two bodies apart.
    text = ALIKE.replace(
        "source_line=3}\n  c.2", 'source_line=3}, backend_config="metadata={x}"\n  c.2'
    ).replace("source_line=3}\n  c.1", 'source_line=3}, backend_config="metadata={x}"\n  c.1')
    ids = _ids(hloscope.parse(text))
    assert ids["fused.1"] != ids["fused.2"]
    same = text.replace("layer_1", "layer_0")
    ids = _ids(hloscope.parse(same))
    assert ids["fused.1"] == ids["fused.2"]


def test_a_callee_that_calls_others_is_compared_by_name():
    # Two fusions each calling its own copy of a fused computation that itself calls: the
    # copies are compared by name (one level deep only), so the callers get two numbers.
    nested = """HloModule nested

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

inner.1 {
  p = f32[8,16] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[8] reduce(p, c), dimensions={1}, to_apply=add
}

inner.2 {
  p = f32[8,16] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[8] reduce(p, c), dimensions={1}, to_apply=add
}

outer.1 {
  p = f32[8,16] parameter(0)
  ROOT f = f32[8] fusion(p), kind=kInput, calls=inner.1
}

outer.2 {
  p = f32[8,16] parameter(0)
  ROOT f = f32[8] fusion(p), kind=kInput, calls=inner.2
}

ENTRY main {
  a = f32[8,16] parameter(0)
  k1 = f32[8] fusion(a), kind=kInput, calls=outer.1
  k2 = f32[8] fusion(a), kind=kInput, calls=outer.2
  ROOT t = (f32[8], f32[8]) tuple(k1, k2)
}
"""
    ids = _ids(hloscope.parse(nested))
    assert ids["inner.1"] == ids["inner.2"]
    assert ids["outer.1"] != ids["outer.2"]


def _text_keys_then_built_keys(module):
    text_keys = {c.name: structure._key(c) for c in module.computations}
    for c in module.computations:
        _ = c.instructions  # build every body
    built_keys = {c.name: structure._key(c) for c in module.computations}
    return text_keys, built_keys


@pytest.mark.parametrize("path", sorted((SAMPLES / "hlo").glob("*.txt")), ids=lambda p: p.name)
def test_a_body_has_one_key_read_from_text_or_from_instructions(path: Path):
    text_keys, built_keys = _text_keys_then_built_keys(hloscope.parse(path))
    assert text_keys == built_keys


def test_text_and_built_keys_agree_on_the_corpus():
    corpus_path()  # the corpus of this run (tests/data in a plain clone)
    checked = 0
    sampled = module_files()[::7]
    for path in sampled:
        try:
            modules = hloscope.parse_modules(path)
        except hloscope.HloParseError:
            continue
        for module in modules:
            text_keys, built_keys = _text_keys_then_built_keys(module)
            assert text_keys == built_keys, path.name
            checked += len(text_keys)
    # Every computation XLA's parser found in the sampled files had its key compared (files it
    # rejected may add more), whichever corpus this run reads.
    sampled_set = set(sampled)
    xla_computations = sum(
        len(line["computations"]) for line in oracle_lines() if oracle_path(line) in sampled_set
    )
    assert checked >= xla_computations > 100


def test_memoised_costs_equal_xla_and_costing_each_body_alone():
    from hloscope.backends._jaxlib import xla_cost_analysis

    module = hloscope.parse(ALIKE)
    total = module_cost(module).total
    xla = xla_cost_analysis(ALIKE)
    assert (total.flops, total.bytes_accessed) == (xla["flops"], xla["bytes accessed"])
    flops = {i.name: instruction_cost(i).flops for i in module.entry.instructions}
    assert flops["k1"] == flops["k2"] == 8 * 15 + 128  # 128 subtractions, 8 x 15 adds
    assert flops["k3"] == 8 * 15 * 2 + 128  # the other callee: two FLOPs a step
    _assert_costs_are_each_bodys_own(module)


def _fresh_fusion_cost(inst):
    """The fusion's cost from an analysis that has costed nothing else (no memo to hit)."""
    return cost_module._Analysis()._fusion_of(inst, inst.fused_computation)


def _assert_costs_are_each_bodys_own(module) -> int:
    costs_in = body_costs(module)
    checked = 0
    for comp in module.computations:
        for inst in comp.instructions:
            fused = inst.fused_computation
            if fused is None:
                continue
            assert instruction_cost(inst) == _fresh_fusion_cost(inst), inst.name
            fresh = cost_module._Analysis()
            assert costs_in(fused) == [fresh.instruction(i) for i in fused.instructions]
            checked += 1
    return checked


@pytest.mark.parametrize(
    "name", ["transformer_train.after_optimizations.txt", "keras_cnn.after_optimizations.txt"]
)
def test_memoised_costs_on_the_samples_are_each_bodys_own(name):
    module = hloscope.parse(SAMPLES / "hlo" / name)
    fusion_report(module)  # costs every kernel and fused op, memo and all
    assert _assert_costs_are_each_bodys_own(module) > 10


def test_a_report_costs_each_distinct_body_once():
    # Forty copies of one layer under other names: the fused ops are costed once, not forty
    # times, and every copy still gets its full cost.
    layer = re.search(r"fused\.1 \{.*?\n\}\n", ALIKE, re.S).group(0)
    copies = [
        layer.replace(".1", f".c{n}")
        .replace(f"to_apply=add.c{n}", "to_apply=add.1")
        .replace("layer_0", f"layer_{n}")
        for n in range(40)
    ]
    calls = "\n".join(
        f"  k{n} = f32[8]{{0}} fusion(a, b), kind=kInput, calls=fused.c{n}" for n in range(40)
    )
    names = ", ".join(f"k{n}" for n in range(40))
    shapes = ", ".join(["f32[8]{0}"] * 40)
    text = (
        "HloModule copies\n\n"
        + ALIKE[ALIKE.index("add.1 {") : ALIKE.index("add.2 {")]
        + "\n".join(copies)
        + "\nENTRY main {\n  a = f32[8,16]{1,0} parameter(0)\n  b = f32[8,16]{1,0} parameter(1)\n"
        + calls
        + f"\n  ROOT t = ({shapes}) tuple({names})\n}}\n"
    )
    module = hloscope.parse(text)
    analysis = cost_module._analysis_for(module)
    report = fusion_report(module)
    assert len(report.kernels) == 40
    assert len({k.cost for k in report.kernels}) == 1 and report.kernels[0].cost.flops == 248
    # Only the first copy's fused ops were costed one by one.
    costed = {inst.computation.name for inst in analysis._inst if inst.computation is not None}
    assert sorted(name for name in costed if name.startswith("fused.")) == ["fused.c0"]


def _every_cost(path: Path) -> list:
    out = []
    for module in hloscope.parse_modules(path):
        report = fusion_report(module)
        out.append(
            (
                module_cost(module).total,
                [(k.name, k.cost) for k in report.kernels],
                [row[4] for row in report.op_sources],
            )
        )
    return out


def test_the_memo_changes_no_cost_in_the_corpus(monkeypatch):
    """Every module total, kernel cost and fused op's cost with the memo, and with every body a
    structure of its own (nothing memoised across bodies)."""
    corpus_path()  # skips without ../shared, fails under CI=true
    checked = 0
    for path in module_files()[::4]:
        try:
            memoised = _every_cost(path)
        except hloscope.HloParseError:
            continue
        with monkeypatch.context() as patch:
            patch.setattr(cost_module, "structure_id", lambda comp: -id(comp) - 1)
            alone = _every_cost(path)
        assert memoised == alone, path.name
        checked += 1
    assert checked > 50
