"""explain-error round 9 (issue 35): the causes behind the sixth blind part's misses, each rule
tested on two wordings: one from the spent part (``tests/data/error_logs/fresh6_*``), one from
elsewhere (an older public thread, another compiler, or TensorFlow 2.21's own error made in a
child process)."""

from __future__ import annotations

import re

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.log import Log, unflatten_tracebacks
from hloscope.analysis.explain_error.user_line import is_users, user_source
from hloscope.analysis.unsupported.findings import Platform
from hloscope.hlo.metadata import StackFrame
from tests.explain_error_reading import CORPUS, first, spent
from tests.test_explain_error_fields import run_jax

# ---- a compiler that takes StableHLO in and has no conversion for an op -----------------------


def test_a_stablehlo_op_another_compiler_cannot_legalize_is_a_missing_lowering():
    # tt-mlir (backticks, the fresh6 log) and IREE's "explicitly marked illegal"
    # (iree-org/iree#13650), a CHLO op; tt-torch's with the op's source line after it.
    iree = (
        "error: failed to legalize operation 'chlo.erf' that was explicitly marked illegal\n"
        'stablehlo.mlir:574:12: note: see current operation: %1562 = "chlo.erf"(%1561) : '
        "(tensor<1x384x4096xf32>) -> tensor<1x384x4096xf32>\n"
    )
    tt_torch = (
        "results/mlir_tests/stable_hlo/aten::round.decimals_0.mlir:3:10: error: failed to "
        "legalize operation 'stablehlo.round_nearest_even'\n"
        "    %0 = stablehlo.round_nearest_even %arg0 : tensor<1x512x512x3xf32>\n"
    )
    failures = [
        spent("fresh6_d_ttmlir_5305_jax_training_legalize_stablehlo_pad"),
        first(iree),
        first(tt_torch),
    ]
    assert [f.finding.op for f in failures] == [
        "stablehlo.pad",
        "chlo.erf",
        "stablehlo.round_nearest_even",
    ]
    for failure in failures:
        assert str(failure.family) == "missing_lowering"
        assert failure.platform is None  # neither compiler is XLA's, nor names a device


def test_a_mosaic_or_tf_op_that_failed_to_legalize_stays_its_own_familys():
    mosaic = "Pallas kernel: error: failed to legalize operation 'tpu.matmul'\n"
    bridge = "error: failed to legalize operation 'tf.XlaSharding'\n"
    assert str(first(mosaic).family) == "pallas"
    assert str(first(bridge).family) != "missing_lowering"


# ---- TF's shape operand known only at run time, however the message is quoted ---------------


# TF 2.21.0's own message (tf.sequence_mask of cumprod'ed lengths under jit_compile=True, made
# in a child process here), node in backticks.
TF221_MUST_BE_CONSTANT = (
    "InvalidArgumentError: Input 1 to node `SequenceMask/Range` with op Range must be a "
    "compile-time constant.\n\n"
    "XLA compilation requires that operator arguments that represent shapes or dimensions be "
    "evaluated to concrete values at compile time. This error means that a shape or dimension "
    "argument could not be evaluated at compile time, usually because the value of the "
    "argument depends on a parameter to the computation, on a variable, or on a stateful "
    "operation such as a random number generator.\n\n"
    "\t [[{{node SequenceMask/Range}}]]\n"
)
# keras-hub#1049: the same message quoted wrapped at 72 columns.
WRAPPED_MUST_BE_CONSTANT = (
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: Input 1 to\n"
    "node `while/transformer_layer_0/cached_multi_head_attention/TensorStridedSliceUpdate`\n"
    "with op TensorStridedSliceUpdate must be a compile-time constant.\n\n"
    "XLA compilation requires that operator arguments that represent shapes\n"
    "or dimensions be evaluated to concrete values at compile time.\n"
)


def test_a_shape_operand_not_constant_is_read_with_or_without_backticks_and_wrapped():
    title = spent("fresh6_d_tf_122057_sequence_mask_range_compile_time_constant")
    tf221 = first(TF221_MUST_BE_CONSTANT)
    wrapped = first(WRAPPED_MUST_BE_CONSTANT)
    assert (title.finding.op, title.finding.node) == ("Range", "SequenceMask/Range")
    assert (tf221.finding.op, tf221.finding.node) == ("Range", "SequenceMask/Range")
    assert wrapped.finding.op == "TensorStridedSliceUpdate"
    assert wrapped.finding.node.endswith("cached_multi_head_attention/TensorStridedSliceUpdate")
    for failure in (title, tf221, wrapped):
        assert str(failure.family) == "tf_known_issue"
        # The fix's first words: pass the size as a Python value (a static argument).
        assert failure.advice_kind == "static_args"
        assert "Python int" in failure.finding.suggestion
    assert len(explain_error(TF221_MUST_BE_CONSTANT).failures) == 1  # its paragraph not again


