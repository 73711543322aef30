"""Make blind26: a thirteenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: thirty-seven
mistakes, each different from the 716 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a lru_cache'd RoPE table called with a traced
length, deep-ensemble keys split by a traced count, a KV cache sized from a config dict passed
through jit, a custom optax transform taking NumPy's norm, hard-example mining with
``jnp.extract``, a LoRA up-projection in PyTorch's layout, per-example mixup weights not expanded
in a notebook, a flax ViT class token not tiled over the batch, a conv given one padding pair for
two spatial dims, a bf16 spectral loss through ``lax.fft``, sequence targets missing their time
axis in optax's loss, a hand-written BCE whose saturated logits make a NaN under jax_debug_nans,
token lists as an object array, per-worker seeds given to ``jax.random.key`` at once, optax's
update result not unpacked, a time-sharded RNN scan, an LM head sharded over the data axis and a
multimodal concatenation of differently sharded tokens under explicit sharding, upper-triangle
pair indices and a token shuffle over symbolic shapes, a Pallas softmax doing math on refs and a
TPU PRNG dropout kernel in interpret mode, an optimal-transport cost matrix of two lidar scans
and TF self-attention over an hour of audio, Bessel J0, Spence and exponential-integral ops and
pitch-synchronous frames under ``jit_compile``, a detector served with queue-sized batches,
bf16 weights promoted by a float32 learning rate and a TF augmenter made anew for each batch, a
Sylvester solve lowered for TPU, TPU-only QDWH eigh run on CPU, and bf16 Gauss-Newton solves and
QR on CPU; flax linen, optax, Keras 3 (TensorFlow backend) and TensorFlow with
``jit_compile=True``; notebook cells; a library's code raising (optax, flax, Keras); jit, vmap,
grad, scan, explicit sharding on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with
symbolic shapes, lowering for another platform), never by what the tool handles. No rule may be
written from these logs before they are scored, and the folder is sealed to everyone but its
maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind26/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, optax 0.2.8, IPython 8.12.3, TensorFlow 2.21.0 and Keras 3.15.1 on
CPU made the logs; ``--only NAME`` remakes some). The test reads the files, never re-runs this.
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
    Case("tracing_lru_cache_rope_table_traced_length", "jax_tracing", None, "static_args",
        J + """from functools import lru_cache


@lru_cache(maxsize=8)
def rope_table(seq_len, dim=64):
    # computed once per length, then reused by every layer
    inv_freq = 1.0 / 10000 ** (jnp.arange(0, dim, 2) / dim)
    angles = jnp.arange(seq_len)[:, None] * inv_freq[None]
    return jnp.cos(angles), jnp.sin(angles)


@jax.jit
def apply_rope(x, lengths):
    cos, sin = rope_table(lengths.max())  #!
    x1, x2 = x[..., ::2], x[..., 1::2]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


print(apply_rope(jnp.ones((4, 128, 64)), jnp.array([128, 100, 64, 128])).shape)
"""),
    Case("tracing_ensemble_keys_split_traced_count", "jax_tracing", None, "static_args",
        J + """

def init_member(key, d_in=32, d_out=1):
    return {"w": jax.random.normal(key, (d_in, d_out)) * 0.1, "b": jnp.zeros(d_out)}


@jax.jit
def init_ensemble(key, n_members):
    # a deep ensemble: one independently initialised model per member
    keys = jax.random.split(key, n_members)  #!
    return jax.vmap(init_member)(keys)


ensemble = init_ensemble(jax.random.key(0), 5)
print(jax.tree.map(jnp.shape, ensemble))
"""),
    Case("tracing_kv_cache_init_from_config_dict", "jax_tracing", None, "static_args", J + """
CONFIG = {"layers": 4, "max_len": 128, "heads": 8, "head_dim": 32}


@jax.jit
def init_cache(config, prompt_ids):
    # one key and one value buffer per layer for incremental decoding
    shape = (config["layers"], prompt_ids.shape[0], config["max_len"], config["heads"],
             config["head_dim"])
    return {"k": jnp.zeros(shape, jnp.bfloat16), "v": jnp.zeros(shape, jnp.bfloat16)}  #!


