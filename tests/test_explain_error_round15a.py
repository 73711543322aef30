"""explain-error round 15a: the eleventh blind part's misses (fresh11, spent), each rule tested
on two wordings: the spent corpus log and another real text (an older thread saved under
``tests/data/family_logs``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from tests.explain_error_reading import CORPUS, first

FAMILY_LOGS = Path(__file__).parent / "data" / "family_logs"


def family_log(name: str) -> str:
    return (FAMILY_LOGS / f"{name}.log").read_text()


def spent_text(name: str) -> str:
    return (CORPUS / f"{name}.log").read_text()


# ---- a C assert() of the compiler stack (MLIR, Shardy) that aborted the process ---------------


@pytest.mark.parametrize(
    "text",
    [
        # tt-xla#679: Shardy's round-trip import asserting on a CallOp's attributes
        spent_text("fresh11_a_ttxla_679_shardy_shard_map_import_assertion_jax061"),
        # tt-xla#55: MLIR's DenseIntOrFPElementsAttr asserting under a conv2d test
        family_log("r15a_ttxla_55_conv2d_mlir_assertion"),
        # xla#22209: MLIR's DenseElementsAttr::getValues asserting on a scatter's constant
        family_log("r15a_xla_22209_scatter_dense_elements_assertion"),
    ],
    ids=["ttxla_679", "ttxla_55", "xla_22209"],
)
def test_a_compiler_assertion_is_a_crash_to_report(text):
    failure = first(text)
    assert str(failure.family) == "xla_crash"
    assert failure.advice_kind == "report_bug"
    assert failure.platform is None
    assert ".c" in failure.finding.node or ".h:" in failure.finding.node  # the assert's file


def test_the_assertion_names_the_function_and_whose_code_it_is():
    failure = first(spent_text("fresh11_a_ttxla_679_shardy_shard_map_import_assertion_jax061"))
    assert "failed in mlir::sdy::ManualComputationPattern::matchAndRewrite" in failure.hints
    assert "Shardy" in failure.finding.suggestion


def test_an_assertion_outside_the_compiler_stack_is_not_xlas():
    text = "python: myext.c:12: compute: Assertion `n > 0' failed.\nAborted (core dumped)\n"
    assert not explain_error(text).recognised


# ---- jax2tf newer than TensorFlow: XlaCallModule's wrapper lacks an argument ------------------


@pytest.mark.parametrize(
    "text",
    [
        # scenic#936: OWL-ViT's export Colab, the single line kept
        spent_text("fresh11_c_scenic_936_owlvit_export_tf_call_module_function_list"),
        # jax#17660: jax2tf's serving example, the message quoted above its traceback
        family_log("r15a_jax_17660_jax2tf_call_module_function_list"),
    ],
    ids=["scenic_936", "jax_17660"],
)
def test_call_module_without_an_argument_is_a_tensorflow_to_upgrade(text):
    failure = first(text)
    assert str(failure.family) == "jax_export"
    assert failure.finding.op == "XlaCallModule"
    assert failure.advice_kind == "install"
    assert "'function_list'" in failure.finding.suggestion


# ---- LLVM's verifier rejecting the IR XLA generated ------------------------------------------


def test_the_llvm_lowering_bug_sentence_alone_is_a_crash_to_report():
    # pytorch/xla#7053: torch.compile(backend="openxla"), only the RET_CHECK's last sentence kept
    failure = first(spent_text("fresh11_c_ptxla_7053_dynamo_openxla_hlo_llvm_ir_lowering_bug"))
    assert str(failure.family) == "xla_crash"
    assert failure.advice_kind == "report_bug"
    assert failure.finding.op == "LLVM IR verifier"
    assert failure.platform is None


def test_the_llvm_verifier_ret_check_names_the_verifier():
    # xla#36845: XLA:GPU's RET_CHECK on llvm::verifyModule, its sentence cut after the colon
    failure = first(family_log("r15a_xla_36845_gpu_invalid_llvm_ir"))
    assert str(failure.family) == "xla_crash"
    assert failure.finding.op == "LLVM IR verifier"
    assert str(failure.platform) == "gpu"
    assert len(explain_error(family_log("r15a_xla_36845_gpu_invalid_llvm_ir")).failures) == 1


# ---- a conversion that ran and refused the op, its reason on the line before -----------------


@pytest.mark.parametrize(
    "text",
    [
        # tt-xla#1639: torch_xla SPMD on a 1x1 mesh, Shardy's import refusing the annotation
        spent_text("fresh11_a_ttxla_1639_spmd_1x1_mesh_custom_sharding_legalize"),
        # tt-xla#1696: the same refusal on torch_xla.sync() twice, under its RuntimeError
        family_log("r15a_ttxla_1696_sdy_conversion_custom_sharding"),
    ],
    ids=["ttxla_1639", "ttxla_1696"],
)
def test_a_conversion_that_refused_the_op_is_the_passs_failure(text):
    failure = first(text)
    assert str(failure.family) == "xla_status"
    assert failure.finding.op == "stablehlo.custom_call"
    assert "expected CustomCallOp with a sharding attribute" in failure.hints


def test_failed_to_legalize_alone_is_still_a_missing_lowering():
    failure = first("error: failed to legalize operation `stablehlo.pad`\n")
    assert str(failure.family) == "missing_lowering"


# ---- tf2xla's one-op refusal with its line wrapped after the graph's name --------------------

# TensorFlow 2.21's own message (tf.raw_ops.ResizeNearestNeighborGrad under
# tf.function(jit_compile=True) on the CPU), the exception's line as it raised it.
_TF_RESIZE_GRAD = (
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: Detected unsupported "
    "operations when trying to compile graph __inference_f_14[_XlaMustCompile=true,config_proto="
    "13561319589895757934,executor_type=11160318154034397263] on XLA_CPU_JIT: "
    "ResizeNearestNeighborGrad (No registered 'ResizeNearestNeighborGrad' OpKernel for "
    "XLA_CPU_JIT devices compatible with node {{node ResizeNearestNeighborGrad}}){{node "
    "ResizeNearestNeighborGrad}}\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # keras#18460 (keras_core): the paste wrapped after "[]" and before "(No registered"
        spent_text("fresh11_c_keras_18460_kerascore_upsampling2d_backprop_xla_cpu_jit"),
        _TF_RESIZE_GRAD,
    ],
    ids=["keras_18460", "tf_2_21"],
)
def test_the_unsupported_op_is_read_whether_or_not_the_line_wraps(text):
    failure = first(text)
    assert str(failure.family) == "tf2xla"
    assert failure.finding.op == "ResizeNearestNeighborGrad"
    assert str(failure.platform) == "cpu"


# ---- llvm_unreachable() in the compiler stack -----------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        # tt-mlir#6897: ttmlir-opt's StableHLO pipeline, with LLVM's stack dump after
        "r15a_ttmlir_6897_elementsattr_unreachable",
        # tt-xla#3109: the same, interleaved with faulthandler's threads under pytest
        "r15a_ttxla_3109_training_unreachable_interleaved",
    ],
)
def test_an_unreachable_in_mlir_is_a_crash_to_report(name):
    failure = first(family_log(name))
    assert str(failure.family) == "xla_crash"
    assert failure.finding.op == "UNREACHABLE"
    assert failure.advice_kind == "report_bug"
    assert "invalid `T` for ElementsAttr::getValues" in failure.finding.suggestion


def test_an_unreachable_outside_the_compiler_stack_is_not_xlas():
    text = "bad state\nUNREACHABLE executed at src/mytool.cpp:40!\nAborted (core dumped)\n"
    assert not explain_error(text).recognised
