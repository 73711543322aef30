"""explain-error round 12 (issue 35): the causes behind the spent parts' family and advice
misses, each rule tested on two wordings: one from a spent part
(``tests/data/error_logs/fresh*_*``), one from elsewhere (XLA's, JAX's or a library's own
source, an older public thread, or another framework)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.explain_error_reading import CORPUS, first, spent


def _family_and_advice(text: str) -> tuple[str, str | None]:
    """The first failure's family and advice kind."""
    read = first(text)
    return str(read.family), read.advice_kind


def _family_advice_op(text: str) -> list[str | None]:
    """The first failure's family, advice kind and op."""
    read = first(text)
    return [str(read.family), read.advice_kind, read.finding.op]


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


# ---- XLA:GPU's own words for LLVM's fatal error --------------------------------------------


def test_xla_gpus_llvm_fatal_error_handler_is_a_compiler_crash():
    # openxla/xla#47982 (fresh3): the reason on the next line, the target an sm_ name.
    failure = spent("fresh3_a_xla_47982_sm107_ptx_version")
    assert (str(failure.family), str(failure.platform), failure.advice_kind) == (
        "xla_crash",
        "gpu",
        "report_bug",
    )
    # The handler's line as XLA's gpu_compiler.cc writes it: module and reason on one line.
    other = first(
        "E0412 10:11:12.345678    1234 gpu_compiler.cc:2021] LLVM Fatal Error while compiling "
        "target binary for module: jit_matmul Reason: Cannot select: intrinsic "
        "%llvm.nvvm.wgmma.fence.sync.aligned\n"
    )
    assert (str(other.family), str(other.platform)) == ("xla_crash", "gpu")
    assert "jit_matmul" in other.finding.node


# ---- a crash after TensorFlow said XLA compiled a cluster ------------------------------------


def test_a_shell_crash_after_tensorflow_compiled_a_cluster_with_xla_is_xlas():
    # openxla/xla#44942 (fresh2): the executable segfaults right after it was compiled.
    failure = spent("fresh2_a_xla_44942_tf_rot90_cumsum_segfault")
    assert (str(failure.family), failure.advice_kind) == ("xla_crash", "report_bug")
    # TensorFlow 2.15's longer line (tensorflow#63209), then the shell's word for an abort.
    other = first(
        "I0000 00:00:1709832534.134273     948 device_compiler.h:186] Compiled cluster using "
        "XLA!  This line is logged at most once for the lifetime of the process.\n"
        " 13/250 [>.............................] - ETA: 3s - loss: 0.7202\n"
        "Aborted (core dumped)\n"
    )
    assert (str(other.family), other.finding.op) == ("xla_crash", "SIGABRT")


def test_a_shell_crash_with_no_sign_of_xla_is_still_not_read():
    from hloscope.analysis.explain_error import explain_error

    text = "Epoch 1/3\nloading the model from disk\nSegmentation fault (core dumped)\n"
    assert not explain_error(text).recognised


# ---- the TPU runtime's words for a halt, where the device's are not printed ----------------


@pytest.mark.parametrize(
    "text",
    [
        # pytorch/xla#8459: a Pallas paged-attention kernel under JAX, on one line.
        "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: The program continuator "
        "has halted unexpectedly.\n",
        # jax#9642: the core's words with no compiler metadata, under JAX's dispatch.
        '  File "/home/u/.local/lib/python3.8/site-packages/jax/_src/dispatch.py", line 444, '
        "in _execute_compiled\n"
        "RuntimeError: INTERNAL: Core halted unexpectedly: No error message available as no "
        "compiler metadata was provided.\n",
        # tensorflow/tpu#785: TF 1.15's TPU estimator, the words alone on their line.
        "ERROR:tensorflow:Error recorded from training_loop: From /job:worker/replica:0/task:0:"
        "\nCore halted unexpectedly:\n",
    ],
)
def test_a_tpu_halt_in_the_runtimes_words_is_a_tpu_crash(text):
    failure = first(text)
    assert (str(failure.family), str(failure.platform), failure.advice_kind) == (
        "xla_crash",
        "tpu",
        "report_bug",
    )


def test_the_runtimes_words_alone_with_no_sign_of_xla_are_not_read():
    from hloscope.analysis.explain_error import explain_error

    assert not explain_error("INTERNAL: Core halted unexpectedly\n").recognised


