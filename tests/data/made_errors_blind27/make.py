"""Make blind27: a fourteenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: thirty-four
mistakes, each different from the 770 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (molecule graphs pooled with a traced number of
segments, best-of-n prompts repeated by a traced count, a RandAugment choice indexing a Python
list, ``np.asarray`` of scores in a jitted ROC AUC notebook cell, a Pallas matmul zeroing its
accumulator under a Python ``if`` on ``program_id``, an equinox head count stored as an array,
class-balanced sampling with per-class probabilities, a positional table added after pooling, an
MNIST equinox MLP fed CIFAR images, an RGB flax nnx stem fed x-rays, GRU gates concatenated on the
batch axis, ``fold_in`` given a split key array, orbax saving params donated to the step, an
arccos angular loss under jax_debug_nans, a ShapeDtypeStruct passed to run the step,
``donate_argnames`` left with a renamed argument, 12 attention heads resharded over 8 devices,
retrieval scores sorted, a batch tiled for two SimCLR views and timestamps differenced over a
sharded axis under explicit sharding, shard_map out_specs given as a list for a tuple, real and
imaginary halves split and a ViT grid side taken by ``math.sqrt`` over symbolic shapes, a Pallas
store of a length read from a ref and a squeezed block indexed with its batch, diffusion inputs
noised for every timestep, a full-catalogue retrieval score matrix and a TF confusion matrix of
600k classes, TF least squares and stateless Poisson noise under ``jit_compile``, generation
length as a static argument and episodes of every length, a bf16 flow log-determinant and an
fp16 pseudo-inverse on CPU; flax nnx, equinox, orbax, IPython and TensorFlow with
``jit_compile=True``; a notebook cell; a library's code raising (equinox, flax, orbax); jit,
vmap, grad, scan, explicit sharding and shard_map on eight fake CPUs, Pallas in interpret mode,
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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind27/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, orbax-checkpoint 0.12.8, IPython 8.12.3 and TensorFlow 2.21.0 on
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
    Case("tracing_graph_pooling_segment_sum_num_graphs", "jax_tracing", None, "static_args",
        J + """

@jax.jit
def graph_readout(node_feats, graph_ids):
    # a batch of molecules packed into one big graph: sum the atoms of each molecule
    num_graphs = graph_ids.max() + 1
    return jax.ops.segment_sum(node_feats, graph_ids, num_segments=num_graphs)  #!


