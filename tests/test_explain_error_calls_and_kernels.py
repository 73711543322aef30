"""explain-error on what the program called (issue 35): a Pallas kernel's failure at the line
that called the kernel, its body's line beside it; the callback whose results JAX refused;
counts a call was given against those it takes, whose fix is the call; TensorFlow's XLA on
the CPU and its sizes drawn at random.

The errors are real: programs of cases run in a child under the installed JAX on the CPU
(:mod:`raised_errors`), the made batches' logs (``tests/data/made_errors_*``: JAX 0.10.2 and
TensorFlow 2.21 on the CPU and on a TPU v5e, each case's line marked by its maker), and logs
users pasted (``tests/data/error_logs``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from raised_errors import cases_of, marked_line

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.explain_error.message_fixes import compares_counts

DATA = Path(__file__).parent / "data"


def _made(batch: str, case: str) -> tuple[str, dict[str, str | None]]:
    """A made case's log and its maker's truth."""
    folder = DATA / batch
    truth = json.loads((folder / f"{case}.json").read_text())["truth"]
    return (folder / f"{case}.log").read_text(), truth


def _line(source: str | None) -> str:
    """``file.py:N`` of a ``/path/to/file.py:N``."""
    assert source is not None
    return source.rsplit("/", 1)[-1]


def _kinds(failure) -> list[str]:
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


# ---- a Pallas kernel's failure: the line that called it, its body's line beside it ----------


@pytest.mark.parametrize(
    ("batch", "case", "kernel_line"),
    [
        # JAX 0.10.2 on a v5e: a lowering rule refused a type in the kernel's body; JAX traced
        # the body (line 8) and re-raised at the program's pallas_call (line 11).
        ("made_errors_tpu_blind19", "b19_pallas_complex64_kernel", 8),
        ("made_errors_tpu_blind20", "b20_pallas_top_k_in_kernel", 8),
        ("made_errors_tpu_blind15", "b15_pallas_gather_in_kernel", 8),
        # Mosaic's verifier: JAX put the kernel's frames in the last traceback itself, whose
        # innermost (the body's line) is the maker's line too.
        ("made_errors_tpu_blind18", "b18_pallas_dma_into_smaller_buffer", None),
        ("made_errors_tpu_blind18", "b18_pallas_float16_kernel", None),
    ],
)
def test_a_kernels_failure_is_at_the_line_that_called_it(batch, case, kernel_line):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.PALLAS
    assert _line(failure.finding.source) == truth["user_line"]
    body = [hint for hint in failure.hints if "in the kernel's body at" in hint]
    if kernel_line is None:
        assert not body  # the line is the body's already
    else:
        assert body == [f"in the kernel's body at /home/user/made/{case}.py:{kernel_line}"]


def test_a_kernels_location_gives_way_to_the_call_only_where_jax_raised_again():
    # jax#34674 (a later JAX): the verifier's location names the body (test.py:6) called at
    # test.py:9, and JAX re-raised the error at line 9: the user's line.
    chained = (
        DATA
        / "error_logs"
        / "dev20_a_jax_pr34674_mosaic_logistic_bf16_vector_broadcast_verification.log"
    )
    (failure, *_) = explain_error(chained.read_text()).failures
    assert _line(failure.finding.source) == "test.py:9"
    # jax#18370 (JAX 0.4.2x): one traceback, at the compiled call (line 54); the location's
    # line in the kernel (16) is the nearer one there, and the thread's.
    once = DATA / "error_logs" / "fresh7_a_jax_18370_pallas_tpu_padded_transpose.log"
    (failure, *_) = explain_error(once.read_text()).failures
    assert _line(failure.finding.source) == "test_tpu.py:16"


def test_a_pallas_call_inside_a_jitted_function_keeps_its_own_line():
    # JAX's trace before transforming shows the pallas_call inside step() (line 23): nearer
    # than the jit call the last traceback ends at (line 32), and no kernel's body.
    text = (DATA / "pallas_errors" / "block_shape.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert failure.finding.source == "/home/user/kernels/kernel.py:23"


# ---- the callback whose results JAX refused, and counts a call was given ------------------

_CASES = """
import sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import io_callback


def pure_two_results():
    host = lambda x: (np.asarray(x) * 2, np.asarray(x) + 1)
    f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((3,), jnp.float32), x))
    f(jnp.ones(3, jnp.float32)).block_until_ready()  # fails here: pure_two_results