def test_the_halt_split_over_two_lines_and_the_devices_words_read_once():
    # sglang-jax#1216 (fresh3): the status and the halt on two lines.
    failure = spent("fresh3_b_sglangjax_1216_continuator_halted_cache")
    assert (str(failure.family), str(failure.platform)) == ("xla_crash", "tpu")
    # marin#1886 (fresh4): the core's words then the device's, one failure naming the HLO.
    from hloscope.analysis.explain_error import explain_error

    text = (CORPUS / "fresh4_b_marin_1886_tpu_core_halt_boundscheck.log").read_text()
    failures = explain_error(text).failures
    assert [f.finding.op for f in failures] == ["ragged_paged_attention.64"]


# ---- a kernel's block size that does not divide the dimension it tiles ----------------------


def test_a_block_that_does_not_divide_the_sequence_is_a_kernel_to_give_smaller_blocks():
    # pytorch/xla#8671 (fresh2): JAX's Pallas flash attention under PyTorch/XLA, in ComfyUI's
    # logger, with no Pallas frame in the log.
    failure = spent("fresh2_b_ptxla_8671_flash_block_divisible")
    assert (str(failure.family), failure.advice_kind, failure.finding.op) == (
        "pallas",
        "smaller_blocks",
        "block_k_major",
    )
    assert "(128," in failure.finding.suggestion  # 4992 = 39 x 128
    # The backward pass's check, as another project quotes it (q_seq_len=T+1).
    other = first("ValueError: q_seq_len=8193 should be divisible by block_q_dq=1024\n")
    assert (str(other.family), other.advice_kind) == ("pallas", "smaller_blocks")
    assert "pad q_seq_len to a multiple of 1024" in other.finding.suggestion


def test_sizes_that_divide_or_a_block_without_its_dimension_are_not_read():
    from hloscope.analysis.explain_error import explain_error

    assert not explain_error("note: q_seq_len=8192 should be divisible by block_q=1024\n").failures
    assert not explain_error("the length should be divisible by block_q=128 here\n").failures


# ---- a framework's check that caught operands on two devices ---------------------------------


def test_a_check_comparing_device_types_advises_one_device_first():
    # pytorch/xla#9544 (fresh2): a CUDA tensor where torch_xla wanted a CPU one.
    failure = spent("fresh2_b_ptxla_9544_check_cuda_vs_cpu")
    assert str(failure.family) == "xla_crash"
    assert [failure.advice_kind, *(k for k, _ in failure.more_advice)] == [
        "same_devices",
        "report_bug",
    ]
    # UCSC-VLAA/CLIPA#6: torch_xla's bridge wanting an XLA tensor and given a CPU one.
    other = first(
        "RuntimeError: /pytorch/xla/torch_xla/csrc/aten_xla_bridge.cpp:276 : Check failed: "
        "device.type() == at::kXLA (cpu vs. xla)\n*** Begin stack trace ***\n"
    )
    assert (other.advice_kind, "cpu" in other.finding.suggestion) == ("same_devices", True)


def test_a_check_comparing_other_values_is_still_a_bug_to_report():
    # pytorch/xla#9004: glog's "(a vs. b)" of two numbers.
    failure = first(
        "F0000 00:00:1745001283.205982     796 concurrent_vector.h:70] Check failed: index < "
        "state.size (65534 vs. 10)\n"
    )
    assert (failure.advice_kind, failure.more_advice) == ("report_bug", [])


# ---- Flax NNX's guard against a leaked tracer -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "fresh8_a_flax_3997_nnx_jit_counter_trace_context_error",  # a Count mutated in nnx.jit
        "fresh2_a_flax_5050_tracecontext_merge_grad",  # an RngStream under plain jax.grad
    ],
)
def test_flax_trace_context_error_is_a_leaked_tracer(name):
    failure = spent(name)
    assert (str(failure.family), failure.advice_kind, failure.finding.op) == (
        "jax_tracing",
        "no_leaked_tracer",
        "TraceContextError",
    )


def test_flax_trace_context_error_in_its_rngs_wording():
    # Flax's own test of Rngs under jax.jit (tests/nnx/rngs_test.py).
    failure = first("flax.errors.TraceContextError: Cannot use Rngs from a different trace level\n")
    assert (str(failure.family), failure.advice_kind) == ("jax_tracing", "no_leaked_tracer")
    assert "argument" in failure.finding.suggestion


# ---- a release mismatch met at import, in IPython's traceback ---------------------------------
# (Until 2026-12-07 a mismatch met at import was filed as the start-up; it is a call refused like
# any other since, as the later truths and the families' definitions have it: jax_call.)


