"""``module_has_tpu_layouts`` answers a module without a ':' in any shape text from the texts,
without building an instruction, and answers every module as the walk over decoded layouts
does."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES

import hloscope
from hloscope.hlo.model import Module
from hloscope.hlo.tiling import module_has_tpu_layouts

DATA = Path(__file__).parent / "data"


def _by_decoded_layouts(module: Module) -> bool:
    """The definition: any array's decoded layout has tiles or a memory space."""
    for inst in module.instructions():
        for leaf in inst.shape.leaves():
            layout = leaf.layout
            if layout is not None and (layout.tiles or layout.memory_space):
                return True
    return False


def _module(shape: str) -> str:
    return (
        f"HloModule m\n\nENTRY e {{\n  p = {shape} parameter(0)\n  ROOT n = {shape} negate(p)\n}}\n"
    )


@pytest.mark.parametrize(
    ("shape", "tpu"),
    [
        ("f32[8,128]{1,0}", False),
        ("f32[8,128]{1,0:T(8,128)}", True),
        ("bf16[16,128]{1,0:T(8,128)(2,1)S(1)}", True),
        ("s32[]{:S(2)}", True),
        ("f32[8,128]{1,0:S(0)}", False),  # memory space 0 is HBM: a ':' alone decides nothing
        ("s4[64]{0:E(4)}", False),
    ],
)
def test_layouts_decide_as_the_decoded_layouts_do(shape: str, tpu: bool):
    module = hloscope.parse(_module(shape))
    assert module_has_tpu_layouts(module) is tpu
    assert _by_decoded_layouts(hloscope.parse(_module(shape))) is tpu


def test_a_cpu_module_is_answered_without_building_its_bodies():
    module = hloscope.parse(SAMPLES / "hlo" / "transformer_train.after_optimizations.txt")
    unbuilt = [c for c in module.computations if c._body is not None]
    assert len(unbuilt) > 100
    assert module_has_tpu_layouts(module) is False
    assert all(c._body is not None for c in unbuilt)  # still text
    assert _by_decoded_layouts(module) is False


def test_tpu_and_cpu_modules_of_the_test_data_agree_with_the_definition():
    paths = sorted((DATA / "compile_time" / "xla_tpu_dump").glob("*.txt"))
    paths += sorted((SAMPLES / "hlo").glob("*.txt"))
    answers = []
    for path in paths:
        module = hloscope.parse(path)
        answer = module_has_tpu_layouts(module)
        assert answer is _by_decoded_layouts(module), path
        answers.append(answer)
    assert True in answers and False in answers
