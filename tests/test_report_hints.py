"""The report summary's hints (issue 19): computed from the fusion report's numbers by rules
with documented thresholds (hloscope/analysis/report_hints.py), for any module. Each hint's
evidence is compared here with the numbers ``hloscope.fusion_report`` gives for the same module, on
several modules; the notes appear once and the source lines are in line order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLES

import hloscope
from hloscope.analysis import report_hints as rules
from hloscope.analysis.fusions import fusion_report
from hloscope.reporting import build_report

HLO = SAMPLES / "hlo"
MODULES = [
    HLO / "transformer_train.after_optimizations.txt",
    HLO / "keras_cnn.after_optimizations.txt",
    HLO / "fusion_refactor_split.after_optimizations.txt",
]


def hint(report, kind):
    found = [h for h in report.hints if h.kind == kind]
    return found[0] if found else None


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name.split(".")[0])
def test_memory_bound_evidence_is_the_fusion_reports_numbers(path: Path):
    report = build_report(str(path), graphs=0)
    fusions = fusion_report(hloscope.parse(path))
    total = fusions.summary.bytes
    by_name = {k.name: k for k in fusions.kernels}
    bound = [
        k
        for k in fusions.kernels
        if k.cost.bytes_accessed > 0 and k.cost.flops < k.cost.bytes_accessed
    ]
    found = hint(report, rules.HintKind.MEMORY_BOUND)
    moved = sum(k.cost.bytes_accessed for k in bound) / total
    if moved < rules.HEAVY_SHARE:
        assert found is None
        return
    assert found is not None and f"{len(bound)} memory-bound kernels" in found.title
    assert f"move {moved:.0%} of the bytes" in found.title
    assert 1 <= len(found.evidence) <= rules.MAX_EVIDENCE
    for e in found.evidence:
        k = by_name[e["kernel"]]
        assert (e["bytes"], e["flops"]) == (k.cost.bytes_accessed, k.cost.flops)
        assert e["share"] == pytest.approx(k.cost.bytes_accessed / total)
        assert e["intensity"] == pytest.approx(k.cost.flops / k.cost.bytes_accessed)
        assert e["intensity"] < rules.MEMORY_BOUND_INTENSITY
    # The heaviest of them: no memory-bound kernel left out moves more than one named.
    named = {e["kernel"] for e in found.evidence}
    least = min(e["bytes"] for e in found.evidence)
    assert all(k.cost.bytes_accessed <= least for k in bound if k.name not in named)


UNFUSED = """HloModule unfused, is_scheduled=true

ENTRY main {
  p = f32[256,256]{1,0} parameter(0)
  q = f32[256,256]{1,0} parameter(1)
  a = f32[256,256]{1,0} add(p, q)
  m = f32[256,256]{1,0} multiply(a, q)
  e = f32[256,256]{1,0} exponential(m)
  d = f32[256,256]{1,0} dot(e, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[256,256]{1,0} negate(d)
}
"""


def test_unfused_elementwise_chains(tmp_path: Path):
    path = tmp_path / "unfused.txt"
    path.write_text(UNFUSED)
    report = build_report(str(path), graphs=0)
    fusions = fusion_report(hloscope.parse(path))
    found = hint(report, rules.HintKind.UNFUSED_CHAIN)
    assert found is not None and "4 elementwise ops left unfused, in 2 chains" in found.title
    chain, single = found.evidence
    assert chain["kernels"] == ["a", "m", "e"] and single["kernels"] == ["n"]
    cost = {k.name: k.cost.bytes_accessed for k in fusions.kernels}
    assert chain["bytes"] == cost["a"] + cost["m"] + cost["e"]
    assert single["bytes"] == cost["n"]
    assert fusions.summary.unfused_elementwise_bytes == chain["bytes"] + single["bytes"]
    # Said once: the summary's own note on the same ops is not repeated under the hint.
    assert not any("left unfused" in n for n in report.summary_notes)
    body = re.sub(r'<script type="application/json".*?</script>', "", report.to_html(), flags=re.S)
    assert body.count("elementwise ops left unfused") == 1


def test_a_loop_doing_most_flops(tmp_path: Path):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def looped(w, x):
        return jax.lax.fori_loop(0, 40, lambda i, h: jnp.tanh(h @ w), x).sum() + x.sum()

    w, x = jnp.ones((32, 32)), jnp.ones((8, 32))
    path = tmp_path / "looped.txt"
    path.write_text(jax.jit(looped).lower(w, x).compile().as_text())
    report = build_report(str(path), graphs=0)
    frame = hloscope.fusions(str(path))
    executed = report.fusions.summary.executed_flops
    found = hint(report, rules.HintKind.LOOP_FLOPS)
    assert found is not None
    (loop,) = found.evidence
    body = frame[frame["where"] == loop["loop"]]
    assert loop["flops"] == int((body["flops"] * body["executions"]).sum())
    assert loop["executions"] == 40 and loop["share"] == pytest.approx(loop["flops"] / executed)
    assert loop["share"] >= rules.LOOP_SHARE
    # XLA's own count of one iteration's FLOPs, times 40, is what the body does per run.
    xla = jax.jit(looped).lower(w, x).compile().cost_analysis()
    assert loop["flops"] > 40 * 2 * 8 * 32 * 32 * 0.9 and xla["flops"] < loop["flops"]


# As JAX dumps them: a user's function names its parameters after its arguments, JAX's eager
# broadcast_in_dim after its *args (args[0]).
def _module(name: str, size: int, parameter: str) -> str:
    return (
        f"HloModule {name}\n\nENTRY main {{\n"
        f'  p = f32[{size}] parameter(0), metadata={{op_name="{parameter}"}}\n'
        f"  ROOT r = f32[{size}] negate(p)\n}}\n"
    )


TWO_FUNCTIONS = "\n// -----\n\n".join(
    [
        _module("jit_f", 4, "x"),
        _module("jit_broadcast_in_dim", 4, "args[0]"),
        _module("jit_f", 8, "x"),
        _module("jit_broadcast_in_dim", 8, "args[0]"),
        _module("jit_f", 16, "x"),
    ]
)


def test_recompiles_hint_leaves_out_jax_eager_modules(tmp_path: Path):
    path = tmp_path / "several.txt"
    path.write_text(TWO_FUNCTIONS)
    report = build_report(str(path), graphs=0)
    found = hint(report, rules.HintKind.RECOMPILES)
    assert found is not None
    assert [e["function"] for e in found.evidence] == ["f"]
    (e,) = found.evidence
    assert e["compiles"] == 3 and e["causes"] == {"shape": 2}
    assert report.recompiles is not None
    names = [f.name for f in report.recompiles.functions]
    assert names == ["f"]  # the section too, and its count
    assert report.recompiles.line.startswith("3 compiles of 1 function")


def test_notes_appear_once_and_say_what_to_do():
    report = build_report(str(MODULES[0]), graphs=0)
    text = report.to_html()
    notes = re.findall(r"<li>(no [^<]*columns?[^<]*)</li>", text)
    assert len(notes) == len(set(notes)) == 1
    assert "hloscope report SCRIPT.py:FUNCTION" in notes[0]
    assert "not in a pair of modules" not in text


@pytest.mark.parametrize("path", [MODULES[0], MODULES[2]], ids=lambda p: p.name.split(".")[0])
def test_source_lines_are_in_line_order(path: Path):
    rows = build_report(str(path), graphs=0).sources
    located = [(r.file, r.line) for r in rows if r.line is not None]
    assert located == sorted(located) and len(located) >= 3
