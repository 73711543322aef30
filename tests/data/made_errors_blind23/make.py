"""Make blind23: a tenth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: fifty
mistakes, each different from the 511 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (the best ensemble scores sorted in Python, an
assert on normalised probabilities, a cosine learning-rate schedule written with ``math``,
recommending unseen items, an audio clip's silence trimmed in a notebook, backbone resizing, a
padding mask for flax attention, a MoCo queue, a library's Gaussian anomaly detector, sampling
several tokens per prompt, a bias initialised like a kernel, an ensemble under vmap, a custom
activation without its JVP, a learning rate YAML read as a string, an EMA in scan, ordered loss
logging under vmap, a Keras 3 model in a hand-written JAX loop, a spectrum over a sharded time
axis, a mesh with one axis type for two axes, a tensor-parallel init on a data-only mesh,
repeated prompts for sampling, equinox batch norm without its vmap axis, a debug print in an
exported model, a recency weighting over a symbolic length, an artifact read in text mode, a
typed key served old-style keys, Pallas block specs, old Pallas tutorials, row statistics
returned as a dict, a paged KV cache's page table, pairwise IoU of all anchors, PMI
co-occurrences, a super-resolution baseline, extreme classification targets, tf.print in a train
step, a GCN's sparse adjacency, isotonic calibration, morphology in a Keras layer, a smoothing
spline, CTC with sparse transcripts, binomial thinning, random flips and patch sizes, eval under
another matmul precision, a step called by keyword, an annealed temperature on an nnx module,
spectral clustering and a LoRA init asking for a subset of eigen/singular vectors,
half-precision Mahalanobis distances and a bf16 Gaussian process; flax linen and nnx, equinox,
optax, Keras 3 (JAX and TensorFlow backends) and TensorFlow with ``jit_compile=True``; a
notebook cell; a library that re-raises; jit, vmap, grad, scan, explicit sharding and a vmap
axis name on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic shapes and
serialization), never by what the tool handles. No rule may be written from these logs before
they are scored, and the folder is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind23/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, optax 0.2.8, PyYAML 6.0.4, TensorFlow 2.21.0 and
Keras 3.15.1 on CPU made the logs; ``--only NAME`` remakes some). The test reads the files,
never re-runs this.
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
    # ---- jax_tracing -----------------------------------------------------------------------------
    Case("tracing_python_sorted_top_scores", "jax_tracing", None, "jnp_not_np", J + """

@jax.jit
def top3_mean(scores):
    # mean of the three best validation scores of the ensemble
    best = sorted(scores, reverse=True)[:3]  #!
    return sum(best) / 3


print(top3_mean(jnp.array([0.71, 0.64, 0.80, 0.77, 0.69])))
"""),
    Case("tracing_assert_probabilities_sum_to_one", "jax_tracing", None, "other", J + """

@jax.jit
def expected_calibration_error(probs, labels, n_bins=10):
    assert jnp.allclose(probs.sum(-1), 1.0), "probs must be normalised"  #!
    confidence = probs.max(-1)
    correct = (probs.argmax(-1) == labels).astype(jnp.float32)
    bins = jnp.minimum((confidence * n_bins).astype(jnp.int32), n_bins - 1)
    gap = jax.ops.segment_sum(confidence - correct, bins, n_bins)
    return jnp.abs(gap).sum() / labels.shape[0]


probs = jax.nn.softmax(jnp.zeros((256, 10)))
print(expected_calibration_error(probs, jnp.zeros(256, jnp.int32)))
"""),
    Case("tracing_cosine_schedule_math_cos", "jax_tracing", None, "jnp_not_np",
        J + """import math

import optax

TOTAL_STEPS = 10_000


def cosine_lr(step, base_lr=3e-4):
    return 0.5 * base_lr * (1 + math.cos(math.pi * step / TOTAL_STEPS))  #!


optimizer = optax.adamw(learning_rate=cosine_lr)
params = {"w": jnp.ones((16, 16))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state):
    grads = jax.grad(lambda p: (p["w"] ** 2).sum())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state)
