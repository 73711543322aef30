"""explain-error round 12 (issue 35), the fields: the device, the op and the user's line the
spent blind parts (``tests/data/error_logs/fresh*``, first-37) missed where their family was
right, each rule tested on two wordings: one from a spent part, one from elsewhere (JAX 0.10.2's
own error made in a child process, an older public thread, XLA's own source)."""

from __future__ import annotations

import textwrap

from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.mlir_location import source_in_locations
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.user_line import _checkout_root
from hloscope.analysis.unsupported.findings import Platform
from tests.explain_error_reading import CORPUS, first, spent
from tests.test_explain_error_fields import run_jax

# ---- the user's line: the op's own location in the message -------------------------------------

# A primitive whose lowering makes an op MLIR's verifier refuses (an f32 add of an i32), with
# one frame kept in each location: JAX then prints a name location around one file location,
# `"jit(f)/bad_add"("f"("/x.py":13:11 to :20))`, with no `loc(` before it in MLIR's own error.
_BAD_LOWERING = """
    import os
    os.environ["JAX_TRACEBACK_IN_LOCATIONS_LIMIT"] = "1"
    import jax, jax.numpy as jnp
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    from jax._src.lib.mlir.dialects import hlo
    p = Primitive("bad_add")
    p.def_abstract_eval(lambda x: x)
    def low(ctx, x):
        y = mlir.ir_constant(jnp.ones(3, jnp.int32))
        return [hlo.AddOp(x, y, results=[x.type]).result]
    mlir.register_lowering(p, low)
    def f(x):
        return p.bind(x)  # line 15: the op is made here
    jax.jit(f).lower(jnp.ones(3))  # line 16: the call that lowers it
"""


def test_an_mlir_diagnostics_file_location_is_the_ops_line(tmp_path):
    # Mosaic's pass pipeline (jax#18370, spent): the op's location is a name around one file
    # location, `error: "/transpose[...]"("/root/test_tpu.py":16:0): ...`; the traceback's
    # user frame (line 54) only called the kernel.
    failure = spent("fresh7_a_jax_18370_pallas_tpu_padded_transpose")
    assert failure.finding.source == "/root/test_tpu.py:16"
    assert failure.finding.op == "transpose"
    # JAX 0.10.2's own MLIR verifier error, made in a child process: its MLIRError line gives
    # the op's location in the same form (a name around a name around a file location).
    program = tmp_path / "bad_lowering.py"
    log = run_jax(program, _BAD_LOWERING)
    mlir_error = next(line for line in log.splitlines() if line.startswith("error: "))
    assert "loc(" not in mlir_error and "callsite(" not in mlir_error, mlir_error
    assert source_in_locations(mlir_error) == f"{program}:15"
    # The whole log: the made line, not the call at line 16.
    assert first(log).finding.source == f"{program}:15"


def test_a_location_in_an_installed_library_is_not_the_users_line():
    # The location's one file is a library's: the traceback's user frame stays the line.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in <module>\n'
        "    step(x)\n"
        "jaxlib.mlir._mlir_libs._site_initialize.<locals>.MLIRError: Failure while executing"
        " pass pipeline:\n"
        'error: "/transpose[permutation=(1, 0)]"("/usr/lib/python3/site-packages/lib/k.py":16:0)'
        ": 'vector.transpose' op Padded transposes unsupported\n"
    )
    assert first(text).finding.source == "/home/u/train.py:9"


# ---- the op: the frames JAX makes of a Mosaic op's location --------------------------------------

