"""Make blind20: a seventh blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: thirty-eight
mistakes, each different from the 317 cases of the ``tests/data/made_errors*/make.py`` files
and from each other, picked as a user would hit them (a layer loop over stacked weights,
chunked evaluation, a particle filter, message passing on a graph, a calibration curve,
grouped-query attention, negative sampling, masked attention, a per-host data loader,
contrastive views and prompt padding in an exported model, rank-revealing QR, dense NeRF
grids, JPEG-quality augmentation, glimpses and log-Euclidean covariance layers in TensorFlow;
flax nnx, optax, equinox, Keras 3 and TensorFlow with ``jit_compile=True``; notebook cells; a
library that re-raises or has no CPU branch; jit, vmap, fori_loop, jit's in_shardings,
per-device arrays and explicit sharding on eight fake CPUs, Pallas in interpret mode,
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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind20/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, optax 0.2.8, TensorFlow 2.21.0 and Keras 3.15.1 on CPU made the
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
    Case("tracing_fori_loop_layer_list_index", "jax_tracing", None, "other", J + """

def init_layers(key, depth, width):
    keys = jax.random.split(key, depth)
    return [jax.random.normal(k, (width, width)) / width**0.5 for k in keys]


@jax.jit
def forward(layers, x):
    def body(i, h):
        return jnp.tanh(h @ layers[i])  #!

    return jax.lax.fori_loop(0, len(layers), body, x)