cache = init_cache(CONFIG, jnp.zeros((2, 16), jnp.int32))
print(cache["k"].shape)
"""),
    Case("tracing_optax_custom_transform_numpy_norm", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np
import optax


def clip_by_global_norm_np(max_norm):
    def init_fn(params):
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        leaves = jax.tree.leaves(updates)
        norm = np.sqrt(sum(np.sum(np.square(g)) for g in leaves))  #!
        scale = jnp.minimum(1.0, max_norm / norm)
        return jax.tree.map(lambda g: g * scale, updates), state

    return optax.GradientTransformation(init_fn, update_fn)


optimizer = optax.chain(clip_by_global_norm_np(1.0), optax.adam(1e-3))
params = {"w": jnp.ones((8, 8)), "b": jnp.zeros(8)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"]) ** 2))(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((4, 8)))
print(params["b"][:3])
"""),
    Case("tracing_hard_example_mining_extract", "jax_tracing", None, "fixed_size", J + """

@jax.jit
def ohem_loss(logits, labels, threshold=0.7):
    # online hard example mining: average only the examples the model still gets wrong
    nll = -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=-1)[:, 0]
    hard = jnp.extract(nll > threshold, nll)  #!
    return hard.mean()


logits = jax.random.normal(jax.random.key(0), (128, 10))
labels = jnp.arange(128) % 10
print(ohem_loss(logits, labels))
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_seq2seq_loss_targets_missing_time_axis", "jax_shape", None, "fix_shapes",
        J + """import optax


@jax.jit
def seq_loss(logits, targets):
    # logits: (batch, time, vocab); the targets come one-hot from the data pipeline
    return optax.softmax_cross_entropy(logits, targets).mean()  #!


logits = jnp.zeros((32, 128, 1000))
targets = jax.nn.one_hot(jnp.zeros(32, jnp.int32), 1000)  # (batch, vocab): no time axis
print(seq_loss(logits, targets))
"""),
    Case("shape_conv_padding_one_pair_for_2d", "jax_shape", "conv_general_dilated",
        "fix_shapes", J + """

def stem(images, kernel):
    # 'same' padding for the 3x3 stem convolution, NCHW as in the PyTorch port
    return jax.lax.conv_general_dilated(images, kernel, (1, 1), ((1, 1),))  #!


images = jnp.ones((8, 3, 224, 224))
kernel = jax.random.normal(jax.random.key(0), (64, 3, 3, 3))
print(jax.jit(stem)(images, kernel).shape)
"""),
    Case("shape_lora_up_projection_torch_layout", "jax_shape", "dot_general", "fix_shapes",
        J + """

def lora_dense(params, x, alpha=16.0, rank=8):
    # frozen weight plus the low-rank update x A B
    lora = (x @ params["lora_a"]) @ params["lora_b"]  #!
    return x @ params["w"] + (alpha / rank) * lora


key_a, _ = jax.random.split(jax.random.key(0))
params = {
    "w": jnp.zeros((512, 256)),  # (in, out)
    "lora_a": jax.random.normal(key_a, (512, 8)) * 0.01,  # (in, rank)
    "lora_b": jnp.zeros((256, 8)),  # (out, rank), as the PyTorch checkpoint stores it
}
print(jax.jit(lora_dense)(params, jnp.ones((32, 512))).shape)
"""),
    Case("shape_mixup_lambda_per_example_notebook", "jax_shape", None, "fix_shapes",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def mixup(key, images, targets, alpha=0.4):
    k_lam, k_perm = jax.random.split(key)
    lam = jax.random.beta(k_lam, alpha, alpha, (images.shape[0],))  # one lambda per example
    perm = jax.random.permutation(k_perm, images.shape[0])
    mixed = lam * images + (1 - lam) * images[perm]  #!
    return mixed, lam[:, None] * targets + (1 - lam[:, None]) * targets[perm]


images, targets = jnp.ones((64, 32, 32, 3)), jax.nn.one_hot(jnp.arange(64) % 10, 10)
mixed, mixed_targets = mixup(jax.random.key(0), images, targets)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("shape_flax_vit_cls_token_not_tiled", "jax_shape", "concatenate", "fix_shapes",
        J + """import flax.linen as nn


class PatchEmbed(nn.Module):
    dim: int = 192

    @nn.compact
    def __call__(self, patches):
        x = nn.Dense(self.dim)(patches)
        cls = self.param("cls", nn.initializers.zeros, (1, 1, self.dim))
        x = jnp.concatenate([cls, x], axis=1)  #!
        pos = self.param("pos", nn.initializers.normal(0.02), (1, x.shape[1], self.dim))
        return x + pos


patches = jnp.ones((16, 196, 768))  # 16 images of 14x14 patches
variables = PatchEmbed().init(jax.random.key(0), patches)
print(jax.tree.map(jnp.shape, variables))
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_optax_update_result_not_unpacked", "jax_call", None, "other", J + """import optax

optimizer = optax.adamw(1e-3, weight_decay=1e-4)
params = {"w": jnp.zeros((16, 4)), "b": jnp.zeros(4)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(lambda p: optax.l2_loss(x @ p["w"] + p["b"], y).mean())(params)
    updates = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state  #!


params, opt_state = train_step(params, opt_state, jnp.ones((8, 16)), jnp.ones((8, 4)))
print(params["b"])
"""),
    Case("call_per_worker_seeds_array_to_key", "jax_call", None, "prng_key", J + """
import numpy as np

NUM_WORKERS = 8


def augment(key, images):
    flip = jax.random.bernoulli(key, 0.5, (images.shape[0], 1, 1, 1))
    return jnp.where(flip, images[:, :, ::-1], images)


# every data-loader worker gets its own seed
seeds = jnp.arange(NUM_WORKERS) + 1234
keys = jax.random.key(seeds)  #!
batches = np.ones((NUM_WORKERS, 16, 32, 32, 3), np.float32)
print(jax.vmap(augment)(keys, batches).shape)
"""),
    Case("call_debug_nans_handwritten_bce_saturated", "jax_call", "mul", "find_nan", J + """
jax.config.update("jax_debug_nans", True)


def binary_cross_entropy(logits, labels):
    p = jax.nn.sigmoid(logits)
    return -jnp.mean(labels * jnp.log(p) + (1 - labels) * jnp.log(1 - p))  #!


@jax.jit
def loss_fn(w, x, y):
    return binary_cross_entropy(x @ w, y)


x = jnp.ones((32, 16)) * 10.0  # unnormalised features: the logits saturate
print(loss_fn(jnp.ones(16), x, jnp.ones(32)))
"""),
    Case("call_object_array_of_token_lists", "jax_call", None, "fixed_size",
        J + """import numpy as np

EMB = jax.random.normal(jax.random.key(0), (30522, 64))


@jax.jit
def sentence_embedding(token_ids):
    return EMB[token_ids].mean(axis=-2)


# the tokenizer gives one list of ids per sentence
tokenized = [[101, 2023, 2003, 102], [101, 7592, 102], [101, 2307, 2154, 2000, 2017, 102]]
batch = np.array(tokenized, dtype=object)
print(sentence_embedding(batch).shape)  #!
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_explicit_multimodal_concat_mixed_specs", "sharding", "concatenate",
        "reshard", J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def fuse_tokens(image_tokens, text_tokens):
    # one sequence: the image patches, then the caption
    return jnp.concatenate([image_tokens, text_tokens], axis=1)  #!


image_tokens = jax.device_put(jnp.ones((8, 256, 512)), P("data", None, "model"))
text_tokens = jax.device_put(jnp.ones((8, 64, 512)), P("data", None, None))
print(fuse_tokens(image_tokens, text_tokens).sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_rnn_scan_over_time_sharded", "sharding", "scan", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "seq"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def rnn(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h

    h0 = jnp.zeros(xs.shape[1:], out_sharding=P("data", None))
    return jax.lax.scan(cell, h0, xs)[1]  #!


# sequence parallelism: the long time axis split over the "seq" devices
xs = jax.device_put(jnp.ones((4096, 8, 64)), P("seq", "data", None))
print(rnn(jnp.eye(64) * 0.5, xs).sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_lm_head_vocab_on_data_axis", "sharding", "dot_general", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def next_token_logits(hidden, lm_head):
    return hidden @ lm_head  #!


hidden = jax.device_put(jnp.ones((16, 512)), P("data", None))
# the 32k-row output embedding split over the devices, by the wrong mesh axis
lm_head = jax.device_put(jnp.ones((512, 32_000)), P(None, "data"))
print(next_token_logits(hidden, lm_head).sharding)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_session_unique_items_symbolic_size", "jax_export", None, "other",
        J + """from jax import export


def session_features(item_ids):
    # the distinct items of a browsing session of any length, padded with -1
    unique = jnp.unique(item_ids, size=item_ids.shape[0], fill_value=-1)  #!
    return unique, (unique >= 0).sum()


s, = export.symbolic_shape("s")
exp = export.export(jax.jit(session_features))(jax.ShapeDtypeStruct((s,), jnp.int32))
print(exp.out_avals)
"""),
    Case("export_pairwise_bonds_triu_indices_symbolic_atoms", "jax_export", None, "other",
        J + """from jax import export


def pair_distances(positions):
    # every atom pair once, for the interatomic potential
    i, j = jnp.triu_indices(positions.shape[0], k=1)  #!
    return jnp.linalg.norm(positions[i] - positions[j], axis=-1)


n, = export.symbolic_shape("n")
exp = export.export(jax.jit(pair_distances))(jax.ShapeDtypeStruct((n, 3), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_token_shuffle_symbolic_length", "jax_export", None, "other",
        J + """from jax import export


def shuffle_tokens(key, token_ids):
    # the denoising objective: permute the tokens of the sentence
    perm = jax.random.permutation(key, token_ids.shape[0])  #!
    return token_ids[perm]


t, = export.symbolic_shape("t")
exp = export.export(jax.jit(shuffle_tokens))(
    jax.ShapeDtypeStruct((2,), jnp.uint32), jax.ShapeDtypeStruct((t,), jnp.int32)
)
print(exp.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_tpu_prng_dropout_in_interpret_mode", "pallas", "prng_seed", "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def dropout_kernel(seed_ref, x_ref, o_ref):
    pltpu.prng_seed(seed_ref[0] + pl.program_id(0))  #!
    bits = pltpu.prng_random_bits(x_ref.shape)
    keep = bits.astype(jnp.uint32) < jnp.uint32(0.9 * 2**32)
    o_ref[...] = jnp.where(keep, x_ref[...] / 0.9, 0.0)


def fused_dropout(seed, x):
    block = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return pl.pallas_call(
        dropout_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), block],
        out_specs=block,
        interpret=True,  # debugging the TPU kernel on the laptop
    )(seed, x)


print(jax.jit(fused_dropout)(jnp.array([0]), jnp.ones((64, 128)))[0, :3])
"""),
    Case("pallas_softmax_kernel_math_on_refs", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def softmax_kernel(x_ref, o_ref):
    z = x_ref - jnp.max(x_ref, axis=-1, keepdims=True)  #!
    e = jnp.exp(z)
    o_ref[...] = e / e.sum(axis=-1, keepdims=True)


def softmax(x):
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(jax.jit(softmax)(jnp.ones((64, 128)))[0, :3])
"""),
    # ---- out_of_memory / device_allocation --------------------------------------------------
    Case("oom_gcn_dense_adjacency_large_graph", "device_allocation", None, "other", J + """
num_nodes = 2_449_029  # ogbn-products
src = jnp.arange(0, 1_000_000)
dst = (src * 7 + 3) % num_nodes


def normalized_adjacency(src, dst, n):
    # the GCN propagation matrix, built dense
    adj = jnp.zeros((n, n), jnp.float32).at[src, dst].set(1.0)  #!
    deg = adj.sum(axis=1)
    return adj / jnp.maximum(deg, 1.0)[:, None]


a_hat = normalized_adjacency(src, dst, num_nodes)
print(a_hat.shape)
"""),
    Case("oom_sinkhorn_cost_matrix_point_clouds", "device_allocation", None, "other", J + """

@jax.jit
def sinkhorn_cost(x, y):
    # optimal transport between two lidar scans: the full squared-distance matrix
    return jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)


scan_a = jnp.ones((300_000, 3))
scan_b = jnp.zeros((300_000, 3))
cost = sinkhorn_cost(scan_a, scan_b)
print(cost[0, :4])  #!
"""),
    Case("oom_tf_self_attention_long_audio", "device_allocation", None, "other",
        """import tensorflow as tf

# one hour of 16 kHz audio after a 4x downsampling front end
frames = tf.random.normal([1, 150_000, 64])
q = tf.keras.layers.Dense(64)(frames)
k = tf.keras.layers.Dense(64)(frames)
scores = tf.matmul(q, k, transpose_b=True) / 8.0  #!
print(tf.nn.softmax(scores).shape)
""", device="cpu"),
    # ---- tf2xla / tf_known_issue ------------------------------------------------------------
    Case("tf_drum_modes_bessel_j0_jit", "tf2xla", "BesselJ0", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def membrane_displacement(r, t, k=2.405, c=1.0):
    # the fundamental mode of a circular drum head, for the physics-informed loss
    return tf.math.special.bessel_j0(k * r) * tf.cos(c * k * t)  #!


print(membrane_displacement(tf.linspace(0.0, 1.0, 64), tf.constant(0.5))[:4])
""", device="cpu"),
    Case("tf_keras_dilogarithm_layer_spence_jit", "tf2xla", "Spence", "replace_op",
        """import keras
import numpy as np
import tensorflow as tf


class DilogFeatures(keras.layers.Layer):
    # polylog features of the positive inputs, for the pricing model
    def call(self, x):
        return tf.math.special.spence(tf.nn.softplus(x) + 1.0)  #!


model = keras.Sequential([keras.Input((16,)), DilogFeatures(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((64, 16), "float32"), np.ones((64, 1), "float32"), epochs=1, verbose=0)
""", device="cpu"),
    Case("tf_well_test_exponential_integral_jit", "tf2xla", "Expint", "replace_op",
        """import tensorflow as tf

log_k = tf.Variable(0.0)  # log permeability, fitted to the pressure record


@tf.function(jit_compile=True)
def theis_drawdown(t, r=10.0, q=0.01):
    # Theis solution: drawdown from the exponential integral of u
    u = r**2 / (4.0 * tf.exp(log_k) * t)
    return q / (4.0 * 3.14159) * -tf.math.special.expint(-u)  #!


print(theis_drawdown(tf.linspace(1.0, 100.0, 32))[:4])
""", device="cpu"),
    Case("tf_pitch_synchronous_frames_jit", "tf_known_issue", "Range", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def pitch_frames(wave, sample_rate=16000):
    # frames one pitch period long, the period estimated from the autocorrelation
    ac = tf.signal.rfft(wave)
    period = tf.cast(sample_rate / (tf.argmax(tf.abs(ac[20:400])) + 20), tf.int32)
    return tf.signal.frame(wave, frame_length=period, frame_step=period)  #!


print(pitch_frames(tf.random.normal([16000])).shape)
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_bf16_params_promoted_by_f32_schedule", "recompile", None, "see_recompiles",
        J + """import optax

jax.config.update("jax_explain_cache_misses", True)

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 100, 1000)


@jax.jit
def sgd_step(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


params = {"w": jnp.zeros((256, 256), jnp.bfloat16)}  # the bf16 copy of the weights
for step in range(4):
    grads = {"w": jnp.ones((256, 256), jnp.bfloat16)}
    lr = jnp.asarray(schedule(step), jnp.float32)
    params = sgd_step(params, grads, lr)  #!
print(params["w"].dtype)
"""),
    Case("recompile_detector_batch_sizes_from_queue", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)

W = jax.random.normal(jax.random.key(0), (3 * 64 * 64, 10))


@jax.jit
def classify(crops):
    return jnp.argmax(crops.reshape(crops.shape[0], -1) @ W, axis=-1)


# the serving loop takes however many crops are waiting in the queue
for waiting in [3, 7, 2, 12, 5]:
    crops = jnp.ones((waiting, 64, 64, 3))
    print(classify(crops))  #!
"""),
    Case("recompile_tf_augmenter_instance_per_batch", "recompile", None, "see_recompiles",
        """import tensorflow as tf


class Augmenter:
    def __init__(self, strength):
        self.strength = strength

    @tf.function
    def __call__(self, images):
        noise = tf.random.normal(tf.shape(images)) * self.strength
        return tf.clip_by_value(images + noise, 0.0, 1.0)


images = tf.random.uniform([32, 64, 64, 3])
for step in range(8):
    augment = Augmenter(strength=0.1)  # a fresh augmenter for every batch
    batch = augment(images)
print(batch.shape)
""", no_line=True),
    # ---- missing_lowering / xla_status ------------------------------------------------------
    Case("lowering_eigh_qdwh_from_tpu_code_on_cpu", "missing_lowering", "eigh", "replace_op",
        J + """from jax.lax.linalg import EighImplementation, eigh


@jax.jit
def whiten(features):
    # ZCA whitening; the eigh implementation picked for the TPU pod
    cov = features.T @ features / features.shape[0]
    v, w = eigh(cov, implementation=EighImplementation.QDWH)  #!
    return features @ v @ jnp.diag(1.0 / jnp.sqrt(w + 1e-5)) @ v.T


print(whiten(jax.random.normal(jax.random.key(0), (512, 64)))[0, :3])
"""),
    Case("status_bf16_lora_qr_orthonormalize_cpu", "xla_status", "qr", "cast_dtype", J + """

def orthonormalize_adapters(lora_a):
    # keep the LoRA down-projection orthonormal after each step (PiSSA-style)
    q, _ = jnp.linalg.qr(lora_a)
    return q


lora_a = jax.random.normal(jax.random.key(0), (4096, 16), jnp.bfloat16)
print(jax.jit(orthonormalize_adapters)(lora_a)[:2])  #!
"""),
    Case("lowering_sylvester_solver_for_tpu", "missing_lowering", "schur", "replace_op",
        J + """from jax.scipy.linalg import solve_sylvester


@jax.jit
def controller_gain(a, b, c):
    # the Sylvester equation A X + X B = C of the observer design
    return solve_sylvester(a, b, c)


a, b, c = jnp.eye(16) * 2.0, jnp.eye(16) * 3.0, jnp.ones((16, 16))
lowered = controller_gain.trace(a, b, c).lower(lowering_platforms=("tpu",))  #!
print(lowered.as_text()[:200])
"""),
    Case("status_bf16_gauss_newton_solve_cpu", "xla_status", "solve", "cast_dtype", J + """

@jax.jit
def gauss_newton_step(jac, residual, damping=1e-3):
    # Levenberg-Marquardt on the bf16 model's Jacobian
    jtj = jac.T @ jac + damping * jnp.eye(jac.shape[1], dtype=jac.dtype)
    return jnp.linalg.solve(jtj, jac.T @ residual)


jac = jnp.ones((256, 32), jnp.bfloat16) + jnp.eye(256, 32, dtype=jnp.bfloat16)
print(gauss_newton_step(jac, jnp.ones(256, jnp.bfloat16))[:4])  #!
"""),
    Case("shape_lax_rfft_bf16_spectral_loss", "jax_shape", "fft", "cast_dtype", J + """

def spectral_loss(pred, target):
    # compare magnitude spectra of the bf16 decoder output
    spec = lambda s: jnp.abs(jax.lax.fft(s, "RFFT", (s.shape[-1],)))
    return jnp.mean((spec(pred) - spec(target)) ** 2)  #!


pred = jnp.ones((8, 1024), jnp.bfloat16)
print(jax.jit(spectral_loss)(pred, pred * 0.5))
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
