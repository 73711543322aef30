"""Make a blind batch of errors JAX raises on a real TPU ("blind23"): run on a TPU host only.

Twenty TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19, blind20 and blind22 batches: a saliency map taken as the whole
batch's input Jacobian, the covariance of raw pixels, a float64 dataset put on the chip with
x64 on, predictions grown by ``concatenate`` each step, a replay buffer updated without
donation, Pallas kernels refused in new ways (triple buffering with ``pl.Buffered(3)``, a DMA
semaphore signalled by hand, a ``cholesky`` and a max pool inside a kernel, ``pltpu.roll`` with
a negative shift, a learning rate passed as a 0-d input, a bias input without its BlockSpec),
``pltpu.TPUCompilerParams`` that this JAX no longer has, an AOT-compiled step called with a
smaller last batch, an ordered ``io_callback`` under ``vmap``, a Python slice with a traced
start, a weight not transposed, an NHWC convolution with the default NCHW dimension numbers, a
ring ``ppermute`` written for eight chips, and ``TPU_VISIBLE_CHIPS`` of a four-chip launch
script on a one-chip host.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's runs on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07: nineteen cases
in one run with ``--only``, the ``TPU_VISIBLE_CHIPS`` one in a second. No case needs a package
beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind23/make.py`` (``--only NAME`` remakes
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
#: The cases' headers with one more import (their first lines stay as the programs read).
J_NUMPY = J + "import numpy as np"
J_SPEC = J + "from jax.sharding import PartitionSpec as P"

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b23_saliency_jacobian_whole_batch", "out_of_memory", None, "other", J + """

def logits(params, images):
    h = jax.nn.relu(images.reshape(images.shape[0], -1) @ params["w1"])
    return h @ params["w2"]

params = {"w1": jnp.full((150528, 512), 1e-3), "w2": jnp.full((512, 1000), 1e-3)}
images = jnp.ones((8, 224, 224, 3), jnp.float32)
saliency = jax.jit(jax.jacrev(logits, argnums=1))(params, images)  #!
print(saliency.shape)
""", env=ON_TPU),
    Case("b23_pca_covariance_of_raw_pixels", "out_of_memory", None, "other", J + """

@jax.jit
def pixel_covariance(images):
    pixels = images.reshape(images.shape[0], -1)
    centered = pixels - pixels.mean(axis=0)
    return centered.T @ centered / (pixels.shape[0] - 1)

images = jnp.ones((4096, 256, 256), jnp.float32)
cov = pixel_covariance(images)  #!
print(cov.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b23_x64_dataset_put_as_float64", "device_allocation", None, "lower_precision",
         J_NUMPY + """
jax.config.update("jax_enable_x64", True)  # for the int64 example ids

params = jnp.ones((1536, 1024, 1024), jnp.float32)
print("params", params.dtype, params.nbytes / 2**30, "GiB")
features = np.ones((1280, 1024, 1024))
features_on_device = jax.device_put(features)  #!
print(features_on_device.dtype)
""", env=ON_TPU),
    Case("b23_predictions_grown_by_concatenate", "device_allocation", None, "free_memory", J + """

@jax.jit
def predict(w, images):
    return jax.nn.softmax(images @ w, axis=-1)

w = jnp.full((1024, 1024), 1e-3)
test_images = jnp.ones((1048576, 1024), jnp.float32)
all_probs = jnp.zeros((0, 1024), jnp.float32)
for step in range(12):
    start = (step % 4) * 262144
    probs = predict(w, test_images[start:start + 262144])
    all_probs = jnp.concatenate([all_probs, probs]).block_until_ready()  #!
    print(step, all_probs.shape)
""", env=ON_TPU),
    Case("b23_replay_buffer_update_not_donated", "device_allocation", None, "donate", J + """

@jax.jit
def add_frames(buffer, frames, index):
    return jax.lax.dynamic_update_slice(buffer, frames, (index, 0, 0))

policy_params = jnp.ones((640, 1024, 1024), jnp.float32)
buffer = jnp.zeros((1792, 1024, 1024), jnp.float32)
for step in range(4):
    frames = jnp.full((64, 1024, 1024), step, jnp.float32)
    buffer = add_frames(buffer, frames, step * 64)  #!
    print("step", step, buffer[step * 64, 0, 0])
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b23_pallas_triple_buffered_input", "pallas", None, "other", P + """

def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5

x = jnp.ones((8192, 512), jnp.float32)
in_spec = pl.BlockSpec((512, 512), lambda i: (i, 0), pipeline_mode=pl.Buffered(3))
out_spec = pl.BlockSpec((512, 512), lambda i: (i, 0))
out = pl.pallas_call(scale_kernel, grid=(16,), in_specs=[in_spec], out_specs=out_spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b23_pallas_signal_dma_semaphore", "pallas", None, "other", P + """

def copy_in_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    pltpu.semaphore_signal(sem)  #!
    copy.wait()
    o_ref[...] = buf[...] * 2.0

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(
    copy_in_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((256, 128), jnp.float32), pltpu.SemaphoreType.DMA],
)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b23_pallas_cholesky_in_kernel", "pallas", "cholesky", "replace_op", P + """

def factor_block_kernel(cov_ref, o_ref):
    o_ref[...] = jnp.linalg.cholesky(cov_ref[...])

cov = jnp.eye(128, dtype=jnp.float32) * 2.0
factor = pl.pallas_call(factor_block_kernel,  #!
                        out_shape=jax.ShapeDtypeStruct(cov.shape, cov.dtype))(cov)
print(factor[0, 0])
""", env=ON_TPU),
    Case("b23_pallas_max_pool_in_kernel", "pallas", "reduce_window_max", "replace_op", P + """

def max_pool_kernel(x_ref, o_ref):
    o_ref[...] = jax.lax.reduce_window(x_ref[...], -jnp.inf, jax.lax.max,
                                       (2, 2), (2, 2), "VALID")

feature_map = jnp.ones((256, 256), jnp.float32)
pooled = pl.pallas_call(max_pool_kernel,  #!
                        out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32))(feature_map)