def test_a_mismatch_in_an_installed_librarys_import_in_a_notebook_is_a_release_mismatch():
    # blackjax#787 (fresh8): VS Code's notebook, `import blackjax` stops in its __init__.
    failure = spent("fresh8_c_blackjax_787_import_jax_core_shape_removed_jax060_notebook")
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    # jax-md#305 in Jupyter's plain format: IPython names no function for module-level code.
    other = first(
        "AttributeError                            Traceback (most recent call last)\n"
        "Cell In[3], line 3\n"
        "      1 import sys\n"
        "      2 import jax\n"
        "----> 3 import jax_md\n"
        "\n"
        "File ~/anaconda3/envs/lgnn/lib/python3.11/site-packages/jax_md/__init__.py:16\n"
        "     15 # limitations under the License.\n"
        "---> 16 from jax_md import space\n"
        "\n"
        "AttributeError: module 'jax' has no attribute 'linear_util'\n"
    )
    assert (str(other.family), other.advice_kind) == ("jax_call", "install")


def test_the_same_mismatch_in_a_function_ipython_names_is_a_call():
    failure = first(
        "AttributeError                            Traceback (most recent call last)\n"
        "Cell In[4], line 2\n"
        "----> 2 state = md.simulate(x)\n"
        "\n"
        "File ~/envs/lib/python3.11/site-packages/jax_md/simulate.py:40, in simulate(x)\n"
        "---> 40     return jax.tree_map(f, x)\n"
        "\n"
        "AttributeError: module 'jax' has no attribute 'tree_map'\n"
    )
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")


_PYTEST_COLLECTING = (  # pytest's collection frames, as keras#22724 shows them
    "_______ ERROR collecting tests/test_model.py ________\n"
    "ImportError while importing test module '/home/u/proj/tests/test_model.py'.\n"
    "Hint: make sure your test modules/packages have valid Python names.\n"
    "Traceback:\n"
    "/usr/lib/python3/dist-packages/_pytest/python.py:617: in _importtestmodule\n"
    "    mod = import_path(self.path, mode=importmode, root=self.config.rootpath)\n"
    "/usr/lib/python3/dist-packages/_pytest/pathlib.py:567: in import_path\n"
    "    importlib.import_module(module_name)\n"
    "/usr/lib/python3.12/importlib/__init__.py:90: in import_module\n"
    "    return _bootstrap._gcd_import(name[level:], package, level)\n"
    "<frozen importlib._bootstrap>:1387: in _gcd_import\n"
    "    ???\n"
    "tests/test_model.py:3: in <module>\n"
    "    import jax_md\n"
    "/home/u/.venv/lib/python3.12/site-packages/jax_md/__init__.py:16: in <module>\n"
    "    from jax_md import space\n"
    "/home/u/.venv/lib/python3.12/site-packages/jax_md/space.py:20: in <module>\n"
    "    from jax import linear_util as lu\n"
    "E   ImportError: cannot import name 'linear_util' from 'jax' "
    "(/home/u/.venv/lib/python3.12/site-packages/jax/__init__.py)\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # optax#568 (fresh9): pytest collecting a test module that imports an old flax.
        (CORPUS / "fresh9_b_optax_568_pytest_collect_flax053_shapedarray_jax0414.log").read_text(),
        _PYTEST_COLLECTING,
    ],
)
def test_pytests_frames_stop_before_anything_ran_a_release_mismatch(text):
    assert _family_and_advice(text) == ("jax_call", "install")


def test_a_crash_starting_the_backend_stops_before_anything_ran():
    # (A crash while JAX started the backend: see _CUDA_CHECK_SEGFAULT below.)
    # TheRock#4374 (fresh3): the ROCm PJRT client aborts, no ROCm wheel installed.
    text = (CORPUS / "fresh3_b_therock_4374_rocm_wheel_abort.log").read_text()
    assert _family_and_advice(text) == ("backend_startup", "install")


@pytest.mark.parametrize(
    "text",
    [
        # flax#3239 (fresh9): Colab's traceback names a cell's own code <cell line: 2>.
        (
            CORPUS / "fresh9_b_flax_3239_colab_tpu_jax0325_register_pytree_with_keys_class.log"
        ).read_text(),
        # whisper-jax's removed NamedShape, in the same Colab format.
        "AttributeError                            Traceback (most recent call last)\n"
        "<ipython-input-1-3b1f0a2c9d8e> in <cell line: 3>()\n"
        "      1 import jax\n"
        "----> 3 from whisper_jax import FlaxWhisperPipline\n"
        "\n"
        "/usr/local/lib/python3.10/dist-packages/whisper_jax/__init__.py in <module>\n"
        "---> 17 from .layers import FlaxWhisperAttention\n"
        "\n"
        "AttributeError: module 'jax.core' has no attribute 'NamedShape'\n",
    ],
)
def test_an_ipython_cells_own_code_is_module_level(text):
    assert _family_and_advice(text) == ("jax_call", "install")