def io_returns_a_value():
    host = lambda x: np.asarray(x).sum()
    f = jax.jit(lambda x: (io_callback(host, None, x), x)[1])
    f(jnp.ones(3)).block_until_ready()  # fails here: io_returns_a_value


def pure_wrong_shape():
    host = lambda x: np.zeros((2,), np.float32)
    f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((4,), jnp.float32), x))
    f(jnp.ones(4, jnp.float32)).block_until_ready()  # fails here: pure_wrong_shape


def grad_argnums_past_args():
    loss = lambda w, x: jnp.sum(w * x)
    jax.grad(loss, argnums=(0, 2))(jnp.ones(3), jnp.ones(3))  # fails here: grad_argnums_past_args


def two_in_shardings_for_three_arguments():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    f = jax.jit(lambda a, b, c: a + b + c, in_shardings=(s, s))
    f(jnp.ones(2), jnp.ones(2), jnp.ones(2))  # fails here: two_in_shardings_for_three_arguments
"""


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("calls") / "cases.py", _CASES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "op"),
    [
        ("pure_two_results", "pure_callback"),
        ("io_returns_a_value", "io_callback"),  # declared no result, returned one
        ("pure_wrong_shape", "pure_callback"),
    ],
)
def test_the_callback_whose_results_jax_refused_is_the_op(raised, case, op):
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert (failure.family, failure.finding.op) == (Family.XLA_STATUS, op)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind17", "status_callback_returns_pair"),
        ("made_errors_blind17", "status_io_callback_log_write"),
        ("made_errors_tpu_blind18", "b18_callback_result_shape_wrong"),  # on a v5e
    ],
)
def test_the_callback_is_the_op_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.finding.op == truth["op"]


@pytest.mark.parametrize("case", ["grad_argnums_past_args", "two_in_shardings_for_three_arguments"])
def test_counts_a_call_was_given_have_the_call_fixed(raised, case):
    # grad's argnums past the positional arguments: the call's family, made otherwise; jit's
    # in_shardings fewer than its arguments: the shapes' words, then the call.
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_CALL
    assert AdviceKind.OTHER in _kinds(failure)[:2]
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_counts_of_a_made_call_and_not_of_an_allocation():
    text, truth = _made("made_errors_blind19", "call_saliency_grad_argnums_one_based")
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.advice_kind) == (truth["kind"], truth["advice"])
    text, truth = _made("made_errors_blind20", "sharding_jit_in_shardings_fewer_than_args")
    (failure, *_) = explain_error(text).failures
    assert _kinds(failure)[:2] == [AdviceKind.FIX_SHAPES, AdviceKind.OTHER]
    # An allocation's bytes are no count of a call's: the memory's own fixes stay second.
    text, truth = _made("made_errors_blind18", "oom_vmap_pair_features")
    (failure, *_) = explain_error(text).failures
    assert AdviceKind.OTHER not in _kinds(failure)[:2]
    assert truth["advice"] in _kinds(failure)[:2]


@pytest.mark.parametrize(
    ("message", "counts"),
    [
        ("requires at least 3 positional arguments ... but got only 2 positional arguments", True),
        ("Mismatched number of outputs from callback. Expected: 1, Actual: 2", True),
        ("a tuple of length equal to the number of positional arguments", True),
        # An array's extent is the shapes' to fix, whatever counts come with it.
        ("got 2 arguments of shapes f32[4,8] and f32[8,4]", False),
        ("Out of memory allocating 2473901162496 bytes.", False),
    ],
)
def test_counts_compared_are_of_no_array(message, counts):
    assert compares_counts(message) is counts


# ---- TensorFlow's XLA on the CPU, and a size drawn at random ----------------------------------


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind17", "tf_specaugment_time_mask_jit"),  # tf.ones of a random width
        ("made_errors_blind21", "tf_cutout_random_patch_size_jit"),
        ("made_errors_blind19", "tf_random_shift_pad_jit"),
    ],
)
def test_tf_on_the_cpu_with_a_size_known_only_at_run_time(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.TF_KNOWN_ISSUE
    assert str(failure.platform) == truth["device"] == "cpu"  # "initialized for platform Host"
    # A Python value first; a size drawn at random cannot be one: its bound, masked, next.
    assert _kinds(failure)[:2] == [AdviceKind.STATIC_ARGS, AdviceKind.FIXED_SIZE]
    assert truth["advice"] in _kinds(failure)[:2]
