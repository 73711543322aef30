"""explain-error round 13 (issue 35): the causes behind the tenth part's misses
(``tests/data/error_logs/fresh10_*``, spent), each rule tested on two wordings: one from the
spent part, one from elsewhere (an older public thread, a library's own text, or another
framework)."""

from __future__ import annotations

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.severity import is_warning_at
from hloscope.devices import Platform
from tests.explain_error_reading import CORPUS, first, spent

# ---- the platform named by a device's repr or TF's XLA device type --------------------------


@pytest.mark.parametrize(
    "text",
    [
        # JAX 0.4.x's repr of its GPU devices, as a multi-host launch prints them (a JAX
        # hello-world on Kubernetes).
        "JAX process 4/32 initialized on jax-hello-world-4\n"
        "JAX global devices:[StreamExecutorGpuDevice(id=0, process_index=0, slice_index=0), "
        "StreamExecutorGpuDevice(id=1, process_index=1, slice_index=1)]\n",
        # and as Hugging Face's Spaces page shows jax.devices() on a T4.
        "JAX devices: [StreamExecutorGpuDevice(id=0, process_index=0)]\n",
        # TF's XLA device type for a GPU in its no-kernel message, quoted cut short (the
        # tenth part's keras RandomRotation thread).
        "(No registered 'ImageProjectiveTransformV3' OpKernel for XLA_GPU_JIT devices ...)\n",
        # and in TF 1.x's wording of the same refusal (a Horovod allreduce in a must-compile
        # function).
        "InvalidArgumentError: No registered 'HorovodAllreduce' OpKernel for XLA_GPU_JIT "
        "devices compatible with node {{node HorovodAllreduce}}\n",
    ],
)
def test_a_gpu_device_repr_or_xla_device_type_names_the_gpu(text):
    assert platform_in_log(text) is Platform.GPU


def test_a_host_cpu_device_repr_beside_them_still_names_no_platform_alone():
    # JAX holds host arrays on a CpuDevice beside any GPU: no sign of where the program ran.
    assert platform_in_log("jax.devices (1 total, 1 local): [CpuDevice(id=0)]\n") is None


@pytest.mark.parametrize(
    "name",
    [
        "fresh10_c_evil_1_brax_mjcf_jax_tree_missing_old_jax",
        "fresh10_a_tf_100865_keras_randomrotation_imageprojectivetransformv3_xla_gpu_jit",
    ],
)
def test_the_spent_logs_that_name_the_gpu_only_so_read_it(name):
    assert spent(name).platform is Platform.GPU


# ---- a debugger's backtrace quoted from one of its middle frames ----------------------------


def test_a_backtrace_pasted_from_its_fourth_frame_is_a_crash_of_the_gpu_compiler():
    failure = spent("fresh10_b_xla_17356_pallas_triton_h100_wgmma_assert")
    assert str(failure.family) == "xla_crash"
    assert failure.advice_kind == "report_bug"
    # the frames' sources are Triton's NVIDIA backend (third_party/nvidia/...)
    assert failure.platform is Platform.GPU
    assert failure.finding.node.startswith("llvm::SmallVectorTemplateCommon")


# jax#29373 (a segfault in jaxlib's metrics code, 2025-06): a gdb backtrace quoted from its
# 36th frame on, the frames jaxlib's own library holds.
_JAX_29373_TAIL = (
    "   from /home/u/test/lib/python3.13/site-packages/jaxlib/libjax_common.so\n"
    "#36 0x00007fff489e161f in PjitFunction_tp_vectorcall () from "
    "/home/u/test/lib/python3.13/site-packages/jaxlib/libjax_common.so\n"
    "#37 0x0000000001a27f2d in _PyEval_EvalFrameDefault ()\n"
    "#38 0x0000000001a0596d in slot_tp_richcompare ()\n"
    "#39 0x0000000001cb6a07 in PyObject_RichCompareBool.warm ()\n"
    "#40 0x0000000000000003 in ?? ()\n"
    "(gdb)\n"
)