@pytest.mark.parametrize(
    "text",
    [
        # folx#30 (fresh9): the statement and the error, nothing else.
        (CORPUS / "fresh9_b_folx_30_import_primitive_from_jax_core_jax060.log").read_text(),
        # pertpy#675: the error alone, `import pertpy as pt` in the thread.
        "ImportError: cannot import name 'maps' from 'jax.experimental'\n",
    ],
)
def test_a_failed_import_with_no_frame_shown_is_a_release_mismatch(text):
    assert _family_and_advice(text) == ("jax_call", "install")


def test_an_import_inside_a_function_is_still_a_call():
    failure = first(
        "Traceback (most recent call last):\n"
        '  File "/app/train.py", line 119, in main\n'
        "    mesh = get_mesh()\n"
        '  File "/opt/lib/python3.10/site-packages/haliax/partitioning.py", line 606, in '
        "get_mesh\n"
        "    from jax.experimental.maps import thread_resources\n"
        "ImportError: cannot import name 'thread_resources' from 'jax.experimental.maps'\n"
    )
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")


# ---- a module of JAX's gone from the JAX installed ---------------------------------------------


def test_a_jax_module_gone_is_a_release_mismatch_not_a_missing_package():
    # JAX-Toolbox#962 (fresh9): haliax imports jax.experimental.maps inside a function.
    failure = spent("fresh9_b_jaxtoolbox_962_levanter_image_haliax_experimental_maps_removed")
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "install")
    assert "jax.experimental.maps" in failure.finding.op
    # grok-1#350: the program's own module imports it at its top.
    other = first(
        "Traceback (most recent call last):\n"
        '  File "/home/u/grok-1/run.py", line 17, in <module>\n'
        "    from model import LanguageModelConfig, TransformerConfig\n"
        '  File "/home/u/grok-1/model.py", line 23, in <module>\n'
        "    import jax.experimental.maps\n"
        "ModuleNotFoundError: No module named 'jax.experimental.maps'\n"
    )
    assert (other.advice_kind, other.finding.op) == (
        "install",
        "no module named 'jax.experimental.maps'",
    )
    # jax itself missing is still a package not installed.
    missing = first("ModuleNotFoundError: No module named 'jax'\n")
    assert (str(missing.family), missing.finding.op) == ("backend_startup", "jax")


# ---- XLA's rematerialization that could not bring the program under the limit ---------------


def test_the_remat_warning_alone_is_a_program_over_the_device():
    # mujoco#1431 (fresh8): the error after it cut from the paste; a negative limit.
    failure = spent("fresh8_b_mujoco_1431_mjx_sac_replay_buffer_remat_49g")
    assert (str(failure.family), failure.advice_kind) == ("out_of_memory", "smaller_batch")
    assert "negative limit" in failure.finding.suggestion
    # hlo_rematerialization.cc's warning as AlphaFold 3 users paste it (af3#213), alone.
    other = first(
        "W external/xla/xla/service/hlo_rematerialization.cc:3005] Can't reduce memory use "
        "below 18.88GiB (20266891105 bytes) by rematerialization; only reduced to 41.43GiB "
        "(44490724824 bytes), down from 45.92GiB (49309847144 bytes) originally\n"
    )
    assert (str(other.family), other.advice_kind) == ("out_of_memory", "smaller_batch")
    assert [kind for kind, _ in other.more_advice] == ["bigger_device"]


def test_a_remat_warning_with_no_limit_known_is_not_read():
    from hloscope.analysis.explain_error import explain_error

    text = (
        "W hlo_rematerialization.cc:3021] Can't reduce memory use below 0B (0 bytes) by "
        "rematerialization; only reduced to 1.25TiB (1374389534720 bytes), down from 1.25TiB "
        "(1374389534720 bytes) originally\n"
    )
    assert not explain_error(text).recognised


def test_a_failed_request_after_the_remat_warning_is_the_program_not_the_allocator():
    # ttt-lm-jax#8 (fresh8): StreamExecutor's failed request, then XLA's buffer report.
    failure = spent("fresh8_b_ttt_8_a800_remat_cannot_reduce_108g_request")
    assert (str(failure.family), failure.advice_kind) == ("out_of_memory", "smaller_batch")
    # The same request and XLA's buffer report after it, without the warning (the request and
    # the figures as equinox#737's and XLA's BufferAssignment stats print them).
    other = first(
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request "
        "for 37.40GiB (40160000000B) on device ordinal 0\n"
        "BufferAssignment OOM Debugging.\n"
        "BufferAssignment stats:\n"
        "             parameter allocation:    1.02GiB\n"
        "              constant allocation:       12B\n"
        "        maybe_live_out allocation:    1.02GiB\n"
        "     preallocated temp allocation:   37.40GiB\n"
        "                 total allocation:   39.44GiB\n"
    )
    assert (str(other.family), other.advice_kind) == ("out_of_memory", "smaller_batch")


