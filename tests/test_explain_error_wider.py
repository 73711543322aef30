"""explain-error on the wordings of wider frontends and runtimes (issue 35, round 6): each rule
learnt from a spent fresh4 log is tested on that wording and on one from another source (an
older thread, another framework, or JAX's own error in a child)."""

from __future__ import annotations

import pytest

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.unsupported import Platform
from tests.raised_errors import cases_of


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


@pytest.mark.parametrize(
    ("text", "graph"),
    [
        # TF 2.19: no graph named, the reason on the next line (tensorflow#99385, fresh4).
        (
            "InvalidArgumentError: Detected unsupported operations when trying to compile graph "
            "on XLA_GPU_JIT: CudnnRNNV3\n(No registered 'CudnnRNNV3' OpKernel for XLA_GPU_JIT "
            "devices)\n",
            None,
        ),
        # Keras 3's words with the graph (keras-team/keras#18456, an older thread).
        (
            "Detected unsupported operations when trying to compile graph __inference_one_step_"
            "on_data_993[] on XLA_GPU_JIT: CudnnRNNV3 (No registered 'CudnnRNNV3' OpKernel for "
            "XLA_GPU_JIT devices compatible with node {{node CudnnRNNV3}}){{node CudnnRNNV3}}\n",
            "one_step_on_data",
        ),
    ],
)
def test_tensorflows_unsupported_op_is_read_with_or_without_its_graph(text, graph):
    failures = explain_error(text).failures
    assert len(failures) == 1
    failure = failures[0]
    assert (failure.family, failure.finding.op) == (Family.TF2XLA, "CudnnRNNV3")
    assert failure.platform == Platform.GPU
    assert (failure.graph.name if failure.graph else None) == graph


_LEAK = """
import sys, traceback
import jax

kept = []


def keeps_its_argument(x):
    kept.append(x)
    return x + 1


def leak():
    with jax.checking_leaks():
        jax.jit(keeps_its_argument)(1.0)
"""


def test_the_leak_checkers_words_are_a_leaked_tracer(tmp_path):
    # pytest's summary of NumPyro's suite under JAX_CHECK_TRACER_LEAKS (numpyro#1981, fresh4).
    summary = only(
        "FAILED test/infer/test_autoguide.py::test_autosldais - Exception: Leaked trace "
        "MainTrace(1,DynamicJaxprTrace). Leaked tracer(s):\n"
    )
    assert (summary.family, summary.advice_kind) == (Family.JAX_TRACING, "no_leaked_tracer")
    # JAX 0.10.2's own words in a child: the function whose trace leaked, in the user's file.
    program, found = cases_of(tmp_path / "leaks.py", _LEAK)
    failure = only(found["leak"])
    assert (failure.family, failure.advice_kind) == (Family.JAX_TRACING, "no_leaked_tracer")
    assert failure.finding.function == "keeps_its_argument"
    assert failure.finding.source.startswith(f"{program}:")


@pytest.mark.parametrize(
    "text",
    [
        # libtpu newer than jaxlib, aborting a GraphCast notebook (weathernext#185, fresh4).
        "pjrt_c_api_helpers.cc:258: Unexpected PJRT_Plugin_Attributes_Args size: expected 32, "
        "got 24. The plugin is likely built with a later version than the framework. This "
        "plugin is built with PJRT API version 0.75\n",
        # A Colab CUDA plugin of another JAX release (a public project's notes on it).
        "JaxRuntimeError: INVALID_ARGUMENT: Unexpected PJRT_FFI_UserData_Add_Args\nsize: "
        "expected 48, got 40. The plugin is likely built with a later version\nthan the "
        "framework.\n",
        # An option the plugin does not know (ai-foundations#9, fresh4).
        "XlaRuntimeError: INVALID_ARGUMENT: Unexpected option name passed to "
        "PJRT_Client_Create: use_tfrt_\n",
    ],
)
def test_the_pjrt_c_apis_refusals_are_a_plugin_of_another_release(text):
    failure = only(text)
    assert failure.family == Family.BACKEND_STARTUP
    assert failure.advice_kind == "install"
    assert failure.platform is None  # no device named: no guess


@pytest.mark.parametrize(
    "text",
    [
        # torch_xla's libtpu older than the jax writing the kernel (pytorch/xla#9614, fresh4).
        "ValueError: Failed to deserialize the Mosaic module: INTERNAL: Unsupported version: "
        "expected <= 7 but got 8\n",
        # The same in a bare status, no class (a public Colab notebook's notes on Colab's pin).
        "Failed to deserialize the Mosaic module: Unsupported version: expected <= 7 but got 8\n",
    ],
)
def test_a_mosaic_module_of_a_newer_version_is_a_jax_libtpu_pair_to_install(text):
    failure = only(text)
    assert (failure.family, failure.advice_kind) == (Family.PALLAS, "install")