layers = init_layers(jax.random.key(0), 6, 32)
print(forward(layers, jnp.ones((4, 32))).shape)
"""),
    Case("tracing_eval_reshape_num_chunks_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def chunked_scores(w, inputs, num_chunks):
    # score the eval set in chunks so the logits of all of it never sit in memory at once
    chunks = inputs.reshape(num_chunks, -1, inputs.shape[-1])  #!
    return jax.lax.map(lambda c: (c @ w).max(-1), chunks).reshape(-1)


inputs = jnp.ones((4096, 64))
print(chunked_scores(jnp.ones((64, 10)), inputs, 8).shape)
"""),
    Case("tracing_nnx_abstain_confidence_if_notebook", "jax_tracing", None, "lax_control_flow",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
from flax import nnx

class Classifier(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(16, 4, rngs=rngs)

    def __call__(self, x, confidence):
        logits = self.linear(x)
        # abstain when the model is unsure
        if jax.nn.softmax(logits).max() < confidence:  #!
            return jnp.full(logits.shape[:-1], -1)
        return logits.argmax(-1)

@nnx.jit
def predict(model, x):
    return model(x, 0.5)

model = Classifier(nnx.Rngs(0))
print(predict(model, jnp.ones((1, 16))))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_vmap_per_example_len_slice", "jax_tracing", None, "other", J + """

def sequence_mean(tokens, length):
    # mean of the embeddings of the real (unpadded) tokens
    return tokens[:length].mean(axis=0)  #!


embeddings = jnp.ones((16, 128, 32))
lengths = jnp.full((16,), 100)
print(jax.vmap(sequence_mean)(embeddings, lengths).shape)
"""),
    Case("tracing_particle_filter_split_traced_count", "jax_tracing", "random_split", "static_args",
        J + """

@jax.jit
def resample(key, particles, weights, num_particles):
    keys = jax.random.split(key, num_particles)  #!
    idx = jax.vmap(lambda k: jax.random.categorical(k, jnp.log(weights)))(keys)
    return particles[idx]


particles = jnp.linspace(-1.0, 1.0, 500)
weights = jnp.ones(500) / 500
print(resample(jax.random.key(0), particles, weights, 500).shape)
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_gnn_segment_sum_edges_vs_nodes", "jax_shape", None, "fix_shapes", J + """

def message_passing(node_feats, senders, receivers, w):
    messages = node_feats[senders] @ w
    # aggregate the messages at the receiving nodes
    return jax.ops.segment_sum(messages, receivers[:-1], num_segments=node_feats.shape[0])  #!


nodes = jnp.ones((10, 8))
senders = jnp.array([0, 1, 2, 3, 4, 5])
receivers = jnp.array([1, 2, 3, 4, 5, 6])
print(jax.jit(message_passing)(nodes, senders, receivers, jnp.eye(8)).shape)
"""),
    Case("shape_calibration_interp_table_lengths", "jax_shape", None, "fix_shapes", J + """

# isotonic calibration table fitted offline: bin edges and calibrated probabilities
BIN_EDGES = jnp.linspace(0.0, 1.0, 11)
CALIBRATED = jnp.array([0.0, 0.02, 0.08, 0.15, 0.3, 0.45, 0.6, 0.72, 0.85, 0.97])


@jax.jit
def calibrate(probs):
    return jnp.interp(probs, BIN_EDGES, CALIBRATED)  #!


print(calibrate(jnp.array([0.1, 0.55, 0.93])))
"""),
    Case("shape_nnx_linear_unflattened_images", "jax_shape", "dot_general", "fix_shapes",
        J + """from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.hidden = nnx.Linear(28 * 28, 256, rngs=rngs)
        self.out = nnx.Linear(256, 10, rngs=rngs)

    def __call__(self, images):
        return self.out(nnx.relu(self.hidden(images)))  #!


@nnx.jit
def logits_fn(model, images):
    return model(images)


model = MLP(nnx.Rngs(0))
print(logits_fn(model, jnp.ones((32, 28, 28))).shape)
"""),
    Case("shape_sort_keys_values_lengths", "jax_shape", "sort", "fix_shapes", J + """

@jax.jit
def rank_candidates(scores, candidate_ids):
    # sort the candidates by score, carrying their ids along
    _, ids = jax.lax.sort((-scores, candidate_ids), num_keys=1)  #!
    return ids[:10]


scores = jnp.linspace(0.0, 1.0, 100)
candidate_ids = jnp.arange(128)
print(rank_candidates(scores, candidate_ids))
"""),
    Case("shape_gqa_query_heads_not_multiple", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def grouped_query_attention(q, k, v):
    # q (batch, seq, heads, dim); k and v share fewer heads
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)  #!


q = jnp.ones((2, 64, 12, 32))
kv = jnp.ones((2, 64, 8, 32))  # 8 key/value heads for 12 query heads
print(grouped_query_attention(q, kv, kv).shape)
"""),
    Case("shape_equinox_lstm_cell_whole_sequence", "jax_shape", "dot_general", "fix_shapes",
        J + """import equinox as eqx


class Encoder(eqx.Module):
    cell: eqx.nn.LSTMCell

    def __init__(self, key):
        self.cell = eqx.nn.LSTMCell(16, 32, key=key)

    def __call__(self, sequence):
        state = (jnp.zeros(32), jnp.zeros(32))
        h, _ = self.cell(sequence, state)  #!
        return h


encoder = Encoder(jax.random.key(0))
print(eqx.filter_jit(encoder)(jnp.ones((50, 16))).shape)
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_negative_sampling_choice_no_replace", "jax_call", None, "other", J + """

def negative_samples(key, num_items, num_negatives):
    # word2vec-style negatives, drawn without repeats
    return jax.random.choice(key, num_items, (num_negatives,), replace=False)  #!


vocab_size = 50
print(negative_samples(jax.random.key(0), vocab_size, 64))
"""),
    Case("call_debug_nans_fully_masked_attention", "jax_call", "sub", "find_nan", J + """
jax.config.update("jax_debug_nans", True)


@jax.jit
def attention(q, k, v, mask):
    scores = jnp.where(mask, q @ k.T / 8.0, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v  #!


q = k = v = jnp.ones((4, 64))
mask = jnp.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], bool)  # a padded row
out = attention(q, k, v, mask)
print(out)
"""),
    Case("call_library_reraises_jit_unhashable_config", "jax_call", None, "hashable_static",
        J + """import trainlib

config = {"lr": 1e-3, "warmup": 100}
params = jnp.ones(8)
params = trainlib.fit(params, jnp.ones((16, 8)), config)  #!
""", extra={"site-packages/trainlib/__init__.py": '''"""A small training loop."""

from functools import partial

import jax
import jax.numpy as jnp


class TrainingError(RuntimeError):
    pass


@partial(jax.jit, static_argnums=2)
def _step(params, batch, config):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    return params - config["lr"] * grads


def fit(params, batch, config, steps=3):
    try:
        for _ in range(steps):
            params = _step(params, batch, config)
    except (TypeError, ValueError) as err:
        raise TrainingError(f"training step failed: {err}") from err
    return params
'''}),
    Case("call_wrap_key_data_from_json_floats", "jax_call", None, "prng_key", J + """import json

# the data loader's RNG state, saved as JSON by the last run
saved = json.loads('{"step": 1200, "rng": [0, 42]}')
key = jax.random.wrap_key_data(jnp.array(saved["rng"], jnp.float32))  #!
print(jax.random.uniform(key, (3,)))
"""),
    Case("call_eval_after_deleting_params", "jax_call", None, "other", J + """

def evaluate(params, x):
    return jnp.tanh(x @ params["w"]).mean()  #!


params = {"w": jnp.ones((512, 512))}
ema_params = jax.tree.map(lambda p: p, params)
# free the training copy before evaluating the EMA weights
for leaf in jax.tree.leaves(params):
    leaf.delete()
print(evaluate(ema_params, jnp.ones((8, 512))))
"""),
    Case("call_optax_multi_transform_labels_missing_head", "jax_call", None, "other",
        J + """import optax

params = {
    "backbone": {"w": jnp.ones((32, 32))},
    "head": {"w": jnp.ones((32, 10)), "b": jnp.zeros(10)},
}
# fine-tune the head only; the backbone stays frozen
labels = {"backbone": {"w": "frozen"}, "head": {"w": "train"}}
optimizer = optax.multi_transform({"train": optax.adam(1e-3), "frozen": optax.set_to_zero()},
                                  labels)
opt_state = optimizer.init(params)  #!
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_device_put_spec_longer_than_rank", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
# the spec written for the (batch, seq, hidden) activations, reused for the (batch, hidden) pooled
pooled = jnp.ones((64, 512))
pooled = jax.device_put(pooled, NamedSharding(mesh, P("data", None, "model")))  #!
print(pooled.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_jit_in_shardings_fewer_than_args", "sharding", None, "other",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))
replicated = NamedSharding(mesh, P())


def train_step(params, batch, labels):
    logits = batch @ params
    return jnp.mean((logits - labels) ** 2)


step = jax.jit(train_step, in_shardings=(replicated, batch_sharding))
print(step(jnp.ones((16, 1)), jnp.ones((64, 16)), jnp.ones((64, 1))))  #!
""", env=EIGHT_CPUS),
    Case("sharding_per_device_batches_too_few", "sharding", None, "other",
        J + """import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))