graph_ids = jnp.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
print(graph_readout(jnp.ones((9, 16)), graph_ids).shape)
"""),
    Case("tracing_repeat_prompt_num_samples_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def expand_prompts(prompt_ids, num_samples):
    # best-of-n sampling: every prompt repeated once per sample
    return jnp.repeat(prompt_ids, num_samples, axis=0)  #!


print(expand_prompts(jnp.ones((2, 16), jnp.int32), 4).shape)
"""),
    Case("tracing_random_augmentation_picked_from_list", "jax_tracing", None, "lax_control_flow",
        J + """
AUGMENTATIONS = [
    lambda x: x,
    lambda x: jnp.flip(x, axis=1),
    lambda x: jnp.rot90(x, axes=(0, 1)),
    lambda x: x * 0.8,
]


@jax.jit
def augment(key, image):
    # RandAugment-style: apply one augmentation drawn at random
    choice = jax.random.randint(key, (), 0, len(AUGMENTATIONS))
    return AUGMENTATIONS[choice](image)  #!


print(augment(jax.random.key(0), jnp.ones((32, 32, 3))).shape)
"""),
    Case("tracing_roc_auc_numpy_in_jitted_eval_notebook", "jax_tracing", None, "jnp_not_np",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def eval_step(w, x, y):
    # ROC AUC by the rank-sum formula, as in the sklearn-free snippet we copied
    scores = np.asarray(jax.nn.sigmoid(x @ w))  #!
    ranks = scores.argsort().argsort() + 1
    n_pos = int(y.sum())
    return (ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (len(y) - n_pos))


x = jax.random.normal(jax.random.key(0), (256, 8))
auc = eval_step(jnp.ones(8), x, (x[:, 0] > 0).astype(jnp.int32))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_pallas_matmul_accumulator_init_if_program_id", "jax_tracing", None,
        "lax_control_flow", J + """from jax.experimental import pallas as pl


def matmul_kernel(x_ref, y_ref, o_ref):
    # zero the output block on the first step of the K loop, then accumulate
    if pl.program_id(2) == 0:  #!
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[...] @ y_ref[...]


def matmul(x, y, bm=128, bn=128, bk=128):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        interpret=True,
    )(x, y)


print(matmul(jnp.ones((256, 512)), jnp.ones((512, 256)))[0, 0])
"""),
    Case("tracing_equinox_head_count_stored_as_array", "jax_tracing", None, "static_args",
        J + """import equinox as eqx


class Attention(eqx.Module):
    qkv: eqx.nn.Linear
    num_heads: jax.Array  # read from the checkpoint's config as an array

    def __init__(self, dim, num_heads, key):
        self.qkv = eqx.nn.Linear(dim, 3 * dim, key=key)
        self.num_heads = jnp.asarray(num_heads)

    def __call__(self, x):
        t, d = x.shape
        q, k, v = jnp.split(jax.vmap(self.qkv)(x), 3, axis=-1)
        q = q.reshape(t, self.num_heads, d // self.num_heads)  #!
        k = k.reshape(t, self.num_heads, d // self.num_heads)
        return jnp.einsum("thd,shd->hts", q, k)


model = Attention(256, 8, jax.random.key(0))
print(eqx.filter_jit(lambda m, x: m(x))(model, jnp.ones((16, 256))).shape)
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_position_table_added_after_pooling", "jax_shape", "add", "fix_shapes", J + """

def encode(params, tokens):
    x = params["embed"][tokens]  # (batch, time, dim)
    x = x.mean(axis=1)  # pooled too early: (batch, dim)
    return x + params["pos"]  #!


params = {"embed": jnp.ones((1000, 256)), "pos": jnp.zeros((128, 256))}
print(jax.jit(encode)(params, jnp.ones((32, 128), jnp.int32)).shape)
"""),
    Case("shape_equinox_mlp_fed_rgb_images", "jax_shape", "dot_general", "fix_shapes",
        J + """import equinox as eqx

# the MLP was written for MNIST; the data set is now CIFAR-10
model = eqx.nn.MLP(in_size=28 * 28, out_size=10, width_size=128, depth=2,
                   key=jax.random.key(0))


@eqx.filter_jit
def predict(model, images):
    return jax.vmap(model)(images.reshape(images.shape[0], -1))  #!


print(predict(model, jnp.ones((16, 32, 32, 3))).shape)
"""),
    Case("shape_nnx_conv_rgb_stem_fed_grayscale", "jax_shape", "conv_general_dilated",
        "fix_shapes", J + """from flax import nnx


class Stem(nnx.Module):
    def __init__(self, rngs):
        self.conv = nnx.Conv(3, 32, kernel_size=(3, 3), strides=2, rngs=rngs)

    def __call__(self, x):
        return nnx.relu(self.conv(x))  #!


model = Stem(nnx.Rngs(0))
xray_batch = jnp.ones((8, 224, 224, 1))  # chest x-rays: one channel
print(model(xray_batch).shape)
"""),
    Case("shape_gru_gates_concat_on_batch_axis", "jax_shape", "concatenate", "fix_shapes",
        J + """

def gru_cell(params, h, x):
    hx = jnp.concatenate([h, x])  #!
    z = jax.nn.sigmoid(hx @ params["wz"])
    r = jax.nn.sigmoid(hx @ params["wr"])
    n = jnp.tanh(jnp.concatenate([r * h, x], axis=-1) @ params["wn"])
    return (1 - z) * h + z * n


k = jax.random.key(0)
params = {name: jax.random.normal(k, (64 + 32, 64)) * 0.1 for name in ("wz", "wr", "wn")}
h = jnp.zeros((16, 64))
xs = jnp.ones((10, 16, 32))
h, _ = jax.lax.scan(lambda h, x: (gru_cell(params, h, x), None), h, xs)
print(h.shape)
"""),
    Case("shape_class_balanced_sampling_probabilities_length", "jax_shape", None, "fix_shapes",
        J + """

def sample_balanced_batch(key, labels, num_classes=10, batch=64):
    # inverse-frequency weights per class, used to draw a class-balanced batch of examples
    counts = jnp.bincount(labels, length=num_classes)
    p = 1.0 / counts
    return jax.random.choice(key, labels.shape[0], (batch,), p=p / p.sum())  #!


labels = jnp.arange(50_000) % 10
print(sample_balanced_batch(jax.random.key(0), labels)[:8])
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_fold_in_step_on_split_key_array", "jax_call", None, "prng_key", J + """
keys = jax.random.split(jax.random.key(42), 4)  # one stream per data-loader worker

for step in range(3):
    step_keys = jax.random.fold_in(keys, step)  #!
    noise = jax.vmap(lambda k: jax.random.normal(k, (8,)))(step_keys)
    print(step, noise.shape)
"""),
    Case("call_orbax_save_params_donated_to_step", "jax_call", None, "reused_donation",
        J + """import os
import tempfile
from functools import partial

import orbax.checkpoint as ocp


@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


params = {"w": jnp.ones((16, 4))}
checkpointer = ocp.PyTreeCheckpointer()
ckpt_dir = tempfile.mkdtemp()
snapshot = params
params = sgd_step(params, jnp.ones((8, 16)))
checkpointer.save(os.path.join(ckpt_dir, "step_1"), snapshot)  #!
"""),
    Case("call_debug_nans_arccos_cosine_similarity", "jax_call", "acos", "find_nan", J + """
jax.config.update("jax_debug_nans", True)


@jax.jit
def angular_loss(pred, target):
    # angle between predicted and true surface normals
    pred = pred / jnp.linalg.norm(pred, axis=-1, keepdims=True)
    target = target / jnp.linalg.norm(target, axis=-1, keepdims=True)
    return jnp.arccos(jnp.sum(pred * target, axis=-1)).mean()  #!


# sanity check of the loss: a perfect prediction should score zero
normals = jax.random.normal(jax.random.key(0), (4096, 3))
print(angular_loss(normals, normals))
"""),
    Case("call_shape_dtype_struct_passed_to_step", "jax_call", None, "other", J + """

@jax.jit
def forward(w, x):
    return jax.nn.relu(x @ w)


w = jnp.ones((128, 64))
batch_spec = jax.ShapeDtypeStruct((32, 128), jnp.float32)
print(jax.eval_shape(forward, w, batch_spec))
# warm the cache up before the first real batch arrives
forward(w, batch_spec)  #!
"""),
    Case("call_donate_argnames_after_renaming_state", "jax_call", None, "other",
        J + """from functools import partial


# the argument was renamed from `state` to `train_state` in a refactor
@partial(jax.jit, donate_argnames="state")  #!
def train_step(train_state, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p["w"]) ** 2))(train_state)
    return jax.tree.map(lambda p, g: p - 0.01 * g, train_state, grads)