# ---- a debugger's backtrace whose innermost frame of code is XLA's ---------------------------


_PJRT_PLUGIN_GDB = (
    'Thread 1 "python3" received signal SIGSEGV, Segmentation fault.\n'
    "0x000070bbc79088aa in pjrt::PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args*) () from "
    "/home/t/.venv/lib/python3.11/site-packages/jax_plugins/xla_cuda12/xla_cuda_plugin.so\n"
    "(gdb) bt\n"
    "#0  0x000070bbc79088aa in pjrt::PJRT_Buffer_Memory(PJRT_Buffer_Memory_Args*) () from "
    "/home/t/.venv/lib/python3.11/site-packages/jax_plugins/xla_cuda12/xla_cuda_plugin.so\n"
    "#1  0x000070bbfc490a7a in xla::PjRtCApiBuffer::memory_space() const () from "
    "/home/t/.venv/lib/python3.11/site-packages/jaxlib/xla_extension.so\n"
)


def test_a_gdb_backtrace_in_xlas_compiler_is_xlas_crash():
    # openxla/xla#7155 (fresh8): a segfault in the CollectivePermuteMotion pass.
    failure = spent("fresh8_a_xla_7155_collective_permute_motion_segfault_gdb")
    assert (str(failure.family), failure.advice_kind) == ("xla_crash", "report_bug")
    assert failure.finding.node == "xla::HloInstruction::operand"
    assert "while it compiled" in failure.finding.suggestion
    # keras#21019: the PJRT plugin's frame innermost, after gdb's signal line.
    other = first(_PJRT_PLUGIN_GDB)
    ran = "while the program ran" in other.finding.suggestion
    assert (str(other.family), str(other.platform), ran) == ("xla_crash", "gpu", True)


def test_a_gdb_backtrace_in_another_librarys_code_is_not_xlas():
    from hloscope.analysis.explain_error import explain_error

    # envpool#283: the custom call's own code innermost, XLA's handler only calling it.
    text = (
        "(gdb) bt\n"
        "#0  0x00007fff6856c196 in void AsyncEnvPool<mujoco_gym::HalfCheetahEnv>::SendImpl("
        "std::vector<Array> const&) ()\n"
        "   from /home/y/.venv/lib/python3.10/site-packages/envpool/mujoco/mujoco_gym_envpool.so\n"
        "#1  0x00007fff6856ca18 in CustomCall<AsyncEnvPool>::Gpu(CUstream_st*, void**) ()\n"
        "   from /home/y/.venv/lib/python3.10/site-packages/envpool/mujoco/mujoco_gym_envpool.so\n"
        "#2  0x00007fff70a158e0 in xla::runtime::CustomCallHandler::call() ()\n"
        "   from /home/y/.venv/lib/python3.10/site-packages/jaxlib/xla_extension.so\n"
    )
    assert not [f for f in explain_error(text).failures if str(f.family) == "xla_crash"]


# ---- a serialized module's version in the op kernel's own words --------------------------------


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # perch-hoplite#35 (fresh8): a TensorFlow older than the module's version 10.
        (
            (
                CORPUS / "fresh8_b_perchhoplite_35_xlacallmodule_version_10_tf_too_old.log"
            ).read_text(),
            "upgrade TensorFlow",
        ),
        # The loader's other bound (xla_call_module_loader.cc): a module older than it reads.
        (
            "InvalidArgumentError: XlaCallModuleOp with version 1 is not supported anymore. "
            "Must be >= 2\n",
            "serialize it again with a newer jax",
        ),
    ],
)
def test_xla_call_modules_version_refusal_in_the_kernels_words(text, said):
    assert _family_advice_op(text) == ["jax_export", "install", "XlaCallModule"]
    assert said in first(text).finding.suggestion


# ---- JAX's compile log showing one function traced more than once ----------------------------


_LOOP = """
import jax, jax.numpy as jnp
jax.config.update("jax_log_compiles", True)
def step(x):
    return jnp.sin(x) * 2
for n in (3, 4, 5):
    jax.jit(step)(jnp.ones(n))
raise SystemExit("stopped after the loop")
"""