# JAX's Mosaic error handling (jax/_src/pallas/mosaic/error_handling.py) gives a kernel's failing
# op the traceback of its MLIR location; each frame's function is the location's name, the op's
# before the function's in the innermost one.
_MOSAIC_FRAMES = """
    import sys, traceback
    from jax._src.pallas.mosaic import error_handling as eh
    loc = ('loc("k"(callsite("dot_general"("matmul_kernel"("/home/u/proj/kernels.py":42:8)) at '
           'callsite("run"("/home/u/proj/kernels.py":71:11) at '
           '"<module>"("/home/u/proj/main.py":9:0)))))')
    _, frames = eh.parse_location_string(loc)
    err = eh.MosaicError("INTERNAL: Mosaic failed to compile TPU kernel: unsupported operation")
    err.__traceback__ = eh.traceback_from_raw_frames(frames)
    traceback.print_exception(err)
    sys.exit(1)
"""


def test_the_frames_jax_makes_of_a_mosaic_location_name_the_op(tmp_path):
    # jax#36970 (spent): `File "...minimal.py", line 24, in reduce_sum"("kernel`.
    failure = spent("fresh8_a_jax_36970_pallas_tpu_invalid_relayout_nested_sum")
    assert failure.finding.op == "reduce_sum"
    assert failure.finding.source is not None and failure.finding.source.endswith("_minimal.py:24")
    # JAX 0.10.2's own rendering of another op's location, made in a child process.
    log = run_jax(tmp_path / "mosaic_frames.py", _MOSAIC_FRAMES)
    assert 'in dot_general"("matmul_kernel' in log, log[-600:]
    failure = first(log)
    assert (failure.finding.op, failure.finding.source) == (
        "dot_general",
        "/home/u/proj/kernels.py:42",
    )


# ---- the user's line: a traceback pasted after its message, without its header ---------------

_PRINT_TB = """
    import sys, traceback
    import jax.numpy as jnp

    def project(x, w):
        return jnp.dot(x, w)  # line 6: the shapes do not agree

    try:
        project(jnp.ones((4, 3)), jnp.ones((5, 2)))
    except TypeError as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        print("Full error:", file=sys.stderr)
        traceback.print_tb(e.__traceback__, file=sys.stderr)
        sys.exit(1)
"""


def test_a_traceback_pasted_after_its_message_without_its_header(tmp_path):
    # jax#21999 (spent): the message, the op, then "Full error." and the frames.
    failure = spent("fresh8_a_jax_21999_pallas_tpu_kaggle_unsupported_shape_cast")
    assert failure.finding.source == "/kaggle/working/basic_dit.py:91"
    # Python's own traceback.print_tb after a printed message (no "Traceback" line), JAX
    # 0.10.2's shape error, made in a child process.
    program = tmp_path / "print_tb.py"
    log = run_jax(program, _PRINT_TB)
    assert "Traceback (most recent call last)" not in log, log[-600:]
    assert first(log).finding.source == f"{program}:6"


# ---- the op: XLA's message continued after a blank line -----------------------------------------


def test_the_instruction_xla_names_after_a_blank_line_is_the_op():
    # jax#36691 (spent): XLA:TPU's status, a blank line, then the instruction it was compiling.
    assert spent("fresh_jax_36691_export_call_op_tpu").finding.op == "call.1"
    # A paragraph that starts another message or traceback is no continuation.
    for after in (
        'Traceback (most recent call last):\n  File "/home/u/a.py", line 3, in <module>\n',
        "ValueError: while compiling %fusion.2 = f32[2]{0} fusion(%p), kind=kLoop\n",
        "E0000 00:00:1.0 pjrt.cc:1] while compiling %fusion.2 = f32[2]{0} fusion(%p)\n",
    ):
        text = (
            "jax.errors.JaxRuntimeError: INTERNAL: Encountered Call op during TPU lowering.\n\n"
            + after
        )
        assert first(text).finding.op != "fusion.2"


# ---- a CHECK's fatal line pasted without glog's time stamp -------------------------------------