# the loader yields one slice of the global batch per local device
local_batches = [np.ones((16, 32), np.float32) for _ in range(4)]  # written for a 4-chip host
arrays = [jax.device_put(b, d) for b, d in zip(local_batches, jax.local_devices())]
batch = jax.make_array_from_single_device_arrays((128, 32), sharding, arrays)  #!
print(batch.shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_cumsum_sequence_axis", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def positions_from_mask(mask):
    # position ids of packed sequences: running count of real tokens
    return jnp.cumsum(mask, axis=1) - 1  #!


mask = jax.device_put(jnp.ones((4, 2048), jnp.int32), P(None, "seq"))
print(positions_from_mask(mask).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_contrastive_split_two_views", "jax_export", None, "fix_shapes",
        J + """from jax import export


def contrastive_logits(embeddings):
    # the batch holds two augmented views of each image, one after the other
    view_a, view_b = jnp.split(embeddings, 2, axis=0)  #!
    return view_a @ view_b.T


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(contrastive_logits))(jax.ShapeDtypeStruct((b, 128), jnp.float32))
print(exp.in_avals)
"""),
    Case("export_mean_pool_float_of_symbolic", "jax_export", None, "other",
        J + """from jax import export


def mean_pool(token_states):
    return token_states.sum(axis=0) / float(token_states.shape[0])  #!


(seq,) = export.symbolic_shape("seq")
exp = export.export(jax.jit(mean_pool))(jax.ShapeDtypeStruct((seq, 256), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_pad_prompt_to_context_len", "jax_export", None, "other",
        J + """from jax import export

CONTEXT = 512


def pad_prompt(token_ids):
    # right-pad the prompt to the model's fixed context
    return jnp.pad(token_ids, (0, CONTEXT - token_ids.shape[0]))  #!


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(pad_prompt))(jax.ShapeDtypeStruct((n,), jnp.int32))
print(exp.out_avals)
"""),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_grid_true_division", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl

BLOCK = 128


def gelu_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...])


def gelu(x):
    return pl.pallas_call(  #!
        gelu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] / BLOCK,),
        in_specs=[pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BLOCK, x.shape[1]), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(gelu(jnp.ones((1024, 256))).shape)
"""),
    Case("pallas_out_specs_list_for_single_output", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def rmsnorm_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


def rmsnorm(x):
    return pl.pallas_call(  #!
        rmsnorm_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))],
        interpret=True,
    )(x)


