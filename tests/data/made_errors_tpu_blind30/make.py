"""Make a blind batch of errors JAX raises on a real TPU ("blind30"): run on a TPU host only.

Sixteen TPU errors nobody has tuned explain-error on (written 2026-12-08), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15 to
blind29 batches: an FFT convolution of whole recordings at a length that is no power of two, a
decoder's features upsampled by ``jnp.repeat`` before a convolution, a padded batch copied by
``jnp.pad`` beside the unpadded one, a uint8 video cast to float32 and normalized on the device,
Pallas kernels refused in new ways (scratch listed before the output in the kernel's arguments,
a piecewise activation written with ``jnp.select``, an ELU activation, a geometric mean taken
with ``jnp.prod``), a rank-revealing pivoted QR, an export called with parameters whose keys
were renamed, grouped-query attention scores without the keys repeated, images resized with only
their spatial size, a KV cache updated with one start index, a Python ``if`` on a
``fori_loop``'s counter, integer noise asked of ``jax.random.normal``, and ``psum_scatter`` of a
whole array without ``tiled=True``.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-08, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind30/make.py`` (``--only NAME`` remakes
some); the tests read the files, never run this.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).parent


def _tpu_machinery() -> ModuleType:
    path = HERE.parent / "made_errors_tpu" / "make.py"
    spec = importlib.util.spec_from_file_location("made_errors_tpu_make", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


#: The TPU corpus's module, its globals (``HERE``, ``CASES``) set to this folder's by :func:`main`.
TPU: Any = _tpu_machinery()
Case = TPU.Case
ON_TPU = TPU.ON_TPU
J = TPU.J
P = TPU.P

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b30_fft_convolution_at_padded_length", "out_of_memory", None, "other", J + """

@jax.jit
def reverb(recordings, impulse):
    n = recordings.shape[-1] + impulse.shape[-1] - 1
    spectrum = jnp.fft.rfft(recordings, n) * jnp.fft.rfft(impulse, n)
    return jnp.fft.irfft(spectrum, n)

recordings = jnp.ones((256, 4194304), jnp.float32)
impulse = jnp.ones((1048576,), jnp.float32) / 1048576
wet = reverb(recordings, impulse)  #!
print(wet.shape)
""", env=ON_TPU),
    Case("b30_decoder_upsampled_by_repeat_before_conv", "out_of_memory", None, "smaller_batch",
         J + """

@jax.jit
def decode(features, kernel):
    x = jnp.repeat(jnp.repeat(features, 4, axis=1), 4, axis=2)
    return jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

features = jnp.ones((16, 512, 512, 64), jnp.float32)
kernel = jnp.ones((3, 3, 64, 64), jnp.float32) / 576
images = decode(features, kernel)  #!
print(images.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b30_padded_batch_beside_unpadded", "device_allocation", None, "free_memory", J + """

max_len = 4096
hidden = jnp.ones((256, 3500, 1024), jnp.float32)
targets = jnp.ones((256, 3500, 1024), jnp.float32)
pad = ((0, 0), (0, max_len - hidden.shape[1]), (0, 0))
hidden_padded = jnp.pad(hidden, pad)
print("hidden padded", hidden_padded.nbytes / 2**30, "GiB")
targets_padded = jnp.pad(targets, pad)  #!
print("targets padded", targets_padded.nbytes / 2**30, "GiB")
""", env=ON_TPU),
    Case("b30_uint8_video_normalized_on_device", "device_allocation", None, "other", J + """

video = jnp.zeros((720, 720, 1280, 3), jnp.uint8)
print("video", video.nbytes / 2**30, "GiB")
frames = video.astype(jnp.float32) / 255.0  #!
print("frames", frames.nbytes / 2**30, "GiB")
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b30_pallas_scratch_listed_before_output", "pallas", None, "other", P + """

def matmul_kernel(x_ref, y_ref, acc_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)  #!

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)

x = jnp.ones((1024, 1024), jnp.bfloat16)
y = jnp.ones((1024, 1024), jnp.bfloat16)
out = pl.pallas_call(matmul_kernel, grid=(4, 4, 4),
                     in_specs=[pl.BlockSpec((256, 256), lambda i, j, k: (i, k)),
                               pl.BlockSpec((256, 256), lambda i, j, k: (k, j))],
                     out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
                     out_shape=jax.ShapeDtypeStruct((1024, 1024), jnp.bfloat16),
                     scratch_shapes=[pltpu.VMEM((256, 256), jnp.float32)])(x, y)
print(out[0, 0])
""", env=ON_TPU),
    Case("b30_pallas_hard_swish_with_jnp_select", "pallas", None, "replace_op", P + """

def hard_swish_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.select([x <= -3.0, x >= 3.0], [jnp.zeros_like(x), x], x * (x + 3.0) / 6.0)

