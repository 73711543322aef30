"""Make a blind batch of errors JAX raises on a real TPU ("blind25"): run on a TPU host only.

Seventeen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19, blind20, blind22, blind23 and blind24 batches: a whole batch of
images upscaled 4x in one call, a full ``argsort`` of 1.6 billion scores to take the top 100, a
3-D U-Net layer on a whole 512-cubed CT volume, an eager (unjitted) attention that keeps every
intermediate alive, every cross-validation split built up front, Pallas kernels refused in new
ways (``CORE_PARALLEL`` dimension semantics on the v5e's one core, a lane stride ``[:, ::2]``,
``out_shape`` given as a bare shape, an input aliased to an output of another dtype, a row
kernel ``vmap``-ed over columns, a kernel that calls another ``pallas_call``), ``float`` of the
loss inside ``jit``, a softmax's max taken without ``keepdims``, ``jax.grad`` of per-example
losses, a padding mask set in place, a static config object rebuilt each step, and an exported
loss called with the full batch's labels beside the last batch's logits.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind25/make.py`` (``--only NAME`` remakes
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
    Case("b25_superres_resize_whole_batch", "out_of_memory", None, "smaller_batch", J + """

@jax.jit
def upscale(images):
    return jax.image.resize(images, (images.shape[0], 4096, 4096, 3), "bilinear")

low_res = jnp.ones((128, 1024, 1024, 3), jnp.float32)
high_res = upscale(low_res)  #!
print(high_res.shape)
""", env=ON_TPU),
    Case("b25_argsort_for_top_100", "out_of_memory", None, "replace_op", J + """

scores = jax.random.uniform(jax.random.key(0), (1_600_000_000,))
print("items", scores.shape[0])

@jax.jit
def top_items(scores):
    return jnp.argsort(-scores)[:100]

best = top_items(scores)  #!
print(best)
""", env=ON_TPU),
    Case("b25_unet3d_on_full_ct_volume", "out_of_memory", None, "smaller_batch", J + """

def conv3d(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1, 1), "SAME",
                                        dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))

@jax.jit
def segment(volume, w_in, w_out):
    features = jax.nn.relu(conv3d(volume, w_in))
    return jax.nn.sigmoid(conv3d(features, w_out))

ct = jnp.ones((1, 512, 512, 512, 1), jnp.float32)
w_in = jnp.full((3, 3, 3, 1, 32), 0.01, jnp.float32)
w_out = jnp.full((3, 3, 3, 32, 1), 0.01, jnp.float32)
mask = segment(ct, w_in, w_out)  #!
print(mask.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b25_eager_attention_keeps_intermediates", "device_allocation", None, "free_memory",
         J + """

q = jnp.ones((32768, 128), jnp.float32)
k = jnp.ones((32768, 128), jnp.float32)
v = jnp.ones((32768, 128), jnp.float32)
scores = (q @ k.T) * 0.125
shifted = scores - scores.max(axis=-1, keepdims=True)
weights = jnp.exp(shifted)
print("weights", weights.nbytes / 2**30, "GiB")
probs = weights / weights.sum(axis=-1, keepdims=True)  #!
out = probs @ v
print(out.shape)
""", env=ON_TPU),
    Case("b25_cv_folds_materialized_up_front", "device_allocation", None, "free_memory", J + """

data = jax.random.normal(jax.random.key(0), (1280, 1024, 1024), jnp.float32)
print("dataset", data.nbytes / 2**30, "GiB")
folds = jnp.split(data, 5)
splits = []
for k in range(5):
    train = jnp.concatenate(folds[:k] + folds[k + 1:])  #!
    splits.append((train, folds[k]))
    print("fold", k, train.shape)
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b25_pallas_core_parallel_on_one_core", "pallas", None, "other", P + """

def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((2048, 512), jnp.float32)
spec = pl.BlockSpec((1024, 512), lambda i: (i, 0))
out = pl.pallas_call(scale_kernel, grid=(2,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     compiler_params=pltpu.CompilerParams(
                         dimension_semantics=(pltpu.CORE_PARALLEL,)))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b25_pallas_downsample_lanes_by_step", "pallas", None, "other", P + """

def downsample_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[:, ::2]  #!

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(downsample_kernel,
                     out_shape=jax.ShapeDtypeStruct((256, 128), jnp.float32))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b25_pallas_out_shape_given_as_shape", "pallas", None, "other", P + """

def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)

x = jnp.ones((512, 256), jnp.float32)
out = pl.pallas_call(relu_kernel, out_shape=x.shape)(x)  #!
print(out.sum())
""", env=ON_TPU),
    Case("b25_pallas_alias_bf16_output_to_f32_input", "pallas", None, "other", P + """

def to_bf16_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(jnp.bfloat16)

x = jnp.ones((512, 256), jnp.float32)
out = pl.pallas_call(to_bf16_kernel, input_output_aliases={0: 0},  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, jnp.bfloat16))(x)
print(out.dtype)
""", env=ON_TPU),
    Case("b25_pallas_row_kernel_vmapped_over_columns", "pallas", None, "fix_shapes", P + """