train_state = {"w": jnp.ones((32, 8))}
train_state = train_step(train_state, jnp.ones((16, 32)))
print(train_state["w"][0, :3])
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_attention_12_heads_over_8_devices", "sharding", None, "fix_shapes",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)

# BERT-base: 12 heads, split over the 8 devices for tensor parallelism
q = jnp.ones((4, 12, 128, 64))
q = jax.sharding.reshard(q, P(None, "model"))  #!
print(q.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_sort_retrieval_scores_over_data_axis", "sharding", "sort",
        "reshard", J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def rank_candidates(query, candidates):
    scores = candidates @ query
    return jnp.argsort(-scores)[:100]  #!


candidates = jax.device_put(jnp.ones((65536, 64)), P("data", None))
print(rank_candidates(jnp.ones(64), candidates).shape)
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_out_specs_list_for_tuple_output", "sharding", "shard_map", "other",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_step(w, x):
    loss, grads = jax.value_and_grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    return jax.lax.pmean(loss, "data"), jax.lax.pmean(grads, "data")


step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data")),
                             out_specs=[P(), P()]))
x = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh, P("data")))
loss, grads = step(jnp.ones((16, 4)), x)  #!
print(loss)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_tile_batch_for_two_views", "sharding", "tile", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def two_views(key, images):
    # SimCLR: every image appears twice in the batch, each copy augmented on its own
    both = jnp.tile(images, (2, 1, 1, 1))  #!
    noise = jax.random.normal(key, both.shape, out_sharding=both.sharding) * 0.1
    return both + noise


