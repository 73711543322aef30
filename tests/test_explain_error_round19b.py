"""Round 19b of explain-error: the fields (device, op, user line, advice) the fourteenth blind
part showed wrong, each fix on two wordings: the corpus log and a second text (another
thread's, saved under tests/data/family_logs/ with its URL)."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.log import TF_FRAME
from hloscope.analysis.explain_error.record import Failure
from hloscope.analysis.explain_error.user_line import user_source
from hloscope.analysis.unsupported.findings import Platform
from hloscope.hlo.metadata import StackFrame

DATA = Path(__file__).parent / "data"
ERROR_LOGS = DATA / "error_logs"
FAMILY_LOGS = DATA / "family_logs"


def first(text: str) -> Failure:
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]


def test_tensorflows_tpu_compile_op_sources_are_a_sign_of_a_tpu() -> None:
    # TensorFlow's TPU compile op and its compilation cache log from their own sources
    # (tpu_compile_op_common.cc, tpu_compilation_cache_interface.cc: "TPU host compilation
    # cache miss"): the log ran on a TPU, even where the failing line names no platform
    # (keras-hub#1711's "Aborting compilation early ... Requires 1.31T"; TF#50980's
    # compilation that failed).
    keras = ERROR_LOGS / "fresh14_b_keras_hub_1711_tpu_compile_aborted_requires_1_31t.log"
    failure = first(keras.read_text())
    assert (str(failure.family), failure.platform) == ("out_of_memory", Platform.TPU)
    tf = (FAMILY_LOGS / "r19b_tf_50980_tpu_compile_op_failed.log").read_text()
    assert platform_in_log(tf) == Platform.TPU
    # A Python name that merely holds the words is no such source.
    assert platform_in_log("x = tpu_compile_options\n") is None


def _frames(text: str) -> list[StackFrame]:
    """A Python traceback's frames, innermost first, as the readers take them."""
    found = [TF_FRAME.match(line) for line in text.splitlines()]
    frames = [StackFrame(m["file"], int(m["line"]), m["fn"] or "") for m in found if m]
    return frames[::-1]


def test_a_checkout_keeping_its_package_under_python_is_a_librarys() -> None:
    # Triton's and TVM's repositories keep their Python package under `python/`
    # (~/Downloads/triton/python/triton/runtime/jit.py, ~/Documents/tvm/python/tvm/relax/...):
    # a frame there, called from the user's script outside the checkout, is the library's;
    # the script's line is the user's (jax-triton#123's pallas_test.py:37, TVM#17991's
    # test.py:30).
    name = "fresh14_a_jaxtriton_123_pallas_layer_norm_reduce_lowering_triton_jit_outside_kernel"
    failure = first((ERROR_LOGS / f"{name}.log").read_text())
    assert failure.finding.source is not None
    assert failure.finding.source.endswith("/triton_test/pallas_test.py:37")
    tvm = (FAMILY_LOGS / "r19b_tvm_17991_checkout_python_package.log").read_text()
    assert user_source(_frames(tvm)) == "/home/carla/Documents/test/test.py:30"
    # A project's own `python/` folder holding a package of another name is no checkout.
    own = [StackFrame("/home/u/proj/python/train/step.py", 3, "f")]
    assert user_source(own) == "/home/u/proj/python/train/step.py:3"
