"""Round 16b of explain-error: the fields fresh12 showed wrong, mostly the op, read from what
any message names as the failing op (its instruction, its IR node, its handler), each fix on
two wordings: the corpus's log and a second real text (another thread's)."""

from __future__ import annotations

from round_logs import first, log

from hloscope.analysis.explain_error.catalogue import words_of
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import generic_op, op_named
from hloscope.analysis.unsupported.findings import Platform

# ---- the HLO op a message calls an operation or instruction ----------------------------------


def test_an_op_the_message_calls_an_operation_or_instruction_is_the_op():
    assert first(log("fresh12_c_optimumneuron_364")).finding.op == "dot"
    assert first(log("fresh12_a_enzymejax_789")).finding.op == "PartitionId"
    assert first(log("fresh12_a_nx_1689")).finding.op == "outfeed"
    # jax#740: "RuntimeError: Invalid argument: Cannot infer shape for dot operation: ..."
    assert op_named(log("r16b_jax_740")) == "dot"


def test_an_english_word_before_operation_is_no_op():
    said = "the copy operation did not finish; a complex operation while operation pending"
    assert op_named(said) is None


# ---- the IR node PyTorch/XLA was lowering ------------------------------------------------------


def test_the_node_pytorch_xla_was_lowering_is_the_op():
    assert first(log("fresh12_c_ptxla_9707")).finding.op == "aten::inverse"
    # The check that failed as it lowered, on the line after the exception's.
    assert first(log("fresh12_c_ptxla_5719")).finding.op == "aten::as_strided"
    # pytorch/xla#1634: the node's shape before it, the check on the next line.
    assert first(log("r16b_ptxla_1634")).finding.op == "aten::view"
    # pytorch/xla#9708: 2.9's words, "Error lowering node: [] aten::inverse".
    assert op_named(log("r16b_ptxla_pr9708")) == "aten::inverse"


# ---- an XLA dialect's op in MLIR's generic form ------------------------------------------------


def test_an_xla_dialect_op_in_generic_form_is_the_op():
    assert first(log("fresh12_a_enzymejax_688")).finding.op == "dynamic_update_slice"
    # iree#12576: '%1 = "mhlo.dot_general"(%arg0, %0) {...}' under a type inference error.
    assert generic_op(log("r16b_iree_12576")) == "dot_general"


# ---- the handler of XLA's visitor a check's stack trace shows running --------------------------


def test_the_visitor_handler_a_check_failed_in_names_the_op():
    assert first(log("fresh12_a_reactant_pr1097")).finding.op == "dynamic_update_slice"
    # openxla/xla#47370's CPU emitter: "xla::cpu::IrEmitter::HandleBroadcast()".
    assert op_named(log("fresh4_a_xla_47370")) == "broadcast"


# ---- the instruction a message prints on its line ----------------------------------------------


def test_the_instruction_on_the_messages_line_beats_its_operand_or_its_status():
    # A RET_CHECK printing "%broadcast.6 = s64[16,3]{1,0} broadcast(%constant.341)": the
    # instruction checked, not the operand the condition's words were read from.
    assert first(log("fresh12_a_reactant_1010")).finding.op == "broadcast"
    # "INTERNAL: during context [post-optimization]: Expected instruction ...:" and, on the
    # next line, "%reduce.1107.clone.1 = f32[64,20]{...} reduce(...)": not the status.
    assert first(log("fresh12_c_ptxla_6090")).finding.op == "reduce"


# ---- the Triton lowering rule Pallas raised in -------------------------------------------------


def test_a_triton_lowering_rule_names_the_primitive():
    assert first(log("fresh12_a_jax_19350")).finding.op == "dot_general"
    rule = words_of("hloscope.analysis.explain_error.kinds.pallas")[0].rule
    # jax-triton#123's frame: 'triton_ir_lowering.py", line 646, in _reduce_lowering'.
    assert rule.match("_reduce_lowering")["prim"] == "reduce"


# ---- Julia's crash report names the script's expression ----------------------------------------