def test_a_backtrace_pasted_from_a_later_frame_of_jaxlib_is_a_crash():
    failure = first(_JAX_29373_TAIL)
    assert str(failure.family) == "xla_crash"
    assert failure.finding.node == "PjitFunction_tp_vectorcall"


def test_a_backtrace_is_read_once_from_its_first_frame_not_again_from_each_later_one():
    text = (
        "Thread 1 received signal SIGSEGV, Segmentation fault.\n"
        "#0  0x00007fbb63893850 in xla::HloInstruction::operand(long) const ()\n"
        "   from /venv/lib/python3.11/site-packages/jaxlib/xla_extension.so\n"
        "#1  0x00007fbb63893999 in xla::AlgebraicSimplifierVisitor::HandleDot(xla::"
        "HloInstruction*) () from /venv/lib/python3.11/site-packages/jaxlib/xla_extension.so\n"
        "#2  0x00007fbb63894000 in xla::HloPassPipeline::Run(xla::HloModule*) ()\n"
        "   from /venv/lib/python3.11/site-packages/jaxlib/xla_extension.so\n"
    )
    crashes = [f for f in explain_error(text).failures if str(f.family) == "xla_crash"]
    assert len(crashes) == 1
    assert crashes[0].finding.node == "xla::HloInstruction::operand"


def test_a_numbered_list_of_other_code_is_no_backtrace():
    # A frame-like list whose code is nobody's XLA: no crash read from it.
    text = "#3  0x0000 in my_app::render(int) () from /usr/lib/libmyapp.so\n"
    assert not [f for f in explain_error(text).failures if str(f.family) == "xla_crash"]


# ---- a warning line anywhere in the log, not only on its first line ------------------------


@pytest.mark.parametrize(
    "line",
    [
        # TF's and jaxlib's timestamped glog prefix (the tenth part's LWM thread).
        "2024-02-22 09:24:21.097023: W external/xla/xla/service/gpu/nvptx_compiler.cc:698] "
        "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version",
        # glog's own prefix, as jaxlib's PJRT plugin loader prints it.
        "W0000 00:00:1743049449.558286  647036 pjrt_api.cc:99] PJRT_Api version mismatch",
        # the logging module's
        "WARNING:absl:Tensorflow library not found, tensorflow.io.gfile operations will use "
        "native shim calls.",
    ],
)
def test_a_warning_prefix_is_read_on_any_line_of_the_log(line):
    text = "I0222 09:24:21.054814 140683333334848 xla_bridge.py:660] started\n" + line + "\n"
    assert is_warning_at(text, text.index(line) + 40)
    # the same words at the E level are a failure
    error = line.replace(": W ", ": E ").replace("W0000", "E0000").replace("WARNING:", "ERROR:")
    text = "I0222 09:24:21.054814 140683333334848 xla_bridge.py:660] started\n" + error + "\n"
    assert not is_warning_at(text, text.index(error) + 40)


def test_a_ptxas_warning_before_the_real_error_comes_after_it():
    # LWM: XLA's warning that the driver is older than ptxas, then NCCL's failure.
    failures = explain_error(
        (
            CORPUS / "fresh10_b_lwm_42_nccl_comm_init_rank_internal_error_busid_reduce_scatter.log"
        ).read_text()
    ).failures
    assert failures[0].finding.op == "ncclCommInitRank"
    assert not failures[0].finding.warning
    assert [f.finding.warning for f in failures if f.finding.op == "ptxas"] == [True]


def test_a_driver_warning_before_an_out_of_memory_error_comes_after_it():
    text = (
        "I1206 10:20:31.700000  3709 xla_bridge.py:660] Unable to initialize backend 'tpu'\n"
        "2024-05-01 10:20:31.802999: W external/xla/xla/service/gpu/nvptx_compiler.cc:718] "
        "The NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version "
        "(12.4.131). Because the driver is older than the ptxas version, XLA is disabling "
        "parallel compilation, which may slow down compilation.\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        "to allocate 17179869184 bytes.\n"
    )
    assert str(first(text).family) == "out_of_memory"


