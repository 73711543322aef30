"""A fused body costed from the parser's columns (hloscope/analysis/cost/_columns.py) costs
what its built instructions cost under the rules, and what XLA's own analysis says.

Each module is parsed twice: once left as the parser reads it (the columns answer, the bodies
stay unbuilt), once with every body built before anything is costed (the rules answer op by
op). Every fusion's cost, every body's list of costs and the module's totals must agree, and
on the hand-written modules XLA's HloCostAnalysis is the oracle of the totals.
"""

from __future__ import annotations

import re

import pytest
from conftest import SAMPLES, corpus_path
from corpus_files import module_files

import hloscope
from hloscope.analysis.cost import body_costs, instruction_cost, module_cost
from hloscope.hlo.model import Module

# Fused bodies that walk each branch of the columns' rules: slices and dynamic slices of a
# parameter, a dynamic-update-slice root (its update written only) and inside a tuple root,
# broadcasts and reshapes reading a parameter again, an op using one parameter twice, a
# parameter no op uses, constants read (more than one element) or not, transposes that are
# and are not bitcasts, the printer's /*index=N*/ counters; and two the columns hand back to
# the rules: a nested fusion reading a parameter, a tuple parameter.
SLICES = """HloModule slices

%fused (p0: f32[8,16], p1: s32[], p2: f32[2,16], p3: f32[3]) -> f32[8,16] {
  %p0 = f32[8,16]{1,0} parameter(0)
  %p1 = s32[] parameter(1)
  %p2 = f32[2,16]{1,0} parameter(2)
  %p3 = f32[3]{0} parameter(3)
  %s = f32[2,16]{1,0} slice(%p0), slice={[0:2], [0:16]}
  %zero = s32[] constant(0)
  %ds = f32[2,16]{1,0} dynamic-slice(%p0, %p1, %zero), dynamic_slice_sizes={2,16}
  %a = f32[2,16]{1,0} add(%s, %ds)
  %b = f32[2,16]{1,0} multiply(%a, %p2)
  %e = f32[2,16]{1,0} exponential(%b)
  ROOT %dus = f32[8,16]{1,0} dynamic-update-slice(%p0, %e, %p1, %zero)
}

ENTRY %main (x: f32[8,16], i: s32[], y: f32[2,16], z: f32[3]) -> f32[8,16] {
  %x = f32[8,16]{1,0} parameter(0)
  %i = s32[] parameter(1)
  %y = f32[2,16]{1,0} parameter(2)
  %z = f32[3]{0} parameter(3)
  ROOT %f = f32[8,16]{1,0} fusion(%x, %i, %y, %z), kind=kLoop, calls=%fused
}
"""

REREAD = """HloModule reread

%fused {
  %p0 = f32[16]{0} parameter(0)
  %p1 = f32[4,16]{1,0} parameter(1)
  %p2 = f32[8,16]{1,0} parameter(2)
  %p3 = s32[] parameter(3)
  %b1 = f32[4,16]{1,0} broadcast(%p0), dimensions={1}
  %b2 = f32[16,4]{1,0} broadcast(%p0), dimensions={0}
  %t = f32[16,4]{1,0} transpose(%p1), dimensions={1,0}
  %t2 = f32[16,4]{0,1} transpose(%p1), dimensions={1,0}
  %c = f32[4]{0} constant({1, 2, 3, 4})
  %cb = f32[16,4]{1,0} broadcast(%c), dimensions={1}
  %one = f32[] constant(1)
  %ob = f32[16,4]{1,0} broadcast(%one), dimensions={}
  %m = f32[16,4]{1,0} multiply(%b2, %t)
  %m2 = f32[16,4]{1,0} add(%m, %cb)
  %m3 = f32[16,4]{1,0} subtract(%m2, %ob)
  %m4 = f32[16,4]{1,0} copy(%t2)
  %m5 = f32[16,4]{1,0} add(%m3, %m4)
  %d = f32[4,16]{1,0} add(%p1, %p1)
  %d2 = f32[4,16]{1,0} tanh(%d)
  %d3 = f32[4,16]{1,0} add(%d2, %b1)
  %r = f32[64]{0} reshape(%p1)
  %zero = s32[] constant(0)
  %dus = f32[8,16]{1,0} dynamic-update-slice(%p2, %d3, %p3, %zero)
  ROOT %out = (f32[4,16]{1,0}, f32[16,4]{1,0}, f32[64]{0}, f32[8,16]{1,0}) tuple(%d3, %m5, %r, %dus)
}

ENTRY %main {
  %x = f32[16]{0} parameter(0)
  %y = f32[4,16]{1,0} parameter(1)
  %z = f32[8,16]{1,0} parameter(2)
  %i = s32[] parameter(3)
  ROOT %f = (f32[4,16]{1,0}, f32[16,4]{1,0}, f32[64]{0}, f32[8,16]{1,0}) fusion(%x, %y, %z, %i),
    kind=kLoop, calls=%fused
}
"""