# TF 2.21.0's own message (tf.zeros sized by tf.linalg.qr's R under jit_compile=True, made in a
# child process here; the custom call's proto cut short).
TF221_VALUE_INFERENCE = (
    "InvalidArgumentError: Dynamic inferencing on custom call goo.gle/debugstr    \n"
    'name: "Qr.1"\n'
    'opcode: "custom-call"\n'
    "custom_call_api_version: API_VERSION_ORIGINAL\n"
    "\twhile evaluating input 0 of Fill operator as a compile-time constant.\n\n"
    "Stack trace for op definition: \n"
    'File "<string>", line 9, in <module>\n'
    'File "<string>", line 7, in h\n\n'
    "\t [[{{node zeros}}]]\n"
    "\ttf2xla conversion failed while converting __inference_h_23[_XlaMustCompile=true]. "
    "[Op:__inference_h_23]\n"
)


def test_a_shape_operand_xla_could_not_evaluate_names_the_op_that_needed_it():
    older = spent("fresh2_a_xla_45839_tf_qr_sequence_mask_constant")  # XLA of 2020
    tf221 = first(TF221_VALUE_INFERENCE)
    assert older.finding.op == "Range"
    assert (tf221.finding.op, tf221.finding.node) == ("Fill", "zeros")
    for failure in (older, tf221):
        assert str(failure.family) == "tf_known_issue"
        assert failure.advice_kind == "static_args"


# ---- a GPU newer than the compiler's LLVM ---------------------------------------------------


def test_a_gpu_llvm_does_not_know_is_a_toolchain_to_install():
    # AF3's Triton on a GB10 (the fresh6 log), triton-windows#93 (an RTX 5090, the warning
    # repeated before ptxas fails), AMDGPU.jl#522 (an AMD GPU's gfx name).
    windows = (
        "'sm_120' is not a recognized processor for this target (ignoring processor)\n"
        * 3
        + "Traceback (most recent call last):\n"
        '  File "E:\\ComfyUI\\python_embeded\\Lib\\site-packages\\triton\\backends\\nvidia\\'
        'compiler.py", line 376, in make_cubin\n'
        "    subprocess.run(ptxas_cmd, check=True, close_fds=False, stdout=flog, stderr=flog)\n"
    )
    amd = "'gfx1100' is not a recognized processor for this target (ignoring processor)\n"
    failures = [
        spent("fresh6_b_ramith_gb10_af3_sm121a_not_recognized"),
        first(windows),
        first(amd),
    ]
    assert [f.finding.op for f in failures] == [
        "LLVM target sm_121a",
        "LLVM target sm_120",
        "LLVM target gfx1100",
    ]
    assert failures[1].occurrences == 3
    for failure in failures:
        assert str(failure.family) == "backend_startup"
        assert failure.advice_kind == "install"
        assert str(failure.platform) == "gpu"


def test_a_cpu_llvm_does_not_know_is_not_a_gpu_toolchain():
    # ispc#221: a CPU name mistyped on a command line.
    text = "'pentryn' is not a recognized processor for this target (ignoring processor)\n"
    assert not any(str(f.family) == "backend_startup" for f in explain_error(text).failures)


# ---- the hosts of a job that did not all start -----------------------------------------------


def test_jax_waiting_for_the_tpu_hosts_is_a_job_to_launch_on_every_host():
    # jax#19971 (a v4-32, jax of early 2024) and the fresh6 discussion (a session on one VM).
    older = (
        "/home/alberta/.local/lib/python3.10/site-packages/jax/_src/xla_bridge.py:146: "
        "UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run "
        "your code on all TPU hosts? See https://jax.readthedocs.io/en/latest/multi_process.html "
        "for more information.\n  warnings.warn(\n"
    )
    for failure in (spent("fresh6_a_ghdisc_jax_20928_tpu_init_60s_all_hosts"), first(older)):
        assert str(failure.family) == "distributed"
        assert failure.advice_kind == "check_hosts"
        assert str(failure.platform) == "tpu"
        assert "--worker=all" in failure.finding.suggestion


