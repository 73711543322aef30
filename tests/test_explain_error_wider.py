"""explain-error on the wordings of wider frontends and runtimes (issue 35, round 6): each rule
learnt from a spent fresh4 log is tested on that wording and on one from another source (an
older thread, another framework, or JAX's own error in a child)."""

from __future__ import annotations

import pytest

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.unsupported import Platform


def only(text: str):
    failures = explain_error(text).failures
    assert failures, text
    return failures[0]


@pytest.mark.parametrize(
    ("text", "platform"),
    [
        # XLA:CPU handing LLVM a half-precision select (openxla/xla#44943, fresh4).
        ("LLVM ERROR: Cannot select: X86ISD::SUBV_BROADCAST_LOAD\nAborted (core dumped)\n", "cpu"),
        # A bf16 convert on an ARM CPU (openxla/xla#19105, an older thread).
        (
            "[ RUN      ] LaxTest.testConvGeneralDilatedLocal8\nLLVM ERROR: Cannot select: "
            "0xe0d25c00bb70: nxv8bf16 = AArch64ISD::UINT_TO_FP_MERGE_PASSTHRU 0xe0d25c152000\n"
            "  0xe0d25c152000: nxv8i1 = AArch64ISD::PTRUE TargetConstant:i32<31>\n",
            "cpu",
        ),
        # A GPU kernel's (tensorflow#11471, XLA:GPU in 2017): no target named, no guess.
        (
            "LLVM ERROR: Cannot select: t24: i16,ch = AtomicCmpSwap<Volatile LDST1["
            "%fusion.1.typed27(addrspace=1)]> t0, t11, t2, t21\nIn function: _fusion_1__1\n",
            None,
        ),
    ],
)
def test_llvm_aborting_is_a_crash_of_xlas_code_generator(text, platform):
    failure = only(text)
    assert failure.family == Family.XLA_CRASH
    assert failure.advice_kind == "report_bug"
    assert (str(failure.platform) if failure.platform else None) == platform
    assert "Cannot select" in failure.finding.node
    assert len(explain_error(text).failures) == 1  # the shell's "Aborted" is the same crash


@pytest.mark.parametrize(
    "text",
    [
        # An FFI kernel's capture refused inside XLA:GPU's graph (mujoco_warp#548, fresh4).
        "XlaRuntimeError: INTERNAL: CUDA error: Failed to create a child graph node and add it "
        "to a CUDA graph: \nCUDA_ERROR_NOT_SUPPORTED: operation not supported\n",
        # Warp's own words for its graph (mujoco#3191, fresh4).
        "Warp CUDA error 1: invalid argument (in function wp_cuda_graph_update_memcpy_batch,\n"
        "  /builds/omniverse/warp/warp/native/warp.cu:3018)\n",
        # An older thread (mujoco_warp#350, jax 0.6.1).
        "E0610 09:26:38.685546  359201 pjrt_stream_executor_client.cc:3077] Execution of replica"
        " 0 failed: INTERNAL: CUDA error: Failed to end stream capture: CUDA_ERROR_STREAM_"
        "CAPTURE_INVALIDATED: operation failed due to a previous error during capture\n",
        # Another frontend of XLA (Elixir's EXLA, elixir-nx/nx#1602).
        '%RuntimeError{message: "Command buffer has to have a graph executable to be updated"}, '
        "[{EXLA.NIF, :run_io, []}]\n",
    ],
)
def test_a_cuda_graph_failing_as_the_program_ran_is_a_crash_not_a_start_up(text):
    failure = only(text)
    assert failure.family == Family.XLA_CRASH
    assert failure.platform == Platform.GPU
    assert failure.advice_kind == "report_bug"


def test_a_cuda_error_code_without_graph_words_is_still_a_library_failing_to_start():
    failure = only("RuntimeError: CUDA error: CUDA_ERROR_NO_DEVICE: no CUDA-capable device\n")
    assert failure.family == Family.BACKEND_STARTUP


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # A logger's line, then the traceback (mujoco_warp#425, fresh4).
        (
            "ERROR:__main__:Training failed with error: INTERNAL: CUDA error: Failed to end stream "
            "capture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: operation failed\n"
            "ERROR:__main__:Full traceback:\nTraceback (most recent call last):\n"
            ' File "/home/u/train.py", line 756, in main\n   make_inference_fn\n'
            ' File "/usr/lib/python3/site-packages/jax/_src/pjit.py", line 12, in cache_miss\n'
            "   out = f()\n",
            "train.py:756",
        ),
        # A library failing to start, logged by Python's logging before its traceback.
        (
            "ERROR:root:setup failed: Unable to load cuSPARSE. Is it installed?\n"
            "Traceback (most recent call last):\n"
            ' File "/work/run_model.py", line 31, in <module>\n    jax.devices()\n',
            "run_model.py:31",
        ),
    ],
)
def test_a_loggers_line_takes_the_traceback_printed_after_it(text, line):
    assert only(text).finding.source.endswith(line)
