"""Make blind30: a seventeenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-08) measures ``explain-error`` on errors nobody tuned it on: thirty-eight
mistakes, each different from the 928 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a spectrogram's FFT size passed as a jitted
argument, mixture-of-experts tokens gathered by a one-argument ``jnp.where``, a Markov chain's step
count given to ``matrix_power``, a top-p cutoff taken by ``int()``, DP-SGD clipping by Python's
``min`` in a notebook cell, an augmentation library re-raising a traced strength, an nnx decoder's
cache length kept as a Variable, a flow's ``slogdet`` of a non-square Jacobian, cross-attention
values taken from the decoder, a linear probe fitted on another split's targets, a two-logit head
squeezed for a binary loss, ``lax.cond`` on one done flag per parallel environment, an equinox GRU
decoder started from a wider encoder state, a Keras 3 layer's gate kernel built from an old width,
SAC's ``arctanh`` of saturated actions under jax_debug_infs, PRNG streams folded in by name, a seed
from a UUID, a ``fori_loop`` body without its index, a shard_map loss given its batch by keyword,
FSDP weight columns on the batch's mesh axis and a percentile rank ``searchsorted`` in a sharded
reference under explicit sharding, a per-device loading callback returning the whole batch, a
strided front end's ``math.ceil`` of a symbolic length, micro-batches by ``array_split`` and a token
shuffle by ``random.permutation`` under ``jax.export``, an index map returning an array and a VMEM
space given as an input spec to Pallas kernels in interpret mode, every Monte-Carlo-dropout sample
of an evaluation set kept and TF bilinear pooling of a whole training set, TF's stateless shuffle
for a jigsaw task, mask NMS by overlaps and a median by ``NthElement`` under ``jit_compile``, an
active-learning labelled set, unpadded graph batches and int64 evaluation token ids under x64
recompiling, an F16 dot algorithm from a GPU config, float4 weights and a bf16 tridiagonal reduction
on CPU; flax nnx, optax, equinox, Keras 3, IPython and TensorFlow; libraries' code around the user's
(Keras, flax nnx, equinox, optax, a re-raising augmentation library); jit, vmap, grad, jacfwd, scan,
fori_loop, explicit sharding and shard_map on eight fake CPUs, Pallas in interpret mode,
``jax.export`` with symbolic shapes), never by what the tool handles. No rule may be written from
these logs before they are scored, and the folder is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind30/make.py`` (jax/jaxlib 0.10.2, flax
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
    Case("tracing_spectrogram_rfft_n_fft_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def power_spectrogram(frames, n_fft):
    # zero-pad every frame to the FFT size the config asks for
    window = jnp.hanning(frames.shape[-1])
    spectrum = jnp.fft.rfft(frames * window, n=n_fft)  #!
    return jnp.abs(spectrum) ** 2


frames = jnp.ones((98, 400))  # 25 ms frames of 16 kHz audio
print(power_spectrogram(frames, 512).shape)
"""),
    Case("tracing_moe_dispatch_where_single_arg", "jax_tracing", "nonzero", "fixed_size", J + """

@jax.jit
def moe_layer(tokens, router_w, expert_w):
    expert_ids = jnp.argmax(tokens @ router_w, axis=-1)
    out = jnp.zeros_like(tokens)
    for e in range(expert_w.shape[0]):
        # gather the tokens routed to this expert and run them through it
        rows = jnp.where(expert_ids == e)[0]  #!
        out = out.at[rows].set(tokens[rows] @ expert_w[e])
    return out


tokens = jnp.ones((64, 32))
print(moe_layer(tokens, jnp.ones((32, 4)), jnp.ones((4, 32, 32))).shape)
"""),
    Case("tracing_markov_chain_matrix_power_steps_arg", "jax_tracing", None, "static_args",
        J + """

@jax.jit
def state_distribution(transition, initial, num_steps):
    # where the chain is after num_steps transitions
    return initial @ jnp.linalg.matrix_power(transition, num_steps)  #!


transition = jnp.full((5, 5), 0.2)
print(state_distribution(transition, jnp.eye(5)[0], 10))
"""),
    Case("tracing_nucleus_sampling_int_of_cutoff", "jax_tracing", "int", "fixed_size", J + """

@jax.jit
def top_p_sample(key, logits, top_p=0.9):
    probs = jax.nn.softmax(logits)
    order = jnp.argsort(-probs)
    cumulative = jnp.cumsum(probs[order])
    # keep the smallest set of tokens whose probability reaches top_p
    cutoff = int(jnp.sum(cumulative < top_p)) + 1  #!
    kept = order[:cutoff]
    return kept[jax.random.categorical(key, jnp.log(probs[kept]))]


print(top_p_sample(jax.random.key(0), jnp.linspace(0.0, 3.0, 50_000)))
"""),
    Case("tracing_dp_sgd_python_min_clip_factor_notebook", "jax_tracing", None, "jnp_not_np",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

CLIP_NORM = 1.0

def loss(w, x, y):
    return (x @ w - y) ** 2

def clipped_grad(w, x, y):
    g = jax.grad(loss)(w, x, y)
    # DP-SGD: clip every example's gradient to CLIP_NORM
    scale = min(1.0, CLIP_NORM / jnp.linalg.norm(g))  #!
    return g * scale

per_example = jax.vmap(clipped_grad, in_axes=(None, 0, 0))
grads = per_example(jnp.ones(16), jnp.ones((32, 16)), jnp.zeros(32))
print(grads.mean(axis=0)[:3])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_library_reraises_augment_strength_from_batch", "jax_tracing", None,
        "static_args", J + """
import augmentlib


@jax.jit
def train_views(images):
    # stronger augmentation for the high-contrast batches
    strength = jnp.clip(images.std() * 2.0, 0.1, 1.0)
    return augmentlib.randaugment(images, strength)  #!


print(train_views(jnp.ones((8, 32, 32, 3))).shape)
""", extra={"site-packages/augmentlib/__init__.py": '''"""A small augmentation library."""
import jax.numpy as jnp


class AugmentError(ValueError):
    """The library's own error."""


def randaugment(images, strength):
    try:
        num_ops = int(round(strength * 4))
    except Exception as err:
        raise AugmentError("augmentlib: strength must be a Python number in [0, 1]") from err
    for _ in range(num_ops):
        images = jnp.flip(images, axis=2)
    return images
'''}),
    Case("tracing_nnx_decode_cache_length_kept_as_variable", "jax_tracing", None, "static_args",
        J + """from flax import nnx


class Decoder(nnx.Module):
    def __init__(self, rngs):
        self.proj = nnx.Linear(64, 64, rngs=rngs)
        # the cache length, kept with the weights so that checkpoints remember it
        self.cache_len = nnx.Variable(jnp.array(128))

    def init_cache(self, batch):
        return jnp.zeros((batch, self.cache_len.value, 64))  #!


@nnx.jit
def start_decoding(model, prompt):
    cache = model.init_cache(prompt.shape[0])
    return cache.at[:, : prompt.shape[1]].set(model.proj(prompt))


print(start_decoding(Decoder(nnx.Rngs(0)), jnp.ones((2, 16, 64))).shape)
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_flow_slogdet_of_nonsquare_jacobian", "jax_shape", "slogdet", "fix_shapes",
        J + """

def project(x):
    # the flow's last layer maps 3-D points to 2-D latents
    w = jnp.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])
    return jnp.tanh(w @ x)