x = jnp.linspace(-6.0, 6.0, 512 * 1024, dtype=jnp.float32).reshape(512, 1024)
spec = pl.BlockSpec((128, 1024), lambda i: (i, 0))
y = pl.pallas_call(hard_swish_kernel, grid=(4,), in_specs=[spec], out_specs=spec,  #!
                   out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(y[0, :4])
""", env=ON_TPU),
    Case("b30_pallas_elu_activation_in_kernel", "pallas", "expm1", "replace_op", P + """

def dense_elu_kernel(x_ref, w_ref, o_ref):
    h = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = jax.nn.elu(h)

x = jnp.ones((512, 256), jnp.float32)
w = jnp.ones((256, 512), jnp.float32) * 0.01
h = pl.pallas_call(dense_elu_kernel, grid=(4,),  #!
                   in_specs=[pl.BlockSpec((128, 256), lambda i: (i, 0)),
                             pl.BlockSpec((256, 512), lambda i: (0, 0))],
                   out_specs=pl.BlockSpec((128, 512), lambda i: (i, 0)),
                   out_shape=jax.ShapeDtypeStruct((512, 512), jnp.float32))(x, w)
print(h.sum())
""", env=ON_TPU),
    Case("b30_pallas_geometric_mean_with_prod", "pallas", "reduce_prod", "replace_op", P + """

def geometric_mean_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.prod(x, axis=1, keepdims=True) ** (1.0 / x.shape[1])

ratios = jnp.full((1024, 128), 1.01, jnp.float32)
gmean = pl.pallas_call(geometric_mean_kernel, grid=(8,),  #!
                       in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0))],
                       out_specs=pl.BlockSpec((128, 1), lambda i: (i, 0)),
                       out_shape=jax.ShapeDtypeStruct((1024, 1), jnp.float32))(ratios)
print(gmean[:4, 0])
""", env=ON_TPU),
    # ---- missing_lowering: what a TPU does not do -----------------------------------------------
    Case("b30_pivoted_qr_for_column_selection", "missing_lowering", "geqp3", "other", J + """
import jax.scipy.linalg

features = jax.random.normal(jax.random.key(0), (2048, 256))
q, r, columns = jax.scipy.linalg.qr(features, mode="economic", pivoting=True)  #!
print("most independent columns", columns[:16])
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b30_export_called_with_renamed_param_keys", "jax_export", None, "other", J + """
from jax import export

def dense(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])

params = {"w": jnp.ones((128, 64)), "b": jnp.zeros((64,))}
exported = export.export(jax.jit(dense))(params, jax.ShapeDtypeStruct((32, 128), jnp.float32))
restored = {"kernel": params["w"], "bias": params["b"]}
out = exported.call(restored, jnp.ones((32, 128)))  #!
print(out.shape)
""", env=ON_TPU),
    # ---- jax_shape -------------------------------------------------------------------------------
    Case("b30_gqa_scores_without_repeated_keys", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def attention_scores(q, k):
    return jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1])  #!

q = jnp.ones((4, 512, 32, 128), jnp.bfloat16)
k = jnp.ones((4, 512, 8, 128), jnp.bfloat16)
print(attention_scores(q, k).shape)
""", env=ON_TPU),
    Case("b30_resize_given_only_spatial_size", "jax_shape", None, "fix_shapes", J + """

images = jnp.ones((64, 512, 512, 3), jnp.float32)
thumbs = jax.image.resize(images, (224, 224), method="bilinear")  #!
print(thumbs.shape)
""", env=ON_TPU),
    Case("b30_kv_cache_update_one_start_index", "jax_shape", "dynamic_update_slice", "fix_shapes",
         J + """

@jax.jit
def append_kv(cache, new_kv, pos):
    return jax.lax.dynamic_update_slice(cache, new_kv, (pos,))  #!

cache = jnp.zeros((8, 2048, 16, 128), jnp.bfloat16)
new_kv = jnp.ones((8, 1, 16, 128), jnp.bfloat16)
print(append_kv(cache, new_kv, 17).shape)
""", env=ON_TPU),
    # ---- jax_tracing -----------------------------------------------------------------------------
    Case("b30_python_if_on_fori_loop_counter", "jax_tracing", None, "lax_control_flow", J + """

@jax.jit
def leapfrog(q, p, step_size):
    def body(i, state):
        q, p = state
        if i % 2 == 0:  #!
            p = p - 0.5 * step_size * q
        return q + step_size * p, p

    return jax.lax.fori_loop(0, 100, body, (q, p))

print(leapfrog(jnp.ones(1024), jnp.zeros(1024), 0.01)[0][:4])
""", env=ON_TPU),
    # ---- jax_call --------------------------------------------------------------------------------
    Case("b30_integer_noise_from_random_normal", "jax_call", None, "cast_dtype", J + """

key = jax.random.key(0)
weights_int8 = jnp.ones((4096, 4096), jnp.int8)
noise = jax.random.normal(key, weights_int8.shape, dtype=jnp.int8)  #!
print((weights_int8 + noise).sum())
""", env=ON_TPU),
    # ---- sharding --------------------------------------------------------------------------------
    Case("b30_psum_scatter_without_tiled", "sharding", "reduce_scatter", "other", J + """
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def shard_gradients(grads):
    return jax.lax.psum_scatter(grads, "data", scatter_dimension=0)  #!

reduce_grads = jax.shard_map(shard_gradients, mesh=mesh, in_specs=P(), out_specs=P("data"))
print(reduce_grads(jnp.ones((1024, 256))).shape)
""", env=ON_TPU),
]

# fmt: on


def main(argv: list[str]) -> int:
    """The TPU corpus's ``main``, writing this folder's cases beside this file."""
    TPU.HERE = HERE
    TPU.CASES = CASES
    TPU.__doc__ = __doc__  # its --help names this batch
    result: int = TPU.main(argv)
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