def test_the_coordination_services_payload_alone_is_a_job_whose_tasks_did_not_meet():
    # The fresh6 title keeps only the tail of TF's WaitForAllTasks error.
    failure = spent("fresh6_d_tf_98217_mwms_waitforalltasks_one_worker")
    assert (str(failure.family), failure.advice_kind) == ("distributed", "check_hosts")
    assert failure.finding.op == "coordination service"


def test_the_payload_after_a_message_read_from_its_words_is_not_read_again():
    # JAX's multi-process guide: the RPC's name read, its payload on the same line not again.
    text = (
        "absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending "
        "heartbeats):\n   /job:jax_worker/replica:0/task:3\n   The tasks have crashed. Check "
        "the task logs for an earlier error.\n\n   RPC: /tensorflow.CoordinationService/"
        "PollForError [type.googleapis.com/tensorflow.CoordinationServiceError='']\n"
    )
    failures = explain_error(text).failures
    assert [f.finding.op for f in failures] == ["coordination service PollForError"]


# ---- the device a log names indirectly -------------------------------------------------------


def test_nvidias_llvm_intrinsics_and_a_triton_kernels_decorator_are_gpu_signs():
    # AF3's Triton kernels on a GB10 (fresh6, two logs), fish-speech#907 (torch's Triton on an
    # RTX 5090), triton#566 (Triton's older frontend wording).
    for name in (
        "fresh6_b_ramith_gb10_af3_llvm_cannot_select",
        "fresh6_b_ramith_gb10_af3_triton_semantic_api",
    ):
        assert str(spent(name).platform) == "gpu"
    fish = "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n"
    assert str(first(fish).platform) == "gpu"
    older = (
        "ValueError: Did you forget to add @triton.jit ? (`_builder` argument must be provided "
        "outside of JIT functions.)\n"
    )
    assert platform_in_log(older) is Platform.GPU
    assert platform_in_log("LLVM ERROR: Cannot select: X86ISD::VPERMV3\n") is not Platform.GPU


def test_a_failed_cuinit_is_no_sign_of_a_gpu():
    # MaxText on a TPU v6e slice (fresh6: the CUDA plugin probed on a TPU host) and
    # tensorflow#37689 (a machine without a GPU, "spurious error").
    maxview = (CORPUS / "fresh6_b_maxview_maxtext_tpu_v6e_cuinit_harmless.log").read_text()
    assert platform_in_log(maxview) is Platform.TPU
    cpu_only = (
        "2020-03-18 08:16:50.221103: W tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:55] Could not load dynamic library 'libnvinfer.so.6'\n"
        "2020-03-18 08:16:50.512345: E tensorflow/stream_executor/cuda/cuda_driver.cc:351] "
        "failed call to cuInit: UNKNOWN ERROR (303)\n"
    )
    assert platform_in_log(cpu_only) is None


# ---- a framework that found no device it was built for --------------------------------------


def test_vllm_finding_no_device_it_was_built_for_is_an_install():
    # vLLM on a TPU VM with a torch_xla nightly that does not load (fresh6, behind vLLM's
    # "ERROR <date> engine.py:387]" prefix) and ai-dynamo/dynamo#391 (vLLM in a GPU container,
    # Python 3.12's carets; fixed by installing pynvml).
    dynamo = (
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/arg_utils.py", line 1074, '
        "in create_engine_config\n"
        "    device_config = DeviceConfig(device=self.device)\n"
        "                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/config.py", line 1626, in __init__\n'
        '    raise RuntimeError("Failed to infer device type")\n'
        "RuntimeError: Failed to infer device type\n"
    )
    tpu = spent("fresh6_d_vllm_12451_xla_nightly_failed_infer_device")
    gpu = first(dynamo)
    for failure in (tpu, gpu):
        assert (str(failure.family), failure.advice_kind) == ("backend_startup", "install")
        assert failure.finding.op == "device type"
        assert failure.platform is None  # neither log says which device it looked for
    assert gpu.occurrences == 1  # the raise statement's source line is no second message


# ---- the user's line: a checkout of a framework that runs the user's code --------------------