def log_det_jacobian(x):
    jac = jax.jacfwd(project)(x)
    return jnp.linalg.slogdet(jac)[1]  #!


points = jnp.ones((128, 3))
print(jax.jit(jax.vmap(log_det_jacobian))(points).shape)
"""),
    Case("shape_cross_attention_values_from_decoder", "jax_shape", None, "fix_shapes", J + """

def cross_attention(decoder_h, encoder_h):
    # queries from the decoder, keys from the encoder ... and, by a slip, values from the decoder
    q, k, v = decoder_h, encoder_h, decoder_h
    return jax.nn.dot_product_attention(q, k, v)  #!


decoder_h = jnp.ones((4, 20, 8, 64))   # (batch, target length, heads, head dim)
encoder_h = jnp.ones((4, 50, 8, 64))   # (batch, source length, heads, head dim)
print(jax.jit(cross_attention)(decoder_h, encoder_h).shape)
"""),
    Case("shape_lstsq_targets_from_other_split", "jax_shape", None, "fix_shapes", J + """

def fit_linear_probe(features, targets):
    # least-squares readout on frozen features
    coef, *_ = jnp.linalg.lstsq(features, targets)  #!
    return coef


train_features = jnp.ones((800, 64))
val_targets = jnp.ones((200,))  # the targets of the validation split, picked by mistake
print(jax.jit(fit_linear_probe)(train_features, val_targets).shape)
"""),
    Case("shape_binary_head_squeeze_two_logits", "jax_shape", "squeeze", "fix_shapes",
        J + """import optax


