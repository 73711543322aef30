"""hloscope.analysis.explain: each source line linked through every stage to its kernels.

The fusion report is the oracle for the optimized side (the per-line counts and kernels of
``by_source``); the samples' committed HLO covers what the text alone allows, with no jax.
The StableHLO reader itself is tested in tests/test_stablehlo_locations.py.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.explain import (
    STAGE_ORDER,
    ExplainError,
    Explanation,
)
from hloscope.analysis.fusions import UNKNOWN_SOURCE, by_source, fusion_report
from hloscope.drivers.explain import explain
from hloscope.stages import Stage

ROOT = Path(__file__).resolve().parent.parent
HLO = ROOT / "samples" / "hlo"
AFTER = HLO / "transformer_train.after_optimizations.txt"
BEFORE = HLO / "transformer_train.before_optimizations.txt"


def load_sample(name: str):
    spec = importlib.util.spec_from_file_location(
        f"explain_sample_{name}", ROOT / "samples" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ---- what every explanation must satisfy -------------------------------------------------------


def assert_links_like_the_fusion_report(e: Explanation, after: hloscope.Module) -> None:
    """Lines and kernels point at each other, and the counts are ``by_source``'s."""
    report = fusion_report(after)
    table = by_source(report)
    known = table[table["source"] != UNKNOWN_SOURCE]
    lines = {line.source: line for line in e.lines}
    # Every source line that produced ops in the optimized module is there, with its counts.
    for row in known.itertuples():
        line = lines[row.source]
        assert line.n_ops == row.ops, row.source
        assert line.kernels == list(row.kernels), row.source
        assert line.kernels, f"{row.source} produced ops but links to no kernel"
    unknown = table[table["source"] == UNKNOWN_SOURCE]
    assert e.unattributed.get("optimized_hlo", 0) == int(unknown["ops"].sum())
    # Every kernel of the report, once, and back to lines that list it.
    assert [k.name for k in e.kernels] == [k.name for k in report.kernels]
    for kernel in e.kernels:
        assert kernel.lines, f"kernel {kernel.name} links to no line"
        for source in kernel.lines:
            listed = lines[source].kernels if kernel.sources else lines[source].inferred_kernels
            assert kernel.name in listed, (kernel.name, source)
        assert [s for s, _ in kernel.sources] == [
            s for s, _ in next(k for k in report.kernels if k.name == kernel.name).sources
        ]
    # An op of an earlier stage names only kernels that hold ops of its own line.
    for line in e.lines:
        for stage in STAGE_ORDER[:-1]:
            for op in line.stage_ops(stage):
                own = {*line.kernels, *line.inferred_kernels}
                assert set(op.kernels) <= own, (stage, op.name, line.source)
                assert op.kernels or op.fate, (stage, op.name)


# ---- offline: the samples' committed HLO ---------------------------------------------------------


@pytest.fixture(scope="module")
def sample_modules():
    return hloscope.parse(BEFORE), hloscope.parse(AFTER)


def test_transformer_text_links_lines_and_kernels_both_ways(sample_modules):
    before, after = sample_modules
    e = explain(after, before=before)
    assert e.stages == [Stage.HLO, Stage.OPTIMIZED_HLO]
    assert set(e.missing) == {"jaxpr", "stablehlo"}
    assert e.frontend == "jax"
    assert_links_like_the_fusion_report(e, after)
    assert all(line.stage_ops(Stage.HLO) for line in e.lines)


def test_before_ops_link_to_kernels_holding_the_same_op_name(sample_modules):
    before, after = sample_modules
    e = explain(after, before=before)
    members = {
        (op.kernel, op.op_name) for line in e.lines for op in line.stage_ops(Stage.OPTIMIZED_HLO)
    }
    linked = 0
    for line in e.lines:
        for op in line.stage_ops(Stage.HLO):
            for kernel in op.kernels:
                linked += 1
                assert any(k == kernel and op.op_name in name.split(";") for k, name in members)
    assert linked


def test_a_plain_optimized_file_says_what_is_missing(tmp_path):
    alone = tmp_path / AFTER.name  # no before_optimizations file beside it
    alone.write_text(AFTER.read_text())
    e = explain(hloscope.Target.resolve(str(alone)))
    assert e.stages == [Stage.OPTIMIZED_HLO]
    assert set(e.missing) == {"jaxpr", "stablehlo", "hlo"}
    assert "optimized module" in e.missing["hlo"]
    assert_links_like_the_fusion_report(e, hloscope.parse(AFTER))


def test_an_after_file_is_read_with_the_before_file_beside_it(sample_modules):
    before, after = sample_modules
    e = explain(hloscope.Target.resolve(str(AFTER)))
    assert e.stages == [Stage.HLO, Stage.OPTIMIZED_HLO] and "hlo" not in e.missing
    assert e.to_dict()["lines"] == explain(after, before=before).to_dict()["lines"]


def test_a_file_before_optimization_has_lines_but_no_kernels(sample_modules):
    before, _ = sample_modules
    e = explain(before)
    assert e.stages == [Stage.HLO] and "optimized_hlo" in e.missing
    assert e.lines and not e.kernels
    assert all(not line.kernels for line in e.lines)