print(params["w"][0, 0])
"""),
    Case("tracing_setdiff1d_unseen_items", "jax_tracing", "setdiff1d", "fixed_size", J + """

@jax.jit
def recommend(scores, seen_items):
    # rank only the catalogue items the user has not interacted with yet
    candidates = jnp.setdiff1d(jnp.arange(scores.shape[0]), seen_items)  #!
    return candidates[jnp.argsort(-scores[candidates])][:10]


print(recommend(jnp.linspace(0.0, 1.0, 500), jnp.array([3, 17, 42])))
"""),
    Case("tracing_trim_silence_notebook", "jax_tracing", "trim_zeros", "fixed_size",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def clip_loudness(waveform):
    # drop the leading and trailing silence before measuring the clip
    voiced = jnp.trim_zeros(waveform)  #!
    return 10 * jnp.log10(jnp.mean(voiced**2))


clip = jnp.zeros(16000).at[4000:12000].set(0.1)
print(clip_loudness(clip))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    # ---- jax_shape -------------------------------------------------------------------------------
    Case("shape_image_resize_spatial_size_only", "jax_shape", "resize", "fix_shapes", J + """

@jax.jit
def preprocess(images):
    # the backbone expects 224x224 inputs
    images = jax.image.resize(images, (224, 224), method="bilinear")  #!
    mean = jnp.array([0.485, 0.456, 0.406])
    std = jnp.array([0.229, 0.224, 0.225])
    return (images - mean) / std


print(preprocess(jnp.ones((16, 256, 256, 3))).shape)
"""),
    Case("shape_flax_attention_padding_mask_2d", "jax_shape", None, "fix_shapes",
        J + """import flax.linen as nn


class TextEncoder(nn.Module):
    @nn.compact
    def __call__(self, tokens, padding_mask):
        x = nn.Embed(1000, 64)(tokens)
        attn = nn.MultiHeadDotProductAttention(num_heads=4, qkv_features=64)
        # padding_mask: (batch, seq), True where there is a real token
        return attn(x, mask=padding_mask)  #!


