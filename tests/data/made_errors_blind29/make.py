"""Make blind29: a sixteenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-08) measures ``explain-error`` on errors nobody tuned it on: thirty-five
mistakes, each different from the 877 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a warmup schedule by ``np.interp`` in a jitted
step, best-of-n samples counted by an argument, an equinox pool masking only padded sequences, an
update skipped on ``math.isnan`` of the loss, a custom JVP rule branching on its primal, a Keras 3
layer on JAX dropping padding tokens by a boolean mask, VAE noise drawn with an old latent size,
time-major logits against batch-major labels, attention heads reshaped with a hard-coded head
size, an nnx BatchNorm fed NCHW activations, a 2-D padding mask given to
``dot_product_attention``, a retrieval notebook cell dotting with a row-vector query, an ODE step
size passed among the ``scan`` inputs, a Poisson NLL over silenced neurons under jax_debug_nans,
``argnums`` numbered like pytree leaves, ``random.normal`` given its shape before its key,
``jax.xla_computation`` from an old blog post, discounted returns built from a generator, a
Cholesky of a row-sharded covariance and a scan over a layer-sharded weight stack under explicit
sharding, an odd feature size over shard_map's model axis, a flatten by ``int(np.prod(...))`` of
symbolic dimensions and a pad to whole chunks then reshaped under ``jax.export``, a VMEM scratch
without its dtype, a float page table and a bias ref never passed to Pallas kernels in interpret
mode, a CKA Gram matrix of a whole evaluation set and a TF near-duplicate similarity matrix too big
for the host, TF ``unravel_index`` and AugMix's Dirichlet weights under ``jit_compile``, a step
counter kept in a custom pytree's metadata and multi-scale training at random resolutions
recompiling, TF32 and fp8 dot algorithms from GPU code run on CPU, and a bf16 Hessenberg
reduction on CPU; flax nnx, optax, equinox, Keras 3, IPython and TensorFlow; a library's code
calling the user's (Keras, optax, equinox); jit, vmap, grad, custom_jvp, scan, explicit sharding
and shard_map on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic shapes),
never by what the tool handles. No rule may be written from these logs before they are scored,
and the folder is sealed to everyone but its maker.

The machinery is ``tests/data/made_errors/make.py``'s (the files it writes, the neutral paths,
the truths), run on this folder's cases. Each case is a small program built to raise one
family of error. It is written out as
``<case>.py`` beside its log, run in a fresh child ``python <case>.py`` from a neutral working
directory, and its stdout+stderr saved verbatim as ``<case>.log`` (paths made neutral:
``/home/user/made/<case>.py``, ``/usr/lib/python3/site-packages``), with ``<case>.json`` the truth
written by construction:

* ``kind``: the family the case was built to raise;
* ``device``: ``"cpu"`` only where the log names the CPU, else ``null``;
* ``op``: the primitive, op or function the message names, else ``null``;
* ``user_line``: ``<case>.py:N``, the innermost line of the case's own code in the traceback
  (the line marked ``#!`` in the source below; the mark is dropped from the written file); for
  TensorFlow's XLA refusals the line that created the op the message names (its "The op is
  created at:"); ``Cell In[1]:N`` in a notebook cell; ``null`` where the log names none (a
  warning JAX or TensorFlow raises from its own frame);
* ``advice``: the first fix a competent engineer gives (an :class:`AdviceKind` value).

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind29/make.py`` (jax/jaxlib 0.10.2, flax
0.12.8, optax 0.2.8, equinox 0.13.8, Keras 3.15.1, IPython 8.12.3 and TensorFlow 2.21.0 on CPU
made the logs; ``--only NAME`` remakes some). The test reads the files, never re-runs this.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent


def _machinery() -> ModuleType:
    path = HERE.parent / "made_errors" / "make.py"
    spec = importlib.util.spec_from_file_location("made_errors_make", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MADE = _machinery()
Case = MADE.Case
EIGHT_CPUS = MADE.EIGHT_CPUS

J = "import jax\nimport jax.numpy as jnp\n"

# The programs keep the layout they are written in (their line numbers are the truths'): not
# reformatted.
# fmt: off
CASES: list[Case] = [
    # ---- jax_tracing ------------------------------------------------------------------------
    Case("tracing_warmup_schedule_np_interp_in_step", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np


def learning_rate(step):
    # linear warmup over 500 steps, then a linear decay to zero at 10k
    return np.interp(step, [0, 500, 10_000], [0.0, 3e-4, 0.0])  #!


@jax.jit
def train_step(w, x, step):
    g = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    return w - learning_rate(step) * g


print(train_step(jnp.ones(8), jnp.ones((4, 8)), 10)[:2])
"""),
    Case("tracing_categorical_num_samples_arg", "jax_tracing", None, "static_args",
        J + """

@jax.jit
def sample_next_tokens(key, logits, num_samples):
    # several continuations per prompt for best-of-n decoding
    return jax.random.categorical(key, logits, shape=(num_samples, logits.shape[0]))  #!


print(sample_next_tokens(jax.random.key(0), jnp.zeros((4, 32000)), 8).shape)
"""),
    Case("tracing_equinox_attention_skip_mask_if_any", "jax_tracing", None,
        "lax_control_flow", J + """import equinox as eqx


class MaskedPool(eqx.Module):
    proj: eqx.nn.Linear

    def __call__(self, tokens, mask):
        h = jax.vmap(self.proj)(tokens)
        # only mask when the sequence has padding
        if (~mask).any():  #!
            h = jnp.where(mask[:, None], h, 0.0)
        return h.sum(axis=0) / mask.sum()


model = MaskedPool(eqx.nn.Linear(16, 16, key=jax.random.key(0)))
pool = eqx.filter_jit(lambda m, t, k: m(t, k))
print(pool(model, jnp.ones((10, 16)), jnp.arange(10) < 7).shape)
"""),
    Case("tracing_skip_update_math_isnan_loss", "jax_tracing", None, "lax_control_flow",
        J + """import math


@jax.jit
def train_step(w, x, y):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    # skip the update when the loss blew up
    if math.isnan(loss):  #!
        return w, loss
    return w - 0.01 * g, loss


print(train_step(jnp.ones(8), jnp.ones((32, 8)), jnp.ones(32))[1])
"""),
    Case("tracing_custom_jvp_rule_branches_on_primal", "jax_tracing", None,
        "lax_control_flow", J + """

@jax.custom_jvp
def safe_log(x):
    return jnp.log(x)


@safe_log.defjvp
def safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    # a zero derivative where the input is not positive, instead of inf
    if x > 0:  #!
        return jnp.log(x), t / x
    return jnp.log(x), jnp.zeros_like(t)


per_example = jax.jit(jax.vmap(jax.grad(safe_log)))
print(per_example(jnp.array([0.5, 1.0, 2.0])))
"""),
    Case("tracing_keras3_jax_layer_drops_padding_by_mask", "jax_tracing", None, "fixed_size",
        """import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops


class MeanOverTokens(keras.layers.Layer):
    def call(self, x):
        # average only the real tokens: padding rows are all zeros
        keep = ops.any(ops.not_equal(x, 0.0), axis=-1)
        return ops.mean(x[keep], axis=0, keepdims=True)  #!


inputs = keras.Input((20, 8))
model = keras.Model(inputs, MeanOverTokens()(keras.layers.Dense(8)(inputs)))
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((16, 20, 8)), np.ones((16, 8)), epochs=1, verbose=0)
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_vae_eps_drawn_with_old_latent_dim", "jax_shape", "mul", "fix_shapes",
        J + """
LATENT_DIM = 16  # the config before the latent space was widened to 32


def reparameterize(key, mu, logvar):
    eps = jax.random.normal(key, (mu.shape[0], LATENT_DIM))
    return mu + jnp.exp(0.5 * logvar) * eps  #!


h = jnp.ones((64, 64))  # the encoder's head: mean and log-variance side by side
mu, logvar = jnp.split(h, 2, axis=-1)
print(jax.jit(reparameterize)(jax.random.key(0), mu, logvar).shape)
"""),
    Case("shape_time_major_logits_batch_major_labels", "jax_shape", "take_along_axis", "fix_shapes",
        J + """import optax


def sequence_loss(logits, labels):
    # the RNN runs time-major: logits are (time, batch, vocab); labels come (batch, time)
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()  #!


logits = jnp.zeros((50, 8, 1000))
labels = jnp.zeros((8, 50), jnp.int32)
print(jax.jit(sequence_loss)(logits, labels))
"""),
    Case("shape_heads_reshape_hardcoded_head_dim", "jax_shape", "reshape", "fix_shapes",
        J + """
NUM_HEADS = 16  # raised from 12 for the larger model; d_model stays 768


def split_heads(x):
    batch, seq, _ = x.shape
    return x.reshape(batch, seq, NUM_HEADS, 64).transpose(0, 2, 1, 3)  #!


q = jnp.ones((2, 128, 768))
print(jax.jit(split_heads)(q).shape)
"""),
    Case("shape_nnx_batchnorm_on_nchw_features", "jax_shape", "add", "fix_shapes",
        J + """from flax import nnx


class Block(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(64, 64, kernel_size=(3, 3), rngs=rngs)
        self.norm = nnx.BatchNorm(64, rngs=rngs)

    def __call__(self, x):
        return self.norm(jax.nn.relu(self.conv(x)))


model = Block(nnx.Rngs(0))
# the feature maps were converted from a PyTorch checkpoint's activations: (N, C, H, W)
features = jnp.ones((8, 64, 32, 32))
print(model.norm(features).shape)  #!
"""),
    Case("shape_dot_product_attention_padding_mask_2d", "jax_shape", "and", "fix_shapes",
        J + """

def encoder_attention(q, k, v, lengths):
    # mask padded key positions: True where the token is real
    mask = jnp.arange(q.shape[1])[None, :] < lengths[:, None]
    return jax.nn.dot_product_attention(q, k, v, mask=mask)  #!


q = jnp.ones((2, 128, 8, 64))
print(jax.jit(encoder_attention)(q, q, q, jnp.array([100, 128])).shape)
"""),
    Case("shape_retrieval_notebook_query_row_vector_dot", "jax_shape", "dot_general",
        "fix_shapes", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

docs = jax.random.normal(jax.random.key(0), (10_000, 384))
docs = docs / jnp.linalg.norm(docs, axis=-1, keepdims=True)
query = docs[42:43]  # the embedding of one document, kept as a (1, 384) row
scores = jnp.dot(docs, query)  #!
print(jnp.argsort(-scores)[:5])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("shape_scan_xs_ode_step_size_scalar_leaf", "jax_shape", "scan", "fix_shapes", J + """

def integrate(h0, forcing):
    def euler_step(h, inputs):
        h = h + inputs["dt"] * (-h + jnp.tanh(inputs["u"]))
        return h, h

    # the per-step forcing and the solver's step size, passed together
    return jax.lax.scan(euler_step, h0, {"u": forcing, "dt": 0.01})  #!


print(jax.jit(integrate)(jnp.zeros(16), jnp.ones((1000, 16)))[0][:3])
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_debug_nans_poisson_nll_zero_count_bins", "jax_call", "mul", "find_nan",
        J + """
jax.config.update("jax_debug_nans", True)


@jax.jit
def poisson_nll(rate, counts):
    # spike-count model: rate is zero where the neuron was silenced
    return jnp.sum(rate - counts * jnp.log(rate))  #!


rate = jnp.array([0.5, 2.0, 0.0, 1.5])
counts = jnp.array([1.0, 3.0, 0.0, 2.0])
print(poisson_nll(rate, counts))
"""),
    Case("call_grad_argnums_tuple_for_loss_of_two", "jax_call", None, "other", J + """

def loss(params, batch):
    x, y = batch
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


params = {"w": jnp.ones((8, 1)), "b": jnp.zeros(1)}
batch = (jnp.ones((32, 8)), jnp.ones((32, 1)))
# gradients for the weights and the bias, numbered like the pytree's leaves
grads = jax.grad(loss, argnums=(0, 1, 2))(params, batch)  #!
print(grads)
"""),
    Case("call_random_normal_shape_and_key_swapped", "jax_call", None, "prng_key", J + """

def init_layer(key, fan_in, fan_out):
    # He initialisation
    w = jax.random.normal((fan_in, fan_out), key) * jnp.sqrt(2.0 / fan_in)  #!
    return {"w": w, "b": jnp.zeros(fan_out)}


params = init_layer(jax.random.key(0), 784, 256)
print(params["w"].shape)
"""),
    Case("call_xla_computation_removed_hlo_dump", "jax_call", None, "other", J + """

def gelu_mlp(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2


# dump the HLO to check the fusion, as an old blog post does
args = (jnp.ones((8, 64)), jnp.ones((64, 256)), jnp.ones((256, 64)))
hlo = jax.xla_computation(gelu_mlp)(*args).as_hlo_text()  #!
print(hlo[:500])
"""),
    Case("call_discounted_returns_jnp_array_of_generator", "jax_call", None, "other",
        J + """
rewards = [0.0, 0.0, 1.0, 0.0, 5.0]
gamma = 0.99
# the discounted reward of every step of the episode
discounted = jnp.array(r * gamma**t for t, r in enumerate(rewards))  #!
print(discounted.sum())
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_explicit_cholesky_of_row_sharded_covariance", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def whiten(cov, feats):
    # the covariance was accumulated with its rows split over the devices
    chol = jnp.linalg.cholesky(cov)  #!
    return jax.scipy.linalg.solve_triangular(chol, feats.T, lower=True).T


cov = jax.device_put(jnp.eye(512) * 2.0, P("data", None))
feats = jax.device_put(jnp.ones((1024, 512)), P("data", None))
print(whiten(cov, feats).shape)
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_odd_feature_dim_over_model_axis", "sharding", "shard_map",
        "fix_shapes",
        J + """from functools import partial

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"))


@partial(jax.shard_map, mesh=mesh, in_specs=(P("data", "model"), P("model", None)),
         out_specs=P("data", None))
def row_parallel_dense(x, w):
    return jax.lax.psum(x @ w, "model")


x = jnp.ones((16, 1022))  # a vocabulary-sized feature dimension
print(row_parallel_dense(x, jnp.ones((1022, 64))).shape)  #!
""", env=EIGHT_CPUS),
    Case("sharding_explicit_scan_over_layer_sharded_stack", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def forward(stacked_w, x):
    def layer(h, w):
        return jnp.tanh(h @ w), None

    return jax.lax.scan(layer, x, stacked_w)[0]  #!


# eight layers' weights stacked, one layer per device to save memory
stacked = jax.device_put(jnp.ones((8, 256, 256)) * 0.01, P("data"))
print(forward(stacked, jnp.ones((16, 256))).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_flatten_int_np_prod_symbolic_spatial", "jax_export", None, "other",
        J + """import numpy as np
from jax import export


def flatten_features(feature_maps):
    # flatten every sample's feature map for the classifier head
    flat_dim = int(np.prod(feature_maps.shape[1:]))  #!
    return feature_maps.reshape(feature_maps.shape[0], flat_dim)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, h, w, 64"), jnp.float32)
exported = export.export(jax.jit(flatten_features))(spec)
print(exported.out_avals)
"""),
    Case("export_pad_to_multiple_of_128_then_reshape", "jax_export", None, "other",
        J + """from jax import export


def chunked_energy(audio):
    # pad the waveform up to whole 128-sample chunks, then sum each chunk's energy
    pad = (-audio.shape[0]) % 128
    chunks = jnp.pad(audio, (0, pad)).reshape(-1, 128)  #!
    return jnp.sum(chunks**2, axis=-1)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.float32)
exported = export.export(jax.jit(chunked_energy))(spec)
print(exported.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_vmem_scratch_without_dtype", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def rowsum_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = jnp.sum(x_ref[...], axis=-1, keepdims=True)
    o_ref[...] = acc_ref[...]


x = jnp.ones((8, 128))
out = pl.pallas_call(
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((8, 1), jnp.float32),
    scratch_shapes=[pltpu.VMEM((8, 1))],  #!
    interpret=True,
)(x)
print(out.sum())
"""),
    Case("pallas_page_table_built_as_float_array", "pallas", None, "cast_dtype",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


pages = jnp.ones((32, 128))
page_table = jnp.array([2.0, 0.0, 1.0, 3.0])  # read from the allocator's JSON
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i, table: (table[i], 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i, table: (i, 0)),
)
out = pl.pallas_call(copy_pages_kernel, grid_spec=grid_spec,  #!
                     out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                     interpret=True)(page_table, pages)
print(out.sum())
"""),
    Case("pallas_bias_ref_in_kernel_not_passed", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def dense_kernel(x_ref, w_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] @ w_ref[...] + b_ref[...]


def dense(x, w):
    # the bias was folded into the previous layer's norm and dropped here
    return pl.pallas_call(dense_kernel,  #!
                          out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
                          interpret=True)(x, w)


print(dense(jnp.ones((8, 128)), jnp.ones((128, 128))).sum())
"""),
    # ---- out of memory / device allocation --------------------------------------------------
    Case("oom_cka_gram_of_all_activations", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def linear_cka(a, b):
    # representation similarity of two layers over the whole evaluation set
    ka = a @ a.T
    kb = b @ b.T
    return jnp.sum(ka * kb) / (jnp.linalg.norm(ka) * jnp.linalg.norm(kb))


acts = jnp.ones((300_000, 64))
print(linear_cka(acts, acts * 2.0))  #!
"""),
    Case("oom_tf_near_duplicate_similarity_matrix", "device_allocation", None, "smaller_batch",
        """import tensorflow as tf

# near-duplicate detection over the whole crawl: cosine similarity of every pair
emb = tf.math.l2_normalize(tf.ones([400_000, 128]), axis=-1)
sims = tf.matmul(emb, emb, transpose_b=True)  #!
print(tf.reduce_sum(tf.cast(sims > 0.95, tf.int32)))
""", device="cpu"),
    # ---- TensorFlow with jit_compile --------------------------------------------------------
    Case("tf_heatmap_peaks_unravel_index_jit", "tf2xla", "UnravelIndex", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def keypoints_from_heatmaps(heatmaps):
    # the (row, col) of each keypoint's peak in a 64x64 heatmap
    flat = tf.reshape(heatmaps, [tf.shape(heatmaps)[0], -1])
    peak = tf.argmax(flat, axis=-1, output_type=tf.int32)
    return tf.unravel_index(peak, [64, 64])  #!


print(keypoints_from_heatmaps(tf.random.uniform([17, 64, 64])))
""", device="cpu"),
    Case("tf_augmix_dirichlet_weights_stateless_gamma_jit", "tf2xla", "StatelessRandomGammaV3",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def augmix(image, seed):
    # AugMix: mix three augmented chains with Dirichlet(1, 1, 1) weights
    g = tf.random.stateless_gamma([3], seed=seed, alpha=[1.0, 1.0, 1.0])  #!
    weights = g / tf.reduce_sum(g)
    chains = tf.stack([tf.image.flip_left_right(image), tf.image.flip_up_down(image),
                       tf.image.adjust_brightness(image, 0.2)])
    return tf.tensordot(weights, chains, axes=1)


print(augmix(tf.random.uniform([32, 32, 3]), tf.constant([1, 2])).shape)
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_custom_pytree_step_in_aux_data", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.tree_util.register_pytree_node_class
class TrainState:
    def __init__(self, params, step):
        self.params, self.step = params, step

    def tree_flatten(self):
        return (self.params,), self.step  # the step counter kept as static metadata

    @classmethod
    def tree_unflatten(cls, step, children):
        return cls(children[0], step)


@jax.jit
def train_step(state, x):
    g = jax.grad(lambda p: jnp.mean((x @ p) ** 2))(state.params)
    return TrainState(state.params - 0.01 * g, state.step + 1)


state = TrainState(jnp.ones(8), 0)
for _ in range(4):
    state = train_step(state, jnp.ones((16, 8)))  #!
print(state.step)
"""),
    Case("recompile_multiscale_training_random_resolution", "recompile", None,
        "see_recompiles", J + """import random

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(w, images):
    def loss(w):
        return jnp.mean(jnp.tanh(images.mean(axis=(1, 2)) @ w) ** 2)
    return w - 0.1 * jax.grad(loss)(w)


w = jnp.ones((3, 10))
random.seed(0)
for step in range(4):
    # multi-scale training: each batch is resized to a random resolution
    size = random.choice([224, 256, 288, 320, 352])
    w = train_step(w, jnp.ones((8, size, size, 3)))  #!
print(w.shape)
"""),
    # ---- missing lowering / xla_status ------------------------------------------------------
    Case("lowering_tf32_dot_algorithm_from_gpu_script_on_cpu", "missing_lowering",
        "dot_general", "other", J + """
# the matmul precision the A100 training script pins, run in the CPU unit tests
TF32 = jax.lax.DotAlgorithmPreset.TF32_TF32_F32


@jax.jit
def projection(x, w):
    return jnp.dot(x, w, precision=TF32)  #!


print(projection(jnp.ones((32, 512)), jnp.ones((512, 128))).shape)
""", device="cpu"),
    Case("lowering_fp8_dot_algorithm_recipe_on_cpu", "missing_lowering", "dot_general",
        "other", J + """

@jax.jit
def fp8_linear(x, w, x_scale, w_scale):
    # an fp8 training recipe: e4m3 operands, f32 accumulation
    xq = (x / x_scale).astype(jnp.float8_e4m3fn)
    wq = (w / w_scale).astype(jnp.float8_e4m3fn)
    out = jax.lax.dot(xq, wq, precision=jax.lax.DotAlgorithmPreset.ANY_F8_ANY_F8_F32,  #!
                      preferred_element_type=jnp.float32)
    return out * x_scale * w_scale


print(fp8_linear(jnp.ones((16, 256)), jnp.ones((256, 64)), 1.0, 1.0).shape)
""", device="cpu"),
    Case("status_bf16_frequency_response_hessenberg_cpu", "xla_status", "hessenberg",
        "cast_dtype", J + """

@jax.jit
def frequency_response(a, b, c, omegas):
    # reduce A to Hessenberg form once, then solve at every frequency
    h, q = jax.scipy.linalg.hessenberg(a, calc_q=True)
    bt, ct = q.T @ b, c @ q
    eye = jnp.eye(a.shape[0], dtype=jnp.complex64)
    solve = lambda w: ct @ jnp.linalg.solve(1j * w * eye - h, bt)
    return jax.vmap(solve)(omegas)


a = -jnp.eye(16, dtype=jnp.bfloat16)  # the state-space model kept in bf16
print(frequency_response(a, jnp.ones((16, 1), jnp.bfloat16), jnp.ones((1, 16), jnp.bfloat16),  #!
                         jnp.linspace(0.1, 10.0, 50)).shape)
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
