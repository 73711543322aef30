"""The kernel diff: matching kernels across two compilations, classifying, deltas, the CLI.

The expectations come from elsewhere than the diff itself: the line numbers from the sample's
source text, the kernels and byte counts from the fusion report of each side, the instruction
counts from XLA's own parser (oracle.jsonl), and shapes from each module's entry parameters.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT
from corpus_files import parsed

import hloscope
from hloscope.analysis.diff import (
    DIFF_SCHEMA,
    METRICS,
    STATUSES,
    ChangeStatus,
    KernelDiff,
    LineStatus,
    diff,
)
from hloscope.analysis.fusions import fusion_report, source_rows
from hloscope.cli import cli
from hloscope.hlo.shape import parse_shape
from hloscope.render.diff_text import describe, diff_to_dict, regression_lines

SAMPLES = ROOT / "samples"
FUSED = SAMPLES / "hlo" / "fusion_refactor_fused.after_optimizations.txt"
SPLIT = SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt"
SOURCE = SAMPLES / "fusion_refactor.py"
MIRROR = {
    "split": "merged",
    "merged": "split",
    "added": "removed",
    "removed": "added",
    "changed": "changed",
    "unchanged": "unchanged",
    "regrouped": "regrouped",
}


# ------------------------------------------------------------------------------------------
# What the sample's source says
# ------------------------------------------------------------------------------------------


def source_line(function: str, text: str) -> int:
    """The 1-based line of ``text`` inside ``def function`` of samples/fusion_refactor.py."""
    lines = SOURCE.read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {function}("))
    for n in range(start + 1, len(lines)):
        if lines[n].startswith("def "):
            break
        if text in lines[n]:
            return n + 1
    raise AssertionError(f"{text!r} not in {function}()")


GATE = "gate = jax.nn.sigmoid(1.702 * y)"
RESULT = "return y * gate + 0.1 * y"
CALLBACK = "jax.debug.callback("
MATMUL = "y = x @ w"


def lines_of(kernel) -> set[int]:
    """The fusion_refactor.py line numbers a kernel's ops came from."""
    return {
        int(re.search(r":(\d+)", s).group(1))
        for s, _ in kernel.sources
        if "fusion_refactor.py" in s
    }


def kernels_from_line(report, line: int, function: str) -> set[str]:
    """Names of the kernels holding ops of ``fusion_refactor.py:line`` (from the by-source view)."""
    where = f"samples/fusion_refactor.py:{line} ({function})"
    rows = [r for r in source_rows(report) if r["source"] == where]
    assert rows, f"no ops from {where}"
    return set(rows[0]["kernels"])


@pytest.fixture(scope="module")
def pair() -> tuple[hloscope.Module, hloscope.Module]:
    return hloscope.parse(FUSED), hloscope.parse(SPLIT)


@pytest.fixture(scope="module")
def forward(pair) -> KernelDiff:
    return diff(*pair)


# ------------------------------------------------------------------------------------------
# The refactor pair
# ------------------------------------------------------------------------------------------