images = jax.device_put(jnp.ones((256, 32, 32, 3)), P("data"))
print(two_views(jax.random.key(0), images).shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_diff_timestamps_time_sharded", "sharding", "slice", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def event_features(timestamps, values):
    # irregularly sampled sensor log, its long time axis split over the devices
    dt = jnp.diff(timestamps)  #!
    rate = jnp.diff(values) / jnp.maximum(dt, 1e-3)
    return jnp.stack([dt, rate], axis=-1)


t = jax.device_put(jnp.cumsum(jnp.ones(1 << 16)), P("seq"))
print(event_features(t, t * 2.0).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_complex_features_split_halves_symbolic_width", "jax_export", None, "other",
        J + """from jax import export


def magnitude(features):
    # the front end packs real and imaginary parts side by side
    real, imag = jnp.split(features, 2, axis=-1)  #!
    return jnp.sqrt(real**2 + imag**2)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("batch, width"), jnp.float32)
exported = export.export(jax.jit(magnitude))(spec)
print(exported.out_avals)
"""),
    Case("export_vit_patch_grid_sqrt_symbolic_tokens", "jax_export", None, "other",
        J + """import math

from jax import export


def tokens_to_grid(tokens):
    # ViT feature map for the segmentation head: tokens back onto their square grid
    batch, n_tokens, dim = tokens.shape
    side = int(math.sqrt(n_tokens))  #!
    return tokens.reshape(batch, side, side, dim)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, n, 768"), jnp.float32)
exported = export.export(jax.jit(tokens_to_grid))(spec)
print(exported.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_variable_length_rows_ds_from_ref", "pallas", None, "fixed_size",
        J + """from jax.experimental import pallas as pl


def scale_valid_kernel(len_ref, x_ref, o_ref):
    n = len_ref[0]  # how many positions of this sequence are real
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[pl.ds(0, n)] = x_ref[pl.ds(0, n)] * 2.0  #!


x = jnp.ones((512,))
out = pl.pallas_call(scale_valid_kernel, out_shape=jax.ShapeDtypeStruct((512,), jnp.float32),
                     interpret=True)(jnp.array([300]), x)
print(out.sum())
"""),
    Case("pallas_squeezed_batch_block_indexed_with_batch", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def time_sum_kernel(x_ref, o_ref):
    acc = jnp.zeros((128,), jnp.float32)
    for t in range(4):
        acc = acc + x_ref[0, t, :]  #!
    o_ref[...] = acc


x = jnp.ones((2, 4, 128))  # (batch, time, features)
out = pl.pallas_call(
    time_sum_kernel,
    out_shape=jax.ShapeDtypeStruct((2, 128), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec((None, 4, 128), lambda b: (b, 0, 0))],
    out_specs=pl.BlockSpec((None, 128), lambda b: (b, 0)),
    interpret=True,
)(x)
print(out.sum())
"""),
    # ---- out of memory / device allocation --------------------------------------------------
    Case("oom_diffusion_noised_batch_all_timesteps", "device_allocation", None, "other",
        J + """

@jax.jit
def noised_for_every_timestep(key, images, alphas_cumprod):
    # precompute x_t for all 1000 timesteps at once instead of sampling one t per image
    noise = jax.random.normal(key, (alphas_cumprod.shape[0],) + images.shape)
    a = alphas_cumprod[:, None, None, None, None]
    return jnp.sqrt(a) * images[None] + jnp.sqrt(1 - a) * noise


alphas = jnp.linspace(0.9999, 0.98, 1000).cumprod()
x_t = noised_for_every_timestep(jax.random.key(0), jnp.ones((256, 256, 256, 3)), alphas)
print(x_t[0, 0, 0, 0])  #!
"""),
    Case("oom_retrieval_scores_full_catalog", "device_allocation", None, "other", J + """

@jax.jit
def recall_at_10(query_emb, item_emb):
    # score every query against the whole catalogue, then take the top 10
    scores = query_emb @ item_emb.T
    return jax.lax.top_k(scores, 10)[1]


queries = jnp.ones((200_000, 64), jnp.bfloat16)
items = jnp.ones((2_000_000, 64), jnp.bfloat16)
top = recall_at_10(queries, items)
print(top[:2])  #!
"""),
    Case("oom_tf_confusion_matrix_product_catalogue", "device_allocation", None, "other",
        """import tensorflow as tf

# a product recogniser over the whole catalogue: 600k classes
labels = tf.random.uniform([1024], maxval=600_000, dtype=tf.int64)
preds = tf.random.uniform([1024], maxval=600_000, dtype=tf.int64)
cm = tf.math.confusion_matrix(labels, preds, num_classes=600_000)  #!
print(tf.linalg.trace(cm))
""", device="cpu"),
    # ---- TensorFlow with jit_compile --------------------------------------------------------
    Case("tf_sensor_calibration_least_squares_jit", "tf2xla", "MatrixSolveLs", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def fit_gain_offset(raw, reference):
    # per-sensor linear calibration fitted by least squares
    design = tf.stack([raw, tf.ones_like(raw)], axis=-1)
    return tf.linalg.lstsq(design, reference[:, None], fast=False)  #!


print(fit_gain_offset(tf.random.uniform([256]), tf.random.uniform([256])))
""", device="cpu"),
    Case("tf_photon_shot_noise_stateless_poisson_jit", "tf2xla", "StatelessRandomPoisson",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def simulate_sensor(images, step):
    # low-light augmentation: photon counts drawn per pixel, reproducible per step
    photons = images * 50.0
    seed = tf.stack([step, 7])
    noisy = tf.random.stateless_poisson(tf.shape(images), seed=seed, lam=photons,  #!
                                         dtype=tf.float32)
    return noisy / 50.0


print(simulate_sensor(tf.random.uniform([4, 32, 32, 3]), tf.constant(3))[0, 0, 0])
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_generate_max_new_tokens_static", "recompile", None, "see_recompiles",
        J + """from functools import partial

jax.config.update("jax_explain_cache_misses", True)

W = jax.random.normal(jax.random.key(0), (64, 64)) * 0.1


@partial(jax.jit, static_argnames="max_new_tokens")
def generate(h, max_new_tokens):
    def step(h, _):
        h = jnp.tanh(h @ W)
        return h, jnp.argmax(h, axis=-1)

    return jax.lax.scan(step, h, None, length=max_new_tokens)[1]


# each request asks for its own number of tokens
for max_new_tokens in [17, 40, 23, 64, 31]:
    print(generate(jnp.ones((1, 64)), max_new_tokens=max_new_tokens).shape)  #!
"""),
    Case("recompile_rl_rollout_episode_length", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def discounted_returns(rewards, gamma=0.99):
    def back(carry, r):
        carry = r + gamma * carry
        return carry, carry

    return jax.lax.scan(back, 0.0, rewards, reverse=True)[1]


# every episode ends at a different step
for episode_length in [212, 87, 340, 156, 99]:
    rewards = jnp.ones(episode_length)
    print(discounted_returns(rewards)[0])  #!
"""),
    # ---- xla_status -------------------------------------------------------------------------
    Case("status_bf16_flow_log_det_cpu", "xla_status", "lu", "cast_dtype", J + """

@jax.jit
def log_likelihood(weight, z):
    # a normalizing flow's 1x1 invertible convolution, trained in bf16
    log_det = jnp.log(jnp.abs(jnp.linalg.det(weight)))
    return -0.5 * jnp.sum(z**2) + z.shape[0] * log_det


weight = jnp.eye(48, dtype=jnp.bfloat16) + 0.01
print(log_likelihood(weight, jnp.ones((64, 48), jnp.bfloat16)))  #!
"""),
    Case("status_float16_pinv_ridge_readout_cpu", "xla_status", "svd", "cast_dtype", J + """

def readout_weights(states, targets):
    # echo state network: the linear readout by pseudo-inverse of the fp16 reservoir states
    return jnp.linalg.pinv(states) @ targets


states = jax.random.normal(jax.random.key(0), (2000, 256)).astype(jnp.float16)
targets = jnp.ones((2000, 1), jnp.float16)
print(jax.jit(readout_weights)(states, targets)[:3])  #!
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
