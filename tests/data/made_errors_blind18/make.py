"""Make blind18: a fifth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: forty-two
mistakes, each different from the 237 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (an RL rollout, a mixed-precision RNN, an audio
encoder, a data loader, quantized inference, kernel methods, contrastive learning, speech
decoding, a two-host job; flax, optax and Keras 3 on top, TensorFlow with
``jit_compile=True``; notebook cells; a library that re-raises; jit, vmap, grad, scan,
while_loop, shard_map and explicit sharding on eight fake CPUs, Pallas in interpret mode,
``jax.export`` with symbolic shapes), never by what the tool handles. No rule may be written
from these logs before they are scored, and the folder is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind18/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, optax 0.2.8, TensorFlow 2.21.0 and Keras 3.15.1 on CPU made the
logs; ``--only NAME`` remakes some). The test reads the files, never re-runs this.
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
    # ---- jax_tracing ---------------------------------------------------------------------------
    Case("tracing_scan_rollout_done_if", "jax_tracing", None, "lax_control_flow", J + """

def rollout(policy, obs0, n_steps=20):
    def step(carry, _):
        obs, total, done = carry
        action = jnp.tanh(policy @ obs)
        obs = obs + 0.1 * action
        reward = -jnp.sum(obs ** 2)
        if done:  #!
            reward = 0.0
        done = done | (reward < -10.0)
        return (obs, total + reward, done), reward

    (_, total, _), rewards = jax.lax.scan(step, (obs0, 0.0, False), None, length=n_steps)
    return total