def test_a_fatal_line_without_its_time_stamp_is_the_check_that_aborted():
    # gcbfplus#11 (spent): `F external/xla/.../gemm_fusion_autotuner.cc:1099] Non-OK-status:`
    # at a line's start, then the shell's "Aborted (core dumped)": the check is the failure,
    # the fusion it was compiling its op, the fused dot's metadata the user's line.
    failure = spent("fresh8_b_gcbfplus_11_ptxas_139_gemm_fusion_autotuner_abort")
    assert failure.finding.node == "xla/service/gpu/autotuning/gemm_fusion_autotuner.cc:1099"
    assert failure.finding.op == "gemm_fusion_dot.610"
    assert failure.finding.source == "/.../gcbfplus/nn/gnn.py:62"
    # A project's notes quoting the same abort for an sm_101 GPU (public, another run; the
    # notes' code-block indent left out).
    text = (
        "F external/xla/xla/service/gpu/autotuning/gemm_fusion_autotuner.cc:1071] "
        "Non-OK-status: executable.status()\n"
        "Status: INTERNAL: ptxas exited with non-zero error code 65280, output: ...\n"
        "  error   : Instruction 'tcgen05.alloc' not supported on .target 'sm_101'\n"
    )
    failure = first(text)
    assert str(failure.family) == "xla_crash"
    assert failure.finding.node == "xla/service/gpu/autotuning/gemm_fusion_autotuner.cc:1071"
    # TensorFlow's older spelling of the autotuner's words names the fusion as well.
    text = (
        "F0714 10:12:01.000000 1234 gemm_fusion_autotuner.cc:1042] Non-OK-status: "
        "has_executable.status()\nStatus: FAILED_PRECONDITION: Can not combine dim orders and "
        "requirements\nFailure occured when compiling fusion gemm_fusion_dot.124 with config "
        "'{block_m:32}'\n"
    )
    assert first(text).finding.op == "gemm_fusion_dot.124"


# ---- the user's line: the metadata of an HLO instruction a message quotes ---------------------


def test_the_metadata_of_a_quoted_instruction_names_the_users_line():
    # gcbfplus#11 above: `dot_general source_file="/.../gcbfplus/nn/gnn.py" source_line=62`.
    # jax#29088 (spent), its traceback cut: the verifier's dot was made in an installed
    # library (mujoco/mjx in site-packages), no line of the user's.
    log = spent("fresh4_a_jax_29088_multigpu_hlo_verifier_dot").message
    text = (CORPUS / "fresh4_a_jax_29088_multigpu_hlo_verifier_dot.log").read_text()
    cut = text[text.index("jaxlib.xla_extension.XlaRuntimeError") :]
    assert "site-packages/mujoco" in cut and log
    assert first(cut).finding.source is None
    # openxla#47385: XLA's runner read the module from its standard input, `source_file="-"`:
    # no file of the user's.
    text = (
        "E0000 00:00:1786849785.674891 3886672 status_macros.cc:58] INTERNAL: RET_CHECK failure "
        "(xla/hlo/ir/hlo_computation.cc:808) ignore_safety_check || IsSafelyRemovable(instruction)"
        " cannot remove instruction: %wrapped_exponential = f32[] fusion(%Arg_2.1), kind=kLoop, "
        'calls=%wrapped_exponential_computation, metadata={source_file="-" source_line=13 '
        "source_end_line=13 source_column=10 source_end_column=10}\n"
    )
    assert first(text).finding.source is None
    # The same metadata naming a script of the user's is that script's line.
    mine = text.replace('source_file="-"', 'source_file="/home/u/model.py"')
    assert first(mine).finding.source == "/home/u/model.py:13"


# ---- the device: XLA:GPU's own structures in a message -------------------------------------------


