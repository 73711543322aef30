"""Round 18a of explain-error: the recognisers, read on the thirteenth blind part's misses and the
blind made batch's (JAX 0.10.2), each fix on two wordings: a corpus log and a second real text
(another thread's, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Family

DATA = Path(__file__).parent / "data"
SEARCHED = (DATA / "error_logs", DATA / "family_logs", DATA / "made_errors_blind13")


def log(name: str) -> str:
    found = [p for folder in SEARCHED for p in sorted(folder.glob(f"{name}*.log"))]
    assert len(found) == 1, name
    return found[0].read_text()


def first(text: str):
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]


# ---- the HLO verifier refusing a module under INVALID_ARGUMENT or FAILED_PRECONDITION ----------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        # Enzyme-JAX's pass made a compare of s64 with an UNSIGNED type: FAILED_PRECONDITION.
        ("fresh13_a_enzymejax_477", "compare"),
        # SPMD partitioning mixed s64 and s32 in a compare: INVALID_ARGUMENT.
        ("fresh13_a_jax_19691", "compare"),
        # A sharded complex128 FFT's twiddle factors made at c64 (openxla/xla#44541).
        ("r18a_xla_44541", "multiply"),
    ],
)
def test_the_verifier_refusing_under_a_refusal_code_is_a_status_naming_the_instruction(name, op):
    failure = first(log(name))
    assert failure.family is Family.XLA_STATUS
    assert failure.finding.op == op


@pytest.mark.parametrize("name", ["fresh3_a_jax_39301", "fresh4_a_jax_29088"])
def test_the_verifier_refusing_under_internal_stays_a_crash(name):
    assert first(log(name)).family is Family.XLA_CRASH