tokens = jnp.ones((2, 10), jnp.int32)
mask = jnp.arange(10)[None, :] < jnp.array([[7], [10]])
variables = TextEncoder().init(jax.random.key(0), tokens, mask)
print(jax.tree.map(jnp.shape, variables))
"""),
    Case("shape_memory_bank_scatter_projection_dim", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def enqueue(bank, ptr, features):
    # MoCo-style queue of negatives: overwrite the oldest entries with this batch
    idx = (ptr + jnp.arange(features.shape[0])) % bank.shape[0]
    return bank.at[idx].set(features), (ptr + features.shape[0]) % bank.shape[0]  #!


bank = jnp.zeros((4096, 128))  # sized for the 128-d projection head
features = jnp.ones((32, 64))  # the head was narrowed to 64 for this run
bank, ptr = enqueue(bank, 0, features)
print(ptr)
"""),
    Case("shape_library_reraises_gaussian_diag_cov", "jax_shape", "logpdf", "fix_shapes",
        J + """import anomalib_lite

train = jnp.ones((1000, 8))
detector = anomalib_lite.GaussianDetector.fit(train)
print(detector.score(jnp.ones((5, 8))))  #!
""", extra={"site-packages/anomalib_lite/__init__.py": '''"""A small Gaussian anomaly detector."""

import dataclasses

import jax.numpy as jnp
from jax.scipy.stats import multivariate_normal


class DetectorError(ValueError):
    """The detector could not score the samples."""


@dataclasses.dataclass
class GaussianDetector:
    mean: jnp.ndarray
    cov: jnp.ndarray

    @classmethod
    def fit(cls, x):
        # per-feature variances: a diagonal covariance
        return cls(x.mean(axis=0), x.var(axis=0) + 1e-6)

    def score(self, x):
        try:
            return -multivariate_normal.logpdf(x, self.mean, self.cov)
        except ValueError as err:
            raise DetectorError("could not score the samples") from err
'''}),
    Case("shape_categorical_sample_shape_without_batch", "jax_shape", None, "fix_shapes",
        J + """

@jax.jit
def sample_next_tokens(key, logits, temperature=0.8):
    # four candidate continuations for each prompt in the batch
    return jax.random.categorical(key, logits / temperature, shape=(4,))  #!


logits = jnp.zeros((8, 32000))  # batch of 8 prompts x vocabulary
print(sample_next_tokens(jax.random.key(0), logits).shape)
"""),
    Case("shape_glorot_init_for_bias_vector", "jax_shape", None, "fix_shapes", J + """

def init_mlp(key, sizes=(784, 256, 10)):
    init = jax.nn.initializers.glorot_normal()
    params = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        key, k_w, k_b = jax.random.split(key, 3)
        params.append({"w": init(k_w, (d_in, d_out)), "b": init(k_b, (d_out,))})  #!
    return params


params = init_mlp(jax.random.key(0))
print([p["w"].shape for p in params])
"""),
    # ---- jax_call --------------------------------------------------------------------------------
    Case("call_vmap_ensemble_in_axes_all_none", "jax_call", "vmap", "fix_shapes", J + """

def predict(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


key = jax.random.key(0)
ensemble = {"w": jax.random.normal(key, (5, 16, 1)), "b": jnp.zeros((5, 1))}  # 5 members
x = jnp.ones((32, 16))
# every member on the same batch
preds = jax.vmap(predict, in_axes=(None, None))(ensemble, x)  #!
print(preds.mean(0).shape)
"""),
    Case("call_custom_jvp_swish_without_defjvp", "jax_call", None, "other", J + """

@jax.custom_jvp
def swish(x):
    return x * jax.nn.sigmoid(x)


# the hand-written derivative is still on the to-do list


def loss(w, x):
    return swish(x @ w).mean()  #!


print(jax.grad(loss)(jnp.ones((8, 4)), jnp.ones((2, 8))))
"""),
    Case("call_optax_lr_string_from_yaml", "jax_call", None, "other", J + """import optax
import yaml

# PyYAML reads 3e-4 (no dot) as a string
config = yaml.safe_load("learning_rate: 3e-4\\nweight_decay: 0.01\\n")
optimizer = optax.adamw(config["learning_rate"], weight_decay=config["weight_decay"])

params = {"w": jnp.ones((4, 4))}
opt_state = optimizer.init(params)
grads = jax.grad(lambda p: (p["w"] ** 2).sum())(params)
updates, opt_state = optimizer.update(grads, opt_state, params)  #!
print(optax.apply_updates(params, updates)["w"][0])
"""),
    Case("call_scan_ema_body_returns_carry_only", "jax_call", "scan", "other", J + """

def ema_series(prices, decay=0.9):
    # exponential moving average of a price series
    def step(avg, price):
        return decay * avg + (1 - decay) * price

    _, averages = jax.lax.scan(step, prices[0], prices)  #!
    return averages


print(ema_series(jnp.linspace(100.0, 120.0, 50))[-1])
"""),
    Case("call_vmap_ordered_io_callback_logging", "jax_call", "io_callback", "other",
        J + """from jax.experimental import io_callback

log_file = []


def log_loss(value):
    log_file.append(float(value))


def example_loss(w, x):
    loss = ((x @ w) ** 2).mean()
    io_callback(log_loss, None, loss, ordered=True)  #!
    return loss


# one loss per example, logged in order
losses = jax.vmap(example_loss, in_axes=(None, 0))(jnp.ones(4), jnp.ones((8, 4)))
print(losses.shape, len(log_file))
"""),
    Case("call_keras3_variables_into_jax_grad", "jax_call", None, "other",
        """import os

os.environ["KERAS_BACKEND"] = "jax"

import jax
import jax.numpy as jnp
import keras

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1)])


def loss_fn(weights, x, y):
    # a hand-written JAX training loop around the Keras model
    return jnp.mean((model(x) - y) ** 2)


grads = jax.grad(loss_fn)(model.trainable_variables, jnp.ones((8, 16)), jnp.ones((8, 1)))  #!
print(jax.tree.map(jnp.shape, grads))
"""),
    # ---- sharding --------------------------------------------------------------------------------
    Case("sharding_explicit_rfft_over_sharded_time", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("time",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def power_spectrum(audio):
    # one-sided spectrum of each clip, the samples split over devices
    return jnp.abs(jnp.fft.rfft(audio, axis=-1)) ** 2  #!


audio = jax.device_put(jnp.ones((4, 16384)), NamedSharding(mesh, P(None, "time")))
print(power_spectrum(audio).shape)
""", env=EIGHT_CPUS),
    Case("sharding_make_mesh_one_axis_type_for_two", "sharding", None, "other",
        J + """from jax.sharding import AxisType, PartitionSpec as P

# 4-way data parallel x 2-way tensor parallel, explicit sharding
mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,))  #!
jax.set_mesh(mesh)
w = jnp.zeros((512, 1024), out_sharding=P(None, "model"))
print(w.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_zeros_out_sharding_model_axis_missing", "sharding", None, "mesh_axis",
        J + """from jax.sharding import AxisType, PartitionSpec as P

# the config was written for a data x model mesh; this job only has data parallelism
mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


def init_mlp(d_model=512, d_ff=2048):
    return {
        "w_in": jnp.zeros((d_model, d_ff), out_sharding=P(None, "model")),  #!
        "w_out": jnp.zeros((d_ff, d_model), out_sharding=P("model", None)),
    }


params = init_mlp()
print(jax.tree.map(lambda a: a.sharding.spec, params))
""", env=EIGHT_CPUS),
    Case("sharding_explicit_repeat_without_out_sharding", "sharding", "repeat", "reshard",
        J + """from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def expand_for_sampling(prompts, num_samples=4):
    # four completions per prompt: repeat each prompt row
    return jnp.repeat(prompts, num_samples, axis=0)  #!


prompts = jax.device_put(jnp.zeros((16, 128), jnp.int32), NamedSharding(mesh, P("data")))
print(expand_for_sampling(prompts).shape)
""", env=EIGHT_CPUS),
    Case("sharding_equinox_batchnorm_vmap_without_axis_name", "sharding", None, "mesh_axis",
        J + """import equinox as eqx


class ConvBlock(eqx.Module):
    conv: eqx.nn.Conv2d
    norm: eqx.nn.BatchNorm

    def __init__(self, key):
        self.conv = eqx.nn.Conv2d(3, 16, 3, padding=1, key=key)
        self.norm = eqx.nn.BatchNorm(16, axis_name="batch")

    def __call__(self, x, state):
        h, state = self.norm(self.conv(x), state)  #!
        return jax.nn.relu(h), state


block, state = eqx.nn.make_with_state(ConvBlock)(jax.random.key(0))
images = jnp.ones((8, 3, 32, 32))
out, state = jax.vmap(block, in_axes=(0, None), out_axes=(0, None))(images, state)
print(out.shape)
"""),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("export_debug_print_left_in_model", "jax_export", None, "other",
        J + """from jax import export


def classify(x):
    logits = x @ jnp.ones((32, 10))
    jax.debug.print("max logit {m}", m=logits.max())  # left from debugging
    return jax.nn.softmax(logits)


exp = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((8, 32), jnp.float32))  #!
with open("classifier.jaxexport", "wb") as f:
    f.write(exp.serialize())
"""),
    Case("export_linspace_time_grid_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def decay_weighting(events):
    # older events count less: weights from 0.1 to 1 across the window
    weights = jnp.linspace(0.1, 1.0, events.shape[0])  #!
    return (weights[:, None] * events).sum(0)


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(decay_weighting))(jax.ShapeDtypeStruct((n, 16), jnp.float32))
print(exp.in_avals)
"""),
    Case("export_artifact_read_in_text_mode", "jax_export", None, "other",
        J + """from jax import export