# Six operands: the printer numbers the sixth (/*index=5*/).
COUNTERS = """HloModule counters

%fused {
  %p0 = f32[2]{0} parameter(0)
  %p1 = f32[2]{0} parameter(1)
  %p2 = f32[2]{0} parameter(2)
  %p3 = f32[2]{0} parameter(3)
  %p4 = f32[2]{0} parameter(4)
  %p5 = f32[2]{0} parameter(5)
  %p6 = f32[5]{0} parameter(6)
  %cat = f32[12]{0} concatenate(%p0, %p1, %p2, %p3, %p4, /*index=5*/%p5), dimensions={0}
  %neg = f32[12]{0} negate(%cat)
  ROOT %sq = f32[12]{0} multiply(%neg, %neg)
}

ENTRY %main (a: f32[2], b: f32[5]) -> f32[12] {
  %a = f32[2]{0} parameter(0)
  %b = f32[5]{0} parameter(1)
  ROOT %f = f32[12]{0} fusion(%a, %a, %a, %a, %a, /*index=5*/%a, %b), kind=kLoop, calls=%fused
}
"""

NESTED = """HloModule nested

%inner (q0: f32[8,16]) -> f32[2,16] {
  %q0 = f32[8,16]{1,0} parameter(0)
  ROOT %s = f32[2,16]{1,0} slice(%q0), slice={[2:4], [0:16]}
}

%fused (p0: f32[8,16], p1: (f32[4], f32[4])) -> (f32[2,16], f32[4]) {
  %p0 = f32[8,16]{1,0} parameter(0)
  %p1 = (f32[4]{0}, f32[4]{0}) parameter(1)
  %g0 = f32[4]{0} get-tuple-element(%p1), index=0
  %g1 = f32[4]{0} get-tuple-element(%p1), index=1
  %sum = f32[4]{0} add(%g0, %g1)
  %n = f32[2,16]{1,0} fusion(%p0), kind=kLoop, calls=%inner
  %neg = f32[2,16]{1,0} negate(%n)
  ROOT %out = (f32[2,16]{1,0}, f32[4]{0}) tuple(%neg, %sum)
}

%tuple_param (p0: (f32[4], f32[4])) -> f32[4] {
  %p0 = (f32[4]{0}, f32[4]{0}) parameter(0)
  %g0 = f32[4]{0} get-tuple-element(%p0), index=0
  ROOT %e = f32[4]{0} exponential(%g0)
}

ENTRY %main (x: f32[8,16], t: (f32[4], f32[4])) -> ((f32[2,16], f32[4]), f32[4]) {
  %x = f32[8,16]{1,0} parameter(0)
  %t = (f32[4]{0}, f32[4]{0}) parameter(1)
  %f = (f32[2,16]{1,0}, f32[4]{0}) fusion(%x, %t), kind=kLoop, calls=%fused
  %g = f32[4]{0} fusion(%t), kind=kLoop, calls=%tuple_param
  ROOT %out = ((f32[2,16]{1,0}, f32[4]{0}), f32[4]{0}) tuple(%f, %g)
}
"""

HAND_WRITTEN = {"slices": SLICES, "reread": REREAD, "counters": COUNTERS, "nested": NESTED}


def _built(text: str) -> Module:
    module = hloscope.parse(text)
    for comp in module.computations:
        comp.instructions  # noqa: B018 - every body built: the rules answer op by op
    return module


def _costs(module: Module) -> tuple:
    """Every fusion's cost, every computation's list of costs, the module's totals."""
    fusions = [
        (inst.name, instruction_cost(inst))
        for comp in module.computations
        for inst in comp.instructions
        if inst.opcode == "fusion"
    ]
    total = module_cost(module)
    bodies = [(comp.name, body_costs(module)(comp)) for comp in module.computations]
    return fusions, bodies, total.total, total.executed, total.flagged