def test_kernels_without_metadata_are_inferred_and_marked(sample_modules):
    before, after = sample_modules
    e = explain(after, before=before)
    bare = [k for k in e.kernels if not k.sources]
    assert bare, "the sample has XLA-made kernels (reduce-window splits, copies)"
    for kernel in bare:
        assert kernel.inferred_sources and kernel.inferred_how
        if kernel.inferred_how.startswith(("feeds ", "fed by ")):
            # The line of an op inside the neighbour (the one next to this kernel), not
            # necessarily the neighbour's most common line.
            neighbour = e.kernel(kernel.inferred_how.rsplit(" ", 1)[-1])
            assert kernel.inferred_sources[0] in [s for s, _ in neighbour.sources]
    assert any("no source line of their own" in note for note in e.notes)


def test_tensorflow_lines_are_layer_paths():
    after = hloscope.parse(HLO / "keras_cnn.after_optimizations.txt")
    before = hloscope.parse(HLO / "keras_cnn.before_optimizations.txt")
    e = explain(after, before=before)
    assert e.frontend == "tensorflow"
    assert "TensorFlow" in e.missing["jaxpr"]
    assert_links_like_the_fusion_report(e, after)
    # TensorFlow records only its own frames: the lines are Keras layers, not files.
    assert all(not line.file and ".py:" not in line.source for line in e.lines)
    assert any(line.source.endswith("/dense_1") for line in e.lines)
    (dense,) = e.focus_line("small_cnn_1/dense_1").lines
    assert dense.kernels and dense.stage_ops(Stage.HLO)


def test_focus_on_a_line_and_on_a_kernel(sample_modules):
    before, after = sample_modules
    e = explain(after, before=before)
    (line,) = e.focus_line("transformer_train.py:51").lines
    assert line.source.startswith("samples/transformer_train.py:51 ")
    assert "jax.nn.gelu" in line.code  # read from the sample itself
    assert explain(after, before=before, line="samples/transformer_train.py:51").lines == [line]
    name = line.kernels[0]
    focused = e.focus_kernel(name)
    assert [k.name for k in focused.kernels] == [name]
    for each in focused.lines:
        for stage in (Stage.HLO, Stage.OPTIMIZED_HLO):
            assert all(name in op.kernels for op in each.stage_ops(stage))
    with pytest.raises(ExplainError, match="came from"):
        e.focus_line("transformer_train.py:9999")
    with pytest.raises(ExplainError, match="did you mean"):
        e.focus_kernel(name + "x")
    with pytest.raises(ExplainError):
        explain(after, line="a.py:1", kernel=name)


def test_to_dict_is_json(sample_modules):
    before, after = sample_modules
    data = json.loads(json.dumps(explain(after, before=before).to_dict()))
    assert data["module"] == after.name and data["stages"] == ["hlo", "optimized_hlo"]
    assert {"source", "counts", "kernels", "hlo", "optimized_hlo"} <= set(data["lines"][0])


# ---- live: the samples' transformer, every stage -------------------------------------------------


@pytest.fixture(scope="module")
def transformer():
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    sample = load_sample("transformer_train")
    step, args = sample.make()
    return capture_with_sources(step, *args)


def test_transformer_every_stage_links_to_kernels(transformer):
    e = explain(transformer)
    assert e.stages == list(STAGE_ORDER) and not e.missing
    assert_links_like_the_fusion_report(e, transformer.module("after"))
    sample = str(ROOT / "samples" / "transformer_train.py")
    assert {line.file for line in e.lines} == {sample}
    for line in e.lines:
        if line.n_ops:
            for stage in (Stage.JAXPR, Stage.STABLEHLO, Stage.HLO):
                assert line.stage_ops(stage), (line.source, stage)


def test_transformer_matmuls_end_in_dot_kernels(transformer):
    e = explain(transformer)
    kernels = {k.name: k for k in fusion_report(transformer.module("after")).kernels}
    dots = [op for line in e.lines for op in line.stage_ops(Stage.JAXPR) if op.op == "dot_general"]
    assert dots
    for op in dots:
        assert op.kernels, op.text
        assert any("dot" in kernels[k].ops for k in op.kernels), op.text


def test_jaxpr_sources_round_trip_through_a_saved_capture(transformer, tmp_path):
    from hloscope.capture.jaxpr_lines import SourcedCapture

    transformer.save(tmp_path / "cap")
    loaded = SourcedCapture.load(tmp_path / "cap")
    assert loaded.jaxpr_sources == transformer.jaxpr_sources
    assert explain(hloscope.Target.resolve(str(tmp_path / "cap"))).to_dict() == (
        explain(transformer).to_dict()
    )


def test_a_capture_without_jaxpr_sources_says_so(transformer, tmp_path):
    plain = hloscope.Capture.load(transformer.save(tmp_path / "plain"))
    e = explain(plain, line="transformer_train.py:51")
    assert Stage.JAXPR not in e.stages and "each equation's line" in e.missing["jaxpr"]
    assert e.lines[0].stage_ops(Stage.STABLEHLO)