def test_julias_expression_starting_at_is_the_user_line():
    source = first(log("fresh12_a_enzymejax_688")).finding.source
    assert source.endswith("sharding/sharded_baroclinic_instability_simulation_run.jl:65")
    # Reactant.jl#406: a Lux example the OOM aborted, "in expression starting at .../main.jl:76".
    assert first(log("fresh2_b_reactant_406")).finding.source.endswith("ConvMixer/main.jl:76")


# ---- the platform a log shows in its structure -------------------------------------------------


def test_a_layout_tiled_to_the_tpus_registers_is_a_tpu():
    assert first(log("fresh12_c_ptxla_6090")).platform == Platform.TPU
    # EasyDeL#166's buffer report: "Shape: f32[32,4096,4096]{1,2,0:T(8,128)}".
    shape = next(line for line in log("easydel_166").splitlines() if ":T(8,128)" in line)
    assert platform_in_log(shape) == Platform.TPU
    # XLA:GPU's own tiles are no sign: "f32[28,1,1]{2,1,0:T(2,128)}".
    assert platform_in_log("%parameter_0 = f32[28,1,1]{2,1,0:T(2,128)} parameter(0)") is None


def test_jax_platforms_set_by_the_program_is_its_platform():
    assert first(log("fresh12_a_jaxfinufft_37")).platform == Platform.CPU
    # openxla/xla#49122: 'os.environ["JAX_PLATFORMS"] = "cpu"' in the reproducer.
    assert platform_in_log(log("r16b_xla_49122")) == Platform.CPU
    # JAX's own advice names none.
    advice = "(you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu"
    assert platform_in_log(advice + " to skip this backend.)") is None


def test_intels_xpu_plugin_is_a_gpu():
    assert first(log("fresh12_b_inteloxla_28")).platform == Platform.GPU
    # intel-extension-for-openxla#37: "registering PJRT plugin xpu from .../pjrt_plugin_xpu.so".
    assert platform_in_log(log("r16b_ioxla_37")) == Platform.GPU


# ---- the node TensorFlow's runtime names ------------------------------------------------------


def test_the_node_tensorflow_names_under_its_error_is_the_op():
    # "Failed to load in-memory CUBIN: CUDA_ERROR_OUT_OF_MEMORY: out of memory" then
    # "[[{{node StatefulPartitionedCall}}]]": the node, not a description of the failure.
    assert first(log("fresh12_b_tf_60607")).finding.op == "StatefulPartitionedCall"
    # AzureML#880: "[[{{node resnet_v1_50/conv1/ExtractImagePatches}}]]", its last part.
    assert op_named(log("azureml_880")) == "ExtractImagePatches"


# ---- a pytree library's map is no line to change ----------------------------------------------

# JAX 0.10.2 (CPU) running, as /tmp/r16b/optree_convert.py:
#   @jax.jit
#   def predict(x):
#       as_numpy = optree.tree_map(np.asarray, {"x": x})
#       return jnp.sum(as_numpy["x"])
#   predict(jnp.ones((4, 2)))
OPTREE_CONVERSION = """\
Traceback (most recent call last):
  File "/tmp/r16b/optree_convert.py", line 13, in <module>
    predict(jnp.ones((4, 2)))
  File "/tmp/r16b/optree_convert.py", line 9, in predict
    as_numpy = optree.tree_map(np.asarray, {"x": x})
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/optree/ops.py", line 798, in \
tree_map
    return treespec.unflatten(map(func, *flat_args))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was \
called on traced array with shape float32[4,2]
The error occurred while tracing the function predict at /tmp/r16b/optree_convert.py:7 for \
jit. This concrete value was not available in Python because it depends on the value of the \
argument x.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_optrees_tree_map_is_no_line_to_change():
    # Keras's predict() converting under jit: optree's tree_map frame between Keras and the
    # user's lippl.py:114.
    source = first(log("fresh12_c_keras_19674")).finding.source
    assert source == "/media/project/inference/lippl.py:114"
    assert first(OPTREE_CONVERSION).finding.source == "/tmp/r16b/optree_convert.py:9"