def _unbuilt_costs(text: str) -> tuple[tuple, int]:
    """The costs of the module read lazily, and how many fused bodies the costing left
    unbuilt (each entry's op is costed before its instructions are listed for the key)."""
    module = hloscope.parse(text)
    entry_fusions = [i for i in module.entry.instructions if i.opcode == "fusion"]
    for inst in entry_fusions:
        instruction_cost(inst)
    module_cost(module)
    unbuilt = sum(
        inst.fused_computation.text_columns() is not None
        for inst in entry_fusions
        if inst.fused_computation is not None
    )
    return _costs(module), unbuilt


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_columns_cost_what_the_rules_and_xla_cost(name: str) -> None:
    from hloscope.backends._jaxlib import xla_cost_analysis

    text = HAND_WRITTEN[name]
    lazy, unbuilt = _unbuilt_costs(text)
    assert lazy == _costs(_built(text))
    total = module_cost(hloscope.parse(text)).total
    xla = xla_cost_analysis(text)
    assert total.flops == pytest.approx(xla.get("flops", 0.0), rel=1e-6)
    assert total.transcendentals == pytest.approx(xla.get("transcendentals", 0.0), rel=1e-6)
    assert total.bytes_accessed == pytest.approx(xla["bytes accessed"], rel=1e-6)
    # The plain bodies were costed from their columns, never built; a nested fusion reading
    # a parameter and a tuple parameter are the rules' (their bodies built).
    assert unbuilt == (0 if name == "nested" else 1)


def test_the_columns_cost_a_body_once_per_structure_without_building_it() -> None:
    # Forty copies of one body (names unique in the module, or the parser renames them and
    # builds every body): the first costed from its columns, none built.
    body = SLICES[SLICES.index("%fused") : SLICES.index("ENTRY")]
    copies = "".join(re.sub(r"%([a-z]\w*)", rf"%\1.{n}", body) for n in range(40))
    calls = "\n".join(
        f"  %f.{n} = f32[8,16]{{1,0}} fusion(%x, %i, %y, %z), kind=kLoop, calls=%fused.{n}"
        for n in range(40)
    )
    names = ", ".join(f"%f.{n}" for n in range(40))
    shapes = ", ".join(["f32[8,16]{1,0}"] * 40)
    text = (
        "HloModule copies\n\n"
        + copies
        + "ENTRY %main (x: f32[8,16], i: s32[], y: f32[2,16], z: f32[3]) -> ("
        + shapes
        + ") {\n  %x = f32[8,16]{1,0} parameter(0)\n  %i = s32[] parameter(1)\n"
        + "  %y = f32[2,16]{1,0} parameter(2)\n  %z = f32[3]{0} parameter(3)\n"
        + calls
        + f"\n  ROOT %t = ({shapes}) tuple({names})\n}}\n"
    )
    module = hloscope.parse(text)
    total = module_cost(module).total
    assert all(c.text_columns() is not None for c in module.computations if not c.is_entry)
    assert total == _costs(_built(text))[2]
    assert total.bytes_accessed == 40 * (2 * 128 + 4 + 128 + 32 * 4) + 40 * 8


def _sampled_modules() -> list:
    files = sorted((SAMPLES / "hlo").glob("*.txt"))
    return files + module_files()


def test_the_columns_change_no_cost_in_the_corpus() -> None:
    corpus_path()  # skips without the corpus, fails under CI=true
    checked = 0
    unbuilt = 0
    for path in _sampled_modules():
        try:
            lazy_modules = hloscope.parse_modules(path)
            built_modules = hloscope.parse_modules(path)
        except hloscope.HloParseError:
            continue
        for lazy, built in zip(lazy_modules, built_modules, strict=True):
            for comp in built.computations:
                comp.instructions  # noqa: B018
            for inst in lazy.entry.instructions if lazy.entry is not None else []:
                if inst.opcode == "fusion":
                    instruction_cost(inst)
                    fused = inst.fused_computation
                    unbuilt += fused is not None and fused.text_columns() is not None
            assert _costs(lazy) == _costs(built), path.name
            checked += 1
    assert checked >= 20
    assert unbuilt >= 100  # the columns answered for many bodies: the test tests them


def test_a_kernel_table_costs_no_fused_op_on_its_own() -> None:
    # The kernels' costs and the module's totals come from each fused body's columns; each
    # fused op's own cost is worked out only when a report's op_sources are asked for.
    from hloscope.analysis.cost import _analysis as cost_module
    from hloscope.analysis.fusions import FusionReport, fusion_report

    module = hloscope.parse(REREAD)
    report = fusion_report(module)
    report.rows()
    module_cost(module)
    analysis = cost_module._analysis_for(module)
    assert not analysis._alike_bodies and not analysis._inst.keys() - {*module.entry}
    per_op = [row[4] for row in report.op_sources]
    assert analysis._alike_bodies  # asked for now
    assert sum(c.flops for c in per_op) == sum(k.cost.flops for k in report.kernels) == 384
    assert report.op_sources == fusion_report(_built(REREAD)).op_sources
    # Made once, then kept; a report made from given rows keeps them as they are.
    assert report.op_sources is report.op_sources
    rows = report.op_sources[:2]
    assert FusionReport(report.kernels, report.summary, op_sources=rows).op_sources is rows
    assert FusionReport(report.kernels, report.summary, rows) != report
