"""The fusion report: kernels, their fused ops, costs and sources; the CLI around it.

Fusion counts and kinds are checked against XLA's own parser (oracle.jsonl) on every optimized
module of the corpus; row contents against a small module checked by hand.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_files import oracle_path, parsed

import hloscope
from hloscope.analysis.cost import kernel_computations, module_cost
from hloscope.analysis.fusion_notes import summary_notes, summary_to_dict
from hloscope.analysis.fusions import (
    COLUMNS,
    SOURCE_COLUMNS,
    UNKNOWN_SOURCE,
    by_source,
    fusion_report,
    fusions,
    op_source,
    source_rows,
)
from hloscope.cli import cli
from hloscope.render.diff_text import short_signature
from hloscope.render.rows import filter_rows, parse_filter, sort_rows

HANDMADE = """\
HloModule handmade, is_scheduled=true

FileNames
1 "/home/user/model.py"
2 "/usr/lib/python3/site-packages/jax/_src/numpy.py"

FunctionNames
1 "layer"
2 "tanh"

FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=4 end_column=20}
2 {file_name_id=1 function_name_id=1 line=11 end_line=11 column=4 end_column=20}
3 {file_name_id=2 function_name_id=2 line=99 end_line=99 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}
3 {file_location_id=3 parent_frame_id=3}

%fused_dot (p0: f32[8,32], p1: f32[32,16]) -> f32[8,16] {
  %p0 = f32[8,32]{1,0} parameter(0)
  %p1 = f32[32,16]{1,0} parameter(1)
  ROOT %d = f32[8,16]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, \
metadata={op_name="layer/dot_general" stack_frame_id=1}
}

%fused_tanh (q0: f32[8,16], q1: f32[16]) -> f32[8,16] {
  %q0 = f32[8,16]{1,0} parameter(0)
  %q1 = f32[16]{0} parameter(1)
  %b = f32[8,16]{1,0} broadcast(%q1), dimensions={1}, \
metadata={op_name="layer/add" stack_frame_id=1}
  %a = f32[8,16]{1,0} add(%q0, %b), metadata={op_name="layer/add" stack_frame_id=1}
  ROOT %t = f32[8,16]{1,0} tanh(%a), metadata={op_name="layer/tanh" stack_frame_id=3}
}

%cond (c: (s32[], f32[16])) -> pred[] {
  %c = (s32[], f32[16]{0}) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%fused_scale (r0: f32[16]) -> f32[16] {
  %r0 = f32[16]{0} parameter(0)
  %two = f32[] constant(2)
  %bc = f32[16]{0} broadcast(%two), dimensions={}
  ROOT %m = f32[16]{0} multiply(%r0, %bc), metadata={op_name="loop/mul" stack_frame_id=2}
}

%body (bp: (s32[], f32[16])) -> (s32[], f32[16]) {
  %bp = (s32[], f32[16]{0}) parameter(0)
  %bi = s32[] get-tuple-element(%bp), index=0
  %bv = f32[16]{0} get-tuple-element(%bp), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%bi, %one)
  %scaled = f32[16]{0} fusion(%bv), kind=kLoop, calls=%fused_scale
  ROOT %bt = (s32[], f32[16]{0}) tuple(%next, %scaled)
}

