"""Round 21b of explain-error: the field readers, read on the spent parts' misses and the two
blind made batches', each fix on two wordings: a corpus or made log, and a second real text (a
log of the same message from another program, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import DATA, first, log

from hloscope.analysis.explain_error.record import Family


def made(case: str) -> str:
    """A blind made batch's log, ``folder/case``."""
    return (DATA / f"{case}.log").read_text()


# ---- XLA:TPU's 64-bit rewrite refusing an instruction JAX lowered: the op is JAX's ----------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # An int64 matmul under jax_enable_x64 on a TPU v5e: "%dot_general.1 = s64[...] dot(",
        # metadata op_name "jit(cooccurrence)/dot_general".
        (made("made_errors_tpu_blind15/b15_int64_matmul_x64"), "dot_general"),
        # A float64 Pallas kernel on the same TPU: a custom-call named after pallas_call.
        (made("made_errors_tpu_blind15/b15_pallas_f64_kernel"), "pallas_call"),
    ],
)
def test_the_x64_rewrite_names_the_jax_primitive_its_metadata_records(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == op


def test_the_x64_rewrite_of_an_instruction_with_no_metadata_keeps_its_opcode() -> None:
    # enzymejax#2126: Enzyme's custom call carries no JAX name stack.
    assert first(log("fresh14_a_enzymejax_2126")).finding.op == "custom-call"


def test_the_x64_rewrite_of_one_step_of_a_primitive_keeps_its_opcode() -> None:
    # diffrax#366: a bitcast-convert that nextafter's lowering made is no nextafter.
    assert first(log("fresh10_a_diffrax_366")).finding.op == "bitcast-convert"