def test_xla_gpus_clique_key_and_constant_copy_are_the_gpu():
    # enzymejax#623 (spent): a process waiting for its peers' NCCL id under the clique's key.
    assert spent("fresh2_b_enzymejax_623_getkeyvalue_deadline").platform == Platform.GPU
    # The key as XLA's own test of GpuCliqueKey::ToString spells it (another field order).
    key = "devices=[0,1]; stream=0; groups=[[0,1],[2,3]]; root_device=0; num_local_participants=2"
    assert platform_in_log(f"DEADLINE_EXCEEDED: GetKeyValue() timed out with key: {key}") == (
        Platform.GPU
    )
    # XLA:CPU's rendezvous names its participants too, in its own key: no GPU.
    cpu = (
        "Termination timeout for `all gather RendezvousKey{run_id=1, global_devices=[1, 3], "
        "num_local_participants=2, collective_op_kind=cross_module, op_id=28}` exceeded."
    )
    assert platform_in_log(cpu) is None
    # octo#22 (spent) and a project's notes from a 16 GB T4: StreamExecutor's copy of an
    # executable's constants to the GPU.
    assert spent("fresh7_c_octo_22_failed_to_allocate_new_constant_a100").platform == (Platform.GPU)
    t4 = (
        "jaxlib._jax.XlaRuntimeError: INTERNAL: Failed to allocate 402653184 bytes for new constant"
    )
    assert platform_in_log(t4) == Platform.GPU


# ---- the user's line: a library's checkout named as its distribution is -------------------------

_CHECKOUT_LIBRARY = """
    import jax.numpy as jnp

    def project(x, w):
        return jnp.dot(x, w)  # line 5: inside the library's checkout
"""
_CHECKOUT_SCRIPT = """
    import sys
    sys.path.insert(0, {root!r})
    import jax.numpy as jnp
    from my_lib import project
    project(jnp.ones((4, 3)), jnp.ones((5, 2)))  # line 6: the user's call
"""


def test_a_checkout_whose_folder_is_the_distributions_name_is_a_library(tmp_path):
    # e3nn-jax#83 (spent): ~/lib/e3nn-jax/e3nn_jax/equinox.py imported from the user's script.
    failure = spent("fresh9_b_e3nnjax_83_equinox_pp_eqn_rules_removed_jax0434_import")
    assert failure.finding.source == (
        "/home/mkotak/atomic_architects/projects/flashtensorproduct/benchmark.py:5"
    )
    # JAX 0.10.2's shape error raised in a checkout `my-lib/my_lib/`, called from a script
    # elsewhere, made in a child process.
    package = tmp_path / "repos" / "my-lib" / "my_lib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(_CHECKOUT_LIBRARY))
    script = tmp_path / "work" / "run.py"
    log = run_jax(script, _CHECKOUT_SCRIPT.format(root=str(package.parent)))
    assert f"{package}/__init__.py" in log, log[-600:]
    assert first(log).finding.source == f"{script}:6"
    # A project's own package under a folder of another name stays the user's line.
    assert not _checkout_root("/home/u/proj/model/layers.py")


# ---- the op: MLIR's diagnostic names the op it is about --------------------------------------


def test_an_mlir_diagnostic_names_its_op_where_no_location_does():
    # maxtext#264 (spent), Mosaic's older wording: "Failed to compile a Mosaic module:
    # 'tpu.matmul' op Unsupported input data type in matrix multiplication."
    failure = spent("fresh9_a_maxtext_264_v3_bf16_train_failed_to_compile_mosaic_module")
    assert failure.finding.op == "tpu.matmul"
    # A project's op-coverage table (public): MLIR's pass pipeline refusing an op outside
    # Mosaic, `error: unknown: 'arith.index_cast' op operand #0 must be ...`.
    text = (
        "MLIRError: Failure while executing pass pipeline:\n"
        "error: unknown: 'arith.index_cast' op operand #0 must be signless-non-zero-bitwidth-"
        "integer-like or memref of signless-integer, but got 'f32'\n"
        ' note: unknown: see current operation: %101 = "arith.index_cast"(%arg14) : (f32) -> '
        "index\n"
    )
    assert first(text).finding.op == "arith.index_cast"
    # Where the diagnostic's location names the primitive, that stays the op (jax#18370,
    # spent: "/transpose[permutation=(1, 0)]", not 'vector.transpose').
    assert spent("fresh7_a_jax_18370_pallas_tpu_padded_transpose").finding.op == "transpose"