ENTRY %main (x: f32[8,32], w: f32[32,16], bias: f32[16]) -> (f32[8,16], f32[8,16], f32[16]) {
  %x = f32[8,32]{1,0} parameter(0)
  %w = f32[32,16]{1,0} parameter(1)
  %bias = f32[16]{0} parameter(2)
  %dot_fusion = f32[8,16]{1,0} fusion(%x, %w), kind=kCustom, calls=%fused_dot, \
metadata={op_name="layer/dot_general" stack_frame_id=1}, \
backend_config={"outer_dimension_partitions":[],"fusion_config":{"kind":"__ynn_fusion"}}
  %tanh_fusion = f32[8,16]{1,0} fusion(%dot_fusion, %bias), kind=kLoop, calls=%fused_tanh, \
metadata={op_name="layer/tanh" stack_frame_id=3}
  %neg = f32[8,16]{1,0} negate(%tanh_fusion), metadata={op_name="layer/neg" stack_frame_id=2}
  %zero = s32[] constant(0)
  %init = (s32[], f32[16]{0}) tuple(%zero, %bias)
  %loop = (s32[], f32[16]{0}) while(%init), condition=%cond, body=%body, \
backend_config={"known_trip_count":{"n":"3"}}
  %lv = f32[16]{0} get-tuple-element(%loop), index=1
  ROOT %out = (f32[8,16]{1,0}, f32[8,16]{1,0}, f32[16]{0}) tuple(%tanh_fusion, %neg, %lv)
}
"""


def optimized_oracle_lines(oracle: list[dict]) -> list[dict]:
    return [d for d in oracle if d["root"] == "generated" and "after_optimizations" in d["file"]]


# ------------------------------------------------------------------------------------------
# Against XLA's view of the corpus
# ------------------------------------------------------------------------------------------


def test_fusion_counts_and_kinds_match_xla(oracle: list[dict]) -> None:
    lines = optimized_oracle_lines(oracle)
    assert len(lines) >= 100
    outside_kernels: dict[str, int] = {}
    for line in lines:
        (module,) = parsed(oracle_path(line))
        report = fusion_report(module)
        kinds = Counter(k.kind for k in report.kernels if k.is_fusion)
        # A fusion inside a sort comparator or reducer runs inside that op's kernel, so it is
        # not a kernel itself; XLA's count includes it.
        kernel_comps = {c.name for c in kernel_computations(module)}
        nested = [
            i
            for c in module.computations
            if c.name not in kernel_comps
            for i in c.instructions
            if i.opcode == "fusion"
        ]
        if nested:
            outside_kernels[line["file"]] = len(nested)
        assert report.summary.fusion_count + len(nested) == line["fusions"], line["file"]
        kinds.update(i.fusion_kind for i in nested)
        assert dict(kinds) == line["fusion_kinds"], line["file"]
    # Exactly one module of the corpus has one: TF's Unique sorts with a fused comparator.
    assert list(outside_kernels.values()) == [1]
    assert "unique" in next(iter(outside_kernels))


def test_fused_op_lists_match_xla(oracle: list[dict]) -> None:
    checked = 0
    for line in optimized_oracle_lines(oracle):
        (module,) = parsed(oracle_path(line))
        xla = {c["name"]: c for c in line["computations"]}
        for kernel in fusion_report(module).kernels:
            if not kernel.is_fusion:
                assert kernel.ops == [kernel.opcode] and kernel.root == kernel.opcode
                continue
            inst = next(
                i
                for c in kernel_computations(module)
                for i in c.instructions
                if i.name == kernel.name and c.name == kernel.computation
            )
            comp = xla[inst.fused_computation.name]
            # Every instruction of the fused computation but its parameters, root included.
            assert len(kernel.ops) == comp["instructions"] - comp["parameters"], kernel.name
            assert kernel.root == comp["root_opcode"], kernel.name
            assert kernel.ops == [
                i.opcode for i in inst.fused_computation.instructions if i.opcode != "parameter"
            ]
            checked += 1
    # Nearly every fusion XLA's parser counted was checked (those nested inside another fusion's
    # computation are not kernels of their own): the sweep covers the corpus, whichever it is.
    xla_fusions = sum(line["fusions"] for line in optimized_oracle_lines(oracle))
    assert xla_fusions > 500 and checked >= 0.95 * xla_fusions


def test_kernel_flops_sum_to_the_module(oracle: list[dict]) -> None:
    # Kernels partition the work: their FLOPs add up to XLA's module total (no loops here).
    line = max(optimized_oracle_lines(oracle), key=lambda d: d["n_instructions"])
    (module,) = parsed(oracle_path(line))
    report = fusion_report(module)
    total = module_cost(module).total
    assert report.summary.flops == total.flops
    assert report.summary.transcendentals == total.transcendentals
    # Each fusion XLA counted is a kernel, and so is each unfused op: at least that many, and
    # the biggest module of either corpus has over a hundred fusions, so the sum is not trivial.
    assert report.summary.kernel_count == len(report.kernels) >= line["fusions"] > 100


# ------------------------------------------------------------------------------------------
# A module checked by hand
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def handmade() -> hloscope.Module:
    return hloscope.parse(HANDMADE)


def test_rows_of_a_hand_checked_module(handmade: hloscope.Module) -> None:
    rows = {r["name"]: r for r in fusion_report(handmade).rows()}
    # Kernels in order: the entry's, then the loop's condition and body. Free ops (tuple,
    # get-tuple-element, constant, parameter) and the while itself are not kernels.
    assert list(rows) == ["dot_fusion", "tanh_fusion", "neg", "lt", "next", "scaled"]
    model = "/home/user/model.py"

    dot = rows["dot_fusion"]
    assert (dot["kind"], dot["backend_kind"], dot["root"], dot["ops"]) == (
        "kCustom",
        "__ynn_fusion",
        "dot",
        ["dot"],
    )
    assert dot["flops"] == 2 * 8 * 16 * 32
    assert (dot["bytes_in"], dot["bytes_out"]) == (8 * 32 * 4 + 32 * 16 * 4, 8 * 16 * 4)
    assert dot["intensity"] == pytest.approx(8192 / 3584)
    assert dot["sources"] == [f"{model}:10 (layer)"]
    assert dot["op_name"] == "layer/dot_general"

    tanh = rows["tanh_fusion"]
    assert tanh["kind"] == "kLoop" and tanh["backend_kind"] == ""
    assert tanh["ops"] == ["broadcast", "add", "tanh"]
    assert tanh["op_counts"] == {"data_movement": 1, "elementwise": 2}
    assert tanh["signature"] == "broadcast+add+tanh"  # all once: topological order
    assert (tanh["flops"], tanh["transcendentals"]) == (128, 128)
    # The dot's output (512 B) and the bias read through a broadcast (64 B); 512 B out.
    assert (tanh["bytes_in"], tanh["bytes_out"], tanh["bytes"]) == (576, 512, 1088)
    # The tanh's innermost frame is in site-packages: its caller (line 11) is shown.
    assert tanh["sources"] == [f"{model}:10 (layer)", f"{model}:11 (layer)"]
    assert tanh["source"] == f"{model}:10 (layer)"

    neg = rows["neg"]
    assert (neg["kind"], neg["opcode"], neg["root"], neg["signature"]) == (
        "unfused",
        "negate",
        "negate",
        "negate",
    )
    assert (neg["bytes_in"], neg["bytes_out"], neg["flops"]) == (512, 512, 128)

    assert rows["lt"]["computation"] == "cond" and rows["lt"]["sources"] == []
    assert rows["next"]["computation"] == "body"
    scaled = rows["scaled"]
    assert scaled["computation"] == "body"
    assert scaled["ops"] == ["constant", "broadcast", "multiply"]
    assert scaled["signature"] == "broadcast+multiply"  # constants are left out
    assert scaled["op_name"] == "loop/mul"  # the fusion has none: its root's
    assert (scaled["bytes_in"], scaled["bytes_out"], scaled["flops"]) == (64, 64, 16)
    assert set(COLUMNS) == set(dot)


def test_summary_of_a_hand_checked_module(handmade: hloscope.Module) -> None:
    s = fusion_report(handmade).summary
    assert (s.kernel_count, s.fusion_count, s.unfused_count) == (6, 3, 3)
    assert s.fusions_by_kind == {"kLoop": 2, "kCustom/__ynn_fusion": 1}
    assert s.unfused_by_opcode == {"negate": 1, "compare": 1, "add": 1}
    # The negate between two kernels is a memory round trip; the loop counter's add is not.
    assert s.unfused_elementwise == ["neg"]
    assert s.unfused_elementwise_bytes == 1024
    # The words are render's: computed from the summary's numbers.
    notes = summary_notes(s)
    assert len(notes) == 1 and "round trip" in notes[0] and "1.0 KiB in all" in notes[0]
    assert summary_to_dict(s) == {**s.to_dict(), "notes": notes}
    assert (s.flops, s.transcendentals) == (8466, 128)
    # XLA also counts the tuples' pointer tables (16 + 24 + 16 bytes) that no kernel moves.
    assert s.xla_bytes_accessed - s.bytes == 56
    assert s.xla_flops == s.flops


def test_signature_orders_by_frequency() -> None:
    from hloscope.analysis.fusions import _signature

    assert (
        _signature(["multiply", "add", "multiply", "exponential", "add", "multiply"], "add")
        == "multiply+add+exponential"
    )
    # Every opcode: the data stays whole, renderers shorten it (short_signature).
    assert _signature(["a", "b", "c", "d", "e"], "e") == "a+b+c+d+e"
    assert short_signature("a+b+c+d+e") == "a+b+c+d+…" and short_signature("a+b") == "a+b"
    assert _signature(["bitcast", "constant"], "bitcast") == "bitcast"


def test_by_source(handmade: hloscope.Module) -> None:
    rows = source_rows(fusion_report(handmade))
    model = "/home/user/model.py"
    assert [(r["source"], r["ops"], r["kernels"]) for r in rows] == [
        (f"{model}:10 (layer)", 3, ["dot_fusion", "tanh_fusion"]),
        (f"{model}:11 (layer)", 3, ["tanh_fusion", "neg", "scaled"]),
        ("<unknown>", 4, ["lt", "next", "scaled"]),
    ]
    # Each op's own FLOPs: they add up to the kernels' FLOPs.
    assert [r["flops"] for r in rows] == [8192 + 128, 128 + 16, 2]
    assert rows[1]["transcendentals"] == 128
    frame = by_source(fusion_report(handmade))
    assert list(frame.columns) == list(SOURCE_COLUMNS) and len(frame) == 3


def test_fusions_dataframe(tmp_path: Path, handmade: hloscope.Module) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(HANDMADE)
    names = ["dot_fusion", "tanh_fusion", "neg", "lt", "next", "scaled"]
    # The analysis takes modules; hloscope.fusions resolves a path (a TARGET) first.
    for frame in (fusions(handmade), fusions([handmade]), hloscope.fusions(path)):
        assert list(frame.columns) == list(COLUMNS)
        assert frame["name"].tolist() == names
        assert frame.attrs["summary"]["kernel_count"] == 6
    assert fusions([handmade, handmade])["name"].tolist() == names * 2
    for value in (path, str(path)):
        with pytest.raises(TypeError, match="not a path"):
            fusions(value)
        with pytest.raises(TypeError, match="hloscope.parse"):
            fusion_report(value)
    with pytest.raises(TypeError, match="not a int"):
        fusions(42)


def test_sources_agree_with_the_model(oracle: list[dict]) -> None:
    # The report words each stack frame once; it must say what Instruction.stack says.
    for name in ("jax_transformer_train", "flax_cnn_train", "tf_keras_resnet50"):
        line = max(
            (d for d in optimized_oracle_lines(oracle) if d["file"].startswith(name)),
            key=lambda d: d["n_instructions"],
        )
        (module,) = parsed(oracle_path(line))
        report = fusion_report(module)
        insts = {(c.name, i.name): i for c in kernel_computations(module) for i in c.instructions}
        at = 0
        for kernel in report.kernels:
            inst = insts[(kernel.computation, kernel.name)]
            fused = inst.fused_computation
            if fused is not None:
                members = [i for i in fused.instructions if i.opcode != "parameter"]
            else:
                members = [inst]
            rows = report.op_sources[at : at + len(members)]
            at += len(members)
            assert [r[0] for r in rows] == [op_source(m) or UNKNOWN_SOURCE for m in members]
            root_name = fused.root.metadata.op_name if fused is not None else ""
            assert kernel.op_name == (inst.metadata.op_name or root_name)
        assert at == len(report.op_sources)
        assert any(r[0] != UNKNOWN_SOURCE for r in report.op_sources)


# ------------------------------------------------------------------------------------------
# Filters and sorting
# ------------------------------------------------------------------------------------------


def test_filters(handmade: hloscope.Module) -> None:
    rows = fusion_report(handmade).rows()
    names = lambda rs: [r["name"] for r in rs]  # noqa: E731
    assert names(filter_rows(rows, ["kind=kLoop"])) == ["tanh_fusion", "scaled"]
    assert names(filter_rows(rows, ["opcode=dot"])) == ["dot_fusion"]  # fused or not
    assert names(filter_rows(rows, ["opcode=tanh"])) == ["tanh_fusion"]
    assert names(filter_rows(rows, ["op=multiply"])) == ["scaled"]
    assert names(filter_rows(rows, ["flops>1k"])) == ["dot_fusion"]
    assert names(filter_rows(rows, ["computation=body", "kind!=unfused"])) == ["scaled"]
    assert names(filter_rows(rows, ["source~model.py:11"])) == ["neg", "scaled"]
    assert names(filter_rows(rows, ["bytes_in>=576", "bytes_in<=576"])) == ["tanh_fusion"]
    for bad in ("nonsense", "colour=red", "flops>lots", "ops>3"):
        with pytest.raises(ValueError):
            filter_rows(rows, [bad])
    assert str(parse_filter("kind = kLoop")) == "kind=kLoop"


def test_sorting(handmade: hloscope.Module) -> None:
    rows = fusion_report(handmade).rows()
    # Ties keep report order (tanh_fusion and neg both have 128 FLOPs).
    assert [r["name"] for r in sort_rows(rows, "flops")][:3] == ["dot_fusion", "tanh_fusion", "neg"]
    assert [r["name"] for r in sort_rows(rows, "-flops")][-1] == "dot_fusion"
    assert [r["name"] for r in sort_rows(rows, "name")][0] == "dot_fusion"
    intensity = sort_rows(rows, "intensity")
    assert intensity[0]["name"] == "dot_fusion"
    with pytest.raises(ValueError):
        sort_rows(rows, "colour")


# ------------------------------------------------------------------------------------------
# The command
# ------------------------------------------------------------------------------------------


@pytest.fixture()
def hlo_file(tmp_path: Path) -> Path:
    path = tmp_path / "handmade.hlo"
    path.write_text(HANDMADE)
    return path


def run(*args: str, columns: int = 200):
    return CliRunner(env={"COLUMNS": str(columns)}).invoke(
        cli, ["fusions", *args], catch_exceptions=False
    )


def test_cli_table(hlo_file: Path) -> None:
    result = run(str(hlo_file))
    assert result.exit_code == 0, result.output
    for text in (
        "dot_fusion",
        "kCustom __ynn_fusion",
        "broadcast+add+tanh",
        "kernels 6",
        "round trip",
    ):
        assert text in result.output
    # Rows come from two loop computations too, so the table names the computation.
    assert "body" in result.output
    assert "flop/B" in result.output and "2.29" in result.output  # dot_fusion's intensity
    narrow = run(str(hlo_file), columns=80)
    assert narrow.exit_code == 0 and "kernels 6" in narrow.output
    assert "flop/B" not in narrow.output  # the essential columns only


def test_cli_json(hlo_file: Path) -> None:
    result = run(str(hlo_file), "--json", "--sort", "flops", "--top", "2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["name"] for r in data["rows"]] == ["dot_fusion", "tanh_fusion"]
    assert data["summary"]["kernel_count"] == 6
    assert data["summary"]["fusions_by_kind"] == {"kLoop": 2, "kCustom/__ynn_fusion": 1}
    assert set(data["rows"][0]) == set(COLUMNS)


def test_cli_csv_with_filter(hlo_file: Path) -> None:
    result = run(str(hlo_file), "--csv", "--filter", "kind=kLoop")
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(result.output)))
    assert [r["name"] for r in table] == ["tanh_fusion", "scaled"]
    assert table[0]["ops"] == "broadcast;add;tanh"
    assert table[0]["op_counts"] == "data_movement=1;elementwise=2"
    assert list(table[0]) == list(COLUMNS)


def test_cli_by_source(hlo_file: Path) -> None:
    result = run(str(hlo_file), "--by-source", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert rows[0]["kernels"] == ["dot_fusion", "tanh_fusion"]
    table = run(str(hlo_file), "--by-source")
    assert table.exit_code == 0 and "model.py:11 (layer)" in table.output
    as_csv = run(str(hlo_file), "--by-source", "--csv")
    assert as_csv.output.splitlines()[0] == ",".join(SOURCE_COLUMNS)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--filter", "colour=red"], "unknown column"),
        (["--sort", "colour"], "cannot sort"),
        (["--json", "--csv"], "exclude each other"),
    ],
)
def test_cli_bad_options_are_one_line(hlo_file: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["fusions", str(hlo_file), *args])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = CliRunner().invoke(cli, ["fusions", str(tmp_path / "nope.hlo")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
    broken = tmp_path / "broken.hlo"
    broken.write_text("HloModule m\nENTRY e {\n a = f32[2 parameter(0)\n}\n")
    result = CliRunner().invoke(cli, ["fusions", str(broken)])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "broken.hlo:" in lines[0] and ": error: " in lines[0]


# ------------------------------------------------------------------------------------------
# Other backends and odd modules
# ------------------------------------------------------------------------------------------


@pytest.mark.shared_corpus("xla-tests")
def test_gpu_backend_kind(corpus: Path) -> None:
    (module,) = parsed(
        corpus / "xla-tests" / "xla_tools_multihost_hlo_runner_data_single_gemm_fusion.hlo"
    )
    (kernel,) = fusion_report(module).kernels
    assert (kernel.kind, kernel.backend_kind, kernel.root) == ("kCustom", "__triton_gemm", "dot")
    assert kernel.cost.flops == 2 * 70 * 70 * 70 * 70  # batch 70 of 70x70 @ 70x70


def test_every_corpus_module_gets_a_report(corpus: Path, oracle: list[dict]) -> None:
    # GPU/TPU layouts, async collectives, custom calls, snippets without a header: the report
    # is built for each, or the one-line parse error surfaces (never another exception).
    from corpus_files import module_files

    from hloscope.hlo.errors import HloParseError

    reports = errors = 0
    for path in module_files():
        try:
            modules = parsed(path)
        except HloParseError:
            continue  # the parser's own tests cover files it rejects
        for module in modules:
            try:
                fusion_report(module)
                module_cost(module)
                reports += 1
            except HloParseError:
                errors += 1  # a lazily decoded detail that is malformed
    # At least every module XLA's own parser accepted (one oracle line each) got its report.
    assert reports >= len(oracle) > 200 and errors <= 1
