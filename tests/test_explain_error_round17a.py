"""Round 17a of explain-error: the recognisers of the crash, Pallas, sharding, distributed,
status, memory, allocation and start-up families, read on threads opened before 2023 (the
dev17a part), each fix on two wordings: a corpus log and a second real text."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Family, Platform

DATA = Path(__file__).parent / "data"
ERROR_LOGS = DATA / "error_logs"
FAMILY_LOGS = DATA / "family_logs"


def log(name: str) -> str:
    found = sorted(ERROR_LOGS.glob(f"{name}*.log")) or sorted(FAMILY_LOGS.glob(f"{name}*.log"))
    assert len(found) == 1, name
    return found[0].read_text()


def first(text: str):
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]


# ---- a CHECK on a CUDA library's status that names no start-up: the library ran ---------------


@pytest.mark.parametrize(
    "name",
    [
        "dev17a_tf_22119",  # TF 1.10 XLA: "Failed to set cuDNN stream." mid-training
        "r17a_visil_7",  # TF: cudnnSetTensorNdDescriptor refusing a descriptor (3 vs. 0)
    ],
)
def test_a_library_check_on_a_call_made_as_the_program_ran_is_a_crash(name):
    failure = first(log(name))
    assert failure.family is Family.XLA_CRASH and failure.platform is Platform.GPU
    assert failure.finding.op == "Check failed (cuDNN)"
    assert failure.advice_kind == "report_bug"


def test_a_library_check_on_creating_its_handle_stays_a_start_up_failure():
    # MXNet's "Check failed: err == CUSOLVER_STATUS_SUCCESS (7 vs. 0) Create cusolver handle
    # failed": the library never started.
    failure = first(log("mxnet_11015_cusolver_check"))
    assert failure.family is Family.BACKEND_STARTUP
