"""XLA:TPU's own Mosaic kernels are not Pallas kernels, and cost what their body computes.

tests/data/tpu_xla_kernels holds attention programs XLA:TPU compiled for a v5e
(``regenerate.py`` there): for bf16 heads it writes ``softmax(scores) @ v`` as a Mosaic kernel of
its own, ``online-softmax``, a ``tpu_custom_call`` like a Pallas kernel's but given no cost
estimate, which XLA's cost analysis counts as 0 FLOPs. The oracles:

* XLA:TPU's ``cost_analysis()`` of each program (``oracle.json``): hloscope's total less its
  estimate of XLA's kernel is XLA's total, so nothing else moved;
* the shapes of the kernel's operands in the HLO: the product ``softmax(scores) @ v`` is
  2 x scores' elements x the head size, whatever the kernel's body says;
* the f32 program, where XLA:TPU fuses the whole attention into one kernel of its own and gives
  it a ``cost_estimate``: the products counted from that kernel's body equal XLA's estimate.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

from hloscope.analysis.cost import (
    PALLAS_UNKNOWN,
    XLA_KERNEL_ESTIMATED,
    estimated_xla_kernels,
    instruction_cost,
    module_cost,
    unestimated_pallas_kernels,
)
from hloscope.analysis.cost._mosaic import mosaic_cost, xla_kernel_body
from hloscope.analysis.fusion_notes import summary_notes
from hloscope.analysis.fusions import fusion_report
from hloscope.hlo.model import Instruction, Module
from hloscope.hlo.parser import parse

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
KERNELS = DATA / "tpu_xla_kernels"
ONLINE_SOFTMAX = ["attention_bf16", "attention_causal"]
FLOAT32_ROUNDING = 2.0**-24  # XLA adds FLOPs in 32-bit floats


def _module(folder: Path) -> Module:
    (text,) = folder.glob("*.after_optimizations.txt")
    return parse(text.read_text())


def _xla_flops(folder: Path) -> float:
    return float(json.loads((folder / "oracle.json").read_text())["cost_analysis"]["flops"])


def _custom_calls(module: Module, target: str = "tpu_custom_call") -> list[Instruction]:
    return [
        inst
        for comp in module.computations
        for inst in comp.instructions
        if inst.opcode == "custom-call" and inst.attrs.get("custom_call_target") == target
    ]


@pytest.mark.parametrize("program", ONLINE_SOFTMAX)
def test_online_softmax_is_xlas_kernel_costed_from_what_it_computes(program: str) -> None:
    module = _module(KERNELS / program)
    (kernel,) = _custom_calls(module)
    assert kernel.op_name == "online-softmax"
    body = xla_kernel_body(kernel)
    assert body is not None
    estimate = mosaic_cost(body)
    assert estimate is not None
    # softmax(scores) @ v, from the operands' shapes alone: scores [b, h, q, k], v [b, h, k, d].
    scores, values = (op.shape.dims for op in kernel.operands)
    assert estimate.matmul_flops == 2 * math.prod(scores) * values[-1]
    # The softmax around it: a few FLOPs and about one exp per score.
    per_score = (estimate.flops - estimate.matmul_flops) / math.prod(scores)
    assert 2 <= per_score <= 8
    assert estimate.transcendentals == pytest.approx(math.prod(scores), rel=0.05)
    cost = instruction_cost(kernel)
    assert (cost.flops, cost.transcendentals) == (estimate.flops, estimate.transcendentals)
    assert XLA_KERNEL_ESTIMATED in cost.flag and "Pallas kernel given" not in cost.flag
    # XLA counts nothing for it, and everything else as hloscope does.
    total = module_cost(module)
    assert total.flops - estimate.flops == pytest.approx(
        _xla_flops(KERNELS / program), rel=FLOAT32_ROUNDING
    )


@pytest.mark.parametrize("program", ONLINE_SOFTMAX)
def test_the_summary_says_estimate_and_gives_no_pallas_advice(program: str) -> None:
    summary = fusion_report(_module(KERNELS / program)).summary
    assert estimated_xla_kernels(summary.flagged) == 1
    assert unestimated_pallas_kernels(summary.flagged) == 0
    notes = " ".join(summary_notes(summary))
    assert "XLA:TPU wrote itself" in notes and "estimate" in notes
    assert "pallas_call" not in notes and "unknown cost" not in notes
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="80")
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "fusions", str(KERNELS / program)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "online-softmax" in done.stdout and "pallas_call" not in done.stdout


def test_a_kernel_xla_gave_an_estimate_matches_its_body() -> None:
    """attention_f32: XLA:TPU's whole-attention kernel carries XLA's own cost_estimate (its
    two products): the body's products are the same count, and the kernel costs XLA's."""
    module = _module(KERNELS / "attention_f32")
    (kernel,) = _custom_calls(module)
    body = xla_kernel_body(kernel)
    assert body is not None  # XLA's own, though it has an estimate
    estimate = mosaic_cost(body)
    assert estimate is not None
    config = kernel.attrs["backend_config"]["custom_call_config"]["cost_estimate"]
    assert estimate.matmul_flops == int(config["flops"])
    assert module_cost(module).flops == _xla_flops(KERNELS / "attention_f32")
    assert not module_cost(module).flagged


def test_a_users_pallas_kernel_stays_a_pallas_kernel() -> None:
    """pallas_kernels (a pallas_call with an estimate and one without): neither is XLA's own,
    and the one without keeps the advice to give pallas_call an estimate."""
    module = _module(DATA / "tpu" / "pallas_kernels")
    kernels = _custom_calls(module)
    assert len(kernels) == 2
    assert all(xla_kernel_body(k) is None for k in kernels)
    summary = fusion_report(module).summary
    assert unestimated_pallas_kernels(summary.flagged) == 1
    assert estimated_xla_kernels(summary.flagged) == 0
    assert any(PALLAS_UNKNOWN in f for f in summary.flagged)
    assert "pallas_call" in " ".join(summary_notes(summary))


def test_a_loop_inside_a_kernel_counts_its_trips() -> None:
    """A ``scf.for`` of constant bounds runs its body trip-count times per grid step."""
    step = "\n".join(
        [
            "module {",
            "  func.func @main(%arg0: i32) attributes {iteration_bounds = array<i64: 3>} {",
            "    %c0 = arith.constant 0 : index",
            "    %c4 = arith.constant 4 : index",
            "    %c1 = arith.constant 1 : index",
            "    scf.for %i = %c0 to %c4 step %c1 {",
            "      %1 = arith.addf %a, %b : vector<8x128xf32>",
            "      %2 = math.exp %1 : vector<8x128xf32>",
            "    }",
            "    %3 = arith.mulf %a, %b : vector<8x128xf32>",
            "    return",
            "  }",
            "}",
        ]
    )
    estimate = mosaic_cost(step)
    assert estimate is not None
    assert (estimate.flops, estimate.transcendentals, estimate.steps) == (
        3 * (4 * 1024 + 1024),
        3 * 4 * 1024,
        3,
    )


@pytest.mark.parametrize("program", ["top_k", "top_k_wide", "gather"])
def test_xla_tpus_other_custom_calls_cost_what_xla_tpu_counts(program: str) -> None:
    """TopK (two shapes and k) and an embedding lookup's AssumeGatherIndicesInBound: known to
    XLA:TPU, so neither a cost unknown nor 0 FLOPs where XLA:TPU counts some."""
    module = _module(KERNELS / program)
    target = "AssumeGatherIndicesInBound" if program == "gather" else "TopK"
    assert _custom_calls(module, target)
    cost = module_cost(module)
    assert cost.flops == pytest.approx(_xla_flops(KERNELS / program), rel=FLOAT32_ROUNDING)
    assert not cost.flagged


def test_xla_cpus_top_k_stays_unknown_as_xla_cpu_says() -> None:
    """The TopK rule is XLA:TPU's: XLA:CPU's own analysis has no cost for its TopK (-1)."""
    jax = needs_framework("jax")
    compiled = jax.jit(lambda x: jax.lax.top_k(x, 8)).lower(jax.numpy.ones((64, 1000))).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    assert cost["flops"] == -1
    flagged = module_cost(parse(compiled.as_text())).flagged
    unknown = "custom-call TopK: cost unknown (boundary bytes, 0 FLOPs)"
    assert [f.reason for f in flagged] == [unknown]


def test_bench_counts_xlas_kernel_as_estimated_not_unknown() -> None:
    from hloscope.bench.api import _unknown_cost_note

    flagged = fusion_report(_module(KERNELS / "attention_bf16")).summary.flagged
    note = _unknown_cost_note(flagged)
    assert note is not None and "XLA:TPU wrote itself" in note
    assert "unknown cost" not in note and "pallas_call" not in note
