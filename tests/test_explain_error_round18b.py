"""Round 18b of explain-error: the fields (device, op, user line, advice) the thirteenth blind
part and the blind made batch (JAX 0.10.2 / TF 2.21) showed wrong, each fix on two wordings:
the corpus log and a second text (another thread's, or JAX 0.10.2's own words, pasted verbatim
from a run on CPU here)."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.device import platform_of
from hloscope.analysis.explain_error.record import Failure
from hloscope.analysis.unsupported.findings import Platform

DATA = Path(__file__).parent / "data"
ERROR_LOGS = DATA / "error_logs"
MADE = DATA / "made_errors_blind13"


def first(text: str) -> Failure:
    explanation = explain_error(text)
    assert explanation.failures
    return explanation.failures[0]


def made(name: str) -> str:
    return (MADE / f"{name}.log").read_text()


def corpus(name: str) -> str:
    (found,) = ERROR_LOGS.glob(f"{name}*.log")
    return found.read_text()


# ---- a Python callback's error, as XLA:CPU's host callback runner passes it on ----------------

# JAX 0.10.2 on CPU: an io_callback declared to return (4,) whose callback returns (2,).
IO_CALLBACK_SHAPE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/cb_shape.py", line 17, in <module>
    print(step(jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_shape.py", line 17, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
25, in _wrapped_callback
RuntimeError: Incorrect output shape for return value #0: Expected: (4,), Actual: (2,)
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# JAX 0.10.2 on CPU (jax_enable_x64): an io_callback declared int32 whose callback returns int64.
IO_CALLBACK_DTYPE_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/cb_dtype.py", line 19, in <module>
    print(step(jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_dtype.py", line 19, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
29, in _wrapped_callback
RuntimeError: Incorrect output dtype for return value #0: Expected: int32, Actual: int64
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""

# JAX 0.10.2 on CPU: a pure_callback whose function opens a file that is not there.
PURE_CALLBACK_RAISES_0_10_2 = """\
jax.pure_callback failed
Traceback (most recent call last):
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 9\
3, in pure_callback_impl
    return tree_util.tree_map(np.asarray, callback(*args))
                                          ^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 7\
1, in __call__
    return tree_util.tree_leaves(self.callback_func(*args, **kwargs))
                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18b/cb_raise.py", line 9, in read_scale
    with open("scales.json") as f:
         ^^^^^^^^^^^^^^^^^^^