def test_a_torchax_checkout_is_no_users_code():
    # torchax run from its pytorch/xla checkout (fresh6) and installed (vllm-project/
    # tpu-inference#76, the user's runner first).
    checkout = spent("fresh6_b_hfblog_qihqi03_torchax_staticcache_abstract_array")
    assert checkout.finding.source.endswith("jax-huggingface/jax_hg_03.py:177")
    installed = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/commons/tpu_commons/tpu_commons/runner/tpu_torchax_runner.py", '
        "line 1627, in select_hidden_states\n"
        "    return hidden_states[indices_do_sample]\n"
        '  File "/home/u/miniconda3/envs/commons/lib/python3.11/site-packages/torchax/'
        'tensor.py", line 111, in __torch_dispatch__\n'
        "    raise AssertionError(\n"
        "AssertionError: torchax Tensors can only do math within the torchax environment.\n"
    )
    frames = [StackFrame(f, int(n), "") for f, n in _FRAMES.findall(installed)]
    assert [is_users(f) for f in frames] == [True, False]
    in_checkout = StackFrame("/home/u/pytorch/xla/torchax/torchax/interop.py", 220, "call_jax")
    assert not is_users(in_checkout)


_FRAMES = re.compile(r'File "([^"]+)", line (\d+)')


# ---- PyTorch/XLA handed a tensor that is not on its device -----------------------------------


def test_an_operand_left_off_the_xla_device_is_one_to_move_there():
    # A convolution's weight left on the CPU (fresh6, pytorch/xla#8532) and a Neuron trace's
    # CPU tensor (aws-neuron/aws-neuron-sdk#901, the older C++ type name).
    neuron = (
        "RuntimeError: torch_xla/csrc/aten_xla_bridge.cpp:102 : Check failed: xtensor: Input "
        "tensor is not an XLA tensor: CPUFloatType\n"
    )
    cpu_weight = spent("fresh6_d_ptxla_8532_conv_weight_not_xla_tensor")
    neuron_failures = [f for f in explain_error(neuron).failures if str(f.family) == "sharding"]
    assert neuron_failures, "the check's own message read"
    for failure, kind in ((cpu_weight, "torch.FloatTensor"), (neuron_failures[0], "CPUFloatType")):
        assert failure.advice_kind == "same_devices"
        assert kind in failure.finding.suggestion
        assert "model.to(xm.xla_device())" in failure.finding.suggestion


def test_a_check_whose_message_another_family_reads_gives_way_to_it():
    # The Neuron wording above: torch_xla's CHECK(xtensor) << "Input tensor is not ...", all
    # on one line; a check whose message no family reads stays XLA's crash (tt-xla#5021's
    # "Unknown device SPMD:0", the fifth part).
    neuron = (
        "RuntimeError: torch_xla/csrc/aten_xla_bridge.cpp:102 : Check failed: xtensor: Input "
        "tensor is not an XLA tensor: CPUFloatType\n"
    )
    assert [str(f.family) for f in explain_error(neuron).failures] == ["sharding"]
    spmd = spent("fresh5_b_ttxla_5021_unknown_device_spmd0")
    assert (str(spmd.family), spmd.advice_kind) == ("xla_crash", "report_bug")


# ---- a program XLA could not bring under the device's memory ---------------------------------


def test_an_allocation_after_rematerialization_fell_short_is_the_programs_size():
    # AlphaFold 3 on OSC's GPUs (fresh6) and GraphCast on a V100 (google-deepmind/weathernext#7);
    # the fourth part's AF3 log too, its traceback after the runtime's line.
    weathernext = (
        "2023-09-15 15:37:29.263873: W external/xla/xla/service/hlo_rematerialization.cc:2202] "
        "Can't reduce memory use below 23.81GiB (25567444992 bytes) by rematerialization; only "
        "reduced to 86.14GiB (92489619062 bytes), down from 95.71GiB (102770769072 bytes) "
        "originally\n"
        "2023-09-15 15:37:48.396554: W external/tsl/tsl/framework/bfc_allocator.cc:485] "
        "Allocator (GPU_0_bfc) ran out of memory trying to allocate 85.87GiB (rounded to "
        "92198188544)requested by op\n"
        "2023-09-15 15:37:48.404245: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2593]"
        " Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 92198188384 bytes.\n"
    )
    af3 = spent("fresh4_a_af3_213_oom_47gib_single_gpu")
    for failure in (spent("fresh6_b_osc_af3_gpu_oom_rematerialization"), first(weathernext), af3):
        assert str(failure.family) == "out_of_memory"
        assert str(failure.platform) == "gpu"
        kinds = [failure.advice_kind, *(k for k, _ in failure.more_advice)]
        assert "bigger_device" in kinds[:2]
    assert af3.finding.source.endswith("run_alphafold_exit.py:674")


