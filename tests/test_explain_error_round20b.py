"""Round 20b of explain-error: the fields (device, op, user line, advice) the spent parts and
the twentieth dev batch showed wrong, each fix on two wordings: the corpus log and a second
text (another thread's, saved under tests/data/family_logs/ with its URL, or what JAX 0.10.2
raised itself, quoted here)."""

from __future__ import annotations

from round_logs import first, log

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.named_op import op_named
from hloscope.analysis.explain_error.user_line import is_users
from hloscope.analysis.unsupported.findings import Platform
from hloscope.hlo.metadata import StackFrame

# What JAX 0.10.2 raised (JAX_PLATFORMS=cpu) for a custom_vjp function given an array in an
# argument it declares non-differentiable (nondiff_argnums=(1,)) under jax.jit.
_CUSTOM_VJP_TRACER = """\
Traceback (most recent call last):
  File "/tmp/cv.py", line 9, in <module>
    jax.jit(lambda a, b: f(a, b))(1.0, 2.0)
  File "/tmp/cv.py", line 9, in <lambda>
    jax.jit(lambda a, b: f(a, b))(1.0, 2.0)
                         ^^^^^^^
jax.errors.UnexpectedTracerError: Found a JAX Tracer object passed as an argument to a \
custom_vjp function in a position indicated by nondiff_argnums as non-differentiable. Tracers \
cannot be passed as non-differentiable arguments to custom_vjp functions; instead, \
nondiff_argnums should only be used for arguments that can't be or contain JAX tracers, e.g. \
function-valued arguments. In particular, array-valued arguments should typically not be \
indicated as nondiff_argnums.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following \
exception. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_the_custom_derivative_function_a_message_names_is_its_op() -> None:
    # JAX names the kind of custom-derivative function whose use it refuses ("passed as an
    # argument to a custom_vjp function"): that is the op, not the exception's class; also
    # where the exception is printed qualified (jax.errors.UnexpectedTracerError) and its
    # recogniser kept no class.
    failure = first(log("fresh13_c_lagrangian_nns_11_custom_vjp_nondiff_argnums_tracer"))
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "custom_vjp")
    failure = first(_CUSTOM_VJP_TRACER)
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "custom_vjp")
    # JAX 0.10.2's words for a custom_jvp function given no rule.
    message = "AttributeError: No JVP defined for custom_jvp function f using defjvp."
    assert op_named(message) == "custom_jvp"


def test_torch_xlas_dispatched_aten_op_in_a_check_failures_stack_is_its_op() -> None:
    # PyTorch/XLA's failed XLA_CHECK prints a C++ stack trace whose innermost frame of its
    # dispatcher names the aten op it ran (torch_xla::XLANativeFunctions::mul; before 2021
    # torch_xla::AtenXlaType::native_batch_norm_backward): the op, not "Check failed".
    failure = first(log("fresh14_a_ptxla_7266_spmd_llama_rotary_mul_check_failed_inputs_end"))
    assert (str(failure.family), failure.finding.op) == ("xla_crash", "mul")
    failure = first(log("r20b_ptxla_2176_aten_xla_type_check_failed_xtensor"))
    assert (str(failure.family), failure.finding.op) == ("xla_crash", "native_batch_norm_backward")


def test_tritons_namespace_and_source_folder_are_signs_of_a_gpu() -> None:
    # Triton compiles for GPUs alone: its C++ namespace in an assertion ("triton::tools::
    # getBoolEnv", "std::vector<triton::codegen::...>") and its sources' folder in a path
    # ("/opt/openxla-triton/include/triton/Tools/Sys/GetEnv.hpp") say the log ran on one
    # (jax#19825's abort; triton#613's assertion).
    jax = log("dev20_a_jax_19825_pallas_jax0424_llvm_register_dialects_builtin_triton_assert")
    failure = first(jax)
    assert (str(failure.family), failure.platform) == ("xla_crash", Platform.GPU)
    assert platform_in_log(log("r20b_triton_613_codegen_assertion_vector_index")) == Platform.GPU
    # The JAX package of Triton's kernels named in an import is no such sign.
    assert platform_in_log("ModuleNotFoundError: No module named 'jax_triton'\n") is None


def test_a_dialect_registered_twice_is_two_mlirs_out_of_step() -> None:
    # MLIR refusing a second dialect of one name ("Trying to register different dialects for
    # the same namespace: builtin", older "a dialect with namespace 'std' has already been
    # registered") means two copies of MLIR in one process: the packages bringing them are
    # out of step, to install as one release, not a bug to report (jax#19825, torch-mlir#154).
    jax = log("dev20_a_jax_19825_pallas_jax0424_llvm_register_dialects_builtin_triton_assert")
    assert (str(first(jax).family), first(jax).advice_kind) == ("xla_crash", "install")
    torch_mlir = first(log("r20b_torch_mlir_154_dialect_namespace_already_registered"))
    assert (str(torch_mlir.family), torch_mlir.advice_kind) == ("xla_crash", "install")


def test_tensorflows_tpu_graph_ops_are_signs_of_a_tpu() -> None:
    # TensorFlow's TPU graph ops, named in a node or a log line: tfp#1758's
    # "[[TPUReplicate/_compile/_10395939635067805685/_4]]" under a compile-time constant
    # refusal, TF#50980's "TpuCompileOp was cancelled ... for TPUCompileOp to finished".
    failure = first(log("dev20_f_probability_1758_histogram_bincount_tpu_compile_time_constant"))
    assert (str(failure.family), failure.platform) == ("tf_known_issue", Platform.TPU)
    tf = log("r19b_tf_50980_tpu_compile_op_failed").splitlines()[1]
    said = tf[tf.index("] ") + 2 :]  # the line's words, without its TPU source file's name
    assert said.startswith("TpuCompileOp was cancelled")
    assert platform_in_log(said) == Platform.TPU


# What JAX 0.10.2 raised (two CPU processes under jax.distributed) for jax.device_put of an
# array sharded over both processes' devices onto one local device.
_DEVICE_PUT_NOT_ADDRESSABLE = """\
Traceback (most recent call last):
  File "/tmp/r20b/dp.py", line 16, in <module>
    jax.device_put(y, jax.local_devices()[0])
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/api.py", line\
 2118, in device_put
    out_flat = dispatch._batched_device_put_impl(
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/dispatch.py",\
 line 611, in _batched_device_put_impl
    y = _device_put_impl(x, device=device, src=src, copy=cp, aval=aval)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/dispatch.py",\
 line 595, in _device_put_impl
    return _device_put_sharding_impl(x, aval, device, copy)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/dispatch.py",\
 line 525, in _device_put_sharding_impl
    raise ValueError(
ValueError: When the second argument to `device_put` is a Device, the first argument must\
 be a fully addressable array or a non-addressable array with a single device sharding. Got\
 value with devices {CpuDevice(id=0), CpuDevice(id=2048)}
"""


def test_the_api_whose_argument_jax_refuses_is_its_op() -> None:
    # JAX names the API whose argument it refuses: "device_put's second argument must be a
    # Device or a Sharding which represents addressable devices" (marin#2417), today's "When
    # the second argument to `device_put` is a Device, the first argument must be a fully
    # addressable array": the op is device_put, not the ValueError.
    marin = first(log("dev20_d_marin_2417_multihost_tpu_device_put_non_addressable_named_sharding"))
    assert (str(marin.family), marin.finding.op) == ("sharding", "device_put")
    today = first(_DEVICE_PUT_NOT_ADDRESSABLE)
    assert (str(today.family), today.finding.op) == ("sharding", "device_put")
    # An English noun's argument is no API's.
    assert op_named("ValueError: the function's first argument must be an array") is None


# What pytest printed (JAX 0.10.2, JAX_PLATFORMS=cpu, run from another folder) for a test in a
# folder laid out as a jax checkout's tests/ that adds arrays of shapes (3,) and (4,).
_PYTEST_IN_A_CHECKOUT = """\
=================================== FAILURES ===================================
_____________________________ test_add_mismatched ______________________________

    def test_add_mismatched():
>       return jnp.ones(3) + jnp.ones(4)
               ^^^^^^^^^^^^^^^^^^^^^^^^^

../src/jax/tests/lax_broadcast_test.py:5: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ 
/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/array_methods.py:73\
2: in _operator_add
    return ufuncs.add(self, cast(ArrayLike, other))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/ufunc_api.py:182:\
 in __call__
    return call(*args)
           ^^^^^^^^^^^
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ 

x = JitTracer(float32[3]), y = JitTracer(float32[4])

    @binary_ufunc(identity=0, reduce=reductions.sum, accumulate=reductions.cumsum,\
 at=_add_at)
    def add(x: ArrayLike, y: ArrayLike, /) -> Array:
      \"\"\"Add two arrays element-wise.
    
      JAX implementation of :obj:`numpy.add`. This is a universal function,
      and supports the additional APIs described at :class:`jax.numpy.ufunc`.
      This function provides the implementation of the ``+`` operator for
      JAX arrays.
    
      Args:
        x, y: arrays to add. Must be broadcastable to a common shape.
    
      Returns:
        Array containing the result of the element-wise addition.
    
      Examples:
        Calling ``add`` explicitly:
    
        >>> x = jnp.arange(4)
        >>> jnp.add(x, 10)
        Array([10, 11, 12, 13], dtype=int32)
    
        Calling ``add`` via the ``+`` operator:
    
        >>> x + 10
        Array([10, 11, 12, 13], dtype=int32)
      \"\"\"
      x, y = promote_args("add", x, y)
      if x.dtype == bool:
        return lax.bitwise_or(x, y)
>     out = lax.add(x, y)
            ^^^^^^^^^^^^^
E     TypeError: add got incompatible shapes for broadcasting: (3,), (4,).
E     --------------------
E     For simplicity, JAX has removed its internal frames from the traceback of the\
 following exception. Set JAX_TRACEBACK_FILTERING=off to include these.

/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/numpy/ufuncs.py:1238:\
 TypeError
"""  # noqa: W291, W293  (pytest prints them)


def test_a_test_of_a_frameworks_own_suite_is_the_users_line() -> None:
    # A framework's developer runs its own tests from a checkout: a test module there (JAX's
    # CI: .../_work/jax/jax/tests/pallas/pallas_test.py, named by the HLO metadata of the op
    # XLA refused, jax#21108) is the line to fix, not a module the program imported.
    name = "dev20_d_jax_pr21108_tpu_ci_nextafter_f64_x64_rewriting_bitcast_convert_unimplemented"
    failure = first(log(name))
    assert failure.finding.source is not None
    assert failure.finding.source.endswith("/jax/tests/pallas/pallas_test.py:1551")
    # What pytest printed for a test in a jax checkout's tests/ (JAX 0.10.2's shape error).
    failure = first(_PYTEST_IN_A_CHECKOUT)
    assert (str(failure.family), failure.finding.source) == (
        "jax_shape",
        "../src/jax/tests/lax_broadcast_test.py:5",
    )
    # The framework's helpers for its tests are its own code.
    helper = StackFrame("/home/u/jax/jax/_src/test_util.py", 1188, "_CheckAgainstNumpy")
    assert not is_users(helper)
    harness = "/home/u/jax/jax/_src/internal_test_util/test_harnesses.py"
    assert not is_users(StackFrame(harness, 700, "make_harness"))


def test_xla_cpus_compiler_timing_the_program_is_a_sign_of_the_cpu() -> None:
    # XLA:CPU's compiler logs the program it compiled for the CPU ("Compiling
    # [reactant_myfill] for CPU using JIT time", Reactant.jl#2110, its executable
    # PjRtCpuExecutable in the status's trace): the program ran on the CPU.
    name = "dev21_h_reactantjl_2110_cpu_ifrt_get_output_memory_kinds_unimplemented"
    failure = first(log(name))
    assert (str(failure.family), failure.platform) == ("xla_status", Platform.CPU)
    # What JAX 0.10.2 logged (JAX_PLATFORMS=cpu, TF_CPP_VMODULE=cpu_compiler=2) for a jit.
    jax = (
        "I1207 10:29:07.970975    7126 cpu_compiler.cc:1269] Running HLO passes on "
        "[jit__lambda] for CPU time: 1.2 ms (1196 us) (cumulative: 1.2 ms, max: 1.2 ms, "
        "#called: 1)\n"
        "I1207 10:29:08.013670    7126 cpu_compiler.cc:2094] Compiling [jit__lambda] for CPU "
        "using JIT time: 42.6 ms (42627 us) (cumulative: 42.6 ms, max: 42.6 ms, #called: 1)\n"
    )
    assert platform_in_log(jax) == Platform.CPU


# What TensorFlow 2 raised on the CPU for tf.zeros([1 << 20, 1 << 20]) (its start-up lines left
# out).
_TF_EAGER_OOM = """\
W0000 00:00:1796639465.031820    9928 bfc_allocator.cc:502] Allocator (mklcpu) ran out of\
 memory trying to allocate 4.00TiB (rounded to 4398046511104)requested by op Fill
If the cause is memory fragmentation maybe the environment variable\
 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. 
Current allocation summary follows.
Current allocation summary follows.
Limit:                        23.54GiB
InUse:                              0B
MaxInUse:                           0B
NumAllocs:                           0
MaxAllocSize:                       0B
Reserved:                           0B
PeakReserved:                       0B
LargestFreeBlock:                   0B

W0000 00:00:1796639465.032000    9928 bfc_allocator.cc:513] <allocator contains no memory>
W0000 00:00:1796639465.032025    9928 op_kernel.cc:1858] OP_REQUIRES failed at\
 constant_op.cc:176 : RESOURCE_EXHAUSTED: OOM when allocating tensor with\
 shape[1048576,1048576] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by\
 allocator mklcpu