def test_the_split_kernel_and_its_source_lines(pair, forward):
    report_a, report_b = fusion_report(pair[0]), fusion_report(pair[1])
    gate_a, result_a = source_line("fused", GATE), source_line("fused", RESULT)
    gate_b, result_b = source_line("split", GATE), source_line("split", RESULT)
    # What XLA did, read off each side's own report: in A one kernel holds both lines...
    (chain_a,) = kernels_from_line(report_a, gate_a, "fused") & kernels_from_line(
        report_a, result_a, "fused"
    )
    # ...in B they are in two different kernels.
    (gate_kernel,) = kernels_from_line(report_b, gate_b, "split")
    (result_kernel,) = kernels_from_line(report_b, result_b, "split")
    assert gate_kernel != result_kernel

    assert forward.counts == {**dict.fromkeys(STATUSES, 0), "split": 1, "added": 1, "unchanged": 1}
    (split,) = [c for c in forward.changes if c.status == "split"]
    assert [k.name for k in split.a] == [chain_a]
    assert {k.name for k in split.b} == {gate_kernel, result_kernel}
    assert lines_of(split.a[0]) == {gate_a, result_a}
    assert {k.name: lines_of(k) for k in split.b} == {
        gate_kernel: {gate_b},
        result_kernel: {result_b},
    }
    # The same ops, now in two kernels: nothing added or removed, no shape changed.
    assert split.ops_added == {} and split.ops_removed == {} and split.shape_changes == []
    # gate, f32[32,128], now goes through memory from one kernel to the other.
    (edge,) = split.through_memory
    assert (edge.producer, edge.consumer) == (gate_kernel, result_kernel)
    assert edge.shape == "f32[32,128]" and edge.bytes == 32 * 128 * 4

    (added,) = [c for c in forward.changes if c.status == "added"]
    (callback,) = added.b
    assert callback.opcode == "custom-call" and lines_of(callback) == {
        source_line("split", CALLBACK)
    }
    (same,) = [c for c in forward.changes if c.status == "unchanged"]
    assert lines_of(same.a[0]) == {source_line("fused", MATMUL)}
    assert lines_of(same.b[0]) == {source_line("split", MATMUL)}

    # The message says it the way a person would.
    message = describe(split)
    assert f"kernel {chain_a} (" in message and "split into 2 kernels" in message
    assert f"fusion_refactor.py:{min(gate_a, result_a)}-{max(gate_a, result_a)}" in message
    assert f"fusion_refactor.py:{gate_b}" in message and f"fusion_refactor.py:{result_b}" in message


def test_deltas_agree_with_the_two_fusion_reports(pair, forward):
    report_a, report_b = fusion_report(pair[0]), fusion_report(pair[1])
    by_name_a = {k.name: k for k in report_a.kernels}
    by_name_b = {k.name: k for k in report_b.kernels}
    sa, sb = report_a.summary, report_b.summary
    assert forward.totals["delta"] == {
        "kernels": sb.kernel_count - sa.kernel_count,
        "bytes": sb.bytes - sa.bytes,
        "flops": sb.flops - sa.flops,
        "transcendentals": sb.transcendentals - sa.transcendentals,
    }
    for change in forward.changes:
        assert change.bytes_a == sum(by_name_a[k.name].cost.bytes_accessed for k in change.a)
        assert change.bytes_b == sum(by_name_b[k.name].cost.bytes_accessed for k in change.b)
        assert change.flops_b - change.flops_a == (
            sum(by_name_b[k.name].cost.flops for k in change.b)
            - sum(by_name_a[k.name].cost.flops for k in change.a)
        )
    # Every kernel is in exactly one change, so the parts add up to the whole.
    assert sorted(k.name for c in forward.changes for k in c.a) == sorted(by_name_a)
    assert sorted(k.name for c in forward.changes for k in c.b) == sorted(by_name_b)
    (split,) = [c for c in forward.changes if c.status == "split"]
    # The split reads y twice and writes/reads gate once more: 3 extra f32[32,128] transfers.
    assert split.bytes_b - split.bytes_a == 3 * 32 * 128 * 4
    assert split.flops_b == split.flops_a  # the same arithmetic, only more traffic


def test_source_lines_that_moved_apart(forward):
    gate_a, result_a = source_line("fused", GATE), source_line("fused", RESULT)
    gate_b, result_b = source_line("split", GATE), source_line("split", RESULT)
    rows = {(r.source_a, r.source_b): r for r in forward.lines}
    where = "samples/fusion_refactor.py:{} ({})".format
    gate = rows[(where(gate_a, "fused"), where(gate_b, "split"))]
    assert gate.status == "separated" and gate.separated_from == [where(result_b, "split")]
    result = rows[(where(result_a, "fused"), where(result_b, "split"))]
    assert result.status == "separated" and result.separated_from == [where(gate_b, "split")]
    callback = rows[("", where(source_line("split", CALLBACK), "split"))]
    assert callback.status == "added" and callback.ops_b == 1
    assert len(rows) == 3  # the matmul line kept its kernel to itself


def test_b_versus_a_is_the_mirror_image(pair, forward):
    backward = diff(pair[1], pair[0])
    assert groups(backward) == mirrored(forward)
    (merged,) = [c for c in backward.changes if c.status == "merged"]
    (split,) = [c for c in forward.changes if c.status == "split"]
    assert merged.through_memory == split.through_memory  # what no longer goes through memory
    assert merged.bytes_b - merged.bytes_a == -(split.bytes_b - split.bytes_a)
    assert backward.totals["delta"] == {m: -v for m, v in forward.totals["delta"].items()}
    assert {r.status for r in backward.lines} == {"joined", "removed"}