@pytest.mark.parametrize(
    ("text", "op", "advice"),
    [
        # A kernel's DMA past its buffer, under Ray's prefixes (marin#1886, fresh4).
        (
            "(pid=14407) ERROR :: Error in chat completion: INTERNAL: Core halted unexpectedly: "
            "INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device "
            "check-failure. Node 0 halted unexpectedly at tag:pc TensorCoreSequencer:2:0x4828 "
            "(from TensorCoreSequencer:2:0x8ff8): BoundsCheck 4 [deref of %s140] for %151 = "
            "dma.hbm_to_vmem [thread:$0]\n(pid=14407) hlo: ragged_paged_attention.64\n"
            "(pid=14407) HLO: ragged_paged_attention.64, while.107; HLO computation: main\n",
            "ragged_paged_attention.64",
            "report_bug",
        ),
        # Hosts out of step (Cloud TPU's troubleshooting page, error code 03xx).
        (
            "XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator device "
            "halted prematurely, perhaps due to an on-device check-failure. Node 0 halted "
            "unexpectedly at tag:pc TensorCoreSequencer:1:0x175 (from TensorCoreSequencer:1:"
            "0x21f): scheckne: \n***************\nAn unexpected peer shows up in the launch group "
            "with a different launch id than the current group leader.\n",
            "TPU core halt",
            "check_hosts",
        ),
        # A Pallas kernel's own pl.debug_check (JAX's Pallas TPU documentation).
        (
            "E1001 15:22:33.275768    4353 real_program_continuator.cc:1350] 0x0x0_TC0: "
            "generic::internal: Core halted unexpectedly: INTERNAL: Accelerator device halted "
            "prematurely, perhaps due to an on-device check-failure. Node 0 halted unexpectedly "
            "at tag:pc TensorCoreSequencer:1:0x169 (from TensorCoreSequencer:1:0x213): Check x > "
            "y failed HLO: main; HLO computation: main.3\n",
            "main",
            "report_bug",
        ),
    ],
)
def test_a_tpu_core_halted_by_an_on_device_check(text, op, advice):
    failures = explain_error(text).failures
    assert len(failures) == 1
    failure = failures[0]
    assert (failure.family, failure.platform) == (Family.XLA_CRASH, Platform.TPU)
    assert (failure.finding.op, failure.advice_kind) == (op, advice)


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # Reactant.jl called with a partial last batch (Lux.jl#1317, fresh4).
        (
            "ERROR: INVALID_ARGUMENT: Executable expected shape f64[256,4]{1,0} for argument 0 "
            "but got incompatible shape f64[16,4]{1,0}\n\nStacktrace:\n  [1] reactant_err(msg::"
            "Cstring)\n    @ Reactant.XLA ~/.julia/packages/Reactant/zl31G/src/xla/Utils.jl:12\n",
            "argument 0",
        ),
        # Zig's zml (zml#170), glog's line repeated per replica.
        (
            "E0125 15:22:55.460935 1310419 pjrt_stream_executor_client.cc:3086] Execution of "
            "replica 0 failed: INVALID_ARGUMENT: Executable expected shape u32[1,256]{1,0} for "
            "argument 291 but got incompatible shape u32[256]{0}\n",
            "argument 291",
        ),
        # Older XLA's words under Elixir's EXLA (elixir-nx/nx#1471).
        (
            "** (RuntimeError) Executable expected parameter 2 of size 1 but got buffer with "
            "incompatible size 2\n    (exla 0.7.1) lib/exla/executable.ex:123: "
            "EXLA.Executable.unwrap!/1\n",
            "argument 2",
        ),
    ],
)
def test_an_executable_called_with_another_shape_is_a_call_of_a_fixed_size(text, op):
    failure = only(text)
    assert (failure.family, failure.finding.op) == (Family.JAX_CALL, op)
    assert failure.advice_kind == "fixed_size"


def test_a_bare_status_in_a_log_of_another_frontend_of_xla_is_xlas():
    # Reactant.jl quoting the module it handed XLA, then XLA's bare status (Reactant#2677,
    # fresh4): a log of a program that ran XLA, though no word of JAX is in it.
    failure = only(
        "\u250c Error: Compilation failed, MLIR module written to /tmp/reactant_ePDSqc/m.mlir\n"
        "ERROR: LoadError: module @reactant_f attributes {mhlo.num_partitions = 1 : i64} {\n"
        "  func.func @main(%arg0: tensor<16xf32>) {\n    return\n  }\n}\n"
        "NOT_FOUND: Cannot find key: sm_89\n"
    )
    assert failure.family == Family.XLA_STATUS
    # The same status alone, in a log with no sign of XLA, is not this tool's to explain.
    assert not explain_error("NOT_FOUND: Cannot find key: sm_89\n").failures


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # Reactant's module with an operand id missing (Reactant#1170, fresh4).
        (
            "E0000 00:00:1744468941.340699  734898 status_macros.cc:57] INTERNAL: RET_CHECK "
            "failure (external/xla/xla/hlo/ir/hlo_instruction.cc:361) absl::c_all_of(proto."
            "operand_ids(), [&](int64_t id) { return instruction_map.contains(id); }) "
            "compare.5758 instruction contains invalid operand id(s)\n",
            "compare.5758",
        ),
        # The sibling check in XLA's hlo_instruction.cc, its message as the source builds it
        # (`proto.name() << " instruction references invalid computation id(s)"`).
        (
            "INTERNAL: RET_CHECK failure (xla/hlo/ir/hlo_instruction.cc:365) absl::c_all_of("
            "proto.called_computation_ids(), [&](int64_t id) { return computation_map.contains"
            "(id); }) while.12 instruction references invalid computation id(s)\n",
            "while.12",
        ),
        # A condition naming no instruction keeps the check's own name (tensorflow#46614).
        (
            "F0212 16:11:17.079444    7826 shape_util.cc:536] Check failed: shape.IsArray() "
            "(f64[6], f64[6])\n*** Check failure stack trace: ***\n",
            "Check failed",
        ),
    ],
)
def test_the_instruction_a_failed_check_names_is_its_op(text, op):
    failure = only(text)
    assert (failure.family, failure.finding.op) == (Family.XLA_CRASH, op)