# ---- shape polymorphism's undecidable comparison --------------------------------------------

# JAX 0.10.2's own refusal, made in a child process (python poly.py: jax.export.export of a
# function that branches on `x.shape[0] > 3` with a symbolic 'b'), kept as text.
_JAX_0_10_2_INCONCLUSIVE = (
    "Traceback (most recent call last):\n"
    '  File "/tmp/r13/poly.py", line 8, in <module>\n'
    "    export.export(jax.jit(f))(jax.ShapeDtypeStruct((b,), jnp.float32))\n"
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/expor'
    't/_export.py", line 651, in do_export\n'
    "    traced = fun_jit.trace(*args_specs, **kwargs_specs)\n"
    "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/tmp/r13/poly.py", line 5, in f\n'
    "    if x.shape[0] > 3: return x*2\n"
    "       ^^^^^^^^^^^^^^\n"
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/expor'
    't/shape_poly.py", line 859, in __gt__\n'
    "    return not _geq_decision(other, self, lambda: f\"'{self}' > '{other}'\")\n"
    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/expor'
    't/shape_poly.py", line 1197, in _geq_decision\n'
    "    raise InconclusiveDimensionOperation(\n"
    "jax._src.export.shape_poly.InconclusiveDimensionOperation: Symbolic dimension co"
    "mparison 'b' > '3' is inconclusive.\n"
    "This error arises for comparison operations with shapes that\n"
    "are non-constant, and the result of the operation cannot be represented as\n"
    "a boolean value for all values of the symbolic dimensions involved.\n"
    "\n"
)


@pytest.mark.parametrize(
    "text",
    [
        _JAX_0_10_2_INCONCLUSIVE,
        # jax#24730: jax2tf's SavedModel export of a custom gradient, the message indented
        # under TF's own error.
        (
            CORPUS / "fresh10_a_jax_24730_jax2tf_savedmodel_gradient_inconclusive_symbolic_dim.log"
        ).read_text(),
    ],
)
def test_an_inconclusive_symbolic_dimension_comparison_is_an_export_refusal(text):
    failure = first(text)
    assert str(failure.family) == "jax_export"
    assert failure.finding.op == "symbolic dimension comparison"
    assert failure.advice_kind == "other"
    assert "symbolic_shape" in failure.finding.suggestion


def test_the_user_line_of_an_inconclusive_comparison_is_the_branch_on_the_shape():
    assert first(_JAX_0_10_2_INCONCLUSIVE).finding.source == "/tmp/r13/poly.py:5"


# ---- XLA:GPU's peak-buffer list pasted without the report's first lines ---------------------

# SpeedPPI (an AlphaFold-based predictor), a user's notes of a run that ran out of memory: the
# list pasted from inside its eleventh buffer on.
_SPEEDPPI_LIST = (
    "It took 311.3439619541168 s to predict the interaction.\n"
    "\n"
    "######### clullin3 and zswim8 OOM\n"
    "      Entry Parameter Subshape: f32[11,508,2605,49]\n"
    "                ==========================\n"
    "\n"
    "        Buffer 12:\n"
    "                Size: 1.62GiB\n"
    '                Operator: op_name="jit(apply_fn)/jit(main)/alphafold/alphafold_iteration/'
    'distogram_head/add" source_file="/athena/store/SpeedPPI/src/alphafold/model/modules.py" '
    "source_line=1372\n"
    "                XLA Label: fusion\n"
    "                ==========================\n"
)


def test_a_peak_buffer_list_pasted_alone_is_an_out_of_memory_report():
    failure = first(_SPEEDPPI_LIST)
    assert str(failure.family) == "out_of_memory"
    assert failure.memory is not None
    assert [b.size_bytes for b in failure.memory.buffers] == [round(1.62 * 2**30)]
    assert failure.finding.source.endswith("alphafold/model/modules.py:1372")