def groups(d: KernelDiff) -> set[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    return {
        (c.status, tuple(sorted(k.name for k in c.a)), tuple(sorted(k.name for k in c.b)))
        for c in d.changes
    }


def mirrored(d: KernelDiff) -> set[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    return {(MIRROR[s], b, a) for s, a, b in groups(d)}


def test_fusion_reports_and_targets_are_inputs_too(pair, forward):
    reports = diff(fusion_report(pair[0]), fusion_report(pair[1]))
    assert groups(reports) == groups(forward)  # opcodes and source lines suffice here
    assert groups(diff(pair[0], fusion_report(pair[1]))) == groups(forward)
    labelled = diff(*pair, labels=("before", "after"))
    assert groups(labelled) == groups(forward)
    assert (labelled.a.label, labelled.b.label) == ("before", "after")
    assert (forward.a.label, forward.b.module) == ("jit_fused", "jit_split")
    # Paths are the top-level wrapper's: it resolves each TARGET, then calls the analysis.
    from_paths = hloscope.diff(str(FUSED), SPLIT)
    assert groups(from_paths) == groups(forward) and from_paths.b.module == "jit_split"
    assert hloscope.KernelDiff is KernelDiff


def test_deterministic(pair):
    first = diff(*pair).to_dict()
    again = diff(hloscope.parse(FUSED), hloscope.parse(SPLIT)).to_dict()
    assert json.dumps(first) == json.dumps(again)


def test_unknown_input_types_are_refused(pair):
    with pytest.raises(TypeError, match="cannot diff a int"):
        diff(42, SPLIT)
    # The analysis reads modules only; a path or a list of modules says what to do instead.
    refused = [
        (str(SPLIT), "hloscope.parse"),
        (SPLIT, "hloscope.parse"),
        (list(pair), "main_module"),
    ]
    for value, hint in refused:
        with pytest.raises(TypeError, match=hint):
            diff(pair[0], value)


def test_statuses_are_string_enums(forward):
    order = ["split", "merged", "regrouped", "changed", "added", "removed", "unchanged"]
    assert list(STATUSES) == order
    assert all(isinstance(c.status, ChangeStatus) for c in forward.changes)
    assert all(isinstance(r.status, LineStatus) for r in forward.lines)
    assert forward.counts[ChangeStatus.SPLIT] == forward.counts["split"] == 1
    data = forward.to_dict()
    # Plain strings in the data, so JSON reads as before.
    assert all(type(c["status"]) is str for c in data["changes"])
    assert all(type(k) is str for k in data["counts"])
    assert all(type(r["status"]) is str for r in data["lines"])
    assert "message" not in data["changes"][0]  # words are render's
    worded = diff_to_dict(forward)
    assert [c["message"] for c in worded["changes"]] == [describe(c) for c in forward.changes]
    assert json.dumps(worded) == json.dumps(diff_to_dict(forward))


def test_regressions_are_data_worded_by_render(forward):
    (kernels,) = forward.regressions(["kernels"])
    assert (kernels.metric, kernels.a, kernels.b, kernels.percent) == ("kernels", 2, 4, 100.0)
    assert forward.regressions(["flops"]) == [] and forward.regressions(["kernels"], 100.0) == []
    (line,) = regression_lines(forward, ["bytes"])
    assert line.startswith("bytes: ") and "KiB -> " in line and "(+50.0%, threshold 0%)" in line
    with pytest.raises(ValueError, match="unknown metric"):
        forward.regressions(["speed"])


# ------------------------------------------------------------------------------------------
# Every class of change, on a module small enough to check by hand
# ------------------------------------------------------------------------------------------

HAND_A = """\
HloModule hand_a, is_scheduled=true

%f1 (p0: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %a = f32[8]{0} add(%p0, %p0), metadata={op_name="jit(g)/add"}
  ROOT %m = f32[8]{0} multiply(%a, %a), metadata={op_name="jit(g)/mul"}
}

%f2 (p0.1: f32[8]) -> f32[8] {
  %p0.1 = f32[8]{0} parameter(0)
  %s = f32[8]{0} subtract(%p0.1, %p0.1), metadata={op_name="jit(g)/sub"}
  ROOT %e = f32[8]{0} exponential(%s), metadata={op_name="jit(g)/exp"}
}

%f3 (p0.2: f32[8]) -> f32[8] {
  %p0.2 = f32[8]{0} parameter(0)
  %l = f32[8]{0} log(%p0.2), metadata={op_name="jit(g)/log"}
  ROOT %t = f32[8]{0} tanh(%l), metadata={op_name="jit(g)/tanh"}
}

%f4 (p0.3: f32[8]) -> f32[8] {
  %p0.3 = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(%p0.3), metadata={op_name="jit(g)/neg"}
}

ENTRY %main (x: f32[8]) -> (f32[8], f32[8], f32[8], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %cos = f32[8]{0} cosine(%x), metadata={op_name="jit(g)/cos"}
  %k1 = f32[8]{0} fusion(%cos), kind=kLoop, calls=%f1
  %k2 = f32[8]{0} fusion(%k1), kind=kLoop, calls=%f2
  %k3 = f32[8]{0} fusion(%k2), kind=kLoop, calls=%f3
  %k4 = f32[8]{0} fusion(%x), kind=kLoop, calls=%f4
  ROOT %out = (f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(%k2, %k3, %k4, %cos)
}
"""

HAND_B = """\
HloModule hand_b, is_scheduled=true

%g1 (q0: f32[8]) -> f32[8] {
  %q0 = f32[8]{0} parameter(0)
  ROOT %a = f32[8]{0} add(%q0, %q0), metadata={op_name="jit(h)/add"}
}

%g2 (q0.1: f32[8]) -> f32[8] {
  %q0.1 = f32[8]{0} parameter(0)
  %m = f32[8]{0} multiply(%q0.1, %q0.1), metadata={op_name="jit(h)/mul"}
  %s = f32[8]{0} subtract(%m, %m), metadata={op_name="jit(h)/sub"}
  ROOT %e = f32[8]{0} exponential(%s), metadata={op_name="jit(h)/exp"}
}

%g4 (q0.3: f32[8]) -> f32[8] {
  %q0.3 = f32[8]{0} parameter(0)
  %n = f32[8]{0} negate(%q0.3), metadata={op_name="jit(h)/neg"}
  ROOT %abs = f32[8]{0} abs(%n), metadata={op_name="jit(h)/abs"}
}

ENTRY %main (x: f32[8]) -> (f32[8], f32[8], f32[8], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %cos = f32[8]{0} cosine(%x), metadata={op_name="jit(h)/cos"}
  %j1 = f32[8]{0} fusion(%cos), kind=kLoop, calls=%g1
  %j2 = f32[8]{0} fusion(%j1), kind=kLoop, calls=%g2
  %j4 = f32[8]{0} fusion(%x), kind=kLoop, calls=%g4
  %sqrt = f32[8]{0} sqrt(%x), metadata={op_name="jit(h)/sqrt"}
  ROOT %out = (f32[8]{0}, f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(%j2, %sqrt, %j4, %cos)
}
"""


def test_every_class_of_change_by_hand():
    from hloscope.backends import _jaxlib as adapter

    for text in (HAND_A, HAND_B):  # real HLO, as XLA reads it
        adapter.xla_parse(text)
    d = diff(hloscope.parse(HAND_A), hloscope.parse(HAND_B))
    # f1 {add, mul} + f2 {sub, exp} became g1 {add} + g2 {mul, sub, exp}: regrouped, and the
    # array between them is now mul's input instead of its output (same bytes).
    assert groups(d) == {
        ("regrouped", ("k1", "k2"), ("j1", "j2")),
        ("changed", ("k4",), ("j4",)),
        ("removed", ("k3",), ()),
        ("added", (), ("sqrt",)),
        ("unchanged", ("cos",), ("cos",)),
    }
    by_status = {c.status: c for c in d.changes}
    assert by_status["changed"].ops_added == {"abs": 1} and by_status["changed"].ops_removed == {}
    assert [(e.producer, e.consumer) for e in by_status["regrouped"].through_memory] == [
        ("j1", "j2")
    ]
    assert "regrouped into 2 kernels" in describe(by_status["regrouped"])
    assert "ops +abs" in describe(by_status["changed"])
    assert not d.no_change
    assert groups(diff(hloscope.parse(HAND_B), hloscope.parse(HAND_A))) == mirrored(d)


def test_a_shape_change_is_a_changed_kernel():
    b = HAND_A.replace("f32[8]", "f32[9]")
    d = diff(hloscope.parse(HAND_A), hloscope.parse(b))
    assert {c.status for c in d.changes} == {"changed"} and len(d.changes) == 5
    for change in d.changes:
        assert [(sa, sb) for sa, sb, _ in change.shape_changes] == [("f32[8]", "f32[9]")]
        assert "shapes f32[8] -> f32[9]" in describe(change)


# ------------------------------------------------------------------------------------------
# The corpus: identical inputs, and four compiles of one function
# ------------------------------------------------------------------------------------------

SELF_CASES = [
    "jax_recompiles/module_0004.jit_norm.cpu_after_optimizations.txt",
    "jax_recompiles/module_0008.jit_norm.cpu_after_optimizations.txt",
    "jax_recompiles/module_0012.jit_norm.cpu_after_optimizations.txt",
    "jax_recompiles/module_0018.jit_norm.cpu_after_optimizations.txt",
    "jax_control_flow",
    "jax_collectives",
    "flax_cnn_train",
    "jax_linalg_custom_calls",
]


def after_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.cpu_after_optimizations.txt"))


@pytest.mark.parametrize("case", SELF_CASES)
def test_identical_inputs_give_no_change(corpus, case):
    target = corpus / "generated" / case
    files = after_files(target) if target.is_dir() else [target]
    for path in files:
        a, b = hloscope.parse_modules(path)[0], hloscope.parse_modules(path)[0]  # two parses
        for d in (diff(a, b), diff(a, a)):
            assert d.no_change, (path.name, [describe(c) for c in d.changed()][:3])
            assert d.totals["delta"] == dict.fromkeys(METRICS, 0)
            assert d.lines == []
            assert all(c.a[0].name == c.b[0].name for c in d.changes)


def test_mobilenet_train_step_against_itself(corpus, oracle):
    # How long this takes is measured in benchmarks/bench_small_speeds.py.
    (path, *_) = after_files(corpus / "generated" / "tf_keras_mobilenet_train")
    a, b = hloscope.parse(path), hloscope.parse(path)
    d = diff(a, b)
    # Every kernel is matched: at least one per fusion XLA counted, and the train step has
    # hundreds of fusions in either corpus, so this is a diff at scale.
    (xla,) = (o for o in oracle if o["file"] == f"tf_keras_mobilenet_train/{path.name}")
    assert d.no_change and d.counts["unchanged"] == len(fusion_report(a).kernels)
    assert len(fusion_report(a).kernels) >= xla["fusions"] > 100


def recompiles(corpus) -> dict[str, hloscope.Module]:
    files = after_files(corpus / "generated" / "jax_recompiles")
    return {p.name.split(".")[0]: parsed(p)[0] for p in files if ".jit_norm." in p.name}


def test_recompiles_differ_only_in_shapes(corpus):
    """norm(x) compiled for f32[8,32], f32[13,32], f32[21,32]: the same kernels, other shapes."""
    modules = recompiles(corpus)
    f32 = [m for m in modules.values() if m.entry.parameters[0].shape.element_type == "f32"]
    assert len(f32) == 3
    for a in f32:
        for b in f32:
            if a is b:
                continue
            rows_a = a.entry.parameters[0].shape.dims[0]
            rows_b = b.entry.parameters[0].shape.dims[0]
            d = diff(a, b)
            assert {c.status for c in d.changes} == {"changed"}
            assert len(d.changes) == len(fusion_report(a).kernels) == len(fusion_report(b).kernels)
            for change in d.changes:
                assert change.a[0].name == change.b[0].name  # same kernels, same names
                assert change.ops_added == {} and change.ops_removed == {}
                assert change.shape_changes
                for sa, sb, _ in change.shape_changes:
                    dims_a, dims_b = parse_shape(sa).dims, parse_shape(sb).dims
                    assert dims_a[0] == rows_a and dims_b[0] == rows_b and dims_a[1:] == dims_b[1:]
                (sa, sb, _), *_ = change.shape_changes
                assert f"shapes {sa} -> {sb}" in describe(change)
            assert d.lines == []  # each source line keeps its kernels
            assert groups(diff(b, a)) == mirrored(d)


def test_recompile_for_bf16_adds_converts(corpus):
    modules = recompiles(corpus)
    (bf16,) = [m for m in modules.values() if m.entry.parameters[0].shape.element_type == "bf16"]
    f32 = next(
        m
        for m in modules.values()
        if m.entry.parameters[0].shape.dims == bf16.entry.parameters[0].shape.dims and m is not bf16
    )
    d = diff(f32, bf16)
    assert {c.status for c in d.changes} == {"changed"}
    converts = (
        Counter(op for k in fusion_report(bf16).kernels for op in k.ops)["convert"]
        - Counter(op for k in fusion_report(f32).kernels for op in k.ops)["convert"]
    )
    assert converts > 0 and sum(c.ops_added.get("convert", 0) for c in d.changes) == converts
    assert groups(diff(bf16, f32)) == mirrored(d)


def test_a_dump_folder_stands_for_its_largest_module(corpus, oracle):
    folder = corpus / "generated" / "jax_recompiles"
    sizes = {
        line["file"].split("/", 1)[1]: line["n_instructions"]
        for line in oracle
        if line["root"] == "generated"
        and line["file"].startswith("jax_recompiles/")
        and line["file"].endswith(".cpu_after_optimizations.txt")
    }
    assert len(sizes) == len(after_files(folder))
    largest = max(sorted(sizes), key=lambda f: sizes[f])
    # The rule is the Target's (analyses take modules); hloscope.diff applies it to TARGETs.
    main = hloscope.Target.resolve(folder).main_module()
    assert main.name == hloscope.parse(folder / largest).name
    assert sum(len(c.instructions) for c in main.computations) == sizes[largest]
    assert hloscope.diff(folder, folder / largest).no_change


# ------------------------------------------------------------------------------------------
# The command line
# ------------------------------------------------------------------------------------------


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env={"COLUMNS": "200", **(env or {})}).invoke(cli, ["diff", *map(str, args)])


def test_cli_text_teaches_what_happened(forward):
    result = run(FUSED, SPLIT)
    assert result.exit_code == 0, result.output
    out = result.stdout
    (split,) = [c for c in forward.changes if c.status == "split"]
    delta = (split.bytes_b - split.bytes_a) / 1024
    assert f"kernel {split.a[0].name} (" in out and "split into 2 kernels" in out
    assert f"+{delta:.1f} KiB through memory" in out
    assert "f32[32,128]" in out and "note: a split kernel" in out
    assert f"fusion_refactor.py:{source_line('split', CALLBACK)}" in out
    assert "1 split, 1 added, 1 unchanged" in out


def test_cli_says_no_change_for_identical_inputs():
    result = run(SPLIT, SPLIT)
    assert result.exit_code == 0
    assert "no change: 4 kernels" in result.stdout


@pytest.mark.parametrize(
    "args, a, b, code",
    [
        (["--fail-on", "kernels"], FUSED, SPLIT, 3),  # 2 -> 4 kernels
        (["--fail-on", "kernels"], SPLIT, FUSED, 0),  # fewer is not worse
        (["--fail-on", "flops"], FUSED, SPLIT, 0),  # the same arithmetic
        (["--fail-on", "bytes", "--threshold", "49"], FUSED, SPLIT, 3),  # +50% bytes
        (["--fail-on", "bytes", "--threshold", "50"], FUSED, SPLIT, 0),
        (["--fail-on", "kernels,bytes", "--threshold", "60"], FUSED, SPLIT, 3),  # kernels +100%
        ([], FUSED, SPLIT, 0),  # without --fail-on a difference is no failure
    ],
)
def test_cli_fail_on_exit_status(args, a, b, code):
    result = run(a, b, *args)
    assert result.exit_code == code, result.output
    if code == 3:
        assert result.stderr.startswith("hloscope diff: B is worse than A: ")
    else:
        assert "worse" not in result.stderr


def test_cli_fail_on_is_documented():
    result = CliRunner().invoke(cli, ["diff", "--help"])
    assert "--fail-on" in result.output and "3 B is worse than" in " ".join(result.output.split())


def test_cli_json_schema(pair):
    result = run(FUSED, SPLIT, "--json", "--fail-on", "kernels")
    assert result.exit_code == 3
    data = json.loads(result.stdout)
    assert data["schema"] == DIFF_SCHEMA
    assert set(data) == {
        "schema",
        "module",
        "a",
        "b",
        "delta",
        "no_change",
        "counts",
        "changes",
        "lines",
        "memory",
        "fail_on",
    }
    assert data["module"] == {"a": pair[0].name, "b": pair[1].name}
    for side, module in (("a", pair[0]), ("b", pair[1])):
        summary = fusion_report(module).summary
        assert data[side] == {
            "label": str(FUSED if side == "a" else SPLIT),
            "module": module.name,
            "kernels": summary.kernel_count,
            "bytes": summary.bytes,
            "flops": summary.flops,
            "transcendentals": summary.transcendentals,
        }
    assert data["delta"] == {m: data["b"][m] - data["a"][m] for m in METRICS}
    assert list(data["counts"]) == list(STATUSES) and sum(data["counts"].values()) == len(
        data["changes"]
    )
    assert data["no_change"] is False
    assert data["fail_on"]["metrics"] == ["kernels"] and len(data["fail_on"]["regressions"]) == 1
    for metric, key in (
        ("kernels", "kernels_delta"),
        ("bytes", "bytes_delta"),
        ("flops", "flops_delta"),
    ):
        assert sum(c[key] for c in data["changes"]) == data["delta"][metric]
    kernel_keys = {
        "name",
        "computation",
        "kind",
        "signature",
        "shape",
        "n_ops",
        "bytes",
        "flops",
        "transcendentals",
        "sources",
    }
    for change in data["changes"]:
        assert change["status"] in STATUSES and isinstance(change["message"], str)
        assert all(set(k) == kernel_keys for k in change["a"] + change["b"])
        for edge in change["through_memory"]:
            assert set(edge) == {"producer", "consumer", "shape", "bytes"}
    line_keys = {
        "source_a",
        "source_b",
        "ops_a",
        "ops_b",
        "kernels_a",
        "kernels_b",
        "status",
        "separated_from",
        "joined_with",
    }
    assert data["lines"] and all(set(line) == line_keys for line in data["lines"])


def test_cli_bad_inputs_are_one_line_errors(tmp_path):
    missing = run(tmp_path / "nope.txt", SPLIT)
    assert missing.exit_code == 2 and "nope.txt: no such file" in missing.output
    not_hlo = tmp_path / "notes.txt"
    not_hlo.write_text("hello\n")
    broken = run(SPLIT, not_hlo)
    assert broken.exit_code == 2 and f"{not_hlo}:1:1: error:" in broken.output
    empty = tmp_path / "empty_dump"
    empty.mkdir()
    nothing = run(empty, SPLIT)
    assert nothing.exit_code == 1 and "no after-optimization" in nothing.output
    bad_metric = run(FUSED, SPLIT, "--fail-on", "kernels,speed")
    assert bad_metric.exit_code == 2 and "unknown metric 'speed'" in bad_metric.output
    for result in (missing, broken, nothing):
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------------
# Script targets (compiles)
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_diff_of_two_functions_in_a_script(tmp_path, monkeypatch):
    """``hloscope diff samples/fusion_refactor.py:fused samples/fusion_refactor.py:split``, as the
    README shows it: both functions are compiled (example arguments from the sample's
    ``example_args()``) and the split is found; the second run hits the capture cache."""
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    a, b = "samples/fusion_refactor.py:fused", "samples/fusion_refactor.py:split"
    result = run(a, b, "--json", "--fail-on", "kernels")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["a"]["module"] == "jit_fused" and data["b"]["module"] == "jit_split"
    (split,) = [c for c in data["changes"] if c["status"] == "split"]
    gate, result_line = source_line("split", GATE), source_line("split", RESULT)
    assert sorted(
        s.rsplit(":", 1)[-1].split()[0] for k in split["b"] for s in k["sources"]
    ) == sorted([str(gate), str(result_line)])
    assert [e["shape"] for e in split["through_memory"]] == ["f32[32,128]"]
    assert {c["status"] for c in data["changes"]} == {"split", "added", "unchanged"}
    text = run(a, b)
    assert text.exit_code == 0, text.output
    assert "split into 2 kernels" in text.stdout
