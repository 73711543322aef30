"""Make blind28: a fifteenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-08) measures ``explain-error`` on errors nobody tuned it on: forty
mistakes, each different from the 821 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a speech crop of a traced duration, packed
utterances split by their lengths, a scan training loop logging every 100 steps under a Python
``if`` in a notebook cell, a Gumbel temperature annealed with ``math.exp``, a ridge identity sized
by an argument, an optax step-decay schedule taking ``int`` of its count, a Keras 3 layer on JAX
branching on its batch mean, triplet negatives mined from half the batch, the normal equations
solved on the design matrix, linear-RNN gates one step short for ``associative_scan``, ImageNet
statistics on NCHW batches, a flax nnx attention sized from an old config, a copy-paste patch bigger
than its canvas, a constant tabular column z-scored under jax_debug_nans, an EMA reading params
donated to the step, ``split`` given a true division, ``donate_argnums`` left with a removed
argument, a config both static and donated, a custom VJP forward rule without residuals, a bf16
cotangent given to a pullback, missing sensor readings as ``None``, token counts scattered from
sharded ids and graph messages gathered from sharded nodes under explicit sharding, RGB channels
over a model axis of two, a PartitionSpec put without a mesh, a median by ``top_k`` of half a
symbolic length, histogram bins from a symbolic length, an exported model called with keywords, a
Pallas paged kernel without its page table and a kernel given a keyword, an empirical NTK of a
training set and a TF STFT with a hop of one, a bf16 polyfit and a bf16 spectral norm on CPU, TF
Bessel Y0, PNG encoding, banded triangular solves and unique counts under ``jit_compile``, a metrics
dict growing keys and TF batches with optional feature keys; flax nnx, optax, Keras 3, IPython and
TensorFlow; a library's code calling the user's (optax, Keras); jit, vmap, grad, vjp, scan, explicit
sharding on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic shapes), never
by what the tool handles. No rule may be written from these logs before they are scored, and the
folder is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind28/make.py`` (jax/jaxlib 0.10.2, flax
0.12.8, optax 0.2.8, Keras 3.15.1, IPython 8.12.3 and TensorFlow 2.21.0 on CPU made the logs;
``--only NAME`` remakes some). The test reads the files, never re-runs this.
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
    Case("tracing_audio_random_crop_traced_duration", "jax_tracing", None, "fixed_size",
        J + """

@jax.jit
def random_crop(key, wave, crop_seconds, sample_rate=16000):
    # speech augmentation: a crop of a random duration at a random offset
    crop_len = (crop_seconds * sample_rate).astype(jnp.int32)
    start = jax.random.randint(key, (), 0, wave.shape[0] - crop_len)
    return jax.lax.dynamic_slice(wave, (start,), (crop_len,))  #!


print(random_crop(jax.random.key(0), jnp.ones(160_000), jnp.float32(2.0)).shape)
"""),
    Case("tracing_split_packed_utterances_by_lengths", "jax_tracing", None, "fixed_size",
        J + """

@jax.jit
def per_utterance_means(frames, lengths):
    # utterances packed end to end in one batch: split them back apart by their lengths
    boundaries = jnp.cumsum(lengths)[:-1]
    pieces = jnp.split(frames, boundaries)  #!
    return jnp.stack([p.mean(axis=0) for p in pieces])


print(per_utterance_means(jnp.ones((300, 40)), jnp.array([120, 80, 100])).shape)
"""),
    Case("tracing_scan_train_loop_log_every_100_notebook", "jax_tracing", None,
        "lax_control_flow", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


def loss_fn(w, batch):
    x, y = batch
    return jnp.mean((x @ w - y) ** 2)


def train(w, xs, ys):
    def step(w, inputs):
        i, x, y = inputs
        loss, g = jax.value_and_grad(loss_fn)(w, (x, y))
        if i % 100 == 0:  #!
            jax.debug.print("step {i}: loss {loss}", i=i, loss=loss)
        return w - 0.01 * g, loss

    return jax.lax.scan(step, w, (jnp.arange(xs.shape[0]), xs, ys))


w, losses = jax.jit(train)(jnp.zeros(8), jnp.ones((500, 32, 8)), jnp.ones((500, 32)))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_gumbel_softmax_math_exp_temperature", "jax_tracing", None, "jnp_not_np",
        J + """import math