def test_the_tapir_notebook_s_list_after_a_cudnn_warning_is_a_gpu_out_of_memory():
    failure = spent("fresh10_c_tapnet_48_tapir_500_frames_gpu_oom_notebook")
    assert str(failure.family) == "out_of_memory"
    assert failure.platform is Platform.GPU
    assert len(failure.memory.buffers) >= 5
    # one report, read once from its first listed buffer
    assert (
        len(
            [
                f
                for f in explain_error(
                    (
                        CORPUS / "fresh10_c_tapnet_48_tapir_500_frames_gpu_oom_notebook.log"
                    ).read_text()
                ).failures
                if str(f.family) == "out_of_memory"
            ]
        )
        == 1
    )


def test_a_numbered_list_with_no_size_is_no_memory_report():
    assert not [
        f
        for f in explain_error("Buffer 1:\n  Name: q\nBuffer 2:\n  Name: k\n").failures
        if str(f.family) == "out_of_memory"
    ]


# ---- a Pallas kernel with no lowering on the platform it is written for ---------------------

# jax#18275 (jax 0.4.19 without jax-triton, 2023-10): the same refusal in a later release.
_JAX_18275 = (
    '  File "/opt/jax/jax/_src/interpreters/mlir.py", line 1389, in jaxpr_subcomp\n'
    "    raise NotImplementedError(\n"
    "NotImplementedError: MLIR translation rule for primitive 'pallas_call' not found for "
    "platform cuda\n"
)


@pytest.mark.parametrize(
    "text",
    [
        _JAX_18275,
        (
            CORPUS / "fresh10_b_jaxtriton_219_pallas_call_no_lowering_cuda_head_build.log"
        ).read_text(),
    ],
)
def test_pallas_call_without_a_rule_on_its_own_accelerator_is_a_pallas_backend_missing(text):
    failure = first(text)
    assert str(failure.family) == "pallas"
    assert failure.finding.op == "pallas_call"
    assert failure.platform is Platform.GPU
    assert failure.advice_kind == "install"


@pytest.mark.parametrize(
    ("primitive", "platform", "advice"),
    [
        # a Pallas kernel on the CPU: it runs there only interpreted
        ("pallas_call", "cpu", "replace_op"),
        # a library's own primitive on a GPU (jax-finufft#64): no Pallas backend to install
        ("nufft2", "cuda", "replace_op"),
    ],
)
def test_other_missing_rules_stay_missing_lowerings(primitive, platform, advice):
    failure = first(
        f"NotImplementedError: MLIR translation rule for primitive '{primitive}' not found "
        f"for platform {platform}\n"
    )
    assert str(failure.family) == "missing_lowering"
    assert failure.advice_kind == advice


# ---- no CUDA compiler for XLA:GPU's PTX -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # XLA's own status (stream_executor/cuda's compilation provider), as JAX raises it.
        "jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: No PTX compilation provider is "
        "available. Neither ptxas/nvlink nor nvjtlink is available. As a fallback you can "
        "enable JIT compilation in the CUDA driver via the flag "
        "`--xla_gpu_unsafe_fallback_to_driver_on_ptxas_not_found`. Details: \n",
        # Elixir's EXLA on an RTX 5090, as a project's notes quote it (another framework).
        "RuntimeError: No PTX compilation provider is available\nptxas does not support CC 12.0\n",
        # marin#6636: Levanter's Mosaic GPU kernels on a cluster without ptxas.
        (CORPUS / "fresh10_b_marin_6636_mosaic_gpu_no_ptx_compilation_provider.log").read_text(),
    ],
)
def test_no_ptx_compilation_provider_is_a_missing_cuda_compiler(text):
    failure = first(text)
    assert str(failure.family) == "backend_startup"
    assert failure.finding.op == "ptxas"
    assert failure.platform is Platform.GPU
    assert failure.advice_kind == "install"
    assert "nvidia-cuda-nvcc" in failure.finding.suggestion


# ---- the API a library called with a keyword the installed JAX lacks is the op --------------