def bce_loss(params, x, y):
    logits = x @ params["w"] + params["b"]
    # the head is one logit per example: drop its last axis to match the labels
    return optax.sigmoid_binary_cross_entropy(jnp.squeeze(logits, axis=-1), y).mean()  #!


params = {"w": jnp.zeros((16, 2)), "b": jnp.zeros(2)}  # built with num_classes=2
print(jax.jit(jax.grad(bce_loss))(params, jnp.ones((32, 16)), jnp.ones(32))["w"].shape)
"""),
    Case("shape_env_reset_cond_on_batched_done", "jax_shape", "cond", "lax_control_flow",
        J + """

def reset(state):
    return jnp.zeros_like(state)


def env_step(state, action):
    state = state + action
    done = jnp.abs(state).sum(axis=-1) > 10.0  # one flag per parallel environment
    return jax.lax.cond(done, reset, lambda s: s, state)  #!


states = jnp.ones((16, 4))
print(jax.jit(env_step)(states, jnp.ones((16, 4))).shape)
"""),
    Case("shape_equinox_gru_cell_hidden_from_wider_encoder", "jax_shape", None, "fix_shapes",
        J + """import equinox as eqx

key = jax.random.key(0)
cell = eqx.nn.GRUCell(input_size=32, hidden_size=64, key=key)


def decode(encoder_state, inputs):
    # the decoder starts from the encoder's final state (the encoder was widened to 128)
    def step(h, x):
        h = cell(x, h)  #!
        return h, h

    return jax.lax.scan(step, encoder_state, inputs)[1]


print(jax.jit(decode)(jnp.zeros(128), jnp.ones((10, 32))).shape)
"""),
    Case("shape_keras3_jax_gated_layer_kernel_from_config_width", "jax_shape", "dot_general",
        "fix_shapes", """import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops

HIDDEN = 256  # the width of the previous model version


class GatedResidual(keras.layers.Layer):
    def build(self, input_shape):
        self.gate = self.add_weight(shape=(HIDDEN, input_shape[-1]), initializer="zeros")

    def call(self, x):
        return x + ops.sigmoid(ops.matmul(x, self.gate)) * x  #!


