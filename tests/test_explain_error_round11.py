"""explain-error round 11 (issue 35): the causes behind the seventh blind part's family and
advice misses, each rule tested on two wordings: one from the spent part
(``tests/data/error_logs/fresh7_*``), one from elsewhere (XLA's or JAX's own source, an older
public thread, or JAX 0.10.2's own error run in a child here)."""

from __future__ import annotations

from hloscope.analysis.explain_error import explain_error
from tests.explain_error_reading import first, spent

# ---- a CUDA runtime error met before cuDNN's handle -------------------------------------------


def test_a_cuda_error_before_the_cudnn_handle_is_an_install_to_fix():
    # AlphaFold 3 on an HPC host (fresh7): harmless backend probes come first in the log.
    failure = spent("fresh7_a_alphafold3_454_leonardo_cudnn_symbol_not_found")
    assert (str(failure.family), failure.advice_kind, failure.finding.op) == (
        "backend_startup",
        "install",
        "cuDNN",
    )
    # The same line of XLA's cuda_dnn.cc with another CUDA runtime error: a driver older
    # than the CUDA runtime the wheel brings (error 35).
    other = first(
        "2024-03-01 10:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] "
        "There was an error before creating cudnn handle (35): cudaErrorInsufficientDriver : "
        "CUDA driver version is insufficient for CUDA runtime version\n"
    )
    assert (str(other.family), other.advice_kind, str(other.platform)) == (
        "backend_startup",
        "install",
        "gpu",
    )


def test_a_cudnn_handle_named_in_another_sentence_is_not_read():
    text = "We log: there was an error before creating cudnn handle objects, then retried.\n"
    assert not explain_error(text).recognised