def test_an_allocation_after_a_limit_xla_did_not_know_stays_the_runtimes():
    # jax#27354: rematerialization "below 0B", no limit known; the allocator's failure is read
    # as the runtime's, as before.
    assert str(spent("jax_27354_bfc_tib").family) == "device_allocation"


# ---- a traceback whose line breaks were lost -------------------------------------------------


def test_a_traceback_flattened_onto_one_line_reads_as_python_printed_it():
    # A Hugging Face Space's start-up failure ("Reason: Traceback ... File ...", fresh6) and a
    # Flask app's traceback pasted on one line in a deployment guide (a K3s backend image).
    space = spent("fresh6_a_hfspaces_dallemini_jaxlib_newer_than_jax")
    assert (str(space.family), space.advice_kind) == ("backend_startup", "install")
    assert space.finding.source == "app.py:15"
    flask = (
        'Traceback (most recent call last): File "/app/main.py", line 13, in <module> '
        'db.init_app(app) File "/usr/local/lib/python3.7/site-packages/flask_sqlalchemy/'
        "extension.py\", line 256, in init_app \"A 'SQLAlchemy' instance has already been "
        "registered on this Flask app.\" RuntimeError: A 'SQLAlchemy' instance has already "
        "been registered on this Flask app."
    )
    text = unflatten_tracebacks(flask)
    assert text.splitlines()[-1].startswith("RuntimeError: A 'SQLAlchemy' instance")
    log = Log(text)
    stack = log.traceback_before(text.index("RuntimeError: A"))
    assert [(f.file.rsplit("/", 1)[-1], f.line) for f in stack] == [
        ("extension.py", 256),
        ("main.py", 13),
    ]
    assert user_source(stack) == "/app/main.py:13"
    printed = 'Traceback (most recent call last):\n  File "/app/main.py", line 13, in <module>\n'
    assert unflatten_tracebacks(printed) == printed  # as Python prints it: left alone


def test_devices_a_message_lists_as_options_are_no_sign_of_the_device():
    # accelerate under transformers on a TPU VM (fresh6) and PyTorch's device-string parser
    # (its list of every device type it accepts, "tpu" refused).
    hf = (CORPUS / "fresh6_d_hftransformers_34176_tpu_no_available_devices_445.log").read_text()
    torch = (
        "RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
        "ve, fpga, ort, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at "
        "start of device string: tpu\n"
    )
    assert platform_in_log(hf) is None
    assert platform_in_log(torch) is None
    assert explain_error(hf).failures[0].platform is None


# ---- an op's kernel refusing an element type -------------------------------------------------


# TF 2.21.0's own message (tf.sequence_mask of float16 lengths under jit_compile=True, made in a
# child process here).
TF221_INVALID_TYPE = (
    "InvalidArgumentError: Invalid type for Range half\n\n"
    "Stack trace for op definition: \n"
    'File "<string>", line 17, in <module>\n'
    'File "<string>", line 15, in g\n\n'
    "\t [[{{node SequenceMask/Range}}]]\n"
    "\ttf2xla conversion failed while converting __inference_g_28[_XlaMustCompile=true]. "
    "[Op:__inference_g_28]\n"
)


def test_a_kernel_refusing_an_element_type_is_a_cast_to_make():
    # The fresh6 title, TF 2.21's own message, and XLA:GPU's Cholesky thunk in XLA's type names
    # (cholesky_thunk.cc: InvalidArgument("Invalid type for cholesky %s", ...)).
    xla = "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Invalid type for cholesky F16\n"
    failures = [
        spent("fresh6_d_tf_122049_sequence_mask_range_half"),
        first(TF221_INVALID_TYPE),
        first(xla),
    ]
    assert [(f.finding.op, f.finding.dtype) for f in failures] == [
        ("Range", "half"),
        ("Range", "half"),
        ("cholesky", "f16"),
    ]
    for failure in failures:
        assert (str(failure.family), failure.advice_kind) == ("xla_status", "cast_dtype")
    # Other programs' "Invalid type for ..." (a validator's parameter) are not read.
    assert not explain_error("ValueError: Invalid type for parameter x\n").failures


# ---- a wrapped function called with keywords it cannot bind ----------------------------------