print(rmsnorm(jnp.ones((64, 512))).shape)
"""),
    Case("pallas_alias_output_wider_than_input", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def append_kernel(cache_ref, new_ref, o_ref):
    o_ref[:, :128] = cache_ref[...]
    o_ref[:, 128:] = new_ref[...]


def extend_cache(cache, new):
    # grow the cache in place
    return pl.pallas_call(  #!
        append_kernel,
        out_shape=jax.ShapeDtypeStruct((cache.shape[0], 256), cache.dtype),
        input_output_aliases={0: 0},
        interpret=True,
    )(cache, new)


print(extend_cache(jnp.ones((8, 128)), jnp.ones((8, 128))).shape)
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_pivoted_qr_column_selection_for_tpu", "missing_lowering", "geqp3",
        "replace_op", J + """from jax import export


def select_columns(features, k):
    # rank-revealing QR: the pivots name the most independent feature columns
    _, _, pivots = jax.scipy.linalg.qr(features, mode="economic", pivoting=True)
    return pivots[:k]


exp = export.export(jax.jit(select_columns, static_argnums=1), platforms=["tpu"])(  #!
    jnp.ones((256, 32)), 8)
"""),
    Case("lowering_platform_dependent_library_on_cpu", "missing_lowering", "platform_index",
        "replace_op", J + """import fastact

@jax.jit
def mlp(w1, w2, x):
    return fastact.swiglu(x @ w1) @ w2  #!


# a CPU run of the model written on accelerators
print(mlp(jnp.ones((64, 256)), jnp.ones((128, 64)), jnp.ones((4, 64))).shape)
""", device="cpu",
        extra={"site-packages/fastact/__init__.py": '''"""Activations tuned per accelerator."""

import jax
import jax.numpy as jnp


def _swiglu(x):
    a, b = jnp.split(x, 2, axis=-1)
    return jax.nn.silu(a) * b


def swiglu(x):
    return jax.lax.platform_dependent(x, cuda=_swiglu, tpu=_swiglu)
'''}),
    Case("lowering_svd_jacobi_algorithm_on_cpu", "missing_lowering", "svd", "replace_op",
        J + """from jax.lax.linalg import SvdAlgorithm, svd


@jax.jit
def whiten(features):
    # the accurate one-sided Jacobi SVD, as the paper's reference code asks
    centred = features - features.mean(axis=0)
    u, s, vt = svd(centred, full_matrices=False, algorithm=SvdAlgorithm.JACOBI)  #!
    return centred @ vt.T / s


print(whiten(jnp.ones((128, 16)) + jnp.arange(16.0)).shape)
""", device="cpu"),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_tf_epoch_python_int", "recompile", None, "see_recompiles",
        """import tensorflow as tf

w = tf.Variable(tf.ones((8, 1)))


@tf.function
def train_step(x, y, epoch):
    lr = 0.01 * 0.9 ** epoch
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(lr * tape.gradient(loss, w))
    return loss


x, y = tf.ones((16, 8)), tf.zeros((16, 1))
for epoch in range(10):
    train_step(x, y, epoch)
