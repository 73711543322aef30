"""What a report reads of a body the parser has not built into Instructions yet (op names, the
root's position, an op's stack) must be what the built instructions say, and the fusion report
made from the text must be the one made from the instructions."""

from __future__ import annotations

from pathlib import Path

import pytest

import hloscope
from hloscope.analysis.fusions import fusion_report

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "hlo"
# JAX (a stack frame table) and TensorFlow (source_file in the metadata, op names as sources).
MODULES = ["transformer_train.after_optimizations.txt", "keras_cnn.after_optimizations.txt"]

# A hand-written module: two fused bodies alike but for their names, a frame id, a source file
# with a column (only the decoded metadata has it), an op without metadata, a root that is not
# the last line.
HAND_WRITTEN = """HloModule m

FileNames
1 "/home/u/model.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%fused.1 (p.1: f32[4]) -> f32[4] {
  %p.1 = f32[4]{0} parameter(0)
  ROOT %n.1 = f32[4]{0} negate(%p.1), metadata={op_name="a/neg" stack_frame_id=1}
  %e.1 = f32[4]{0} exponential(%p.1), metadata={source_file="/x/y.py" source_line=7 source_column=4}
}

%fused.2 (p.2: f32[4]) -> f32[4] {
  %p.2 = f32[4]{0} parameter(0)
  ROOT %n.2 = f32[4]{0} negate(%p.2), metadata={op_name="b/neg" stack_frame_id=1}
  %e.2 = f32[4]{0} exponential(%p.2)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %f.1 = f32[4]{0} fusion(%x), kind=kLoop, calls=%fused.1
  ROOT %f.2 = f32[4]{0} fusion(%f.1), kind=kLoop, calls=%fused.2, metadata={op_name="b"}
}
"""


# The same as a TensorFlow function's module: ops without a location are named by the layer
# path of their op_name (what the report reads of a body's op names).
TF_NAMED = HAND_WRITTEN.replace("HloModule m", "HloModule a_inference_step_12__.3").replace(
    "exponential(%p.2)", 'exponential(%p.2), metadata={op_name="model/dense_1/Exp"}'
)
IDS = [*MODULES, "hand-written", "tf-named"]


def _texts() -> list[str]:
    return [(SAMPLES / name).read_text() for name in MODULES] + [HAND_WRITTEN, TF_NAMED]


def test_a_tf_module_names_the_sources_of_ops_without_a_location_by_their_op_names() -> None:
    rows = {row["name"]: row for row in fusion_report(hloscope.parse(TF_NAMED)).rows()}
    assert rows["f.2"]["sources"] == ["/home/u/model.py:3 (f)", "model/dense_1"]


@pytest.mark.parametrize("text", _texts(), ids=IDS)
def test_reads_of_an_unbuilt_body_are_the_instructions(text: str) -> None:
    unbuilt = hloscope.parse(text)
    built = hloscope.parse(text)
    for comp, twin in zip(unbuilt.computations, built.computations):
        assert comp._body is not None  # read from the text below, not from instructions
        names = comp.op_names()
        position = comp.root_position()
        locations = comp.locations()
        stacks = [comp.stack_at(k, loc) for k, loc in enumerate(locations)]
        instructions = twin.instructions
        assert names == [inst.op_name for inst in instructions]
        assert instructions[position] is twin.root
        assert stacks == [inst.stack for inst in instructions]
        assert twin.op_names() == names and twin.root_position() == position


def test_a_source_file_column_comes_from_the_decoded_metadata() -> None:
    comp = hloscope.parse(HAND_WRITTEN).computations_by_name["fused.1"]
    location = comp.locations()[2]
    assert location == (0, "/x/y.py", 7)
    (frame,) = comp.stack_at(2, location)
    assert (frame.file, frame.line, frame.column) == ("/x/y.py", 7, 4)
    frame_of_table = comp.stack_at(1, comp.locations()[1])
    assert [(f.file, f.line, f.function) for f in frame_of_table] == [("/home/u/model.py", 3, "f")]


@pytest.mark.parametrize("text", _texts(), ids=IDS)
def test_fusion_report_from_the_text_is_the_report_from_instructions(text: str) -> None:
    lazy = hloscope.parse(text)
    report = fusion_report(lazy)
    eager = hloscope.parse(text)
    for comp in eager.computations:
        comp.instructions  # noqa: B018 - every body built before the report
    expected = fusion_report(eager)
    assert report.rows() == expected.rows()
    assert report.summary == expected.summary
    assert report.op_sources == expected.op_sources


def test_fusion_report_leaves_a_body_alike_to_one_costed_unbuilt() -> None:
    module = hloscope.parse(HAND_WRITTEN)
    report = fusion_report(module)
    fused = [module.computations_by_name[f"fused.{n}"] for n in (1, 2)]
    assert sum(comp._body is not None for comp in fused) == 1  # one costed, its twin not built
    rows = {row["name"]: row for row in report.rows()}
    assert rows["f.2"]["root"] == "negate" and rows["f.2"]["op_name"] == "b"
    assert rows["f.1"]["sources"] == ["/home/u/model.py:3 (f)", "/x/y.py:7"]
    assert rows["f.1"]["stack"] == ["/home/u/model.py:3 (f)"]


@pytest.mark.parametrize("text", _texts(), ids=IDS)
def test_a_computations_sum_and_its_body_costs_agree_with_each_op(text: str) -> None:
    # The sum of a computation keeps its ops' costs as the body's list: whichever is asked
    # first, both are each op's own cost, and the sum adds them up field by field.
    from hloscope.analysis.cost import body_costs, computation_cost, instruction_costs

    module = hloscope.parse(text)
    for comp in module.computations:
        total = computation_cost(comp)
        costs = body_costs(module)(comp)
        fresh = hloscope.parse(text).computations_by_name[comp.name]
        each = list(map(instruction_costs(fresh.module), fresh.instructions))
        assert costs == each
        fields = ("flops", "transcendentals", "bytes_read", "bytes_written", "bytes_accessed")
        for name in fields:
            assert getattr(total, name) == sum(getattr(c, name) for c in each)