exp = export.export(jax.jit(jnp.tanh))(jax.ShapeDtypeStruct((4, 8), jnp.float32))
with open("scorer.jaxexport", "wb") as f:
    f.write(exp.serialize())

# the serving process loads the artifact
with open("scorer.jaxexport", encoding="latin-1") as f:
    blob = f.read()
served = export.deserialize(blob)  #!
print(served.call(jnp.ones((4, 8))))
"""),
    Case("export_typed_key_called_with_raw_prngkey", "jax_export", None, "prng_key",
        J + """from jax import export


def noisy_policy(key, obs):
    # exploration noise added to the policy's action
    return jnp.tanh(obs @ jnp.ones((8, 2))) + 0.1 * jax.random.normal(key, (obs.shape[0], 2))


key_spec = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
exp = export.export(jax.jit(noisy_policy))(key_spec, jax.ShapeDtypeStruct((4, 8), jnp.float32))
served = export.deserialize(exp.serialize())

# the actor process still seeds with the old-style uint32 keys
actions = served.call(jax.random.PRNGKey(7), jnp.ones((4, 8)))  #!
print(actions.shape)
"""),
    # ---- pallas ----------------------------------------------------------------------------------
    Case("pallas_blockspec_index_map_given_as_tuple", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def add_bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


def add_bias(x, b):
    return pl.pallas_call(  #!
        add_bias_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0)),
                  pl.BlockSpec((1, 128), (0, 0))],  # the bias row is the same block each step
        out_specs=pl.BlockSpec((128, 128), lambda i: (i, 0)),
        interpret=True,
    )(x, b)


print(add_bias(jnp.ones((512, 128)), jnp.ones((1, 128))).shape)
"""),
    Case("pallas_old_tutorial_pl_load_store", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def relu_kernel(x_ref, o_ref):
    # as an older Pallas tutorial wrote it
    x = pl.load(x_ref, (slice(None), slice(None)))  #!
    pl.store(o_ref, (slice(None), slice(None)), jnp.maximum(x, 0.0))


def relu(x):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 64,),
        in_specs=[pl.BlockSpec((64, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((64, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(relu(jnp.ones((256, 128))).shape)
"""),
    Case("pallas_layernorm_stats_dict_out_shape", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def stats_kernel(x_ref, mean_ref, var_ref):
    x = x_ref[...]
    mean_ref[...] = x.mean(axis=-1, keepdims=True)
    var_ref[...] = x.var(axis=-1, keepdims=True)


def row_stats(x, rows=64):
    stat = jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype)
    stat_spec = pl.BlockSpec((rows, 1), lambda i: (i, 0))
    return pl.pallas_call(  #!
        stats_kernel,
        out_shape={"mean": stat, "var": stat},
        grid=(x.shape[0] // rows,),
        in_specs=[pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0))],
        out_specs=[stat_spec, stat_spec],
        interpret=True,
    )(x)


print(row_stats(jnp.ones((256, 512)))["var"].shape)
"""),
    Case("pallas_scalar_prefetch_page_table_passed_last", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_pages_kernel(page_table_ref, pages_ref, o_ref):
    o_ref[...] = pages_ref[...]


def gather_pages(pages, page_table, page_size=8):
    # paged KV cache: copy the pages of one sequence in the order of its page table
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(page_table.shape[0],),
        in_specs=[pl.BlockSpec((page_size, 128), lambda i, table: (table[i], 0))],
        out_specs=pl.BlockSpec((page_size, 128), lambda i, table: (i, 0)),
    )
    return pl.pallas_call(  #!
        gather_pages_kernel,
        out_shape=jax.ShapeDtypeStruct((page_table.shape[0] * page_size, 128), pages.dtype),
        grid_spec=grid_spec,
        interpret=True,
    )(pages, page_table)


print(gather_pages(jnp.ones((256, 128)), jnp.array([5, 2, 9, 0])).shape)
"""),
    # ---- out of memory / device allocation -------------------------------------------------------
    Case("oom_pairwise_iou_all_anchors", "device_allocation", None, "smaller_batch", J + """

def pairwise_iou(a, b):
    lt = jnp.maximum(a[:, None, :2], b[None, :, :2])
    rb = jnp.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = jnp.prod(jnp.clip(rb - lt, 0.0), axis=-1)
    area = lambda boxes: jnp.prod(boxes[..., 2:] - boxes[..., :2], axis=-1)
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


# deduplicate the anchors of every feature-pyramid level at once
anchors = jnp.zeros((1_000_000, 4))
iou = jax.jit(pairwise_iou)(anchors, anchors)
duplicates = (iou > 0.95).sum(axis=1)
print(duplicates.max())  #!
"""),
    Case("oom_word_cooccurrence_outer_product", "device_allocation", None, "other", J + """

# expected co-occurrence counts under independence, for PMI over a 400k-word vocabulary
unigram = jnp.ones(400_000) / 400_000
expected = jnp.outer(unigram, unigram)
print(expected[:3, :3])  #!
"""),
    Case("oom_tf_one_hot_extreme_classification", "device_allocation", None, "other",
        """import tensorflow as tf

# product categorisation over five million catalogue ids
labels = tf.random.uniform((100_000,), 0, 5_000_000, dtype=tf.int32)
targets = tf.one_hot(labels, depth=5_000_000)  #!
print(tf.reduce_sum(targets))
""", device="cpu"),
    Case("oom_superres_upsample_whole_eval_set", "device_allocation", None, "smaller_batch",
        J + """

@jax.jit
def bicubic_baseline(low_res):
    # the x32 super-resolution baseline, on the whole evaluation set at once
    n, h, w, c = low_res.shape
    return jax.image.resize(low_res, (n, h * 32, w * 32, c), method="bicubic")


low_res = jnp.zeros((64, 512, 512, 3))
high_res = bicubic_baseline(low_res)
print(high_res[0, :2, :2, 0])  #!
"""),
    # ---- TensorFlow ------------------------------------------------------------------------------
    Case("tf_print_loss_inside_jit_step", "tf2xla", "StringFormat", "replace_op",
        """import tensorflow as tf

w = tf.Variable(tf.zeros((8, 1)))
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    tf.print("loss:", loss)  #!
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


train_step(tf.ones((32, 8)), tf.ones((32, 1)))
""", device="cpu"),
    Case("tf_gcn_sparse_adjacency_matmul_jit", "tf2xla", "SparseTensorDenseMatMul",
        "replace_op", """import tensorflow as tf

edges = [[0, 1], [1, 0], [1, 2], [2, 1], [2, 3], [3, 2]]
adjacency = tf.sparse.SparseTensor(edges, [0.5] * len(edges), dense_shape=[4, 4])


@tf.function(jit_compile=True)
def gcn_layer(node_features, kernel):
    # graph convolution: aggregate the neighbours, then transform
    aggregated = tf.sparse.sparse_dense_matmul(adjacency, node_features)  #!
    return tf.nn.relu(aggregated @ kernel)


print(gcn_layer(tf.ones((4, 16)), tf.ones((16, 8))).shape)
""", device="cpu"),
    Case("tf_isotonic_calibration_jit", "tf2xla", "IsotonicRegression", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def calibrate(sorted_scores):
    # monotone calibration of the classifier's scores
    calibrated, _ = tf.nn.isotonic_regression(sorted_scores)  #!
    return tf.clip_by_value(calibrated, 0.0, 1.0)


print(calibrate(tf.random.uniform((8, 100))).shape)
""", device="cpu"),
    Case("tf_keras_morphology_dilation_layer_jit", "tf2xla", "Dilation2D", "replace_op",
        """import numpy as np
import keras
import tensorflow as tf


class GreyDilation(keras.layers.Layer):
    # morphological dilation to close small gaps in the predicted masks
    def call(self, masks):
        structuring = tf.zeros((3, 3, 1))
        return tf.nn.dilation2d(masks, structuring, [1, 1, 1, 1], "SAME", "NHWC",  #!
                                [1, 1, 1, 1])


inputs = keras.Input((64, 64, 3))
masks = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(inputs)
model = keras.Model(inputs, GreyDilation()(masks))
model.compile(optimizer="adam", loss="binary_crossentropy", jit_compile=True)
model.fit(np.ones((4, 64, 64, 3)), np.ones((4, 64, 64, 1)), epochs=1, verbose=0)
""", device="cpu", env={"KERAS_BACKEND": "tensorflow"}),
    Case("tf_spline_banded_solve_jit", "tf2xla", "BandedTriangularSolve", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def smooth(bands, signal):
    # smoothing spline: solve the banded lower-triangular system
    return tf.linalg.banded_triangular_solve(bands, signal[:, None])[:, 0]  #!


bands = tf.concat([tf.fill([1, 256], 0.25), tf.ones((1, 256))], axis=0)
print(smooth(bands, tf.random.normal((256,))).shape)
""", device="cpu"),
    Case("tf_ctc_loss_sparse_labels_jit", "tf2xla", "CTCLoss", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def asr_loss(logits, transcripts):
    # transcripts come from the tokenizer as a sparse batch of character ids
    frames = tf.fill([tf.shape(logits)[1]], tf.shape(logits)[0])
    losses = tf.nn.ctc_loss(transcripts, logits, None, frames,  #!
                            logits_time_major=True, blank_index=0)
    return tf.reduce_mean(losses)


transcripts = tf.sparse.from_dense(tf.constant([[5, 12, 12, 15], [8, 9, 0, 0]]))
print(asr_loss(tf.random.normal((120, 2, 29)), transcripts))
""", device="cpu"),
    Case("tf_binomial_count_noise_jit", "tf2xla", "StatelessRandomBinomial", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def thin_counts(read_counts, seed):
    # augmentation for single-cell data: keep each read with probability 0.8
    thinned = tf.random.stateless_binomial(tf.shape(read_counts), seed,  #!
                                           counts=read_counts, probs=0.8,
                                           output_dtype=tf.float32)
    return tf.math.log1p(thinned)


print(thin_counts(tf.fill([32, 2000], 10.0), tf.constant([1, 2])).shape)
""", device="cpu"),
    Case("tf_random_flip_axis_reverse_jit", "tf_known_issue", "ReverseV2", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def random_flip(image):
    # flip each image horizontally or vertically, chosen at random
    axis = tf.random.uniform((), 0, 2, dtype=tf.int32)
    return tf.reverse(image, [axis])  #!


print(random_flip(tf.zeros((224, 224, 3))).shape)
""", device="cpu"),
    Case("tf_flexivit_random_patch_size_jit", "tf_known_issue", "Reshape", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def patchify(images):
    # FlexiViT-style training: a random patch size (8 or 16) for every batch
    patch = tf.random.uniform((), 0, 2, dtype=tf.int32) * 8 + 8
    patches = tf.image.extract_patches(images, [1, 8, 8, 1], [1, 8, 8, 1], [1, 1, 1, 1], "VALID")
    return tf.reshape(patches, [tf.shape(images)[0], -1, patch * patch * 3])  #!


print(patchify(tf.zeros((4, 64, 64, 3))).shape)
""", device="cpu"),
    # ---- recompile -------------------------------------------------------------------------------
    Case("recompile_eval_highest_precision_alternating", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def forward(w, x):
    return jax.nn.log_softmax(jnp.tanh(x @ w) @ w.T)


w = jnp.ones((64, 64)) * 0.01
for epoch in range(3):
    with jax.default_matmul_precision("bfloat16"):  # fast training
        forward(w, jnp.ones((32, 64)))
    with jax.default_matmul_precision("highest"):  # exact numbers for the eval report
        logits = forward(w, jnp.ones((32, 64)))  #!
"""),
    Case("recompile_step_called_positional_then_keyword", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(params, batch, lr):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(params)
    return params - lr * grads


params = jnp.ones(16)
for step in range(4):
    batch = jnp.ones((32, 16))
    if step % 2 == 0:
        params = train_step(params, batch, 0.1)
    else:  # the refactored loop passes the learning rate by name
        params = train_step(params, batch, lr=0.1)  #!
"""),
    Case("recompile_nnx_temperature_attribute_anneal", "recompile", None, "see_recompiles",
        J + """from flax import nnx

jax.config.update("jax_explain_cache_misses", True)


class Distiller(nnx.Module):
    def __init__(self, rngs):
        self.head = nnx.Linear(32, 10, rngs=rngs)
        self.temperature = 4.0  # annealed during training

    def __call__(self, x):
        return jax.nn.softmax(self.head(x) / self.temperature)


@nnx.jit
def soft_targets(model, x):
    return model(x)


model = Distiller(nnx.Rngs(0))
for epoch in range(4):
    model.temperature = 4.0 / (epoch + 1)
    targets = soft_targets(model, jnp.ones((8, 32)))  #!
"""),
    # ---- missing_lowering / xla_status -----------------------------------------------------------
    Case("lowering_eigh_subset_spectral_clustering_cpu", "missing_lowering", "eigh",
        "replace_op", J + """

@jax.jit
def spectral_embedding(affinity, k=4):
    degree = affinity.sum(axis=1)
    d = 1.0 / jnp.sqrt(degree)
    laplacian = jnp.eye(affinity.shape[0]) - d[:, None] * affinity * d[None, :]
    # only the k smallest eigenpairs are needed
    _, vectors = jax.lax.linalg.eigh(laplacian, subset_by_index=(0, k))  #!
    return vectors


print(spectral_embedding(jnp.ones((64, 64))).shape)
""", device="cpu"),
    Case("lowering_svd_subset_lora_init_cpu", "missing_lowering", "svd", "replace_op", J + """

def lora_init_from_weight(w, rank=8):
    # PiSSA-style LoRA init: the top singular directions of the frozen weight
    u, s, vt = jax.lax.linalg.svd(w, full_matrices=False, subset_by_index=(0, rank))  #!
    a = u * jnp.sqrt(s)
    b = jnp.sqrt(s)[:, None] * vt
    return a, b


a, b = jax.jit(lora_init_from_weight)(jnp.ones((512, 512)))
print(a.shape, b.shape)
""", device="cpu"),
    Case("status_float16_inverse_mahalanobis_cpu", "xla_status", "solve", "cast_dtype", J + """

@jax.jit
def mahalanobis(x, mean, cov):
    precision = jnp.linalg.inv(cov)
    d = x - mean
    return jnp.einsum("ni,ij,nj->n", d, precision, d)


features = jnp.ones((256, 32), jnp.float16)  # cached in half precision
cov = jnp.cov(features, rowvar=False) + jnp.eye(32, dtype=jnp.float16)
print(mahalanobis(features, features.mean(0), cov)[:4])  #!
"""),
    Case("status_bfloat16_gp_slogdet_cpu", "xla_status", "lu", "cast_dtype", J + """

def gp_log_marginal_likelihood(kernel_matrix, y):
    # Gaussian-process evidence, as the bf16 training config runs it
    _, logdet = jnp.linalg.slogdet(kernel_matrix)
    alpha = jnp.linalg.solve(kernel_matrix, y)
    return -0.5 * (y @ alpha) - 0.5 * logdet


k = jnp.eye(50, dtype=jnp.bfloat16)
print(jax.jit(gp_log_marginal_likelihood)(k, jnp.ones(50, jnp.bfloat16)))  #!
"""),

]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