@pytest.mark.parametrize(
    "text",
    [
        # Newer runtimes give the size in units (event-ssm#3, fresh4).
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
        "1.00GiB.\n",
        # A public note's stress test of a GPU's memory (the status as its script printed it).
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2.00GiB.\n",
    ],
)
def test_the_runtimes_out_of_memory_with_its_size_in_units(text):
    failure = only(text)
    assert failure.family == Family.OUT_OF_MEMORY
    assert failure.memory is not None and failure.memory.requested_bytes in (1 << 30, 2 << 30)


_NNX_MISS = (
    "TRACING CACHE MISS at .../flax/nnx/transforms/transforms.py:623:19 (cond):\n"
    "  never seen function:\n"
    "    true_fn id=17864732047504 defined at .../repro_cond_miss.py:15\n"
    "  but seen another function defined on the same line; maybe the function is\n"
    "  being re-defined repeatedly, preventing caching?\n"
)
_JAX_MISS = (
    "TRACING CACHE MISS at /home/u/code/ml_scratch/compile.py:17:4 (<module>) because:\n"
    "  never seen function:\n"
    "    convert_element_type id=139717684748640 defined at /nix/store/x-python3-3.11.9-env/"
    "lib/python3.11/site-packages/jax/_src/dispatch.py:94\n"
)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # The trace asked for inside flax.nnx.cond: the user's branch (flax#5512, fresh4).
        (_NNX_MISS, "repro_cond_miss.py:15"),
        # Asked for on the user's line, of a function JAX defined: the user's line stays
        # (jax-ml/jax#22281).
        (_JAX_MISS, "compile.py:17"),
    ],
)
def test_a_cache_miss_inside_a_library_points_at_the_users_function(text, line):
    failure = only(text)
    assert failure.family == Family.RECOMPILE
    assert failure.finding.source.endswith(line)


@pytest.mark.parametrize(
    ("probe", "error", "line"),
    [
        # glog's INFO line of JAX's probe before a ptxas refusal (jax-triton#336, fresh4).
        (
            "I0322 18:38:41.512128 140431339419456 xla_bridge.py:895] Unable to initialize "
            "backend 'rocm': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\n",
            "E0322 18:38:41.729012  571093 pjrt_stream_executor_client.cc:3084] Execution of "
            "replica 0 failed: INTERNAL: CustomCall failed: ptxas exited with non-zero error "
            "code 65280, output: ptxas /tmp/t, line 5; fatal   : Unsupported .version 8.4; "
            "current version is '8.3'\n\nTraceback (most recent call last):\n"
            '  File "/home/amax/mcts-code/temp.py", line 61, in <module>\n    app.run(main)\n',
            "temp.py:61",
        ),
        # Python's logging of the same probe (a notebook's output in a public repository).
        (
            "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': module "
            "'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\n",
            "Traceback (most recent call last):\n"
            '  File "/work/fit.py", line 12, in <module>\n    run()\n'
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
            "trying to allocate 1073741824 bytes.\n",
            "fit.py:12",
        ),
    ],
)
def test_an_attribute_a_probed_backend_lacked_is_not_the_failure(probe, error, line):
    failure = only(probe + error)
    assert failure.finding.op != "import jax"
    assert failure.finding.source.endswith(line)


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # A Pallas kernel's VMEM (sglang-jax#408, fresh4).
        (
            "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space "
            "vmem while allocating on stack for %kv_cache_update.1 = bf16[710080,64,128]{2,1,0:"
            "T(8,128)(2,1)} custom-call(%select_n.2, %copy-done.1, %copy-done, %copy.5), "
            'custom_call_target="tpu_custom_call"\n',
            "kv_cache_update",
        ),
        # XLA's own page for error E1001 (its sample message).
        (
            "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack "
            "for %ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel.18 = "
            "bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(...) ...\n",
            "ragged_latency_optimized_all_gather_lhs_contracting_gated_matmul_kernel",
        ),
    ],
)
def test_a_custom_calls_op_is_its_kernels_name_not_custom_call(text, op):
    failure = only(text)
    assert failure.family == Family.OUT_OF_MEMORY
    assert failure.finding.op == op