print(jax.jit(rollout)(jnp.eye(3), jnp.ones(3)))
"""),
    Case("tracing_image_resize_size_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def augment(image, size):
    # multi-scale training: a new target size every few steps
    return jax.image.resize(image, (size, size, 3), method="bilinear")  #!


image = jnp.ones((64, 64, 3))
for size in (32, 48):
    print(augment(image, size).shape)
"""),
    Case("tracing_grad_clip_item", "jax_tracing", None, "lax_control_flow", J + """import optax


def clip_grads(grads, max_norm=1.0):
    norm = optax.global_norm(grads)
    if norm.item() > max_norm:  #!
        grads = jax.tree.map(lambda g: g * max_norm / norm, grads)
    return grads


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def train_step(params, x, y):
    grads = clip_grads(jax.grad(loss_fn)(params, x, y))
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


params = {"w": jnp.zeros(4), "b": jnp.zeros(())}
params = train_step(params, jnp.ones((16, 4)), jnp.ones(16))
"""),
    Case("tracing_keras_custom_loss_numpy", "jax_tracing", None, "jnp_not_np",
        """import numpy as np
import keras


def weighted_mse(y_true, y_pred):
    # positives count twice
    weights = np.where(np.asarray(y_true) > 0.5, 2.0, 1.0)  #!
    return keras.ops.mean(weights * (y_true - y_pred) ** 2)


model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.ones((32, 8)), np.ones((32, 1)), epochs=1, verbose=0)
""", env={"KERAS_BACKEND": "jax"}),
    Case("tracing_class_count_tolist_notebook", "jax_tracing", None, "static_args", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

@jax.jit
def class_weights(labels):
    n_classes = len(set(labels.tolist()))  #!
    counts = jnp.bincount(labels, length=n_classes)
    return labels.size / (n_classes * counts)

labels = jnp.array([0, 1, 1, 2, 2, 2])
class_weights(labels)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_scan_carry_bf16_mixed_precision", "jax_shape", "scan", "cast_dtype", J + """

def rnn(params, xs):
    def step(h, x):
        # compute in bfloat16 to halve the activations
        h = jnp.tanh(params["wh"] @ h.astype(jnp.bfloat16) + params["wx"] @ x.astype(jnp.bfloat16))
        return h, h

    h0 = jnp.zeros(16, jnp.float32)
    _, hs = jax.lax.scan(step, h0, xs)  #!
    return hs


params = {"wh": jnp.ones((16, 16), jnp.bfloat16), "wx": jnp.ones((16, 8), jnp.bfloat16)}
print(jax.jit(rnn)(params, jnp.ones((10, 8))).shape)
"""),
    Case("shape_conv1d_audio_no_channel", "jax_shape", "conv_general_dilated", "fix_shapes",
        J + """

def encode(waveform, kernel):
    # waveform (batch, time); kernel (out_channels, in_channels, width)
    return jax.lax.conv_general_dilated(waveform, kernel, window_strides=(2,), padding="SAME")  #!


waveform = jnp.ones((4, 16000))
kernel = jnp.ones((32, 1, 9)) / 9
print(jax.jit(encode)(waveform, kernel).shape)
"""),
    Case("shape_while_cond_per_element", "jax_shape", "while_loop", "fix_shapes", J + """

def solve_kepler(mean_anomaly, ecc):
    def not_converged(state):
        e, prev = state
        return jnp.abs(e - prev) > 1e-6

    def newton(state):
        e, _ = state
        return e - (e - ecc * jnp.sin(e) - mean_anomaly) / (1 - ecc * jnp.cos(e)), e

    e, _ = jax.lax.while_loop(not_converged, newton, (mean_anomaly, mean_anomaly + 1.0))  #!
    return e


print(jax.jit(solve_kepler)(jnp.linspace(0.1, 3.0, 8), 0.3))
"""),
    Case("shape_per_head_weights_batched_matmul", "jax_shape", "matmul", "fix_shapes", J + """

def project_heads(x, w_heads):
    # x (heads, seq, d_model) against one projection per head (heads, d_model, head_dim)
    return x @ w_heads  #!


num_heads = 4
x = jnp.broadcast_to(jnp.ones((10, 8)), (num_heads, 10, 8))
w_heads = jnp.ones((3, 8, 16))  # built from the old config with three heads
print(jax.jit(project_heads)(x, w_heads).shape)
"""),
    Case("shape_einsum_missing_batch_subscript", "jax_shape", "einsum", "fix_shapes", J + """

def retrieval_scores(queries, keys):
    # written for one example, called on the batch the loader returns
    return jnp.einsum("qd,kd->qk", queries, keys) / jnp.sqrt(queries.shape[-1])  #!


queries = jnp.ones((16, 5, 64))
keys = jnp.ones((16, 100, 64))
print(jax.jit(retrieval_scores)(queries, keys).shape)
"""),
    Case("shape_cholesky_design_matrix", "jax_shape", "add", "fix_shapes", J + """

def gp_log_marginal(x, y, noise=0.1):
    # should factor the kernel matrix k(x, x), not the inputs
    chol = jnp.linalg.cholesky(x + noise * jnp.eye(x.shape[0]))  #!
    alpha = jax.scipy.linalg.cho_solve((chol, True), y)
    return -0.5 * y @ alpha - jnp.log(jnp.diag(chol)).sum()


x = jnp.ones((100, 3))
print(jax.jit(gp_log_marginal)(x, jnp.ones(100)))
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_jit_returns_metric_name", "jax_call", None, "other", J + """

@jax.jit
def eval_step(w, x, y):
    pred = x @ w
    return {"loss": jnp.mean((pred - y) ** 2), "metric": "mse"}


for epoch in range(2):
    out = eval_step(jnp.ones(4), jnp.ones((8, 4)), jnp.ones(8))  #!
    print(epoch, out["metric"], out["loss"])
"""),
    Case("call_text_column_to_device_library", "jax_call", None, "other", J + """
import loaderlib

batch = {
    "input_ids": [[101, 2023, 102], [101, 2003, 102]],
    "label": [0, 1],
    "text": ["a cat", "a dog"],
}
device_batch = loaderlib.to_device(batch)  #!
print({k: v.shape for k, v in device_batch.items()})
""", extra={"site-packages/loaderlib/__init__.py": '''"""Moves batches of columns to the device."""

import jax.numpy as jnp


class BatchError(ValueError):
    """A column that could not be moved."""


def to_device(batch):
    out = {}
    for name, column in batch.items():
        try:
            out[name] = jnp.asarray(column)
        except TypeError as err:
            raise BatchError(f"cannot move column {name!r} to the device") from err
    return out
'''}),
    Case("call_static_argnames_renamed_param", "jax_call", None, "static_args",
        J + """from functools import partial


@partial(jax.jit, static_argnames=("is_training",))  #!
def forward(params, x, training):
    h = jnp.tanh(x @ params)
    if training:
        h = h * 0.9
    return h


print(forward(jnp.ones((4, 4)), jnp.ones((2, 4)), True))
"""),
    Case("call_flax_dropout_missing_rng", "jax_call", None, "prng_key",
        J + """import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.Dropout(0.2, deterministic=not train)(x)  #!
        return nn.Dense(3)(x)


model = Classifier()
params = model.init(jax.random.key(0), jnp.ones((1, 8)), train=False)
logits = model.apply(params, jnp.ones((16, 8)), train=True)
"""),
    Case("call_vocab_count_array_keys", "jax_call", None, "other", J + """

token_ids = jnp.array([5, 3, 5, 9, 3, 5])
counts = {}
for token in token_ids:
    counts[token] = counts.get(token, 0) + 1  #!
print(sorted(counts.items()))
"""),
    Case("call_device_put_string_device", "jax_call", None, "other", J + """

params = {"w": jnp.ones((512, 512)), "b": jnp.zeros(512)}
# move the weights to the host before saving, as with torch's .to("cpu")
host_params = jax.device_put(params, "cpu")  #!
print(jax.tree.map(lambda p: p.shape, host_params))
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_explicit_label_gather", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def nll(logits, labels):
    log_probs = jax.nn.log_softmax(logits)
    picked = log_probs[jnp.arange(labels.shape[0]), labels]  #!
    return -picked.mean()


logits = jax.device_put(jnp.zeros((32, 10)), P("data"))
labels = jax.device_put(jnp.arange(32) % 10, P("data"))
print(nll(logits, labels))
""", env=EIGHT_CPUS),
    Case("sharding_explicit_median_over_batch", "sharding", "sort", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def robust_normalise(features):
    # the median over the batch is robust to outliers
    centre = jnp.median(features, axis=0)  #!
    return features - centre


features = jax.device_put(jnp.ones((64, 16)), P("data"))
print(robust_normalise(features).shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_gram_same_axis", "sharding", "dot_general", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def contrastive_logits(embeddings, temperature=0.1):
    # every example against every other in the batch
    return embeddings @ embeddings.T / temperature  #!


embeddings = jax.device_put(jnp.ones((64, 16)), P("data"))
print(contrastive_logits(embeddings).shape)
""", env=EIGHT_CPUS),
    Case("sharding_committed_batch_vs_in_shardings", "sharding", None, "reshard",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
data_sharding = NamedSharding(mesh, P("data"))


def loss(w, x):
    return jnp.mean((x @ w) ** 2)


step = jax.jit(jax.grad(loss), in_shardings=(NamedSharding(mesh, P()), data_sharding))
w = jnp.ones(16)
# the loader pins each batch to the first device
batch = jax.device_put(jnp.ones((64, 16)), jax.devices()[0])
print(step(w, batch).shape)  #!
""", device="cpu", env=EIGHT_CPUS),
    Case("sharding_psum_scatter_grads_uneven", "sharding", "reduce_scatter", "fix_shapes",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def sync_grads(local_grads):
    # ZeRO: each device keeps the summed slice of the gradient it owns
    return jax.lax.psum_scatter(local_grads, "data", scatter_dimension=0, tiled=True)  #!


sync = jax.shard_map(sync_grads, mesh=mesh, in_specs=P(), out_specs=P("data"))
grads = jnp.ones((100, 32))  # 100 rows of the embedding gradient
print(jax.jit(sync)(grads).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_length_threshold_branch", "jax_export", None, "other",
        J + """from jax import export


def encode(tokens):
    # long inputs are chunked, short ones encoded whole
    if tokens.shape[0] > 512:  #!
        tokens = tokens[:512]
    return jnp.tanh(tokens.astype(jnp.float32)).sum(0)


(seq,) = export.symbolic_shape("seq")
exp = export.export(jax.jit(encode))(jax.ShapeDtypeStruct((seq, 64), jnp.int32))
"""),
    Case("export_numpy_buffer_symbolic_batch", "jax_export", None, "jnp_not_np",
        J + """import numpy as np
from jax import export


def predict(x):
    bias = np.zeros((x.shape[0], 1), np.float32)  #!
    return jnp.tanh(x) + bias


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(predict))(jax.ShapeDtypeStruct((b, 4), jnp.float32))
print(exp.in_avals)
"""),
    Case("export_call_static_kwarg", "jax_export", None, "other",
        J + """from functools import partial