print(pooled.shape)
""", env=ON_TPU),
    Case("b23_pallas_roll_negative_shift", "pallas", None, "other", P + """

def next_token_kernel(x_ref, o_ref):
    o_ref[...] = pltpu.roll(x_ref[...], shift=-1, axis=1)  #!

tokens = jnp.ones((8, 128), jnp.float32)
shifted = pl.pallas_call(next_token_kernel,
                         out_shape=jax.ShapeDtypeStruct(tokens.shape, tokens.dtype))(tokens)
print(shifted[0, :4])
""", env=ON_TPU),
    Case("b23_pallas_learning_rate_scalar_input", "pallas", None, "fix_shapes", P + """

def sgd_kernel(w_ref, g_ref, lr_ref, o_ref):
    o_ref[...] = w_ref[...] - lr_ref[...] * g_ref[...]

w = jnp.ones((256, 128), jnp.float32)
g = jnp.full((256, 128), 0.5, jnp.float32)
sgd = pl.pallas_call(sgd_kernel, out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype))
new_w = sgd(w, g, jnp.float32(0.01))  #!
print(new_w[0, 0])
""", env=ON_TPU),
    Case("b23_pallas_bias_without_block_spec", "pallas", None, "fix_shapes", P + """

def add_bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]

x = jnp.ones((1024, 128), jnp.float32)
bias = jnp.full((1, 128), 0.1, jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(add_bias_kernel, grid=(4,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, bias)
print(out.sum())
""", env=ON_TPU),
    # ---- jax_call: how a call or an API was used -----------------------------------------------
    Case("b23_pallas_tpu_compiler_params_old_name", "jax_call", None, "other", P + """

def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0

x = jnp.ones((1024, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
params = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))  #!
out = pl.pallas_call(add_one_kernel, grid=(4,), in_specs=[spec], out_specs=spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     compiler_params=params)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b23_aot_step_called_with_last_batch", "jax_call", None, "fix_shapes", J + """

def train_step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)

w = jnp.ones((512, 8))
compiled = jax.jit(train_step).lower(w, jnp.ones((64, 512))).compile()
for batch in (jnp.ones((64, 512)), jnp.ones((48, 512))):
    w = compiled(w, batch)  #!
    print(w.shape)
""", env=ON_TPU),
    Case("b23_ordered_io_callback_under_vmap", "jax_call", None, "other", J + """
from jax.experimental import io_callback

def log_example(row):
    print("example mean", row.mean())
    return row.sum()

def per_example_loss(x):
    return io_callback(log_example, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)  #!

losses = jax.vmap(per_example_loss)(jnp.ones((4, 128), jnp.float32))
print(losses)
""", env=ON_TPU),
    # ---- jax_tracing / jax_shape -----------------------------------------------------------------
    Case("b23_window_slice_traced_start", "jax_tracing", None, "dynamic_slice", J + """

@jax.jit
def window_energy(signal, start):
    window = signal[start:start + 256]  #!
    return jnp.sum(window ** 2)

print(window_energy(jnp.ones(4096), 128))
""", env=ON_TPU),
    Case("b23_linear_weight_not_transposed", "jax_shape", "dot_general", "fix_shapes", J + """

def dense(params, x):
    return jax.nn.gelu(x @ params["kernel"] + params["bias"])  #!

params = {"kernel": jnp.ones((512, 768)), "bias": jnp.zeros(512)}
hidden = jax.jit(dense)(params, jnp.ones((32, 768)))
print(hidden.shape)
""", env=ON_TPU),
    Case("b23_conv_nhwc_default_dimension_numbers", "jax_shape", "conv_general_dilated",
         "fix_shapes", J + """

images = jnp.ones((32, 224, 224, 3), jnp.float32)
kernel = jnp.ones((7, 7, 3, 64), jnp.float32)
stem = jax.lax.conv(images, kernel, (2, 2), "SAME")  #!
print(stem.shape)
""", env=ON_TPU),
    # ---- sharding: collectives on the one chip ---------------------------------------------------
    Case("b23_ring_ppermute_for_eight_chips", "sharding", "ppermute", "other", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("ring",))

def pass_right(x):
    return jax.lax.ppermute(x, "ring", perm=[(i, (i + 1) % 8) for i in range(8)])

ring_step = jax.jit(jax.shard_map(pass_right, mesh=mesh, in_specs=P("ring"), out_specs=P("ring")))
x = jax.device_put(jnp.ones((1024,)), NamedSharding(mesh, P("ring")))
print(ring_step(x).sum())  #!
""", env=ON_TPU),
    # ---- backend_startup: a launch script for another host -------------------------------------
    Case("b23_visible_chip_one_on_single_chip_host", "backend_startup", None, "other", J + """

print(jax.devices())  #!
x = jnp.ones((1024, 1024))
print((x @ x).sum())
""", env={**ON_TPU, "TPU_VISIBLE_CHIPS": "1", "TPU_CHIPS_PER_PROCESS_BOUNDS": "1,1,1",
          "TPU_PROCESS_BOUNDS": "1,1,1"}),
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