@jax.jit
def gumbel_softmax(key, logits, step):
    # temperature annealed from 1.0 towards 0.5 as training goes on
    tau = max(0.5, math.exp(-1e-4 * step))  #!
    g = jax.random.gumbel(key, logits.shape)
    return jax.nn.softmax((logits + g) / tau)


print(gumbel_softmax(jax.random.key(0), jnp.zeros((32, 10)), 1000).shape)
"""),
    Case("tracing_ridge_regression_identity_size_arg", "jax_tracing", None, "static_args",
        J + """

@jax.jit
def ridge_fit(features, targets, num_features, lam=1e-2):
    gram = features.T @ features + lam * jnp.eye(num_features)  #!
    return jnp.linalg.solve(gram, features.T @ targets)


x = jax.random.normal(jax.random.key(0), (1000, 32))
print(ridge_fit(x, x @ jnp.ones(32), 32)[:4])
"""),
    Case("tracing_keras3_jax_layer_python_if_on_batch_mean", "jax_tracing", None,
        "lax_control_flow", """import os

os.environ["KERAS_BACKEND"] = "jax"
import keras
import numpy as np
from keras import ops


class SafeNormalize(keras.layers.Layer):
    def call(self, x):
        # skip the normalisation on an all-zero (padding) batch
        if ops.mean(ops.abs(x)) > 0:
            return x / ops.norm(x, axis=-1, keepdims=True)
        return x


model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(8), SafeNormalize()])  #!
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((64, 16)), np.ones((64, 8)), epochs=1, verbose=0)
"""),
    Case("tracing_optax_step_decay_schedule_int_of_count", "jax_tracing", None, "jnp_not_np",
        J + """import optax


