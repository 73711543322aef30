"""explain-error round 12 (issue 35): the causes behind the spent parts' family and advice
misses, each rule tested on two wordings: one from a spent part
(``tests/data/error_logs/fresh*_*``), one from elsewhere (XLA's, JAX's or a library's own
source, an older public thread, or another framework)."""

from __future__ import annotations

import pytest

from tests.explain_error_reading import first, spent

# ---- a CUDA library that started, and whose call failed as the program ran ------------------


@pytest.mark.parametrize(
    "name",
    [
        # openpi#725: cuDNN's kernel failed while running replica 0.
        "fresh3_b_openpi_725_cudnn_execution_failed",
        # jax#33062: jaxlib's eigh handed cuSOLVER a batch of 0 (a value it refuses).
        "fresh_jax_33062_eigh_cusolver_invalid",
    ],
)
def test_a_library_call_that_failed_as_the_program_ran_is_a_crash_not_an_install(name):
    failure = spent(name)
    assert (str(failure.family), failure.advice_kind) == ("xla_crash", "report_bug")
    assert [kind for kind, _ in failure.more_advice] == ["install"]


@pytest.mark.parametrize(
    "text",
    [
        # transformer-xl#139 (TF 1.12's stream executor).
        "2021-09-08 23:23:08.258752: E tensorflow/stream_executor/cuda/cuda_blas.cc:652] "
        "failed to run cuBLAS routine cublasSgemm_v2: CUBLAS_STATUS_EXECUTION_FAILED\n",
        # ColabFold#43 (JAX under AlphaFold 2).
        "UnfilteredStackTrace: RuntimeError: Internal: CUBLAS_STATUS_EXECUTION_FAILED\n",
        # PyTorch's wording of the same status.
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( "
        "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n",
    ],
)
def test_the_same_status_in_other_frameworks_words(text):
    failure = first(text)
    assert (str(failure.family), failure.advice_kind, str(failure.platform)) == (
        "xla_crash",
        "report_bug",
        "gpu",
    )


def test_a_handle_that_could_not_be_made_is_still_the_start_up():
    # The library never ran: its handle (and so the memory or the install) is the cause.
    failure = first(
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: operation cusolverDnCreate(&handle) "
        "failed: cuSolver internal error\n"
    )
    assert (str(failure.family), failure.advice_kind) == ("backend_startup", "free_memory")