def test_a_function_traced_twice_in_jaxs_compile_log_is_a_recompile(tmp_path):
    from hloscope.analysis.explain_error import explain_error
    from tests.test_explain_error_fields import run_jax

    # lineax#169 (fresh8): JAX 0.6's "tracing + transforming ... for pjit", eager ops again,
    # and JAX 0.10.2's own log of a function jitted anew with a new shape each call.
    logs = {
        "lineax": (CORPUS / "fresh8_a_lineax_169_linear_solve_retraced_each_call_log_compiles.log"),
        "made": run_jax(tmp_path / "loop.py", _LOOP),
    }
    read = {
        name: {
            f.finding.op: f
            for f in explain_error(text.read_text() if isinstance(text, Path) else text).failures
        }
        for name, text in logs.items()
    }
    lineax, made = read["lineax"]["multiply"], read["made"]["step"]
    assert {str(lineax.family), str(made.family)} == {"recompile"}
    assert lineax.advice_kind == made.advice_kind == "see_recompiles"
    assert "same argument shapes" in lineax.finding.suggestion
    assert "float32[3]" in made.finding.suggestion and "3 times" in made.finding.suggestion


def test_a_compile_log_with_each_function_traced_once_is_no_recompile():
    from hloscope.analysis.explain_error import explain_error

    text = (
        "Finished tracing step for jit in 0.002112389 sec\n"
        "Compiling jit(step) with global shapes and types (ShapedArray(float32[3]),). Argument "
        "mapping: (UnspecifiedValue,).\n"
        "Finished tracing loss for jit in 0.001 sec\n"
    )
    assert not explain_error(text).failures


# ---- a mesh built by hand from the device list ------------------------------------------------


def test_numpy_refusing_to_reshape_the_device_list_is_a_mesh_of_more_devices(tmp_path):
    from tests.test_explain_error_fields import run_jax

    # orbax#648 (fresh8): a checkpoint's sharding rebuilt over 2 devices as a (1, 64) mesh.
    orbax = spent("fresh8_a_orbax_648_restore_sharded_fewer_devices_reshape")
    # JAX 0.10.2 on one CPU device, the program's own mesh reshaped from jax.devices().
    made = first(
        run_jax(
            tmp_path / "mesh.py",
            """
            import jax, numpy as np
            from jax.sharding import Mesh
            mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("data", "model"))
            """,
        )
    )
    for failure, need in ((orbax, "64 devices"), (made, "8 devices")):
        assert (str(failure.family), failure.advice_kind) == ("sharding", "bigger_device")
        assert need in failure.finding.suggestion


def test_numpy_refusing_to_reshape_another_array_is_not_a_mesh():
    from hloscope.analysis.explain_error import explain_error

    text = (
        "    images = np.asarray(batch).reshape(32, 28, 28)\n"
        "ValueError: cannot reshape array of size 1000 into shape (32,28,28)\n"
    )
    assert not [f for f in explain_error(text).failures if f.finding.op == "mesh"]


# ---- a PJRT plugin without a method of the PJRT API this jax calls ----------------------------


@pytest.mark.parametrize(
    ("text", "method"),
    [
        # jax#27062 (fresh): jax-metal 0.1.1 under jax 0.5.1, every array op.
        (
            (CORPUS / "fresh_jax_27062_metal_memory_space.log").read_text(),
            "default_memory_space",
        ),
        # iree#19223: IREE's plugin stubs under a newer jax, on a fatal line.
        (
            "F1120 14:20:14.636158   43187 pjrt_c_api_helpers.cc:241] Unexpected error status "
            "/home/t/iree/integrations/pjrt/src/iree_pjrt/common/stubs.inc:5: UNIMPLEMENTED; "
            "PJRT_Plugin_Attributes\n*** Check failure stack trace: ***\n",
            "PJRT_Plugin_Attributes",
        ),
    ],
)
def test_a_plugin_lacking_a_pjrt_method_is_a_release_mismatch(text, method):
    assert _family_advice_op(text) == ["backend_startup", "install", method]


def test_an_unimplemented_op_in_words_is_still_xlas_status():
    read = first("XlaRuntimeError: UNIMPLEMENTED: Unsupported algorithm for this backend\n")
    assert str(read.family) != "backend_startup"


# ---- a crash while JAX started the backend ------------------------------------------------------

_CUDA_CHECK_SEGFAULT = """\
[ RUN      ] TrainTest.test_equivariance0 (config_name='qm9_test', rng=0)
Fatal Python error: Segmentation fault

Current thread 0x00007fba32f6c180 (most recent call first):
  File "/a/.venv/site-packages/jax/_src/xla_bridge.py", line 322 in _version_check
  File "/a/.venv/site-packages/jax/_src/xla_bridge.py", line 387 in _check_cuda_versions
  File "/a/.venv/site-packages/jax/_src/xla_bridge.py", line 428 in make_gpu_client
  File "/a/.venv/site-packages/jax/_src/xla_bridge.py", line 935 in _init_backend
"""