# ---- the op: XLA's shape inference names the op it refuses ---------------------------------------


def test_xlas_shape_inference_names_the_op_it_refuses():
    # pytorch/xla#6002 (spent): "status: INVALID_ARGUMENT: Transpose dimensions [0,1,-2,-1]
    # are not a permutation of the operand dimensions".
    failure = spent("fresh9_c_ptxla_6002_diagonal_view_update_transpose_not_permutation_tpu")
    assert failure.finding.op == "transpose"
    # XLA's own refusals (xla/service/shape_inference.cc), in TensorFlow's older status words.
    for message, op in (
        ("Slice index count does not match argument rank: 2 vs 3.", "slice"),
        (
            "Dynamic update slice update rank does not match argument rank: 3 vs 2.",
            "dynamic-update-slice",
        ),
    ):
        assert op_named(f"InvalidArgumentError: Invalid argument: {message}") == op
    # A sentence that only starts with an opcode's word names no op ("While rewriting ...":
    # fresh3 xla_26995, spent, keeps the all-reduce its HLO line names).
    assert op_named("UNIMPLEMENTED: While rewriting computation to not contain X64") is None
    assert spent("fresh3_a_xla_26995_tpu_x64_rewrite_c64").finding.op == "all-reduce"


# ---- the device: the platform a log's set-up names ---------------------------------------------


def test_the_platform_a_logs_set_up_names():
    gpu = (
        # a wheel's CUDA tag, as pip names the plugin and the older jaxlib wheels
        "Successfully installed jax-cuda12-plugin-0.4.30 jax-cuda12-pjrt-0.4.30",
        "jaxlib-0.4.13+cuda12.cudnn89-cp311-cp311-manylinux2014_x86_64.whl",
        # XLA:GPU's PJRT client's own log line, and NVIDIA's generation of the GPU (JAX's
        # StreamExecutor line, TensorFlow 2.2's "computeCapability")
        "I0000 00:00:1786849858.231491 3893849 se_gpu_pjrt_client.cc:1325] Using BFC allocator.",
        "StreamExecutor [0]: NVIDIA GeForce RTX 4060 Laptop GPU, Compute Capability 8.9",
        "pciBusID: 0000:00:04.0 name: Tesla T4 computeCapability: 7.5",
        # torch_xla's environment for the CUDA plugin
        "PJRT_DEVICE=CUDA python train.py",
    )
    tpu = (
        # torch_xla choosing the TPU, and PJRT loading the TPU's plugin
        "WARNING:root:libtpu.so and TPU device found. Setting PJRT_DEVICE=TPU.",
        "I0000 00:00:1709942790.379741  501354 pjrt_api.cc:79] PJRT_Api is set for device type tpu",
        # XLA:TPU's flags (its own OOM message names one) and the TPU runtime's environment
        "If more detailed logging is desired, set --xla_tpu_impure_oom_fast_exit_threshold=-1",
        "export TPU_CHIPS_PER_PROCESS_BOUNDS=1,1,1 TPU_PROCESS_BOUNDS=1,1,1",
    )
    for line in gpu:
        assert platform_in_log(line) == Platform.GPU, line
    for line in tpu:
        assert platform_in_log(line) == Platform.TPU, line
    # A Python name that only contains tpu_ is no TPU's environment.
    assert platform_in_log('  File "/x/jax/_src/tpu_custom_call.py", line 3') is None
    assert platform_in_log("platform=None, backend=''") is None


def test_the_gpu_autotuners_own_words_are_the_gpu():
    # jax#33910 (spent, an RTX 5090): "INTERNAL: No reference output found!"; a ROCm
    # benchmark's notes quote the autotuner's warning "No reference output found even though
    # buffer checking ..." (public).
    assert spent("fresh_jax_33910_no_reference_output_5090").platform == Platform.GPU
    rocm = "No reference output found even though buffer checking is enabled"
    assert platform_in_log(rocm) == Platform.GPU