def standardize_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = (x - x.mean()) / (x.std() + 1e-6)

def standardize(col):
    return pl.pallas_call(standardize_kernel,  #!
                          out_shape=jax.ShapeDtypeStruct(col.shape, col.dtype))(col)

features = jnp.ones((512, 1024), jnp.float32)
out = jax.vmap(standardize, in_axes=1, out_axes=1)(features)
print(out.shape)
""", env=ON_TPU),
    Case("b25_pallas_kernel_calls_another_kernel", "pallas", None, "other", P + """

def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])

def gelu(x):
    return pl.pallas_call(gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

def mlp_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = gelu(x_ref[...] @ w_ref[...])

x = jnp.ones((256, 512), jnp.float32)
w = jnp.full((512, 256), 0.01, jnp.float32)
out = pl.pallas_call(mlp_kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32))(x, w)  #!
print(out.sum())
""", env=ON_TPU),
    # ---- jax_tracing / jax_shape / jax_call ------------------------------------------------------
    Case("b25_float_of_loss_logged_in_jit", "jax_tracing", None, "other", J + """

@jax.jit
def train_step(w, x, y):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    print(f"loss {float(loss):.4f}")  #!
    return w - 0.01 * g

w = train_step(jnp.zeros((128,)), jnp.ones((64, 128)), jnp.ones((64,)))
print(w.shape)
""", env=ON_TPU),
    Case("b25_softmax_max_without_keepdims", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def stable_softmax(logits):
    shifted = logits - logits.max(axis=1)  #!
    e = jnp.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)

print(stable_softmax(jnp.ones((64, 10))).shape)
""", env=ON_TPU),
    Case("b25_grad_of_per_example_losses", "jax_call", None, "other", J + """

def loss_fn(w, x, y):
    pred = x @ w
    return (pred - y) ** 2

w = jnp.zeros((128,), jnp.float32)
x = jnp.ones((64, 128), jnp.float32)
y = jnp.ones((64,), jnp.float32)
grads = jax.grad(loss_fn)(w, x, y)  #!
print(grads.shape)
""", env=ON_TPU),
    Case("b25_padding_mask_set_in_place", "jax_call", None, "other", J + """

tokens = jnp.array([[5, 8, 13, 0, 0, 0], [7, 2, 0, 0, 0, 0]])
mask = jnp.ones(tokens.shape, jnp.bool_)
mask[tokens == 0] = False  #!
print(mask.sum())
""", env=ON_TPU),
    # ---- recompile -------------------------------------------------------------------------------
    Case("b25_config_object_rebuilt_each_step", "recompile", None, "see_recompiles", J + """
from functools import partial

jax.config.update("jax_explain_cache_misses", True)

class TrainConfig:
    def __init__(self, lr, dropout):
        self.lr = lr
        self.dropout = dropout

@partial(jax.jit, static_argnames="config")
def sgd_step(w, g, config):
    return w - config.lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
for step in range(3):
    config = TrainConfig(lr=0.1, dropout=0.1)
    w = sgd_step(w, g, config=config)  #!
    print(step, float(w[0, 0]))
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b25_export_labels_of_full_batch", "jax_export", None, "fix_shapes", J + """
from jax import export

def loss(logits, labels):
    log_probs = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], 1))

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(loss), platforms=("tpu",))(
    jax.ShapeDtypeStruct((batch, 1000), jnp.float32), jax.ShapeDtypeStruct((batch,), jnp.int32))
labels = jnp.arange(64) % 1000
last_logits = jnp.zeros((16, 1000), jnp.float32)
print(exported.call(last_logits, labels))  #!
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