def test_a_crash_in_jaxs_start_of_the_backend_is_a_runtime_that_did_not_start():
    # jax#20619: a segfault in JAX's check of the CUDA libraries' versions.
    assert _family_and_advice(_CUDA_CHECK_SEGFAULT) == ("backend_startup", "install")
    assert first(_CUDA_CHECK_SEGFAULT).finding.node == "_check_cuda_versions"


def test_a_crash_in_jaxs_call_of_a_compiled_program_is_still_xlas():
    # tt-xla#99: faulthandler's frame in pxla's __call__, the program running.
    read = first(
        "tests/test_mnist.py::test_relu[input_shapes0] Fatal Python error: Aborted\n\n"
        "Current thread 0x00007fdeaa5bf000 (most recent call first):\n"
        '  File "/p/venv/lib/python3.10/site-packages/jax/_src/interpreters/pxla.py", line '
        "1248 in __call__\n"
    )
    assert (str(read.family), read.advice_kind) == ("xla_crash", "report_bug")


# ---- a TPU library not found: logged while JAX probes, raised where the TPU was asked ---------


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        # jax#24987 (fresh): the exception JAX raises where the TPU was asked for.
        ((CORPUS / "fresh_jax_24987_libtpu_missing.log").read_text(), "install"),
        # The same, raised from jax.devices("tpu") in a script (JAX's raise in xla_bridge).
        (
            "Traceback (most recent call last):\n"
            '  File "/home/u/tpu_check.py", line 3, in <module>\n'
            '    print(jax.devices("tpu"))\n'
            "RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to open "
            "libtpu.so: libtpu.so: cannot open shared object file: No such file or directory\n",
            "install",
        ),
        # JAX's probe logged while it goes on without a TPU (af3#656's line).
        (
            "I1104 10:25:01.535141 140398 xla_bridge.py:841] Unable to initialize backend "
            "'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object "
            "file: No such file or directory\n",
            "harmless",
        ),
    ],
)
def test_libtpu_not_found_is_harmless_only_where_jax_went_on(text, advice):
    assert _family_and_advice(text) == ("backend_startup", advice)


# ---- a setting's own rule is no primitive refusing its operands ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # equinox#1036 (fresh6, fresh8): a traced filter_spec refused by Equinox.
        (CORPUS / "fresh8_a_equinox_1036_filter_spec_traced_under_jax_jit.log").read_text(),
        # A layer's setting checked by its library.
        "ValueError: use_bias must be True or False, got Traced<bool[]>\n",
    ],
)
def test_a_snake_case_setting_with_must_is_not_read_as_a_shape_refusal(text):
    from hloscope.analysis.explain_error import explain_error

    assert "jax_shape" not in [str(f.family) for f in explain_error(text).failures]


def test_a_primitive_refusing_its_operands_shapes_is_still_read():
    text = "TypeError: select_n cases must have the same shapes, got [(3,), (4,)].\n"
    assert _family_and_advice(text) == ("jax_shape", "fix_shapes")


# ---- SMEM full: fewer scalars per call, then what they grow with ------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # vllm#8318 (fresh6): a 16k context's tables, PyTorch/XLA's StatusOr wording.
        (CORPUS / "fresh6_d_vllm_8318_smem_compile_oom_16k.log").read_text(),
        # The same refusal of XLA:TPU raised by JAX.
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent "
        "error. Ran out of memory in memory space smem. Used 1.01M of 1.00M smem. Exceeded "
        "smem capacity by 12.0K.\n",
    ],
)
def test_a_full_smem_advises_fewer_scalars_then_a_shorter_input(text):
    read = first(text)
    assert [read.advice_kind, *(kind for kind, _ in read.more_advice)][:2] == [
        "fewer_scalars",
        "shorter_input",
    ]


# ---- a TPU core's HBM full: this program's own arrays, not another process ------------------


@pytest.mark.parametrize(
    ("text", "framework_word"),
    [
        # colabtools#5126 (fresh4): a 7B model on one v2 core, through PyTorch/XLA.
        (
            (CORPUS / "fresh4_b_colabtools_5126_torchxla_hbm0_allocate.log").read_text(),
            "mark_sharding",
        ),
        # diffusers#8358 (fresh8): gemma-2-27b placed on one v3 core by KerasNLP.
        (
            (
                CORPUS / "fresh8_b_diffusers_8358_gemma2_27b_keras_nlp_tpu_v3_hbm0_allocate.log"
            ).read_text(),
            "jax.sharding",
        ),
    ],
)
def test_a_tpu_cores_hbm_full_is_the_programs_own_arrays(text, framework_word):
    read = first(text)
    kinds = [read.advice_kind, *(kind for kind, _ in read.more_advice)]
    assert kinds[:2] == ["bigger_device", "smaller_batch"]
    assert framework_word in read.finding.suggestion


