"""hloscope.hlo.rewrite: HLO text in, HLO text out, with no framework (plain text for the
compiler, intermediates as outputs, a module around a new entry)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import hloscope
from hloscope.hlo.rewrite import (
    OutputLeaf,
    attributes_without,
    computations_called_by,
    entry_module_text,
    fresh_name,
    plain_text,
    with_outputs,
)

ROOT = Path(__file__).resolve().parent.parent

OPTIMIZED = """\
HloModule m, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{0,1}}

%fused (p: f32[2,3]) -> f32[2,3] {
  %p = f32[2,3]{1,0} parameter(0)
  ROOT %n = f32[2,3]{1,0} negate(%p)
}

ENTRY %main (x: f32[2,3]) -> f32[3,2] {
  %x = f32[2,3]{1,0} parameter(0)
  %f = f32[2,3]{1,0} fusion(%x), kind=kLoop, calls=%fused
  %e = f32[2,3]{1,0} exponential(%x), control-predecessors={%f}
  %a = f32[2,3]{1,0} add(%f, %e)
  ROOT %b = f32[3,2]{0,1} bitcast(%a)
}
"""


def test_plain_text_inlines_fusions_and_makes_bitcasts_logical():
    plain = plain_text(hloscope.parse(OPTIMIZED))
    assert plain == (
        "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{0,1}}\n"
        "\n"
        "ENTRY %main {\n"
        "  %x = f32[2,3]{1,0} parameter(0)\n"
        "  %n = f32[2,3]{1,0} negate(%x)\n"
        "  %e = f32[2,3]{1,0} exponential(%x)\n"
        "  %a = f32[2,3]{1,0} add(%n, %e)\n"
        "  ROOT %b = f32[3,2] transpose(%a), dimensions={1,0}\n"
        "}\n"
    )
    assert hloscope.parse(plain).entry.root.opcode == "transpose"  # it reads back


def test_plain_text_leaves_out_what_it_is_asked_to():
    text = OPTIMIZED.replace(
        "  %a = f32[2,3]{1,0} add(%f, %e)\n",
        "  %a = f32[2,3]{1,0} add(%f, %e)\n  %unused = f32[2,3]{1,0} sine(%x)\n",
    )
    module = hloscope.parse(text)
    (unused,) = [inst for inst in module.instructions() if inst.opcode == "sine"]
    assert "sine" in plain_text(module)
    # The caller decides what nothing depends on (bench: host callbacks such as a print).
    assert plain_text(module, leave_out=[unused]) == plain_text(hloscope.parse(OPTIMIZED))


def test_with_outputs_adds_intermediates_to_the_root_tuple():
    module = hloscope.parse(OPTIMIZED)
    by_name = {inst.name: inst for inst in module.entry.instructions}
    text, leaves = with_outputs(module, [by_name["e"], by_name["a"]])
    assert leaves == [OutputLeaf("b", ()), OutputLeaf("e", ()), OutputLeaf("a", ())]
    again = hloscope.parse(text)
    assert again.entry.root.opcode == "tuple"
    assert [op.name for op in again.entry.root.operands] == ["b", "e", "a"]
    assert "entry_computation_layout" not in text.splitlines()[0]
    fused_param = module.computation("fused").instructions[0]
    with pytest.raises(ValueError, match="not instructions of the entry computation: p"):
        with_outputs(module, [fused_param])


def test_entry_module_text_writes_a_module_around_new_lines():
    module = hloscope.parse(OPTIMIZED)
    fusion = next(inst for inst in module.instructions() if inst.opcode == "fusion")
    called = computations_called_by(fusion, module)
    assert [c.name for c in called] == ["fused"]
    text = entry_module_text(
        module,
        "m.f",
        called,
        parameters=["f32[2,3]{1,0}"],
        signature=["p0: f32[2,3]"],
        lines=[
            "%p0 = f32[2,3]{1,0} parameter(0)",
            "ROOT %f = f32[2,3]{1,0} fusion(%p0), kind=kLoop, calls=%fused",
        ],
        result=fusion.shape,
    )
    assert text.splitlines()[0] == (
        "HloModule m.f, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}"
    )
    again = hloscope.parse(text)
    assert again.entry.root.fused_computation.root.opcode == "negate"


def test_the_small_helpers():
    assert attributes_without('dimensions={0}, metadata={op_name="x"}', ["metadata"]) == (
        "dimensions={0}"
    )
    assert attributes_without("dimensions={0}", ["metadata"]) == "dimensions={0}"
    used = {"a", "a.1"}
    assert fresh_name("a", used, ".") == "a.2" and "a.2" in used
    assert fresh_name("b", used, ".") == "b"


def test_the_rewrites_import_no_framework():
    code = (
        "import sys, hloscope.hlo.rewrite; "
        "assert not {'jax', 'tensorflow'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