from jax import export


@partial(jax.jit, static_argnames="training")
def forward(x, training=False):
    return jnp.tanh(x) * (0.9 if training else 1.0)


blob = export.export(forward)(jnp.ones((2, 4)), training=False).serialize()
served = export.deserialize(blob)
print(served.call(jnp.ones((2, 4)), training=False))  #!
"""),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_ref_without_ellipsis", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def gelu_kernel(x_ref, o_ref):
    x = x_ref
    o_ref[...] = 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x ** 3)))  #!


def gelu(x):
    return pl.pallas_call(
        gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x)


print(gelu(jnp.ones((8, 128))))
"""),
    Case("pallas_grad_through_kernel", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def fused_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.tanh(x_ref[...] @ w_ref[...])


def fused_layer(x, w):
    out = jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype)
    return pl.pallas_call(fused_kernel, out_shape=out, interpret=True)(x, w)  #!


def loss(w, x):
    return jnp.mean(fused_layer(x, w) ** 2)


grads = jax.grad(loss)(jnp.ones((8, 8)), jnp.ones((8, 8)))
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_funm_expm_for_tpu", "missing_lowering", "schur", "replace_op",
        J + """from jax import export


def propagator(generator, t):
    # the matrix exponential through a general matrix function
    return jax.scipy.linalg.funm(generator * t, jnp.exp)


exp = export.export(jax.jit(propagator), platforms=["tpu"])(jnp.eye(4), 0.5)  #!
"""),
    Case("lowering_hessenberg_for_cuda", "missing_lowering", "hessenberg", "replace_op",
        J + """from jax import export


def companion_reduce(a):
    # reduce the state matrix before the shifted QR iterations
    h, _ = jax.lax.linalg.hessenberg(a)  #!
    return h


exp = export.export(jax.jit(companion_reduce), platforms=["cuda"])(jnp.eye(6))
"""),
    Case("status_int4_weights_matmul", "xla_status", "dot_general", "cast_dtype", J + """

@jax.jit
def quantized_dense(x, w_int4, scale):
    # int4 activations against int4 weights, accumulated in int32
    acc = jnp.dot(x, w_int4, preferred_element_type=jnp.int32)
    return acc.astype(jnp.float32) * scale


x = jnp.ones((4, 64), jnp.int4)
w = jnp.ones((64, 32), jnp.int4)
print(quantized_dense(x, w, 0.01))  #!
""", device="cpu"),
    Case("status_fast_math_option_value", "xla_status", None, "other", J + """

def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


fast_gelu = jax.jit(gelu, compiler_options={"xla_cpu_enable_fast_math": "on"})
print(fast_gelu(jnp.linspace(-3.0, 3.0, 8)))  #!
"""),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_config_object_each_step", "recompile", None, "see_recompiles",
        J + """from functools import partial

jax.config.update("jax_explain_cache_misses", True)


class AugmentConfig:
    def __init__(self, flip, noise):
        self.flip = flip
        self.noise = noise


@partial(jax.jit, static_argnames="cfg")
def augment(images, key, cfg):
    if cfg.flip:
        images = images[:, :, ::-1]
    return images + cfg.noise * jax.random.normal(key, images.shape)


images = jnp.ones((8, 32, 32))
for step in range(4):
    cfg = AugmentConfig(flip=True, noise=0.1)
    images = augment(images, jax.random.key(step), cfg=cfg)  #!
"""),
    Case("recompile_tf_python_str_paths", "recompile", None, "see_recompiles",
        """import tensorflow as tf

for i in range(8):
    tf.io.write_file(f"shard_{i}.txt", "1 2 3 4")


@tf.function
def parse_shard(path):
    text = tf.io.read_file(path)
    return tf.reduce_sum(tf.strings.to_number(tf.strings.split(text)))


for i in range(8):
    print(parse_shard(f"shard_{i}.txt").numpy())
""", no_line=True),
    # ---- distributed ----------------------------------------------------------------------------
    Case("distributed_second_host_never_started", "distributed", None, "check_hosts", J + """

# host 0 of a two-host job; host 1's launch script had a typo and never ran
jax.distributed.initialize(
    coordinator_address="localhost:29517",
    num_processes=2,
    process_id=0,
    initialization_timeout=20,
)
print(jax.devices())
""", no_line=True),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_rbf_kernel_gram_matrix", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def rbf_kernel(x, y, gamma=0.1):
    d2 = jnp.sum(x**2, 1)[:, None] + jnp.sum(y**2, 1)[None, :] - 2 * x @ y.T
    return jnp.exp(-gamma * d2)