@pytest.mark.parametrize(
    ("name", "api"),
    [
        # keras#18943: Keras 3 calls jax.jit(donate_argnames=...) on jax 0.4.11.
        ("fresh10_a_keras_18943_jax_backend_jit_donate_argnames_old_jax", "jit"),
        # optimistix#10: optimistix calls jax.linearize(has_aux=...) on an older jax.
        ("fresh7_a_optimistix_10_linearize_has_aux_old_jax", "linearize"),
    ],
)
def test_the_api_called_with_an_unknown_keyword_is_the_op(name, api):
    failure = spent(name)
    assert str(failure.family) == "jax_call"
    assert failure.finding.op == api
    assert failure.advice_kind == "install"
    # the keyword the installed JAX lacks is still said
    assert f"{api}() no longer takes '" in failure.finding.suggestion


# ---- the op TensorFlow's kernel registry names ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # the tenth part's keras RandomRotation thread, quoted cut short
        (
            "(No registered 'ImageProjectiveTransformV3' OpKernel for XLA_GPU_JIT devices ...)",
            "ImageProjectiveTransformV3",
        ),
        # TF 1.x's NotFoundError for an op with no kernel on the GPU at all
        (
            "NotFoundError: No registered 'NcclAllReduce' OpKernel for GPU devices compatible "
            "with node {{node NcclAllReduce}}",
            "NcclAllReduce",
        ),
    ],
)
def test_the_op_tensorflow_has_no_kernel_of_is_named(text, op):
    assert op_named(text) == op


def test_a_cut_tf2xla_message_names_its_op_from_the_registry_line():
    failure = spent(
        "fresh10_a_tf_100865_keras_randomrotation_imageprojectivetransformv3_xla_gpu_jit"
    )
    assert str(failure.family) == "tf2xla"
    assert failure.finding.op == "ImageProjectiveTransformV3"


# ---- a mesh axis given to two dimensions, whatever the exception's class ---------------------


@pytest.mark.parametrize(
    ("text", "axis"),
    [
        # JAX 0.10.2's own, made in a child process (NamedSharding(mesh, P('x', 'x'))).
        (
            "jax._src.named_sharding.DuplicateSpecError: A single NamedSharding spec "
            "specification can map every mesh axis to at most one positional dimension, but "
            "P('x', 'x') has duplicate entries for `x`\n",
            "x",
        ),
        # EasyDeL#128: an older JAX raised the same as a ValueError.
        (
            (CORPUS / "fresh10_b_easydel_128_namedsharding_duplicate_sp_bias_spec.log").read_text(),
            "sp",
        ),
    ],
)
def test_a_mesh_axis_used_twice_in_a_spec_is_read_once_with_its_axis(text, axis):
    failures = explain_error(text).failures
    assert len(failures) == 1
    assert str(failures[0].family) == "sharding"
    assert failures[0].advice_kind == "mesh_axis"
    assert f"mesh axis '{axis}'" in failures[0].finding.suggestion


# ---- an input of a type the device cannot hold ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # tensorflow#66074: a jit_compile=True identity function called with a string.
        (CORPUS / "fresh10_a_tf_66074_jit_compile_string_input_cannot_copy_to_gpu.log").read_text(),
        # a tf.data pipeline's file list built under a GPU device (a project's comment quotes
        # it, 2019): the same refusal from eager TensorFlow, as a RuntimeError.
        "RuntimeError: Can't copy Tensor with type string to device "
        "/job:localhost/replica:0/task:0/device:GPU:3\n",
    ],
)
def test_a_string_input_copied_to_the_gpu_is_a_known_limit_with_a_dtype_fix(text):
    failure = first(text)
    assert str(failure.family) == "tf_known_issue"
    assert failure.advice_kind == "cast_dtype"
    assert failure.platform is Platform.GPU
    assert failure.device.endswith("device:GPU:0") or failure.device.endswith("device:GPU:3")
    assert "the input's element type is string" in failure.hints