def test_keyword_only_arguments_of_a_wrapped_function_are_a_call_to_fix(tmp_path):
    # Flax NNX's vmap of a LayerNorm with its keyword-only mask (fresh6, the older bare
    # words) and JAX 0.10.2's own custom_jvp, run here (the newer words name the keyword).
    older = spent("fresh6_c_flax_4570_nnx_vmap_layernorm_kwargs_positions")
    stderr = run_jax(
        tmp_path / "kwonly.py",
        """
        import jax
        import jax.numpy as jnp

        @jax.custom_jvp
        def f(x, *, mask=None):
            return x

        f.defjvp(lambda primals, tangents: (primals[0], tangents[0]))
        f(jnp.ones(2), mask=None)
        """,
    )
    newer = first(stderr)
    for failure in (older, newer):
        assert (str(failure.family), failure.finding.op) == ("jax_call", "keyword arguments")
        assert "keyword-only" in failure.finding.suggestion
    assert "(mask)" in newer.finding.suggestion
    assert newer.finding.source.endswith("kwonly.py:10")


# ---- an IPython traceback whose message was cut ----------------------------------------------


# JAX's own tutorial (jit: control flow), its notebook output quoted as far as the frames.
JAX_DOCS_CUT = """\
    ---------------------------------------------------------------------------
    TracerBoolConversionError                 Traceback (most recent call last)
    Cell In[4], line 9
          5   else:
          6     return -4 * x
          7
          8 # This will fail!
    ----> 9 f(2)

        [... skipping hidden 5 frame]

    Cell In[4], line 3, in f(x)
          1 @jit
          2 def f(x):
    ----> 3   if x < 3:
          4     return 3. * x ** 2

        [... skipping hidden 1 frame]

    File ~/checkouts/readthedocs.org/user_builds/jax/envs/latest/lib/python3.12/site-pac"""


def test_a_tracer_errors_class_in_ipythons_header_names_a_cut_message():
    # PennyLane's qml.exp under jit (fresh6: cut inside PennyLane's frames) and JAX's tutorial.
    for failure in (spent("fresh6_d_pennylane_6932_qml_exp_jit_tracer_bool"), first(JAX_DOCS_CUT)):
        assert str(failure.family) == "jax_tracing"
        assert failure.finding.op == "TracerBoolConversionError"
        kinds = [failure.advice_kind, *(k for k, _ in failure.more_advice)]
        assert kinds == ["lax_control_flow", "static_args"]
    assert first(JAX_DOCS_CUT).finding.source == "Cell In[4]:3"
    whole = (
        JAX_DOCS_CUT
        + "ackages/jax/_src/core.py:1945, in concretization_function_error.<locals>.error\n\n"
        "TracerBoolConversionError: Attempted boolean conversion of traced array with shape "
        "bool[].\n"
    )
    failures = explain_error(whole).failures
    assert len(failures) == 1  # the message read from its words, the header not again
    assert "Attempted boolean conversion" in failures[0].message


def test_a_library_checkout_called_from_the_users_cell_is_not_the_users_line():
    # PennyLane run from its source checkout (~/Prog/pennylane/pennylane/...) by a notebook
    # cell (fresh6): the cell is the line to fix.
    assert spent("fresh6_d_pennylane_6932_qml_exp_jit_tracer_bool").finding.source == (
        "Cell In[8]:6"
    )
    # A project checked out the same way (GitHub Actions: /home/runner/work/REPO/REPO/) whose
    # own frames are all inside it keeps its innermost one.
    ci = [
        StackFrame("/home/runner/work/proj/proj/src/model.py", 41, "step"),
        StackFrame("/home/runner/work/proj/proj/tests/test_model.py", 12, "test_step"),
        StackFrame(
            "/opt/hostedtoolcache/Python/3.11.9/x64/lib/python3.11/site-packages/_pytest/python.py",
            159,
            "pytest_pyfunc_call",
        ),
    ]
    assert user_source(ci) == "/home/runner/work/proj/proj/src/model.py:41"


# ---- the executable whose run failed ---------------------------------------------------------


def test_the_executable_a_runtime_error_is_tagged_with_is_its_node():
    # NetKet's jit_equal whose CUDA graph could not be built (fresh6) and a Gemma fine-tune's
    # NCCL all-reduce under jit_greater (a cluster's notes, the message wrapped).
    nccl = (
        "jax.errors.JaxRuntimeError: INTERNAL: NCCL operation ncclAllReduce(...) failed:\n"
        "invalid argument (run with NCCL_DEBUG=WARN for details). "
        "[executable_name='jit_greater']\n"
    )
    assert spent("fresh6_d_netket_2248_cuda_graph_memset_jit_equal").finding.node == "jit_equal"
    assert first(nccl).finding.node == "jit_greater"
