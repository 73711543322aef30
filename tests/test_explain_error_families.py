"""explain-error on the families issue 35 found missing and on known failures in other words:
each read from at least two real wordings (other versions, other frameworks) that users pasted
in public threads (``tests/data/family_logs``, each log's thread in its ``.url``), or, where a
test says so, in the wording the named source prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.registry import RECOGNISERS
from hloscope.analysis.unsupported import Platform
from hloscope.analysis.unsupported.findings import Reason

LOGS = Path(__file__).parent / "data" / "family_logs"


def failures(name: str):
    explanation = explain_error((LOGS / f"{name}.log").read_text())
    assert explanation.recognised, name
    return explanation.failures


def only(name: str):
    (failure,) = failures(name)
    return failure


def test_every_family_log_names_its_thread():
    for log in LOGS.glob("*.log"):
        url = log.with_suffix(".url").read_text().strip()
        assert url.startswith("https://github.com/"), log.name


# ---- families it lacked ---------------------------------------------------------------------


def test_a_barrier_that_timed_out_names_the_tasks_that_never_came():
    # jaxlib 0.4: "Barrier_id: PjRT_Client_Connect. Timed out task names:" one task a line.
    connect = only("llama2jax_20_barrier")
    assert connect.family is Family.DISTRIBUTED and connect.advice_kind == "check_hosts"
    assert (
        connect.status == "DEADLINE_EXCEEDED"
        and connect.finding.op == "barrier PjRT_Client_Connect"
    )
    assert connect.finding.node == "task 1, task 6, task 3"
    assert "jax.distributed.initialize" in connect.finding.suggestion
    assert "task 1, task 6, task 3" in connect.finding.suggestion
    assert connect.finding.source == "/root/llama-2-jax/train.py:89"
    # Later jaxlibs: "Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0", after
    # "Stopping coordination service as cluster registration failed": one failure, not two.
    registration = only("gpurecipes_2_registration")
    assert registration.family is Family.DISTRIBUTED
    assert registration.finding.op == "barrier [Init]Wait_for_all_tasks_to_register::0"
    assert registration.status == "DEADLINE_EXCEEDED"
    assert "every host was launched" in registration.finding.suggestion


def test_a_barrier_of_the_programs_own_is_not_called_a_launch_problem():
    own = only("levanter_432_own_barrier")
    assert own.finding.op == "barrier multihost_broadcast_sync0"
    assert own.finding.node == "task 3, task 0"  # the gRPC payload's copy is not read twice
    assert "different number of times" in own.finding.suggestion


def test_a_process_stopped_because_another_died():
    (failure,) = failures("jax_39095_fatal")  # no XLA-bug failure for the F-line either
    assert failure.family is Family.DISTRIBUTED and failure.finding.op == "coordination service"
    assert failure.finding.reason is Reason.RUNTIME
    assert "other workers' logs" in failure.finding.suggestion


def test_a_tpu_held_by_another_process_in_libtpus_and_the_drivers_words():
    loader = only("jax_10192_libtpu_in_use")  # libtpu's loader, an I-line; JAX fell back to CPU
    assert loader.family is Family.BACKEND_STARTUP and loader.platform is Platform.TPU
    assert loader.advice_kind == "release_device"
    assert "/tmp/libtpu_lockfile" in loader.finding.suggestion
    driver = only("ptxla_3883_accel0")  # TF's TPU driver under PyTorch/XLA 2021
    assert driver.platform is Platform.TPU and driver.advice_kind == "release_device"
    assert "Operation not permitted" in driver.finding.suggestion


def test_a_tpu_held_inside_a_backend_failure_is_one_failure():
    text = (
        "INFO:2024-06-25 00:34:55,142:jax._src.xla_bridge:889: Unable to initialize backend "
        "'tpu': ABORTED: The TPU is already in use by process with pid 176028. Not attempting "
        "to load libtpu.so in this process.\n"
    )  # jax-ml/jax#22070's line
    (failure,) = explain_error(text).failures
    assert failure.advice_kind == "release_device" and "176028" in failure.finding.suggestion


def test_libtpu_start_up_crashes():
    crash = only("jax_13043_sigsegv")  # a SIGSEGV in TpuPlatform_Initialize
    assert crash.family is Family.BACKEND_STARTUP and crash.finding.op == "libtpu"
    assert crash.platform is Platform.TPU and "TpuPlatform_Initialize" in crash.finding.suggestion
    mmap = only("jax_30834_mmap")  # tpu_hal.cc: "Failed to initialize TPU system with error"
    assert mmap.platform is Platform.TPU and mmap.advice_kind == "release_device"
    assert "Couldn't mmap" in mmap.finding.suggestion


def test_a_segfault_that_is_not_libtpus_is_not_read_as_one():
    text = (
        "*** SIGSEGV (@0x0), see gl__________41#s15 received by PID 12 (TID 12) on cpu 3; "
        "stack trace: ***\n    @     0x7f00  1120  (unknown)\n    @     0x7f01  96  "
        "my_extension::Run()\n"
    )
    assert not explain_error(text).recognised


def test_plugin_and_jaxlib_of_different_releases():
    api = only("jax_22416_pjrt_api")  # jax 0.4.28: inside "Unable to initialize backend"
    assert api.family is Family.BACKEND_STARTUP and api.advice_kind == "install"
    assert "0.54" in api.finding.suggestion and "0.51" in api.finding.suggestion
    warning = only("recovar_64_plugin_warning")  # jax 0.9: a RuntimeWarning, wrapped
    assert warning.finding.op == "plugin jax_cuda12_plugin" and warning.platform is Platform.GPU
    assert '"jax-cuda12-plugin==0.9.0.1" "jax-cuda12-pjrt==0.9.0.1"' in warning.finding.suggestion
    assert any("RuntimeWarning" in hint for hint in warning.hints)


def test_jax_and_jaxlib_of_different_releases():
    # jax/version.py's two wordings (_check_jaxlib_version).
    old = explain_error(
        "RuntimeError: jaxlib is version 0.1.69, but this version of jax requires version >= "
        "0.1.74.\n"
    ).failures[0]
    new = explain_error(
        "RuntimeError: jaxlib version 0.4.1 is newer than and incompatible with jax version "
        "0.3.25. Please update your jax and/or jaxlib packages.\n"
    ).failures[0]
    for failure in (old, new):
        assert failure.family is Family.BACKEND_STARTUP and failure.advice_kind == "install"
    assert ">= 0.1.74" in old.finding.suggestion and "0.3.25" in new.finding.suggestion


@pytest.mark.parametrize(
    "name,where,platform",
    [
        ("marin_1921_shape_tree", "shape_tree.cc:54", Platform.GPU),  # glog F-line, GPU frames
        ("jax_17730_nvptx", "xla/service/gpu/nvptx_compiler.cc:614", Platform.GPU),  # TF logger
        ("jax_22484_ret_check", "xla/service/cpu/ir_emitter.cc:1144", Platform.CPU),  # RET_CHECK
        ("reactant_1097_literal", "literal.h:1812", None),  # Julia's Reactant, SPMD partitioner
    ],
)
def test_xla_check_failures_are_bugs_to_report_with_a_dump(name, where, platform):
    failure = only(name)
    assert failure.family is Family.XLA_CRASH and failure.advice_kind == "report_bug"
    assert failure.finding.node == where and failure.platform is platform
    assert where in failure.finding.suggestion
    assert "--xla_dump_to" in failure.finding.suggestion
    assert "openxla/xla/issues" in failure.finding.suggestion
    # Each of the four failed inside the compiler (a pass, an emitter, the partitioner).
    assert failure.finding.reason is Reason.COMPILE_ERROR


def test_an_xla_check_names_the_function_that_failed():
    assert "xla::cpu::IrEmitter::HandleFft" in only("jax_22484_ret_check").hints[1]
    assert "SpmdPartitioningVisitor" not in only("reactant_1097_literal").hints[1]  # first frame
    assert "xla::LiteralBase::Piece::data" in only("reactant_1097_literal").hints[1]


def test_a_check_in_mosaic_or_torch_xla_is_reported_there():
    mosaic = explain_error(
        "F0727 10:00:00.000000  1234 layout.h:120] Check failed: arr.size() >= "
        "layout_rank(implicit_dim) (1 vs. 2)\n*** Check failure stack trace: ***\n"
        "    @     0x7f01  mlir::tpu::VectorLayout::join()\n"
        "    @     0x7f02  mlir::tpu::InferVectorLayoutPass::runOnOperation()\n"
    ).failures[0]  # jax-ml/jax#39366's abort, as glog prints a CHECK_GE
    assert mosaic.finding.suggestion.startswith("an internal check of Mosaic")
    assert (
        "jax-ml/jax/issues" in mosaic.finding.suggestion
        and "debug=True" in mosaic.finding.suggestion
    )
    assert mosaic.platform is Platform.TPU
    torch = explain_error(
        "F0100 00:00:00.000000  99 pjrt_computation_client.cc:77] Check failed: "
        "client != nullptr\n*** Check failure stack trace: ***\n"
        "    @     0x7ff7d8ce55c0  torch_xla::runtime::InitializePjRt()\n"
    ).failures[0]
    assert "pytorch/xla/issues" in torch.finding.suggestion
    assert "XLA_SAVE_TENSORS_FILE" in torch.finding.suggestion
    assert "jax" not in torch.finding.suggestion


def test_nonsymmetric_eig_in_both_wordings():
    old = only("pysages_195_eig")  # NotImplementedError of JAX before per-platform lowering
    assert old.family is Family.MISSING_LOWERING and old.finding.op == "eig"
    assert old.platform is Platform.GPU and old.advice_kind == "replace_op"
    assert "eigh" in old.finding.suggestion
    new = explain_error(
        "jax._src.source_info_util.JaxStackTraceBeforeTransformation: NotImplementedError: "
        "MLIR translation rule for primitive 'eig' not found for platform tpu\n"
    ).failures[0]  # jax/_src/interpreters/mlir.py's wording, read by missing_lowering
    assert new.family is Family.MISSING_LOWERING and new.finding.op == "eig"
    assert new.platform is Platform.TPU and "eigh" in new.finding.suggestion


# ---- known failures in other words ------------------------------------------------------------


def test_the_runtime_allocators_wording_on_a_tpu():
    # TF on Colab's TPU said it with the StreamExecutor allocator's words JAX uses on GPUs.
    tpu = only("hf_13629_far_tpu")
    assert tpu.family is Family.DEVICE_ALLOCATION and tpu.platform is Platform.TPU
    assert tpu.hints[0].startswith("64.0 MiB")
    # Without the bytes in brackets, and with no word of a TPU: a GPU, as JAX's GPU runtime.
    gpu = explain_error(
        "ResourceExhaustedError: Resource exhausted: Failed to allocate request for 2.00GiB on "
        "device ordinal 0\n"
    ).failures[0]
    assert gpu.family is Family.DEVICE_ALLOCATION and gpu.platform is Platform.GPU


def test_the_reservation_wording_with_its_reservable_bytes():
    fragmented = only("ptxla_3470_fragmented")
    assert fragmented.family is Family.DEVICE_ALLOCATION and fragmented.platform is Platform.TPU
    assert any("3.33G reservable" in hint for hint in fragmented.hints)
    short = only("hf_22328_reserve_torch")
    assert any("8.97G reservable" in hint for hint in short.hints)


def test_a_mosaic_refusal_under_other_names():
    internal = only("jax_18388_internal_tpu_kernel")  # JAX 0.4.20's RuntimeError
    assert internal.family is Family.PALLAS and internal.finding.op == "tpu.matmul"
    assert internal.advice_kind == "fix_shapes" and internal.platform is Platform.TPU
    assert "unsupported operand shapes or layouts" in internal.hints[0]
    assert internal.finding.source == "/root/test_multihead.py:73"
    layouts = only("jax_24415_layouts")  # an INTERNAL status, a layout Mosaic cannot take
    assert layouts.family is Family.PALLAS and layouts.advice_kind == "fix_shapes"
    assert "Non-trivial layouts unsupported" in layouts.hints[0]


def test_an_op_mosaic_could_not_legalize_said_alone():
    text = (
        "jax._src.pallas.mosaic.lowering.LoweringException: error: failed to legalize "
        "operation 'tpu.dynamic_gather'\n"
    )
    (failure,) = explain_error(text).failures
    assert failure.family is Family.PALLAS and "tpu.dynamic_gather" in failure.hints[0]
    # TensorFlow's MLIR bridge says the same of its own ops: not a kernel's.
    assert not any(
        f.family is Family.PALLAS
        for f in explain_error("error: failed to legalize operation 'tf.Foo'\n").failures
    )


@pytest.mark.parametrize(
    "name,node",
    [
        ("jax_9675_deleted_or_donated", ""),  # jax 0.5
        ("jax_9237_donation_requested", "argument 0"),  # jax 0.2 to 0.4.28
        ("jax_24521_block_host", "BlockHostUntilReady()"),  # an array's method, jax 0.4.36
    ],
)
def test_an_array_used_after_its_donation_in_the_runtimes_words(name, node):
    failure = only(name)
    assert failure.family is Family.JAX_CALL and failure.finding.op == "donated array"
    assert failure.advice_kind == "reused_donation" and failure.finding.node == node


def test_one_array_donated_twice():
    for name in ("liesel_272_donate_twice", "tpuinference_1778_donate_twice"):
        failure = only(name)
        assert failure.advice_kind == "reused_donation"
        assert "jnp.copy" in failure.finding.suggestion
    assert only("liesel_272_donate_twice").finding.node == "flattened arguments 30 and 49"


def test_the_family_table_holds_the_new_families():
    families = [r.family for r in RECOGNISERS]
    assert families[-2:] == [Family.DISTRIBUTED, Family.XLA_CRASH]


def test_the_operand_mosaic_refused_is_named_with_its_layouts():
    # PyTorch/XLA calling a Pallas kernel: INVALID_ARGUMENT through "Bad StatusOr access".
    layout = only("ptxla_8732_layout")
    assert layout.family is Family.PALLAS and layout.finding.node == "operand 3 f32[16,3072]"
    assert "expects {1,0:T(128)S(1)}, XLA gives {1,0:T(8,128)S(1)}" in layout.hints[1]
    # Its shape already sits on the tiles: no advice to pad it.
    assert "already sits on (8, 128) tiles" in layout.finding.suggestion
    assert layout.finding.source == "/mnt/ssd0/vllm/bgmv_torch.py:149"
    # JAX 0.4.20's wording names no operand; the op's vector types are what it gives.
    internal = only("jax_18388_internal_tpu_kernel")
    assert "vector<16x128xf32>" in internal.hints[1]
    assert "multiples of 128" in internal.finding.suggestion  # 16 rows of a transposed rhs


def test_an_xla_crash_without_its_check_line():
    # absl's signal handler with XLA:TPU's compiler in the stack (jax 0.3, libtpu of 2022).
    abort = only("jax_9642_sigabrt")
    assert abort.family is Family.XLA_CRASH and abort.finding.op == "SIGABRT"
    assert abort.finding.node == "TpuCompiler_RunHloPasses" and abort.platform is Platform.TPU
    assert abort.advice_kind == "report_bug" and "python -u" in abort.finding.suggestion
    # Python's faulthandler: the abort came inside jax's backend_compile.
    fatal = only("nixpkgs_256717_fatal_abort")
    assert fatal.family is Family.XLA_CRASH and fatal.finding.op == "abort"
    assert "while JAX compiled the program" in fatal.finding.suggestion
    # libtpu's start-up crash is a start-up failure, not a compiler bug.
    assert [f.family for f in failures("jax_13043_sigsegv")] == [Family.BACKEND_STARTUP]


def test_the_tpu_allocation_failure_without_its_prefix():
    # PyTorch/XLA 1.6 on a TPU pod (xla_dist's worker tag before it): "Resource exhausted:
    # Attempting to allocate 180.59M. That was not possible." -- no "Error allocating".
    failure = only("ptxla_2569_attempt_alloc")
    assert failure.family is Family.DEVICE_ALLOCATION and failure.platform is Platform.TPU
    assert failure.hints[0].startswith("180.6 MiB")
    assert "38.0 MiB more is needed" in failure.finding.suggestion


def test_a_tpu_device_file_held_in_the_kernels_words():
    # libtpu on a TPU VM whose chips are vfio devices (v5e, v6e): the kernel's EBUSY.
    (failure,) = explain_error(
        "RuntimeError: Unable to initialize backend 'tpu': UNKNOWN: TPU initialization failed: "
        "open(/dev/vfio/0): Device or resource busy: Device or resource busy; Couldn't open "
        "iommu group /dev/vfio/0\n"
    ).failures
    assert failure.platform is Platform.TPU and failure.advice_kind == "release_device"
    # The same start-up failure for a layout reason is not a held TPU.
    layout = explain_error(
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
        "--2a886c8_slice_builder_worker_addresses specified. Expected 4 worker addresses, got "
        "1.\n"
    ).failures[0]  # Lightning-AI/pytorch-lightning#20244's line
    assert layout.advice_kind != "release_device"
