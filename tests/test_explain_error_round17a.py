"""Round 17a of explain-error: the recognisers of the crash, Pallas, sharding, distributed,
status, memory, allocation and start-up families, read on threads opened before 2023 (the
dev17a part), each fix on two wordings: a corpus log and a second real text."""

from __future__ import annotations

import pytest
from round_logs import first, log

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.record import Family, Platform

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


# ---- jax before 0.3 naming the jaxlib it needs without ">=" ------------------------------------


@pytest.mark.parametrize(
    ("name", "old", "need"),
    [
        ("dev17a_jax_1297", "0.1.23", "0.1.26"),  # jax 0.1.x: "requires version 0.1.26."
        ("dev17a_parallelfold_13", "0.1.69", "0.1.74"),  # jax 0.2.26
    ],
)
def test_a_jaxlib_older_than_jax_needs_is_a_start_up_failure_in_the_older_words(name, old, need):
    failure = first(log(name))
    assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "install"
    assert old in failure.finding.suggestion + " ".join(failure.hints)
    assert need in failure.finding.suggestion + " ".join(failure.hints)


# ---- a computation compiled for more devices than the backend has -----------------------------


@pytest.mark.parametrize(
    ("name", "op", "need"),
    [
        ("dev17a_jax_13137", "devices", "8"),  # "requires 8 logical devices, but only 1 ..."
        ("r17a_jax_pr2558", "while", "2"),  # jax 0.1: "primitive computation `while` ... replicas"
    ],
)
def test_a_computation_for_more_devices_than_the_backend_has_is_a_sharding_failure(name, op, need):
    failure = first(log(name))
    assert failure.family is Family.SHARDING and failure.finding.op == op
    assert failure.advice_kind == "bigger_device"
    assert f"needs {need} devices" in failure.finding.suggestion


# ---- XLA naming the op it does not implement by its C++ name ----------------------------------


@pytest.mark.parametrize(
    ("name", "op"),
    [
        ("dev17a_t5x_580", "AllReduceStart"),  # "Requested AllReduceStart not implemented on GPU"
        ("fresh12_a_enzymejax_789", "PartitionId"),  # "PartitionId instruction is not supported"
    ],
)
def test_the_op_xla_does_not_implement_is_read_by_its_class_name(name, op):
    failure = first(log(name))
    assert failure.family is Family.XLA_STATUS and failure.finding.op == op


# ---- a failed cuInit: what the process did after it decides what it was ------------------------


def test_cuinit_failing_on_a_tpu_vm_that_went_on_with_the_tpu_is_harmless():
    # maxtext on a TPU v6e with a CUDA plugin installed: cuInit fails, the TPU runs.
    failure = first(log("fresh6_b_maxview_maxtext_tpu_v6e_cuinit_harmless"))
    assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "harmless"
    assert failure.platform is Platform.TPU


def test_cuinit_failing_where_jax_fell_back_to_the_cpu_gives_way_to_the_later_error():
    # tomo_challenge#48: CUDA_ERROR_NO_DEVICE, "falling back to CPU", then XLA's refusal.
    explanation = explain_error(log("r17a_tomochallenge_48"))
    assert explanation.failures[0].family is Family.XLA_STATUS
    probe = next(f for f in explanation.failures if f.finding.op == "CUDA_ERROR_NO_DEVICE")
    assert probe.finding.warning


def test_cuinit_failing_alone_stays_the_failure():
    # AlphaFold 3 on a GPU whose driver does not start: nothing after it went on.
    failure = first(log("fresh2_b_alphafold3_423_cuinit_unknown"))
    assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "install"
    assert not failure.finding.warning


# ---- jaxlib before 0.3 wrote XLA's status codes in TensorFlow's words --------------------------


@pytest.mark.parametrize(
    "name",
    [
        "dev17a_jax_5123",  # "Invalid argument: Argument does not match host shape or layout"
        "r17a_tomochallenge_48",  # "Invalid argument: The rank of the operand and the padding"
    ],
)
def test_an_old_jaxlib_invalid_argument_is_xlas_refusal(name):
    failure = first(log(name))
    assert failure.family is Family.XLA_STATUS and failure.status == "INVALID_ARGUMENT"