def test_a_gpus_buffer_with_memory_free_elsewhere_still_advises_releasing_it():
    read = first(
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device "
        "buffer: Attempting to allocate 2.00G. That was not possible. There are 1.10G free.\n"
    )
    assert read.advice_kind == "free_memory"


# ---- jax.no_tracing refusing a retrace: a function traced again -------------------------------


def test_no_tracing_refusing_a_retrace_is_a_recompile(tmp_path):
    from tests.test_explain_error_fields import run_jax

    # jax#31319 (fresh): a pure_callback's jitted function traced again on an identical call.
    thread = spent("fresh_jax_31319_no_tracing_retrace")
    # JAX 0.10.2's own refusal, made in a child: a jitted function called with a new shape.
    made = first(
        run_jax(
            tmp_path / "retrace.py",
            """
            import jax, jax.numpy as jnp
            f = jax.jit(lambda x: x + 1)
            x3, x4 = jnp.ones(3), jnp.ones(4)
            f(x3)
            with jax.no_tracing(True):
                f(x4)
            """,
        )
    )
    for read in (thread, made):
        assert (str(read.family), read.advice_kind) == ("recompile", "see_recompiles")
    assert "<lambda> was traced again" in made.finding.suggestion


# ---- XLA:GPU's autotuner finding a candidate's results unlike the reference's -----------------


_AUTOTUNER_VERDICT = (  # openxla/xla#23934 (jax#27228's A100 log)
    "E0317 05:01:29.217242  712317 buffer_comparator.cc:156] Difference at 6: 8.18504, "
    "expected 7.16615\n"
    "E0317 05:01:29.217324  712317 buffer_comparator.cc:156] Difference at 7: 10.2058, "
    "expected 8.91452\n"
    "2025-03-17 05:01:29.217365: E external/xla/xla/service/gpu/autotuning/"
    "gemm_fusion_autotuner.cc:1138] Results do not match the reference. This is likely a "
    "bug/unexpected loss of precision.\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # mujoco_playground#18 (fresh): the comparator's lines alone.
        (CORPUS / "fresh_mjplayground_18_buffer_comparator.log").read_text(),
        _AUTOTUNER_VERDICT,
    ],
)
def test_the_autotuners_mismatch_is_xlas_check_on_the_gpu(text):
    from hloscope.analysis.explain_error import explain_error

    failures = explain_error(text).failures
    assert [(str(f.family), str(f.platform), f.advice_kind) for f in failures] == [
        ("xla_crash", "gpu", "report_bug")
    ]
    assert failures[0].finding.warning


def test_a_real_error_after_the_autotuners_mismatch_comes_first():
    from hloscope.analysis.explain_error import explain_error

    text = _AUTOTUNER_VERDICT + (
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
        "to allocate 6291456 bytes.\n"
    )
    assert str(explain_error(text).failures[0].family) == "out_of_memory"


def test_an_op_xla_does_not_support_on_a_platform_is_no_plugin_method():
    from hloscope.analysis.explain_error import explain_error

    text = "XlaRuntimeError: UNIMPLEMENTED: ragged_all_to_all is not supported on CPU\n"
    assert "backend_startup" not in [str(f.family) for f in explain_error(text).failures]


def test_a_reshape_of_another_array_after_the_mesh_was_built_is_not_a_mesh():
    from hloscope.analysis.explain_error import explain_error

    text = (
        "    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('data', 'model'))\n"
        "    batch = images.reshape(32, 28, 28)\n"
        "ValueError: cannot reshape array of size 1000 into shape (32,28,28)\n"
    )
    assert not [f for f in explain_error(text).failures if f.finding.op == "mesh"]


# ---- a CUDA graph failing as the program ran: the bug to report, then the flag around it ------


@pytest.mark.parametrize(
    "name",
    [
        "fresh6_d_netket_2248_cuda_graph_memset_jit_equal",  # XLA's own memset capture
        "fresh4_a_mujocowarp_425_stream_capture_invalidated",  # Warp's FFI call in a capture
    ],
)
def test_a_cuda_graph_failure_gives_the_flag_without_graphs_as_a_fix_of_its_own(name):
    read = spent(name)
    assert [read.advice_kind, *(kind for kind, _ in read.more_advice)] == ["report_bug", "other"]
    assert "--xla_gpu_enable_command_buffer=" in read.more_advice[0][1]