FileNotFoundError: [Errno 2] No such file or directory: 'scales.json'
Traceback (most recent call last):
  File "/tmp/r18b/cb_raise.py", line 19, in <module>
    print(jax.jit(model)(jnp.ones(3)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recen\
t call last):
  File "/tmp/r18b/cb_raise.py", line 19, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/traceback_util.py", \
line 195, in reraise_with_filtered_traceback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 259, \
in cache_miss
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 139, \
in _run_python_pjit
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pjit.py", line 1190,\
 in _pjit_call_impl_python
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/profiler.py", line 4\
20, in wrapper
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/interpreters/pxla.py\
", line 388, in __call__
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 8\
16, in _wrapped_callback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 2\
26, in _callback
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 9\
6, in pure_callback_impl
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/callback.py", line 7\
1, in __call__
  File "/tmp/r18b/cb_raise.py", line 9, in read_scale
FileNotFoundError: [Errno 2] No such file or directory: 'scales.json'
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_a_callback_error_of_xla_cpu_is_on_the_cpu() -> None:
    # "CpuCallback error" is XLA:CPU's runner of host callbacks: the program ran on the CPU.
    for text in (made("status_callback_raises"), PURE_CALLBACK_RAISES_0_10_2):
        assert first(text).platform is Platform.CPU


def test_a_callback_result_of_another_shape_is_fixed_in_the_shapes() -> None:
    for text in (made("status_callback_wrong_shape"), IO_CALLBACK_SHAPE_0_10_2):
        failure = first(text)
        assert failure.advice_kind == "fix_shapes"
        assert "ShapeDtypeStruct" in failure.finding.suggestion


def test_a_callback_result_of_another_dtype_is_cast() -> None:
    # JAX's same check, of the dtype: a Windows int32 against int64 declared, and x64's int64.
    pymc = corpus("fresh8_c_pymc_7593_blackjax_windows_cpucallback")
    for text in (pymc, IO_CALLBACK_DTYPE_0_10_2):
        assert first(text).advice_kind == "cast_dtype"


def test_a_callback_that_raised_is_named_by_its_api() -> None:
    # JAX's log of it ("jax.pure_callback failed") and the quoted frames name the API; what the
    # callback raised stays in the hints.
    for text in (made("status_callback_raises"), PURE_CALLBACK_RAISES_0_10_2):
        failure = first(text)
        assert failure.finding.op == "pure_callback"
        assert "FileNotFoundError" in " ".join(failure.hints)


def test_a_callback_that_raised_is_placed_at_its_own_line() -> None:
    # The callback's frames are quoted inside the status; the traceback around the message
    # reaches only the line that called the jitted function.
    raised = first(made("status_callback_raises"))
    assert raised.finding.source == "/home/user/made/status_callback_raises.py:7"
    assert first(PURE_CALLBACK_RAISES_0_10_2).finding.source == "/tmp/r18b/cb_raise.py:9"


# ---- one TensorFlow tensor larger than any device holds -----------------------------------------

# TensorFlow 2.21 on CPU: (600000, 1) minus (600000,) broadcasts to every pair, 1.3 TiB.
TF_OUTER_BROADCAST_2_21 = """\
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796631929.105591   30655 port.cc:153] oneDNN custom operations are on. You may see\
 slightly different numerical results due to floating-point round-off errors from different com\
putation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
I0000 00:00:1796631929.148776   30655 cpu_feature_guard.cc:227] This TensorFlow binary is optim\
ized to use available CPU instructions in performance-critical operations.
To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuil\
d TensorFlow with the appropriate compiler flags.
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796631931.690113   30655 port.cc:153] oneDNN custom operations are on. You may see\
 slightly different numerical results due to floating-point round-off errors from different com\
putation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
W0000 00:00:1796631942.398867   30655 bfc_allocator.cc:502] Allocator (mklcpu) ran out of memor\
y trying to allocate 1.31TiB (rounded to 1440000000000)requested by op Sub
If the cause is memory fragmentation maybe the environment variable 'TF_GPU_ALLOCATOR=cuda_mall\
oc_async' will improve the situation.\x20
Current allocation summary follows.
Current allocation summary follows.
I0000 00:00:1796631942.398965   30655 bfc_allocator.cc:1049] BFCAllocator dump for mklcpu
I0000 00:00:1796631942.398968   30655 bfc_allocator.cc:1056] Bin (256): 	Total Chunks: 0, Chunk\
s in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398973   30655 bfc_allocator.cc:1056] Bin (512): 	Total Chunks: 0, Chunk\
s in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398975   30655 bfc_allocator.cc:1056] Bin (1024): 	Total Chunks: 0, Chun\
ks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398977   30655 bfc_allocator.cc:1056] Bin (2048): 	Total Chunks: 0, Chun\
ks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398979   30655 bfc_allocator.cc:1056] Bin (4096): 	Total Chunks: 0, Chun\
ks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398981   30655 bfc_allocator.cc:1056] Bin (8192): 	Total Chunks: 0, Chun\
ks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398983   30655 bfc_allocator.cc:1056] Bin (16384): 	Total Chunks: 0, Chu\
nks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398986   30655 bfc_allocator.cc:1056] Bin (32768): 	Total Chunks: 0, Chu\
nks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398988   30655 bfc_allocator.cc:1056] Bin (65536): 	Total Chunks: 0, Chu\
nks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398990   30655 bfc_allocator.cc:1056] Bin (131072): 	Total Chunks: 0, Ch\
unks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398992   30655 bfc_allocator.cc:1056] Bin (262144): 	Total Chunks: 0, Ch\
unks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398994   30655 bfc_allocator.cc:1056] Bin (524288): 	Total Chunks: 0, Ch\
unks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398996   30655 bfc_allocator.cc:1056] Bin (1048576): 	Total Chunks: 0, C\
hunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.398998   30655 bfc_allocator.cc:1056] Bin (2097152): 	Total Chunks: 3, C\
hunks in use: 2. 8.00MiB allocated for chunks. 4.58MiB in use in bin. 4.58MiB client-requested \
in use in bin.
I0000 00:00:1796631942.399010   30655 bfc_allocator.cc:1056] Bin (4194304): 	Total Chunks: 2, C\
hunks in use: 0. 8.00MiB allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399012   30655 bfc_allocator.cc:1056] Bin (8388608): 	Total Chunks: 0, C\
hunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399014   30655 bfc_allocator.cc:1056] Bin (16777216): 	Total Chunks: 0, \
Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399017   30655 bfc_allocator.cc:1056] Bin (33554432): 	Total Chunks: 0, \
Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399019   30655 bfc_allocator.cc:1056] Bin (67108864): 	Total Chunks: 0, \
Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399021   30655 bfc_allocator.cc:1056] Bin (134217728): 	Total Chunks: 0,\
 Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399023   30655 bfc_allocator.cc:1056] Bin (268435456): 	Total Chunks: 0,\
 Chunks in use: 0. 0B allocated for chunks. 0B in use in bin. 0B client-requested in use in bin.
I0000 00:00:1796631942.399025   30655 bfc_allocator.cc:1072] Bin for 1.31TiB was 256.00MiB, Chu\
nk State:\x20
I0000 00:00:1796631942.399027   30655 bfc_allocator.cc:1085] Next region of size 8388608
I0000 00:00:1796631942.399033   30655 bfc_allocator.cc:1105] InUse at 7f0de37ff040 of size 2400\
000 next 3
I0000 00:00:1796631942.399035   30655 bfc_allocator.cc:1105] InUse at 7f0de3a48f40 of size 2400\
000 next 4
I0000 00:00:1796631942.399037   30655 bfc_allocator.cc:1105] Free  at 7f0de3c92e40 of size 3588\
608 next 18446744073709551615
I0000 00:00:1796631942.399038   30655 bfc_allocator.cc:1085] Next region of size 4194304
I0000 00:00:1796631942.399040   30655 bfc_allocator.cc:1105] Free  at 7f0df8241040 of size 4194\
304 next 18446744073709551615
I0000 00:00:1796631942.399041   30655 bfc_allocator.cc:1085] Next region of size 4194304
I0000 00:00:1796631942.399043   30655 bfc_allocator.cc:1105] Free  at 7f0df8642040 of size 4194\
304 next 18446744073709551615
I0000 00:00:1796631942.399044   30655 bfc_allocator.cc:1110]      Summary of in-use Chunks by s\
ize:\x20
I0000 00:00:1796631942.399045   30655 bfc_allocator.cc:1113] 2 Chunks of size 2400000 totalling\
 4.58MiB
I0000 00:00:1796631942.399048   30655 bfc_allocator.cc:1117] Sum Total of in-use chunks: 4.58MiB
I0000 00:00:1796631942.399050   30655 bfc_allocator.cc:1119] Total size in pool: 16.00MiB memor\
y_limit_: 23.54GiB available size: 23.52GiB curr_region_allocation_bytes_: 16.00MiB
I0000 00:00:1796631942.399052   30655 bfc_allocator.cc:1128] Stats:\x20
Limit:                        23.54GiB
InUse:                         4.58MiB
MaxInUse:                     12.58MiB
NumAllocs:                           6
MaxAllocSize:                  4.00MiB
Reserved:                           0B
PeakReserved:                       0B
LargestFreeBlock:                   0B

W0000 00:00:1796631942.399058   30655 bfc_allocator.cc:513] *****************************______\
_________________________________________________________________
W0000 00:00:1796631942.399084   30655 op_kernel.cc:1858] OP_REQUIRES failed at cwise_ops_common\
.cc:82 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[600000,600000] and type floa\
t on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu
W0000 00:00:1796631942.399108   30655 local_rendezvous.cc:412] Local rendezvous is aborting wit\
h status: RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[600000,600000] and type flo\
at on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu
Traceback (most recent call last):
  File "/tmp/r18b/tf_outer.py", line 6, in <module>
    distances = tf.abs(positions - anchors)
                       ~~~~~~~~~~^~~~~~~~~
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/util/traceb\
ack_utils.py", line 167, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/tensorflow/python/framework/o\
ps.py", line 6027, in raise_from_not_ok_status
    raise core._status_to_exception(e) from None  # pylint: disable=protected-access
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__Sub_\
device_/job:localhost/replica:0/task:0/device:CPU:0}} OOM when allocating tensor with shape[600\
000,600000] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu \
[Op:Sub] name:\x20
"""


def test_a_tf_tensor_no_device_holds_is_a_shape_to_fix() -> None:
    # A batch to trim is no answer to one tensor of TiBs (a Dense layer on a flattened
    # megapixel image, an unintended outer broadcast): the shape grew by mistake.
    for text in (made("oom_keras_dense_megapixel"), TF_OUTER_BROADCAST_2_21):
        failure = first(text)
        assert failure.advice_kind == "fix_shapes"
        assert [kind for kind, _ in failure.more_advice][:1] == ["smaller_batch"]


# ---- a cuDNN handle the runtime could not create -----------------------------------------------


def test_a_cudnn_handle_refused_offers_the_versions_after_the_memory() -> None:
    # Its threads end on one of two causes: a full device (allow_growth, another process) or
    # a CUDA/cuDNN that does not go with the driver (jax#14480, QuantEcon's CI: jaxlib 0.4.3).
    quantecon = (DATA / "family_logs" / "r18b_quantecon_319_cudnn_handle_ret_check.log").read_text()
    for text in (corpus("fresh13_b_jax_14480"), quantecon):
        failure = first(text)
        kinds = [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]
        assert kinds[:2] == ["free_memory", "install"]


# ---- IREE's PJRT plugins: the platform under the plugin's prefix ---------------------------------


def test_an_iree_platform_is_the_device_it_names() -> None:
    # iree_cpu, iree_cuda: IREE's PJRT plugins name their platforms after the device, in a
    # lowering's refusal ("not found for platform iree_cpu") and in JAX_PLATFORMS.
    iree = (DATA / "family_logs" / "r18b_iree_19223_iree_cpu_plugin_attributes.log").read_text()
    for text in (corpus("fresh13_c_openxla_pjrt_plugin_25"), iree):
        assert first(text).platform is Platform.CPU
    assert platform_of("iree_cuda") is Platform.GPU and platform_of("iree_vulkan") is None


# ---- PyTorch/XLA's bridge handed a tensor that is not on the XLA device -------------------------


def test_a_cpu_tensor_at_an_xla_op_is_moved_before_a_bug_is_reported() -> None:
    # GetXlaTensor's "Check failed: xtensor" (and the message under it) is the program's
    # tensor left on the CPU: a mark_sharding on a parameter's .data, a model never moved.
    colab = (DATA / "family_logs" / "r18b_ptxla_2960_colab_linear_not_xla_tensor.log").read_text()
    for text in (corpus("fresh13_a_ptxla_8479"), colab):
        failure = first(text)
        assert failure.advice_kind == "explicit_transfer"
        assert [kind for kind, _ in failure.more_advice] == ["report_bug"]


# ---- a Pallas kernel run on the CPU without its interpreter --------------------------------------

# JAX 0.10.2 on CPU: a pallas_call of a kernel that doubles its block, interpret left off.
PALLAS_ON_CPU_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/pl_cpu.py", line 12, in scale
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
jax._src.source_info_util.JaxStackTraceBeforeTransformation: ValueError: Only interpret mode is\
 supported on CPU backend.

The preceding stack trace is the source of the JAX operation that, once transformed by JAX, tri\
ggered the following exception.

--------------------

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/tmp/r18b/pl_cpu.py", line 15, in <module>
    print(scale(jnp.arange(8.0)))
          ^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.p\
y", line 974, in _pallas_call_lowering
    return mlir.lower_per_platform(
           ^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.p\
y", line 888, in cpu_lowering
    raise ValueError("Only interpret mode is supported on CPU backend.")
ValueError: Only interpret mode is supported on CPU backend.
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_a_pallas_kernel_on_the_cpu_is_interpreted_first() -> None:
    for text in (made("pallas_cpu_without_interpret"), PALLAS_ON_CPU_0_10_2):
        failure = first(text)
        assert failure.advice_kind == "other" and "interpret=True" in failure.finding.suggestion
        assert [kind for kind, _ in failure.more_advice] == ["replace_op"]


# ---- a Pallas kernel whose parameters are not the refs it is called with ---------------------

# JAX 0.10.2 on CPU: a kernel of one input and one output given two inputs.
PALLAS_KERNEL_ARITY_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/pl_arity.py", line 18, in <module>
    print(add_both(jnp.ones(8), jnp.ones(8)))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18b/pl_arity.py", line 11, in add_both
    return pl.pallas_call(
           ^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.p\
y", line 1326, in wrapped
    jaxpr, consts = _trace_kernel_to_jaxpr(
                    ^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.p\
y", line 809, in _trace_kernel_to_jaxpr
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/jax/_src/pallas/primitives.py\
", line 652, in wrap_with_transforms
    return f(*new_args)
           ^^^^^^^^^^^^
TypeError: add_kernel() takes 2 positional arguments but 3 were given
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_a_pallas_kernel_of_other_parameters_is_named_with_its_refs() -> None:
    # Python's own arity TypeError, raised as pallas_call traces the kernel: the kernel is the
    # op, and the fix is its refs (inputs, outputs, scratch_shapes), not a jax upgrade.
    for text, kernel in (
        (made("pallas_kernel_missing_scratch"), "matmul_kernel"),
        (PALLAS_KERNEL_ARITY_0_10_2, "add_kernel"),
    ):
        failure = first(text)
        assert (str(failure.family), failure.finding.op) == ("pallas", kernel)
        assert failure.advice_kind == "other" and "scratch_shapes" in failure.finding.suggestion


# ---- a non-array leaf inside a pytree argument of jit --------------------------------------------


def test_a_non_array_inside_a_pytree_argument_is_filtered_before_marked_static() -> None:
    # "passed to the function at path model.activation": static_argnames=('model',) would make
    # the model's arrays constants; Equinox's filter_jit (or a static field) is the fix.
    for text in (made("call_equinox_plain_jit"), corpus("fresh13_b_equinox_1127")):
        failure = first(text)
        assert failure.advice_kind == "other" and "filter_jit" in failure.finding.suggestion
        assert [kind for kind, _ in failure.more_advice] == ["static_args"]
    # The argument itself (a str, a config object, args[0]) is still one to mark static.
    assert first(made("call_config_object_arg")).advice_kind == "static_args"
    assert first(corpus("fresh4_b_nnpdf_2318")).advice_kind == "static_args"


# ---- Python's max/min on a traced value ----------------------------------------------------------

# JAX 0.10.2 on CPU: a jitted step clipping its scale with Python's min.
PYTHON_MIN_0_10_2 = """\
Traceback (most recent call last):
  File "/tmp/r18b/pymin.py", line 11, in <module>
    print(clipped_step(jnp.float32(12.0), 0.1))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/r18b/pymin.py", line 7, in clipped_step
    scale = min(1.0, 5.0 / grad_norm)
            ^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape b\
ool[].
The error occurred while tracing the function clipped_step at /tmp/r18b/pymin.py:5 for jit. Thi\
s concrete value was not available in Python because it depends on the value of the argument gr\
ad_norm.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError
--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following excepti\
on. Set JAX_TRACEBACK_FILTERING=off to include these.
"""


def test_python_max_or_min_on_a_tracer_is_jnp_maximum_first() -> None:
    # The line that converted calls Python's max/min (its source quoted under the frame):
    # jnp.maximum/jnp.minimum, then lax control flow.
    for text in (made("tracing_python_max_hinge"), PYTHON_MIN_0_10_2):
        failure = first(text)
        assert failure.advice_kind == "jnp_not_np" and "jnp.maximum" in failure.finding.suggestion
        assert [kind for kind, _ in failure.more_advice][:1] == ["lax_control_flow"]