def step_decay(count):
    # halve the learning rate every 1000 steps
    return 1e-3 * 0.5 ** int(count // 1000)  #!


tx = optax.sgd(learning_rate=step_decay)
params = {"w": jnp.ones((8, 2))}
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((4, 8)))
print(params["w"][0])
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_triplet_loss_negatives_from_half_batch", "jax_shape", "sub", "fix_shapes",
        J + """

def triplet_loss(anchor, positive, negative, margin=0.2):
    d_pos = jnp.sum((anchor - positive) ** 2, axis=-1)
    d_neg = jnp.sum((anchor - negative) ** 2, axis=-1)  #!
    return jnp.mean(jax.nn.relu(d_pos - d_neg + margin))


emb = jax.random.normal(jax.random.key(0), (64, 128))
hard_negatives = emb[::2]  # mined from every other example
print(jax.jit(triplet_loss)(emb, jnp.roll(emb, 1, axis=0), hard_negatives))
"""),
    Case("shape_normal_equations_solve_design_matrix", "jax_shape", None, "fix_shapes",
        J + """

def fit_linear(features, targets):
    # least squares by the normal equations
    gram = features.T @ features
    return jnp.linalg.solve(features, features.T @ targets)  #!


x = jax.random.normal(jax.random.key(0), (500, 16))
print(fit_linear(x, x @ jnp.arange(16.0)))
"""),
    Case("shape_linear_rnn_associative_scan_gates_shorter", "jax_shape", None, "fix_shapes",
        J + """

def linear_recurrence(decay, inputs):
    # h_t = a_t * h_{t-1} + b_t, computed in parallel over time
    def combine(left, right):
        a_l, b_l = left
        a_r, b_r = right
        return a_l * a_r, a_r * b_l + b_r

    return jax.lax.associative_scan(combine, (decay, inputs))[1]  #!


x = jnp.ones((1024, 64))
decay = jax.nn.sigmoid(x[1:] - x[:-1])  # gates from the differences between steps
print(jax.jit(linear_recurrence)(decay, x).shape)
"""),
    Case("shape_imagenet_mean_on_nchw_batch", "jax_shape", None, "fix_shapes", J + """
MEAN = jnp.array([0.485, 0.456, 0.406])
STD = jnp.array([0.229, 0.224, 0.225])


@jax.jit
def normalize(images):
    # images come from a PyTorch data loader: (batch, channels, height, width)
    return (images - MEAN) / STD  #!


print(normalize(jnp.ones((16, 3, 224, 224))).shape)
"""),
    Case("shape_nnx_attention_in_features_from_old_config", "jax_shape", None,
        "fix_shapes", J + """from flax import nnx


class Encoder(nnx.Module):
    def __init__(self, rngs):
        # sized from the old config; the tokenizer's embeddings are now 768 wide
        self.attn = nnx.MultiHeadAttention(num_heads=8, in_features=512, decode=False,
                                           rngs=rngs)

    def __call__(self, x):
        return self.attn(x)  #!


model = Encoder(nnx.Rngs(0))
print(model(jnp.ones((2, 10, 768))).shape)
"""),
    Case("shape_copy_paste_augment_patch_bigger_than_canvas", "jax_shape",
        "dynamic_update_slice", "fix_shapes", J + """

@jax.jit
def copy_paste(canvas, patch, y, x):
    # copy-paste augmentation: an object cut from one image pasted onto another
    return jax.lax.dynamic_update_slice(canvas, patch, (y, x, 0))  #!


canvas = jnp.zeros((48, 48, 3))  # the low-resolution branch's images
print(copy_paste(canvas, jnp.ones((64, 64, 3)), 4, 4).shape)
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_debug_nans_standardize_constant_feature", "jax_call", "div", "find_nan", J + """
jax.config.update("jax_debug_nans", True)


@jax.jit
def standardize(features):
    # z-score every column of a tabular data set
    mean = features.mean(axis=0)
    std = features.std(axis=0)
    return (features - mean) / std  #!


table = jnp.ones((1000, 12)).at[:, :11].set(jax.random.normal(jax.random.key(0), (1000, 11)))
print(standardize(table)[0])  # the last column is a constant "country == US" flag
"""),
    Case("call_ema_update_reads_donated_params", "jax_call", None, "reused_donation",
        J + """from functools import partial


@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean(jnp.tanh(x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


params = {"w": jnp.ones((32, 8))}
ema = jax.tree.map(jnp.copy, params)
for step in range(3):
    new_params = sgd_step(params, jnp.ones((16, 32)))
    # exponential moving average of the weights for evaluation
    ema = jax.tree.map(lambda e, p: 0.99 * e + 0.01 * p, ema, params)  #!
    params = new_params
print(ema["w"][0, 0])
"""),
    Case("call_split_keys_count_true_division", "jax_call", None, "other", J + """
num_envs = 16
key = jax.random.key(0)
# one key per pair of environments
env_keys = jax.random.split(key, num_envs / 2)  #!
print(env_keys.shape)
"""),
    Case("call_donate_argnums_for_removed_rng_arg", "jax_call", None, "other",
        J + """from functools import partial


# the step used to take (params, opt_state, rng); the rng argument was removed
@partial(jax.jit, donate_argnums=(0, 1, 2))  #!
def train_step(params, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    return params - 0.01 * grads


params = train_step(jnp.ones((16, 4)), jnp.ones((8, 16)))
print(params[0])
"""),
    Case("call_vjp_pullback_given_bf16_cotangent", "jax_call", None, "cast_dtype", J + """

def decoder(z, w):
    return jnp.tanh(z @ w)


z = jnp.ones((4, 16))
w = jnp.ones((16, 64)) * 0.1
out, pullback = jax.vjp(decoder, z, w)
# the upstream gradient comes from the bf16 half of the mixed-precision model
upstream = jnp.ones((4, 64), jnp.bfloat16)
dz, dw = pullback(upstream)  #!
print(dz.shape, dw.shape)
"""),
    Case("call_missing_sensor_readings_none_in_list", "jax_call", None, "other", J + """
import csv
import io

rows = csv.reader(io.StringIO("t,temp\\n0,21.5\\n1,\\n2,22.0\\n"))
next(rows)
# empty cells become None for the readings the sensor missed
readings = [float(v) if v else None for _, v in rows]
temps = jnp.array(readings)  #!
print(temps.mean())
"""),
    Case("sharding_explicit_histogram_scatter_add_sharded_ids", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def token_counts(token_ids, vocab_size=32000):
    # how often each token of the vocabulary occurs in the global batch
    return jnp.zeros(vocab_size, jnp.int32).at[token_ids].add(1)  #!


tokens = jax.device_put(jnp.arange(8 * 4096) % 32000, P("data"))
print(token_counts(tokens).sum())
""", env=EIGHT_CPUS),
    Case("call_static_and_donated_config_argument", "jax_call", None, "other",
        J + """from functools import partial


# the config is static; the large buffers are donated (argument 0 was meant to be 1)
@partial(jax.jit, static_argnums=0, donate_argnums=(0, 2))  #!
def step(config, params, buffers):
    return params * config["scale"], buffers + 1


print(step)
"""),
    Case("call_custom_vjp_fwd_returns_output_only", "jax_call", None, "other", J + """

@jax.custom_vjp
def clip_gradient(x):
    return x


def clip_fwd(x):
    return x  # forgot the residuals


def clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
loss = lambda w: jnp.sum(clip_gradient(w * 3.0) ** 2)  #!
print(jax.grad(loss)(jnp.ones(4)))
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_explicit_segment_sum_nodes_sharded", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def message_passing(node_feats, senders, receivers):
    messages = node_feats[senders]  #!
    return jax.ops.segment_sum(messages, receivers, num_segments=node_feats.shape[0])


nodes = jax.device_put(jnp.ones((4096, 32)), P("data"))
edges = jax.device_put(jnp.arange(16384) % 4096, P("data"))
print(message_passing(nodes, edges, edges[::-1]).shape)
""", env=EIGHT_CPUS),
    Case("sharding_rgb_channels_over_model_axis_of_two", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
# the same spec as the activations (batch, height, width, features) use
spec = NamedSharding(mesh, P("data", None, None, "model"))
images = jax.device_put(jnp.ones((32, 64, 64, 3)), spec)  #!
print(images.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_device_put_partition_spec_without_mesh", "sharding", None, "other",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def load_batch(step):
    images = jnp.ones((256, 32, 32, 3)) * step
    # split the batch over the data-parallel devices
    return jax.device_put(images, P("data"))  #!


print(load_batch(0).sharding)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_median_by_top_k_half_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def robust_center(x):
    # the median as the smallest of the top half
    k = x.shape[-1] // 2
    return jax.lax.top_k(x, k)[0][..., -1]  #!


spec = jax.ShapeDtypeStruct(export.symbolic_shape("batch, n"), jnp.float32)
exported = export.export(jax.jit(robust_center))(spec)
print(exported.out_avals)
"""),
    Case("export_histogram_bins_from_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def latency_histogram(latencies):
    # roughly ten samples per bin
    counts, _ = jnp.histogram(latencies, bins=latencies.shape[0] // 10)  #!
    return counts


spec = jax.ShapeDtypeStruct(export.symbolic_shape("n"), jnp.float32)
exported = export.export(jax.jit(latency_histogram))(spec)
print(exported.out_avals)
"""),
    Case("export_served_model_called_with_keywords", "jax_export", None, "other",
        J + """from jax import export


def serve(params, tokens):
    return jnp.tanh(params["embed"][tokens]).mean(axis=1)


params = {"embed": jnp.ones((1000, 32))}
exported = export.export(jax.jit(serve))(params, jax.ShapeDtypeStruct((4, 16), jnp.int32))
blob = exported.serialize()

# the serving wrapper, written against the Python function's signature
restored = export.deserialize(blob)
print(restored.call(params=params, tokens=jnp.ones((4, 16), jnp.int32)).shape)  #!
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_prefetch_grid_spec_without_page_table", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


pages = jnp.ones((16, 8, 128))
page_table = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(8,),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i, table: (table[i], 0, 0))],
    out_specs=pl.BlockSpec((None, 8, 128), lambda i, table: (i, 0, 0)),
)
out = pl.pallas_call(gather_pages_kernel, grid_spec=grid_spec,  #!
                     out_shape=jax.ShapeDtypeStruct((8, 8, 128), jnp.float32),
                     interpret=True)(pages)
print(out.shape)
"""),
    Case("pallas_kernel_scale_passed_as_keyword", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref, *, scale):
    o_ref[...] = x_ref[...] * scale


x = jnp.ones((8, 128))
out = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  #!
                     interpret=True)(x, scale=0.5)
print(out.sum())
"""),
    # ---- out of memory / device allocation --------------------------------------------------
    Case("oom_empirical_ntk_jacobian_train_set", "device_allocation", None, "other", J + """

def mlp(params, x):
    h = jnp.tanh(x @ params["w1"])
    return (h @ params["w2"]).squeeze(-1)


@jax.jit
def empirical_ntk(params, xs):
    # the neural tangent kernel of the whole training set: J J^T
    jac = jax.jacrev(mlp)(params, xs)
    flat = jnp.concatenate([j.reshape(xs.shape[0], -1) for j in jax.tree.leaves(jac)], axis=1)
    return flat @ flat.T


params = {"w1": jnp.ones((3072, 65536)) * 0.01, "w2": jnp.ones((65536, 1)) * 0.01}
ntk = empirical_ntk(params, jnp.ones((50_000, 3072)))
print(ntk[0, 0])  #!
"""),
    Case("oom_tf_stft_hop_of_one_full_recording", "device_allocation", None, "other",
        """import tensorflow as tf

# ten hours of 48 kHz field recordings, analysed with a hop of one sample
audio = tf.zeros([48_000 * 3600 * 10])
spec = tf.signal.stft(audio, frame_length=2048, frame_step=1)  #!
print(spec.shape)
""", device="cpu"),
    Case("status_bf16_polyfit_trend_cpu", "xla_status", "svd", "cast_dtype", J + """

@jax.jit
def detrend(series):
    # remove a cubic trend from each sensor's series, kept in bf16 to save memory
    t = jnp.linspace(0, 1, series.shape[0], dtype=series.dtype)
    coeffs = jnp.polyfit(t, series, 3)
    return series - jnp.polyval(coeffs, t)


print(detrend(jnp.ones(1000, jnp.bfloat16))[:4])  #!
"""),
    # ---- TensorFlow with jit_compile --------------------------------------------------------
    Case("tf_acoustic_cylinder_bessel_y0_jit", "tf2xla", "BesselY0", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def radiated_pressure(k, r):
    # the standing-wave part of the field around a pulsating cylinder: Y0 of k r
    kr = k * r
    return tf.math.special.bessel_y0(kr) / tf.sqrt(kr)  #!


print(radiated_pressure(tf.constant(2.0), tf.linspace(0.1, 5.0, 64))[:4])
""", device="cpu"),
    Case("tf_log_prediction_png_in_step_jit", "tf2xla", "EncodePng", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def eval_step(images):
    masks = tf.cast(tf.reduce_mean(images, axis=-1, keepdims=True) > 0.5, tf.uint8) * 255
    png = tf.io.encode_png(masks[0])  #!
    return tf.reduce_mean(tf.cast(masks, tf.float32)), png


print(eval_step(tf.random.uniform([4, 64, 64, 3]))[0])
""", device="cpu"),
    Case("tf_banded_triangular_solve_jit", "tf2xla", "BandedTriangularSolve", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def implicit_euler_step(bands, rhs):
    # an upwind scheme: a lower bidiagonal system per time step
    return tf.linalg.banded_triangular_solve(bands, rhs, lower=True)  #!


bands = tf.stack([tf.fill([512], -0.5), tf.fill([512], 2.0)])
print(implicit_euler_step(bands, tf.ones([512, 1]))[:3])
""", device="cpu"),
    Case("tf_unique_with_counts_token_stats_jit", "tf2xla", "UniqueWithCounts", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def type_token_ratio(tokens):
    words, _, counts = tf.unique_with_counts(tokens)  #!
    return tf.cast(tf.size(words), tf.float32) / tf.cast(tf.size(tokens), tf.float32)


print(type_token_ratio(tf.random.uniform([4096], maxval=500, dtype=tf.int32)))
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_metrics_dict_keys_grow", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def update_metrics(metrics, loss):
    return {name: value + loss for name, value in metrics.items()}


metrics = {}
for step in range(5):
    # each new evaluation adds a metric the first time it is logged
    metrics[f"loss_eval_{step}"] = jnp.float32(0.0)
    metrics = update_metrics(metrics, jnp.float32(0.5))  #!
print(sorted(metrics))
"""),
    Case("recompile_tf_optional_feature_keys_per_batch", "recompile", None, "see_recompiles",
        """import tensorflow as tf


@tf.function
def embed_features(features):
    return tf.add_n([tf.reduce_sum(v, axis=-1) for v in features.values()])


optional = ["age", "country", "device", "hour", "referrer", "os", "lang"]
for step in range(7):
    # a feature is in the batch only when some example in it has one
    batch = {"user_id": tf.ones([32, 4])}
    for name in optional[: step + 1]:
        batch[name] = tf.ones([32, 4])
    print(embed_features(batch).shape)
""", no_line=True),
    # ---- xla_status -------------------------------------------------------------------------
    Case("status_bf16_spectral_norm_eigh_cpu", "xla_status", "eigh", "cast_dtype", J + """

@jax.jit
def spectral_penalty(w):
    # the largest eigenvalue of W^T W, for a Lipschitz penalty, in the bf16 training dtype
    return jnp.linalg.eigh(w.T @ w)[0][-1]


w = jnp.ones((256, 128), jnp.bfloat16) * 0.01
print(spectral_penalty(w))  #!
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
