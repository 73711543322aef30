"""Make blind22: a ninth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on:
forty-eight mistakes, each different from the 463 distinct cases of the
``tests/data/made_errors*/make.py`` files and from each other, picked as a user would hit them
(percentile gradient clipping, positive anchors, activations kept for a dashboard, length
buckets, rotary embeddings, a widening residual stack, ViT patches, sweep seeds from the clock,
a controller rollout, per-shard dropout, a checkpoint resumed on a new mesh, top-k over a
sharded vocabulary, chunked scoring, a served model without its weights, pivoted QR for feature
selection, old Pallas tutorials, an accumulating matmul kernel, a signed distance field, TF-IDF,
region proposals, SegNet pooling, thumbnails, CT and audio augmentation, word2vec negatives,
beam-search decoding, recall@k, a loader mixing tuples and lists, float16 shards, colour-jitter
dicts, a Markov chain and an RNN's spectral radius exported for TPUs, half-precision PCA and
orthogonal initialisation, YAML step counts, rematerialisation policies, optax over a whole
equinox model, a sharded KV cache, rank-0 logging in shard_map, class-balanced losses; flax
linen, equinox, optax, orbax, Keras 3 and TensorFlow with ``jit_compile=True``; a notebook
cell; a library that re-raises; jit, vmap, grad, scan, fori_loop, remat, shard_map and explicit
sharding on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic shapes and
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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind22/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, optax 0.2.8, orbax-checkpoint 0.12.8, TensorFlow 2.21.0 and
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
    Case("tracing_np_percentile_grad_clip", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np
import optax


@jax.jit
def train_step(params, grads):
    # clip at the 99th percentile of this step's gradient magnitudes
    flat = jnp.concatenate([jnp.ravel(g) for g in jax.tree.leaves(grads)])
    threshold = np.percentile(np.abs(flat), 99)  #!
    grads = jax.tree.map(lambda g: jnp.clip(g, -threshold, threshold), grads)
    return optax.apply_updates(params, jax.tree.map(lambda g: -0.01 * g, grads))


params = {"w": jnp.ones((64, 64)), "b": jnp.zeros(64)}
print(train_step(params, params)["b"].shape)
"""),
    Case("tracing_argwhere_positive_anchors", "jax_tracing", "nonzero", "fixed_size", J + """

@jax.jit
def positive_anchor_boxes(ious, anchors):
    # anchors that overlap some ground-truth box by more than half
    idx = jnp.argwhere(ious.max(axis=1) > 0.5)[:, 0]  #!
    return anchors[idx]


ious = jnp.zeros((900, 6))  # anchors x ground-truth boxes
print(positive_anchor_boxes(ious, jnp.zeros((900, 4))).shape)
"""),
    Case("tracing_grad_keeps_activations_on_self", "jax_tracing", None, "no_leaked_tracer",
        J + """

class Probe:
    # keeps the hidden activations of the last forward pass for the dashboard
    def __init__(self):
        self.hidden = None

    def __call__(self, w, x):
        self.hidden = jnp.tanh(x @ w)
        return self.hidden.sum()


probe = Probe()
grads = jax.grad(probe)(jnp.ones((8, 4)), jnp.ones((2, 8)))
dead_fraction = (probe.hidden == 0).mean()  #!
print(grads.shape, dead_fraction)
"""),
    Case("tracing_pad_to_bucket_len_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def pad_to_bucket(tokens, bucket_len):
    # pad every batch of token ids up to the length of its bucket
    return jnp.pad(tokens, ((0, 0), (0, bucket_len - tokens.shape[1])))  #!


for bucket_len in (128, 256):
    print(pad_to_bucket(jnp.ones((8, 100), jnp.int32), bucket_len).shape)
"""),
    Case("tracing_shard_map_if_first_device_logs", "jax_tracing", None, "lax_control_flow",
        J + """from functools import partial

from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
def grad_step(w, x):
    g = jax.lax.pmean(jax.grad(lambda w: ((x @ w) ** 2).mean())(w), "data")
    if jax.lax.axis_index("data") == 0:  #!
        jax.debug.print("grad norm {n}", n=jnp.linalg.norm(g))
    return w - 0.1 * g


x = jax.device_put(jnp.ones((64, 16)), NamedSharding(mesh, P("data")))
print(grad_step(jnp.ones(16), x).shape)
""", env=EIGHT_CPUS),
    Case("tracing_bincount_class_weights_in_step", "jax_tracing", "bincount", "fixed_size",
        J + """import optax


@jax.jit
def balanced_loss(logits, labels):
    # weight each class by the inverse of its frequency in this batch
    counts = jnp.bincount(labels)  #!
    weights = labels.shape[0] / (counts[labels] * counts.shape[0])
    losses = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
    return (weights * losses).mean()


print(balanced_loss(jnp.zeros((64, 10)), jnp.arange(64) % 10))
"""),
    # ---- jax_shape -------------------------------------------------------------------------------
    Case("shape_rope_frequencies_half_head_dim", "jax_shape", "mul", "fix_shapes", J + """

def apply_rope(x, positions):
    # rotary position embedding over the last axis (head_dim)
    head_dim = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (jnp.arange(0, head_dim, 2) / head_dim))
    angles = positions[:, None] * inv_freq[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    rotated = jnp.concatenate([-x[..., head_dim // 2:], x[..., : head_dim // 2]], axis=-1)
    return x * cos[:, None, :] + rotated * sin[:, None, :]  #!


q = jnp.ones((128, 8, 64))  # seq x heads x head_dim
print(jax.jit(apply_rope)(q, jnp.arange(128.0)).shape)
"""),
    Case("shape_flax_residual_after_widening", "jax_shape", "add", "fix_shapes",
        J + """import flax.linen as nn


class Block(nn.Module):
    width: int

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.width)(nn.LayerNorm()(x))
        return x + nn.gelu(h)  #!


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        for width in (256, 256, 512, 512):  # widen halfway through
            x = Block(width)(x)
        return x


x = jnp.ones((4, 16, 256))
variables = Encoder().init(jax.random.key(0), x)
print(jax.tree.map(jnp.shape, variables))
"""),
    Case("shape_vit_patchify_odd_image_size", "jax_shape", "reshape", "fix_shapes", J + """

def patchify(images, patch=16):
    b, h, w, c = images.shape
    x = images.reshape(b, h // patch, patch, w // patch, patch, c)  #!
    return x.transpose(0, 1, 3, 2, 4, 5).reshape(b, -1, patch * patch * c)


images = jnp.ones((8, 225, 225, 3))  # the data pipeline resizes to 225
print(jax.jit(patchify)(images).shape)
"""),
    Case("shape_equinox_layernorm_on_sequence", "jax_shape", None, "fix_shapes",
        J + """import equinox as eqx


class EncoderLayer(eqx.Module):
    norm: eqx.nn.LayerNorm
    proj: eqx.nn.Linear

    def __init__(self, dim, key):
        self.norm = eqx.nn.LayerNorm(dim)
        self.proj = eqx.nn.Linear(dim, dim, key=key)

    def __call__(self, tokens):
        # tokens: (seq_len, dim), one example
        h = self.norm(tokens)  #!
        return tokens + jax.vmap(self.proj)(h)


layer = EncoderLayer(64, jax.random.key(0))
print(jax.vmap(layer)(jnp.ones((8, 16, 64))).shape)
"""),
    # ---- jax_call --------------------------------------------------------------------------------
    Case("call_library_reraises_time_seed_key", "jax_call", None, "prng_key", J + """import time

import expkit

# a fresh seed for every run of the sweep
run = expkit.start_run(seed=time.time())  #!
print(run.key)
""", extra={"site-packages/expkit/__init__.py": '''"""Experiment bookkeeping for sweeps."""

import dataclasses

import jax


class ExperimentError(RuntimeError):
    """The run could not be set up."""


@dataclasses.dataclass
class Run:
    seed: object
    key: jax.Array


def start_run(seed):
    try:
        key = jax.random.key(seed)
    except TypeError as err:
        raise ExperimentError(f"could not seed the run with {seed!r}") from err
    return Run(seed, key)
'''}),
    Case("call_rollout_scan_without_length_notebook", "jax_call", None, "other",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


def rollout(policy_w, state0):
    def step(state, _):
        action = jnp.tanh(state @ policy_w)
        state = state + 0.1 * action
        return state, state

    # simulate 200 steps of the controller
    _, states = jax.lax.scan(step, state0, None)  #!
    return states


print(rollout(jnp.eye(4), jnp.ones(4)).shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("call_fori_loop_steps_from_config_float", "jax_call", "fori_loop", "cast_dtype",
        J + """
config = {"lr": 1e-2, "inner_steps": 1e3}  # as the YAML loader parsed it


@jax.jit
def fit_inner(w, x, y):
    def body(_, w):
        return w - config["lr"] * jax.grad(lambda w: ((x @ w - y) ** 2).mean())(w)

    return jax.lax.fori_loop(0, config["inner_steps"], body, w)  #!


print(fit_inner(jnp.zeros(4), jnp.ones((16, 4)), jnp.ones(16)))
"""),
    Case("call_remat_policy_given_by_name", "jax_call", None, "other", J + """

def block(w, h):
    return jax.nn.gelu(h @ w) @ w.T


# save the matmul outputs, recompute the rest on the backward pass
block = jax.checkpoint(block, policy="dots_saveable")


def loss(w, h):
    for _ in range(4):
        h = block(w, h)  #!
    return (h**2).mean()


print(jax.grad(loss)(jnp.ones((64, 256)) * 0.01, jnp.ones((8, 64))).shape)
"""),
    Case("call_optax_init_whole_equinox_model", "jax_call", "zeros_like", "other",
        J + """import equinox as eqx
import optax

model = eqx.nn.MLP(in_size=8, out_size=1, width_size=32, depth=2, key=jax.random.key(0))
optimizer = optax.adam(1e-3)
opt_state = optimizer.init(model)  #!


@eqx.filter_jit
def step(model, opt_state, x, y):
    grads = eqx.filter_grad(lambda m: ((jax.vmap(m)(x) - y) ** 2).mean())(model)
    updates, opt_state = optimizer.update(grads, opt_state)
    return eqx.apply_updates(model, updates), opt_state


model, opt_state = step(model, opt_state, jnp.ones((16, 8)), jnp.ones((16, 1)))
"""),
    Case("call_jit_in_shardings_called_with_kwargs", "jax_call", None, "other",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))
replicated = NamedSharding(mesh, P())


def loss_fn(params, images, labels):
    logits = images @ params
    return -(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 10)).sum(-1).mean()


loss = jax.jit(loss_fn, in_shardings=(replicated, batch_sharding, batch_sharding))
params = jnp.zeros((784, 10))
print(loss(params, images=jnp.ones((64, 784)), labels=jnp.zeros(64, jnp.int32)))  #!
""", env=EIGHT_CPUS),
    # ---- sharding --------------------------------------------------------------------------------
    Case("sharding_axis_index_in_plain_jit", "sharding", "axis_index", "mesh_axis",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def dropout_per_shard(x, key):
    # a different dropout mask on each data-parallel shard
    key = jax.random.fold_in(key, jax.lax.axis_index("data"))  #!
    keep = jax.random.bernoulli(key, 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0.0)


x = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("data")))
print(dropout_per_shard(x, jax.random.key(0)).shape)
""", env=EIGHT_CPUS),
    Case("sharding_orbax_restore_vocab_rows_over_eight", "sharding", None, "fix_shapes",
        J + """import os

import orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec as P

path = os.path.abspath("checkpoints/1000")
state = {"embed": jnp.zeros((50257, 64)), "step": jnp.int32(1000)}
with ocp.StandardCheckpointer() as checkpointer:
    checkpointer.save(path, state)

# resume on the eight-way mesh of the new job, the embedding split by rows
mesh = jax.make_mesh((8,), ("data",))
target = {
    "embed": jax.ShapeDtypeStruct((50257, 64), jnp.float32,
                                  sharding=NamedSharding(mesh, P("data"))),
    "step": jax.ShapeDtypeStruct((), jnp.int32, sharding=NamedSharding(mesh, P())),
}
with ocp.StandardCheckpointer() as checkpointer:
    restored = checkpointer.restore(path, target)  #!
print(restored["embed"].sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_top_k_over_vocab_shards", "sharding", "top_k", "reshard",
        J + """from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def top_candidates(hidden, unembed):
    # the vocabulary is split over the model axis; keep the 40 best tokens
    logits = hidden @ unembed
    return jax.lax.top_k(logits, 40)  #!


unembed = jax.device_put(jnp.ones((256, 32000)), NamedSharding(mesh, P(None, "model")))
values, ids = top_candidates(jnp.ones((4, 256)), unembed)
print(ids.shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_kv_cache_batch_of_twelve", "sharding", None, "fix_shapes",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


def init_cache(batch_size, max_len=1024, heads=8, head_dim=64):
    # one cache slot per request, the requests split over the data axis
    shape = (batch_size, max_len, heads, head_dim)
    return jnp.zeros(shape, jnp.bfloat16, out_sharding=P("data"))  #!


cache = init_cache(12)  # twelve requests in this serving batch
print(cache.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_pad_for_next_token_shift", "sharding", "pad", "reshard",
        J + """from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def shifted_inputs(tokens):
    # decoder inputs: a BOS token in front, the sequence split over devices
    return jnp.pad(tokens, ((0, 0), (1, 0)), constant_values=1)  #!


tokens = jax.device_put(jnp.zeros((4, 2048), jnp.int32), NamedSharding(mesh, P(None, "seq")))
print(shifted_inputs(tokens).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("export_python_min_chunk_of_symbolic_batch", "jax_export", None, "other",
        J + """from jax import export


def chunked_scores(x):
    # score at most 16 rows at a time to bound the memory
    chunk = min(x.shape[0], 16)  #!
    return jnp.tanh(x[:chunk]).sum()


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(chunked_scores))(jax.ShapeDtypeStruct((b, 32), jnp.float32))
print(exp.in_avals)
"""),
    Case("export_served_without_params_argument", "jax_export", None, "other",
        J + """from jax import export


def predict(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


params = {"w": jnp.ones((16, 4)), "b": jnp.zeros(4)}
exp = export.export(jax.jit(predict))(params, jax.ShapeDtypeStruct((8, 16), jnp.float32))
blob = exp.serialize()

# the serving side: the weights are baked into the artifact, aren't they?
served = export.deserialize(blob)
print(served.call(jnp.ones((8, 16))))  #!
"""),
    Case("export_pivoted_qr_column_selection_for_cuda", "jax_export", None, "disable_check",
        J + """from jax import export


def select_columns(features, k=8):
    # rank-revealing QR: keep the k most informative feature columns
    _, _, perm = jax.lax.linalg.qr(features, pivoting=True, full_matrices=False)
    return features[:, perm[:k]]


# the feature selector runs on the GPU inference service
exp = export.export(jax.jit(select_columns), platforms=["cuda"])(  #!
    jax.ShapeDtypeStruct((512, 64), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_namedtuple_outputs_serialize", "jax_export", None, "other",
        J + """from typing import NamedTuple

from jax import export


class Prediction(NamedTuple):
    logits: jax.Array
    probs: jax.Array


def classify(x):
    logits = x @ jnp.ones((32, 10))
    return Prediction(logits, jax.nn.softmax(logits))


exp = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((8, 32), jnp.float32))
with open("classifier.jaxexport", "wb") as f:
    f.write(exp.serialize())  #!
"""),
    Case("export_vmap_over_served_model", "jax_export", None, "other",
        J + """from jax import export


def score(features):
    return jnp.tanh(features @ jnp.ones((16, 1)))[:, 0]


blob = export.export(jax.jit(score))(jax.ShapeDtypeStruct((32, 16), jnp.float32)).serialize()
served = export.deserialize(blob)

# score the queued requests: several batches of 32 at once
queue = jnp.ones((5, 32, 16))
print(jax.vmap(served.call)(queue).shape)  #!
"""),
    # ---- pallas ----------------------------------------------------------------------------------
    Case("pallas_compiler_params_old_dict", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    # dimension semantics as an older tutorial passed them
    return pl.pallas_call(  #!
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((128, 128), lambda i: (i, 0)),
        compiler_params=dict(mosaic=dict(dimension_semantics=("parallel",))),
        interpret=True,
    )(x)


print(double(jnp.ones((1024, 128))).shape)
"""),
    Case("pallas_blockspec_int_block_for_vector", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def axpy_kernel(a_ref, x_ref, y_ref, o_ref):
    o_ref[...] = a_ref[0] * x_ref[...] + y_ref[...]


def axpy(a, x, y):
    block = pl.BlockSpec(1024, lambda i: (i,))  # 1024 elements per program
    return pl.pallas_call(  #!
        axpy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 1024,),
        in_specs=[pl.BlockSpec((1,), lambda i: (0,)), block, block],
        out_specs=block,
        interpret=True,
    )(a, x, y)


print(axpy(jnp.ones(1), jnp.ones(8192), jnp.ones(8192)).shape)
"""),
    Case("pallas_scratch_as_shape_dtype_struct", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...] @ w_ref[...]
    o_ref[...] = acc_ref[...]


def matmul(x, w, bm=128, bk=128):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        grid=(x.shape[0] // bm, x.shape[1] // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k)),
                  pl.BlockSpec((bk, w.shape[1]), lambda i, k: (k, 0))],
        out_specs=pl.BlockSpec((bm, w.shape[1]), lambda i, k: (i, 0)),
        # the float32 accumulator that lives across the k steps
        scratch_shapes=[jax.ShapeDtypeStruct((bm, w.shape[1]), jnp.float32)],
    )
    return pl.pallas_call(  #!
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), jnp.float32),
        grid_spec=grid_spec,
        interpret=True,
    )(x, w)


print(matmul(jnp.ones((256, 512)), jnp.ones((512, 128))).shape)
"""),
    Case("pallas_in_specs_bare_blockspec", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def residual_add_kernel(x_ref, r_ref, o_ref):
    o_ref[...] = x_ref[...] + r_ref[...]


def residual_add(x, residual):
    tile = pl.BlockSpec((256, 128), lambda i: (i, 0))
    return pl.pallas_call(  #!
        residual_add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 256,),
        in_specs=tile,  # both inputs are tiled the same way
        out_specs=tile,
        interpret=True,
    )(x, residual)


print(residual_add(jnp.ones((1024, 128)), jnp.ones((1024, 128))).shape)
"""),
    # ---- out of memory / device allocation -------------------------------------------------------
    Case("oom_sdf_meshgrid_full_volume", "device_allocation", None, "smaller_batch", J + """

def sphere_sdf(x, y, z):
    return jnp.sqrt(x**2 + y**2 + z**2) - 0.5


# evaluate the signed distance field on a 4096^3 grid for marching cubes
axis = jnp.linspace(-1.0, 1.0, 4096)
x, y, z = jnp.meshgrid(axis, axis, axis, indexing="ij")  #!
print(sphere_sdf(x, y, z).min())
"""),
    Case("oom_tf_tfidf_sparse_to_dense", "device_allocation", None, "other",
        """import tensorflow as tf

# TF-IDF of two million documents over a 500k-term vocabulary, mostly zeros
tfidf = tf.sparse.SparseTensor(
    indices=[[0, 3], [1, 7], [1999999, 499999]],
    values=[0.5, 0.2, 0.9],
    dense_shape=[2_000_000, 500_000],
)
dense = tf.sparse.to_dense(tfidf)  #!
print(tf.reduce_sum(dense))
""", device="cpu"),
    Case("oom_rope_table_for_corpus_length", "device_allocation", None, "fix_shapes", J + """

def sinusoidal_table(max_len, dim):
    positions = jnp.arange(max_len, dtype=jnp.float32)[:, None]
    freqs = 1.0 / 10000 ** (jnp.arange(0, dim, 2) / dim)
    angles = positions * freqs
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)


config = {"max_len": 1_500_000_000, "dim": 512}  # set to the corpus's token count
table = jax.jit(sinusoidal_table, static_argnums=(0, 1))(config["max_len"], config["dim"])
print(table.shape, table[-1, :4])  #!
"""),
    # ---- TensorFlow ------------------------------------------------------------------------------
    Case("tf_rpn_generate_proposals_jit", "tf2xla", "GenerateBoundingBoxProposals",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def region_proposals(scores, deltas, anchors):
    # Faster R-CNN region proposal network: decode, clip and NMS the anchors
    image_info = tf.constant([[512.0, 512.0, 1.0, 1.0, 1.0]])
    rois, roi_scores = tf.image.generate_bounding_box_proposals(  #!
        scores, deltas, image_info, anchors, post_nms_topn=300)
    return rois, roi_scores


rois, _ = region_proposals(tf.zeros((1, 32, 32, 9)), tf.zeros((1, 32, 32, 36)),
                           tf.zeros((1, 32 * 32 * 9, 4)))
print(rois.shape)
""", device="cpu"),
    Case("tf_keras_segnet_argmax_pool_layer_jit", "tf2xla", "MaxPoolWithArgmax", "replace_op",
        """import numpy as np
import keras
import tensorflow as tf


class PoolWithIndices(keras.layers.Layer):
    # SegNet encoder: remember where each maximum was, for the decoder's unpooling
    def call(self, x):
        pooled, argmax = tf.nn.max_pool_with_argmax(x, 2, 2, "SAME")  #!
        return pooled, tf.cast(argmax, tf.float32)


inputs = keras.Input((32, 32, 3))
pooled, indices = PoolWithIndices()(keras.layers.Conv2D(8, 3, padding="same")(inputs))
outputs = keras.layers.Conv2D(2, 1)(keras.layers.UpSampling2D()(pooled))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((8, 32, 32, 3)), np.ones((8, 32, 32, 2)), epochs=1, verbose=0)
""", device="cpu", env={"KERAS_BACKEND": "tensorflow"}),
    Case("tf_lanczos_downscale_jit", "tf2xla", "ScaleAndTranslate", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def make_thumbnails(images):
    # high-quality thumbnails for the gallery
    return tf.image.resize(images, (64, 64), method="lanczos3", antialias=True)  #!


print(make_thumbnails(tf.zeros((4, 256, 256, 3))).shape)
""", device="cpu"),
    Case("tf_volume_random_axis_permutation_jit", "tf_known_issue", "Transpose", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def augment_volume(volume):
    # CT augmentation: view the cube along a random permutation of its axes
    perm = tf.random.shuffle(tf.range(3))
    return tf.transpose(volume, perm)  #!


print(augment_volume(tf.zeros((64, 64, 64))).shape)
""", device="cpu"),
    Case("tf_word2vec_random_negative_count_jit", "tf_known_issue", "RandomUniformInt",
        "fixed_size", """import tensorflow as tf

VOCAB = 50_000


@tf.function(jit_compile=True)
def skipgram_loss(center, context, embeddings):
    # between 5 and 20 negative samples per pair, as the paper's ablation did
    num_negatives = tf.random.uniform((), 5, 21, dtype=tf.int32)
    negatives = tf.random.uniform([num_negatives], 0, VOCAB, dtype=tf.int32)  #!
    c = tf.gather(embeddings, center)
    pos = tf.reduce_sum(c * tf.gather(embeddings, context))
    neg = tf.reduce_sum(tf.gather(embeddings, negatives) @ c[:, None])
    return -tf.math.log_sigmoid(pos) - tf.math.log_sigmoid(-neg)


print(skipgram_loss(tf.constant(3), tf.constant(7), tf.zeros((VOCAB, 64))))
""", device="cpu"),
    Case("tf_asr_beam_search_decode_jit", "tf2xla", "CTCBeamSearchDecoder", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def decode(logits, frame_counts):
    # speech recogniser: best transcripts by beam search over the CTC outputs
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(logits, frame_counts, beam_width=16)  #!
    return tf.sparse.to_dense(decoded[0]), log_probs


logits = tf.random.normal((200, 4, 29))  # time x batch x characters
tokens, _ = decode(logits, tf.fill([4], 200))
print(tokens.shape)
""", device="cpu"),
    Case("tf_recall_at_k_set_intersection_jit", "tf2xla", "DenseToDenseSetOperation",
        "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def recall_at_k(scores, relevant_items, k=10):
    # recommender metric: how many relevant items made the top k
    _, top_items = tf.math.top_k(scores, k)
    hits = tf.sets.intersection(top_items, relevant_items)  #!
    return tf.reduce_mean(tf.cast(tf.sets.size(hits), tf.float32) / k)


print(recall_at_k(tf.random.normal((32, 1000)), tf.random.uniform((32, 5), 0, 1000, tf.int32)))
""", device="cpu"),
    Case("tf_audio_loop_clip_random_times_jit", "tf_known_issue", "Tile", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def loop_clip(clip):
    # augmentation: repeat a short sound effect one to three times
    times = tf.random.uniform((), 1, 4, dtype=tf.int32)
    return tf.tile(clip, [times])  #!


print(loop_clip(tf.zeros(8000)).shape)
""", device="cpu"),
    # ---- recompile -------------------------------------------------------------------------------
    Case("recompile_loader_tuple_then_list_batches", "recompile", None, "see_recompiles",
        J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def train_step(w, batch):
    x, y = batch
    return w - 0.1 * jax.grad(lambda w: ((x @ w - y) ** 2).mean())(w)


def loader():
    for i in range(6):
        x, y = jnp.ones((32, 8)), jnp.ones(32)
        # the mixup branch rebuilds the batch as a list
        yield (x, y) if i % 2 == 0 else [x, y]


w = jnp.zeros(8)
for batch in loader():
    w = train_step(w, batch)  #!
"""),
    Case("recompile_tf_augment_params_dict_of_floats", "recompile", None, "see_recompiles",
        """import random

import tensorflow as tf


@tf.function
def augment(images, params):
    images = tf.image.adjust_brightness(images, params["brightness"])
    return tf.image.adjust_contrast(images, params["contrast"])


images = tf.random.uniform((16, 64, 64, 3))
for step in range(8):
    # fresh colour-jitter strengths for every batch
    params = {"brightness": random.uniform(-0.2, 0.2), "contrast": random.uniform(0.8, 1.2)}
    augment(images, params)
""", no_line=True),
    Case("recompile_mixed_precision_shards_dtype", "recompile", None, "see_recompiles",
        J + """import numpy as np

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def embed_images(w, images):
    return jnp.tanh(images.reshape(images.shape[0], -1) @ w)


def shards():
    # the older shards were written in float16 to save disk
    for i in range(6):
        dtype = np.float16 if i % 2 else np.float32
        yield np.ones((32, 16, 16, 3), dtype)


w = jnp.ones((768, 64))
for images in shards():
    features = embed_images(w, images)  #!
"""),
    # ---- missing_lowering / xla_status -----------------------------------------------------------
    Case("lowering_markov_stationary_eig_cpu_and_tpu", "missing_lowering", "eig", "replace_op",
        J + """from jax import export


def stationary_distribution(transition):
    # the left eigenvector of the transition matrix for eigenvalue 1
    w, v = jnp.linalg.eig(transition.T)
    i = jnp.argmin(jnp.abs(w - 1.0))
    p = jnp.real(v[:, i])
    return p / p.sum()


# one artifact for the TPU serving fleet and its CPU fallback
exp = export.export(jax.jit(stationary_distribution), platforms=["cpu", "tpu"])(  #!
    jax.ShapeDtypeStruct((16, 16), jnp.float32))
print(exp.platforms)
"""),
    Case("status_float16_pca_svd_cpu", "xla_status", "svd", "cast_dtype", J + """

@jax.jit
def pca(embeddings):
    # project the stored embeddings onto their 8 principal directions
    centered = embeddings - embeddings.mean(axis=0)
    _, _, vt = jnp.linalg.svd(centered, full_matrices=False)
    return centered @ vt[:8].T


embeddings = jnp.ones((1000, 64), jnp.float16)  # kept in half precision to save memory
print(pca(embeddings).shape)  #!
"""),
    Case("lowering_rnn_spectral_radius_for_tpu", "missing_lowering", "eig", "replace_op",
        J + """from jax import export


def recurrent_penalty(w_rec):
    # keep the recurrent weights near the edge of chaos: spectral radius close to 1
    radius = jnp.abs(jnp.linalg.eigvals(w_rec)).max()
    return (radius - 1.0) ** 2


# checked before launching the job on the TPU pod
grad_fn = jax.jit(jax.grad(recurrent_penalty))
exp = export.export(grad_fn, platforms=["tpu"])(jax.ShapeDtypeStruct((128, 128), jnp.float32))  #!
print(exp.out_avals)
"""),
    Case("status_orthogonal_init_float16_params_cpu", "xla_status", "qr", "cast_dtype",
        J + """import flax.linen as nn


class RecurrentCore(nn.Module):
    # parameters kept in float16 to halve the checkpoint size
    @nn.compact
    def __call__(self, h, x):
        recur = nn.Dense(256, kernel_init=nn.initializers.orthogonal(),
                         param_dtype=jnp.float16, dtype=jnp.float16)
        return jnp.tanh(recur(h) + nn.Dense(256, param_dtype=jnp.float16)(x))  #!


core = RecurrentCore()
params = core.init(jax.random.key(0), jnp.zeros((1, 256), jnp.float16), jnp.zeros((1, 64)))
print(jax.tree.map(jnp.shape, params))
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