""", no_line=True),
    Case("recompile_tf_feature_list_growing", "recompile", None, "see_recompiles",
        """import tensorflow as tf


@tf.function
def pooled_features(feature_maps):
    # feature pyramid: pool every level collected so far
    return tf.add_n([tf.reduce_mean(f, axis=[1, 2]) for f in feature_maps])


levels = []
x = tf.random.normal((2, 64, 64, 16))
for level in range(7):
    levels.append(x)
    x = tf.nn.avg_pool2d(x, 2, 2, "VALID")
    print(pooled_features(levels).shape)
""", no_line=True),
    Case("recompile_nnx_dropout_rate_schedule", "recompile", None, "see_recompiles",
        J + """from flax import nnx

jax.config.update("jax_explain_cache_misses", True)


class Net(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(8, 8, rngs=rngs)
        self.dropout = nnx.Dropout(0.5, rngs=rngs)

    def __call__(self, x):
        return self.dropout(self.linear(x))


@nnx.jit
def forward(model, x):
    return model(x)


model = Net(nnx.Rngs(0))
for step in range(5):
    # anneal the dropout rate as training goes on
    model.dropout.rate = 0.5 * (1 - step / 5)
    forward(model, jnp.ones((4, 8)))  #!
"""),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_nerf_dense_sample_grid", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def density_grid(w):
    # query the field on a dense 4096^3 grid to extract a mesh
    axis = jnp.linspace(-1.0, 1.0, 4096)
    xyz = jnp.stack(jnp.meshgrid(axis, axis, axis, indexing="ij"), axis=-1)
    return jax.nn.relu(xyz @ w).sum(-1)


grid = density_grid(jnp.ones((3, 16)))
print(grid.shape, grid[0, 0, 0])  #!
"""),
    Case("oom_tile_positional_per_example", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def add_positions(tokens, pos_table):
    # one copy of the position table for every example in the dataset
    positions = jnp.tile(pos_table[None], (tokens.shape[0], 1, 1))
    return tokens[..., None] + positions


tokens = jnp.zeros((100_000, 2048), jnp.float32)  # the whole training split
out = add_positions(tokens, jnp.ones((2048, 1024)))
print(out.shape, out[0, 0, 0])  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_jpeg_quality_augment_jit", "tf2xla", "EncodeJpegVariableQuality", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def augment(image, seed):
    # robustness to compression: re-encode at a random JPEG quality
    image = tf.image.stateless_random_flip_left_right(image, seed)
    return tf.image.stateless_random_jpeg_quality(image, 30, 95, seed)  #!


print(augment(tf.random.uniform((224, 224, 3)), tf.constant([1, 2])).shape)
""", device="cpu"),
    Case("tf_glimpse_recurrent_attention_jit", "tf2xla", "ExtractGlimpseV2", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def glimpse_step(images, locations, w):
    # recurrent attention model: look at a 12x12 patch around each predicted location
    patches = tf.image.extract_glimpse(images, [12, 12], locations)  #!
    return tf.nn.relu(tf.reshape(patches, [tf.shape(images)[0], -1]) @ w)


images = tf.random.uniform((8, 28, 28, 1))
print(glimpse_step(images, tf.zeros((8, 2)), tf.random.normal((144, 32))).shape)
""", device="cpu"),
    Case("tf_keras_spd_logm_layer_jit", "tf2xla", "MatrixLogarithm", "replace_op",
        """import numpy as np
import keras
import tensorflow as tf


class LogEuclidean(keras.layers.Layer):
    # map covariance (SPD) matrices of EEG channels to the tangent space
    def call(self, covariances):
        logs = tf.linalg.logm(tf.cast(covariances, tf.complex64))  #!
        return tf.math.real(logs)


model = keras.Sequential([
    keras.Input((8, 8)),
    LogEuclidean(),
    keras.layers.Flatten(),
    keras.layers.Dense(2),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
spd = np.stack([np.eye(8) * (1 + i) for i in range(16)]).astype("float32")
model.fit(spd, np.ones((16, 2)), epochs=1, verbose=0)
""", device="cpu", env={"KERAS_BACKEND": "tensorflow"}),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