# kernel ridge regression on the whole training set
x = jnp.ones((400_000, 16))
gram = rbf_kernel(x, x)
print(gram[0, :5])  #!
"""),
    Case("oom_vmap_pair_features", "device_allocation", None, "smaller_batch", J + """

def pair_features(x):
    # second-order feature crosses
    return jnp.outer(x, x).reshape(-1)


features = jnp.ones((100_000, 2048))
crossed = jax.jit(jax.vmap(pair_features))(features)
print(crossed[0, :4])  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_ctc_greedy_decode_jit", "tf2xla", "CTCGreedyDecoder", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def transcribe(logits, lengths):
    # logits (time, batch, classes) from the acoustic model
    decoded, _ = tf.nn.ctc_greedy_decoder(logits, lengths)  #!
    return tf.sparse.to_dense(decoded[0])


logits = tf.random.normal((50, 2, 29))
print(transcribe(logits, tf.constant([50, 42])).shape)
""", device="cpu"),
    Case("tf_histogram_features_jit", "tf2xla", "HistogramFixedWidth", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def intensity_histogram(images, bins=32):
    gray = tf.image.rgb_to_grayscale(images)
    return tf.histogram_fixed_width(gray, [0.0, 1.0], nbins=bins)  #!


print(intensity_histogram(tf.random.uniform((8, 64, 64, 3))))
""", device="cpu"),
    Case("tf_sparse_bag_of_words_jit", "tf2xla", "SparseReduceSum", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def bag_of_words(counts):
    sparse = tf.sparse.from_dense(counts)
    return tf.sparse.reduce_sum(sparse, axis=1)  #!


print(bag_of_words(tf.constant([[0, 2, 0, 1], [3, 0, 0, 0]])))
""", device="cpu"),
    Case("tf_keras_fractional_pool_jit", "tf2xla", "FractionalMaxPool", "replace_op",
        """import numpy as np
import keras
import tensorflow as tf


class FractionalPool(keras.layers.Layer):
    def call(self, x):
        pooled, _, _ = tf.nn.fractional_max_pool(x, [1.0, 1.44, 1.44, 1.0])  #!
        return pooled


model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3, padding="same"),
    FractionalPool(),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((16, 32, 32, 3)), np.ones((16, 10)), epochs=1, verbose=0)
""", device="cpu", env={"KERAS_BACKEND": "tensorflow"}),
    Case("tf_audio_frames_hop_argument_jit", "tf_known_issue", "Range", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def log_mel_frames(audio, hop_length):
    frames = tf.signal.frame(audio, frame_length=400, frame_step=hop_length)  #!
    window = tf.signal.hann_window(400)
    return tf.math.log(tf.abs(tf.signal.rfft(frames * window)) + 1e-6)


# the hop comes from the dataset's config, as a tensor
print(log_mel_frames(tf.zeros(16000), tf.constant(160)).shape)
""", device="cpu"),
    Case("tf_multiscale_random_resize_jit", "tf_known_issue", "ResizeBilinear", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def multiscale(images):
    size = tf.random.uniform([], 224, 320, dtype=tf.int32)
    return tf.image.resize(images, [size, size])  #!


print(multiscale(tf.zeros((4, 256, 256, 3))).shape)
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