inputs = keras.Input((384,))
model = keras.Model(inputs, keras.layers.Dense(1)(GatedResidual()(inputs)))
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((32, 384)), np.ones((32, 1)), epochs=1, verbose=0)
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_debug_infs_sac_arctanh_of_squashed_actions", "jax_call", "atanh", "find_nan",
        J + """
jax.config.update("jax_debug_infs", True)


@jax.jit
def tanh_gaussian_log_prob(mean, log_std, actions):
    # SAC: recover the pre-tanh sample of the replayed actions
    pre_tanh = jnp.arctanh(actions)  #!
    normal_lp = -0.5 * ((pre_tanh - mean) / jnp.exp(log_std)) ** 2 - log_std
    return jnp.sum(normal_lp - jnp.log(1.0 - actions**2 + 1e-6), axis=-1)


actions = jnp.array([[0.3, -1.0], [1.0, 0.5]])  # actions at the limits of the action space
print(tanh_gaussian_log_prob(jnp.zeros(2), jnp.zeros(2), actions))
"""),
    Case("call_fold_in_run_name_string", "jax_call", None, "prng_key", J + """

def make_stream_keys(seed, names):
    root = jax.random.key(seed)
    # one independent stream per purpose, named for readability
    return {name: jax.random.fold_in(root, name) for name in names}  #!


keys = make_stream_keys(0, ["params", "dropout", "augment"])
print(jax.random.normal(keys["params"], (3,)))
"""),
    Case("call_seed_from_uuid_int_overflow", "jax_call", None, "prng_key", J + """import uuid

run_id = uuid.uuid4()
# seed each experiment from its run id so every run differs but can be replayed
key = jax.random.key(run_id.int)  #!
print(jax.random.uniform(key, (3,)))
"""),
    Case("call_fori_loop_body_without_index", "jax_call", None, "other", J + """

def ema_of_params(params, num_updates):
    def body(avg):
        # one more step of the moving average toward the live weights
        return jax.tree.map(lambda a, p: 0.99 * a + 0.01 * p, avg, params)

    return jax.lax.fori_loop(0, num_updates, body, params)  #!


print(jax.jit(ema_of_params, static_argnums=1)({"w": jnp.ones(4)}, 10))
"""),
    Case("call_shard_map_loss_called_with_keyword_batch", "jax_call", "shard_map", "other",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_loss(w, batch):
    x, y = batch
    return jax.lax.pmean(jnp.mean((x @ w - y) ** 2), "data")


loss = jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
batch = (jnp.ones((64, 16)), jnp.ones(64))
print(loss(jnp.ones(16), batch=batch))  #!
""", env=EIGHT_CPUS),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_explicit_fsdp_weight_columns_on_data_axis", "sharding", "dot_general",
        "reshard", J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def mlp_up(x, w_up):
    return jax.nn.gelu(x @ w_up)  #!


x = jax.device_put(jnp.ones((64, 512)), P("data", None))
# FSDP: every weight split over the same devices, here along its output columns
w_up = jax.device_put(jnp.ones((512, 2048)) * 0.01, P(None, "data"))
print(mlp_up(x, w_up).shape)
""", env=EIGHT_CPUS),
    Case("sharding_make_array_from_callback_returns_whole_batch", "sharding", None,
        "fix_shapes", J + """import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))
batch = np.random.default_rng(0).normal(size=(256, 128)).astype(np.float32)


def load_shard(index):
    # each device should get its slice of the batch
    return batch


global_batch = jax.make_array_from_callback(batch.shape, sharding, load_shard)  #!
print(global_batch.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_percentile_rank_searchsorted_sharded_reference", "sharding", None,
        "reshard", J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def percentile_rank(reference_sorted, queries):
    # where each new score falls among a million reference scores
    return jnp.searchsorted(reference_sorted, queries) / reference_sorted.shape[0]  #!


reference = jax.device_put(jnp.linspace(0.0, 1.0, 1_048_576), P("data"))
queries = jax.device_put(jnp.linspace(0.0, 1.0, 64), P("data"))
print(percentile_rank(reference, queries)[:4])
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_strided_conv_output_len_math_ceil", "jax_export", None, "other", J + """import math

from jax import export


def downsample(audio):
    # a stride-2 front end: the output has ceil(n / 2) frames
    n_out = math.ceil(audio.shape[0] / 2)  #!
    return jnp.pad(audio, (0, 1))[: 2 * n_out].reshape(n_out, 2).mean(axis=-1)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.float32)
exported = export.export(jax.jit(downsample))(spec)
print(exported.out_avals)
"""),
    Case("export_array_split_micro_batches_symbolic_batch", "jax_export", None, "other",
        J + """from jax import export


def predict_in_micro_batches(x):
    # four micro-batches to keep the serving activations small
    chunks = jnp.array_split(x, 4)  #!
    return jnp.concatenate([jnp.tanh(c) for c in chunks])


spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, 256"), jnp.float32)
exported = export.export(jax.jit(predict_in_micro_batches))(spec)
print(exported.out_avals)
"""),
    Case("export_shuffle_permutation_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def shuffled_tokens(key, tokens):
    # the served augmentation shuffles the token order
    perm = jax.random.permutation(key, tokens.shape[0])  #!
    return tokens[perm]


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.int32)
exported = export.export(jax.jit(shuffled_tokens))(jax.random.key(0), spec)
print(exported.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_index_map_returns_jnp_array", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


spec = pl.BlockSpec((8, 128), lambda i: jnp.array([i, 0]))
x = jnp.ones((32, 128))
out = pl.pallas_call(add_kernel, grid=(4,), in_specs=[spec, spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x, x)
print(out.sum())
"""),
    Case("pallas_vmem_given_as_in_spec", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def norm_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


x = jnp.ones((16, 256))
out = pl.pallas_call(norm_kernel,  #!
                     # keep the whole activation in VMEM
                     in_specs=[pltpu.VMEM((16, 256), jnp.float32)],
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
print(out.sum())
"""),
    # ---- out of memory / device allocation --------------------------------------------------
    Case("oom_mc_dropout_samples_vmapped", "device_allocation", None, "smaller_batch", J + """

def forward(key, w, x):
    h = jax.nn.relu(x @ w)
    keep = jax.random.bernoulli(key, 0.9, h.shape)
    return jnp.where(keep, h / 0.9, 0.0)


@jax.jit
def mc_dropout_features(key, w, x):
    # 200 stochastic passes over the whole evaluation set at once, kept for the analysis
    keys = jax.random.split(key, 200)
    return jax.vmap(forward, in_axes=(0, None, None))(keys, w, x)


x_eval = jnp.ones((50_000, 256))
samples = mc_dropout_features(jax.random.key(0), jnp.ones((256, 4096)), x_eval)
print(samples.std(axis=0).mean())  #!
"""),
    Case("oom_tf_bilinear_pooling_outer_products", "device_allocation", None, "smaller_batch",
        """import tensorflow as tf

# bilinear pooling features for the whole training set in one call
features = tf.ones([60_000, 2048])
bilinear = tf.einsum("bi,bj->bij", features, features)  #!
print(tf.reduce_mean(bilinear))
""", device="cpu"),
    # ---- TensorFlow with jit_compile --------------------------------------------------------
    Case("tf_jigsaw_patch_order_stateless_shuffle_jit", "tf2xla", "StatelessShuffle",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def jigsaw_views(patches, seed):
    # self-supervised jigsaw task: shuffle the nine patches of every image
    order = tf.random.experimental.stateless_shuffle(tf.range(9), seed=seed)  #!
    return tf.gather(patches, order, axis=1), order


patches = tf.random.uniform([16, 9, 32, 32, 3])
print(jigsaw_views(patches, tf.constant([3, 7]))[1])
""", device="cpu"),
    Case("tf_instance_masks_nms_overlaps_jit", "tf2xla", "NonMaxSuppressionWithOverlaps",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def dedupe_instances(masks, scores):
    # suppress instance masks that overlap a better one: IoU of the binary masks
    flat = tf.reshape(masks, [tf.shape(masks)[0], -1])
    inter = tf.matmul(flat, flat, transpose_b=True)
    area = tf.reduce_sum(flat, axis=-1)
    iou = inter / (area[:, None] + area[None, :] - inter)
    return tf.image.non_max_suppression_overlaps(iou, scores, max_output_size=20,  #!
                                                 overlap_threshold=0.5)


masks = tf.cast(tf.random.uniform([50, 64, 64]) > 0.5, tf.float32)
print(dedupe_instances(masks, tf.random.uniform([50])))
""", device="cpu"),
    Case("tf_median_normalize_nth_element_jit", "tf2xla", "NthElement", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def robust_normalize(x):
    # subtract every channel's median: robust to the sensor's spikes
    median = tf.raw_ops.NthElement(input=x, n=x.shape[-1] // 2)  #!
    return x - median[:, None]


print(robust_normalize(tf.random.uniform([32, 101])).shape)
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_active_learning_growing_labeled_set", "recompile", None,
        "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def fit_ridge(x, y):
    gram = x.T @ x + 1e-3 * jnp.eye(x.shape[1])
    return jnp.linalg.solve(gram, x.T @ y)


pool_x, pool_y = jnp.ones((5000, 32)), jnp.ones(5000)
labeled = 100
for round_ in range(4):
    w = fit_ridge(pool_x[:labeled], pool_y[:labeled])  #!
    labeled += 100  # the annotators labeled another hundred examples this round
print(w.shape)
"""),
    Case("recompile_gnn_batches_unpadded_node_counts", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def message_passing(nodes, senders, receivers, w):
    messages = nodes[senders] @ w
    return jax.ops.segment_sum(messages, receivers, num_segments=nodes.shape[0])


w = jnp.ones((16, 16))
for num_nodes, num_edges in [(37, 80), (52, 110), (41, 96)]:
    # each batch packs a few molecular graphs, left at their own size
    nodes = jnp.ones((num_nodes, 16))
    edges = jnp.zeros(num_edges, jnp.int32)
    out = message_passing(nodes, edges, edges, w)  #!
print(out.shape)
"""),
    Case("recompile_x64_eval_token_ids_int64", "recompile", None, "see_recompiles",
        J + """import numpy as np

jax.config.update("jax_enable_x64", True)  # needed by the metrics code for exact counts
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def next_token_logits(emb, token_ids):
    return emb[token_ids].mean(axis=1) @ emb.T


emb = jnp.ones((1000, 64), jnp.float32)
train_batch = jnp.ones((8, 32), jnp.int32)  # the training loader casts to int32
next_token_logits(emb, train_batch)
for _ in range(3):
    eval_batch = np.ones((8, 32), dtype=np.int64)  # the eval loader keeps numpy's int64
    logits = next_token_logits(emb, eval_batch)  #!
print(logits.shape)
"""),
    # ---- missing lowering / xla_status ------------------------------------------------------
    Case("lowering_f16_dot_algorithm_from_gpu_config_on_cpu", "missing_lowering", "dot_general",
        "other", J + """
# the half-precision matmul algorithm the inference config pins for the GPU servers
PRECISION = jax.lax.DotAlgorithmPreset.F16_F16_F32


@jax.jit
def logits(h, w_out):
    return jnp.dot(h.astype(jnp.float16), w_out.astype(jnp.float16), precision=PRECISION)  #!


print(logits(jnp.ones((4, 256)), jnp.ones((256, 1000))).shape)
""", device="cpu"),
    Case("status_fp4_weights_matmul_cpu", "xla_status", "dot_general", "cast_dtype", J + """

@jax.jit
def fp4_linear(x, w_fp4, scale):
    # weights stored as float4 (e2m1) with one scale per output column
    return jax.lax.dot(x.astype(jnp.float4_e2m1fn), w_fp4,
                       preferred_element_type=jnp.float32) * scale


w = (jnp.ones((512, 128)) * 0.5).astype(jnp.float4_e2m1fn)
print(fp4_linear(jnp.ones((8, 512)), w, jnp.ones(128)).shape)  #!
""", device="cpu"),
    Case("status_bf16_lanczos_tridiagonal_reduction_cpu", "xla_status", "tridiagonal",
        "cast_dtype", J + """

@jax.jit
def spectrum_bounds(hessian_block):
    # reduce the curvature block to tridiagonal form, then read off its extreme eigenvalues
    _, diag, off_diag, _ = jax.lax.linalg.tridiagonal(hessian_block, lower=True)
    eigs = jax.scipy.linalg.eigh_tridiagonal(diag.astype(jnp.float32), off_diag.astype(jnp.float32),
                                             eigvals_only=True)
    return eigs.min(), eigs.max()


h = jnp.eye(64, dtype=jnp.bfloat16) * 2.0  # the model's weights and curvature are bf16
print(spectrum_bounds(h))  #!
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