W0000 00:00:1796639465.032046    9928 local_rendezvous.cc:412] Local rendezvous is aborting\
 with status: RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[1048576,1048576]\
 and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu
Traceback (most recent call last):
  File "/tmp/r20b/tfoom.py", line 2, in <module>
    x = tf.zeros([1 << 20, 1 << 20])
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File\
 "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/util/traceback\
_utils.py", line 167, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File\
 "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/dtensor/python/api.py\
", line 64, in call_with_layout
    return fn(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^
tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node\
 __wrapped__Fill_device_/job:localhost/replica:0/task:0/device:CPU:0}} OOM when allocating\
 tensor with shape[1048576,1048576] and type float on\
 /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu [Op:Fill] name: 
"""  # noqa: W291


def test_the_op_tensorflows_eager_runtime_wrapped_is_its_op() -> None:
    # TensorFlow's eager runtime names the op it ran in the function it wrapped it in for its
    # device ("{{function_node __wrapped__AddV2_device_/job:localhost/.../device:GPU:0}}",
    # keras-hub#1418; TF's own "__wrapped__Fill_device_" for tf.zeros): the op of an
    # allocation that failed under it.
    keras = first(log("dev21_i_kerashub_1418_mistral_from_preset_colab_tf_oom_addv2_bf16"))
    assert (str(keras.family), keras.finding.op) == ("device_allocation", "AddV2")
    raised = explain_error(_TF_EAGER_OOM).failures[-1]
    assert (str(raised.family), raised.finding.op) == ("device_allocation", "Fill")


def test_the_op_a_kernel_languages_only_supported_refusal_names_is_its_op() -> None:
    # A kernel language refusing a form of an op it lowers ("NotImplementedError: Only
    # take_along_axis-like gathers supported", jax#39366) names the op: gather, not the
    # pallas_call around it; also in the words JAX 0.10.2 raised on a TPU v5e for a gather
    # along a major dimension (its last line, pasted alone).
    failure = first(log("fresh_jax_39366_pallas_gather"))
    assert (str(failure.family), failure.finding.op) == ("pallas", "gather")
    tpu = "NotImplementedError: Only gathers along the two minormost dimensions supported on TC"
    assert (str(first(tpu).family), first(tpu).finding.op) == ("pallas", "gather")
    # A refusal naming no op keeps the call's.
    copies = "NotImplementedError: Only copies transferring a number of bytes are supported"
    assert first(copies).finding.op == "pallas_call"
