"""Make blind25: a twelfth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: forty-one
mistakes, each different from the 658 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a Python ``any`` over gradients to skip a NaN
step, NumPy's clip in a PPO loss, class weights looked up with ``.item()`` under vmap in a
notebook, a gradient-clipping custom_vjp with its bound as a non-differentiable argument, a greedy
decode growing its tokens in a fori_loop, bf16 gradients clamped by float32 bounds, the gradient
of an accuracy, a transposed convolution with a PyTorch-layout kernel, an equinox attention given
the whole batch's mask under vmap, optax's integer-label loss given one-hot labels in a notebook,
a sliding-window band whose width is a traced argument, a flax model initialised with an int
seed, Adam with eps=0 under NaN checks, a string field in a registered dataclass state, vmapped
parameters passed by keyword, jit's in_shardings as specs without a mesh, a two-dimensional mesh
given one axis name, a sparse update of a vocab-sharded embedding, grouped-query KV heads tiled
along a sharded axis, DLRM feature crosses of model-sharded features, a Hann window, a strict
constraint and a keep-the-last-tokens slice over symbolic shapes, a Pallas SwiGLU kernel whose
input block is half as wide as it reads, branching on a vector with ``pl.when``, ``program_id``
called outside the kernel, an ALiBi bias for the longest context, L-BFGS's history for a large
layer, per-example Fisher outer products, dense patches of a 4K frame, int8 quantization, Fresnel
integrals, a Keras layer using Dawson's integral under ``fit(jit_compile=True)`` and TFRecord
parsing in ``jit_compile`` steps, time-stretch and Keras elastic augmentations of random size,
prompts of every length served by one jitted function, a loss lambda made anew each step as a
static argument, a sparse solve exported for TPU, and Schur and tridiagonal solves in half
precision; flax linen, equinox, optax, Keras 3 (TensorFlow backend) and TensorFlow with
``jit_compile=True``; notebook cells; a library's code raising (optax, equinox, Keras); jit, vmap,
grad, fori_loop, custom_vjp, explicit sharding on eight fake CPUs, Pallas in interpret mode,
``jax.export`` with symbolic shapes and for another platform), never by what the tool handles.
No rule may be written from these logs before they are scored, and the folder is sealed to
everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind25/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, optax 0.2.8, IPython 8.12.3, TensorFlow 2.21.0 and Keras 3.15.1 on
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
    Case("tracing_any_nan_check_on_grads", "jax_tracing", None, "lax_control_flow", J + """

def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, lr=1e-2):
    g = jax.grad(loss_fn)(w, x, y)
    # skip the update when the batch blew up the gradients
    if any(jnp.isnan(g)):  #!
        return w
    return w - lr * g


w = jnp.zeros(16)
print(train_step(w, jnp.ones((32, 16)), jnp.ones(32))[:4])
"""),
    Case("tracing_ppo_ratio_np_clip", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np


def ppo_clip_loss(logp, old_logp, advantages, clip_eps=0.2):
    ratio = jnp.exp(logp - old_logp)
    unclipped = ratio * advantages
    clipped = np.clip(ratio, 1 - clip_eps, 1 + clip_eps) * advantages  #!
    return -jnp.minimum(unclipped, clipped).mean()


policy_grad = jax.jit(jax.grad(ppo_clip_loss))
print(policy_grad(jnp.zeros(256), jnp.zeros(256), jnp.ones(256))[:4])
"""),
    Case("tracing_vmap_class_weight_item_notebook", "jax_tracing", None, "jnp_not_np",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

# the rare classes count more: background, pedestrian, cyclist
CLASS_WEIGHT = [1.0, 5.0, 20.0]


def weighted_nll(log_probs, label):
    return -CLASS_WEIGHT[label.item()] * log_probs[label]  #!


log_probs = jax.nn.log_softmax(jnp.zeros((8, 3)))
labels = jnp.array([0, 1, 2, 0, 0, 1, 0, 2])
print(jax.vmap(weighted_nll)(log_probs, labels).mean())
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_custom_vjp_clip_norm_nondiff_arg", "jax_tracing", None, "other",
        J + """from functools import partial


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, max_norm):
    return x


def clip_fwd(x, max_norm):
    return x, None


def clip_bwd(max_norm, _, g):
    norm = jnp.linalg.norm(g)
    return (g * jnp.minimum(1.0, max_norm / (norm + 1e-6)),)


clip_gradient.defvjp(clip_fwd, clip_bwd)


@jax.jit
def loss(w, x, max_norm):
    h = clip_gradient(jnp.tanh(x @ w), max_norm)  #!
    return (h ** 2).mean()


print(jax.grad(loss)(jnp.ones((8, 8)), jnp.ones((4, 8)), 1.0)[0, :3])
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_fori_decode_concat_grows_carry", "jax_shape", "scan", "fix_shapes",
        J + """

def greedy_decode(params, prompt, steps=16):
    def body(i, tokens):
        logits = params["emb"][tokens[-1]] @ params["emb"].T
        next_token = jnp.argmax(logits)[None]
        return jnp.concatenate([tokens, next_token])

    return jax.lax.fori_loop(0, steps, body, prompt)  #!


params = {"emb": jax.random.normal(jax.random.key(0), (1000, 32))}
print(jax.jit(greedy_decode)(params, jnp.array([1, 17, 42])))
"""),
    Case("shape_lax_clamp_bf16_grads_f32_bounds", "jax_shape", "clamp", "cast_dtype", J + """

def clip_grads(grads, max_value=1.0):
    # elementwise clipping of the bf16 mixed-precision grads
    lo, hi = jnp.float32(-max_value), jnp.float32(max_value)
    return jax.tree.map(lambda g: jax.lax.clamp(lo, g, hi), grads)  #!


grads = {"w": jnp.ones((64, 64), jnp.bfloat16), "b": jnp.ones(64, jnp.bfloat16)}
print(jax.jit(clip_grads)(grads)["b"][:4])
"""),
    Case("shape_grad_of_accuracy_int_output", "jax_shape", "grad", "other", J + """

def accuracy(params, x, labels):
    logits = x @ params["w"] + params["b"]
    return jnp.sum(jnp.argmax(logits, axis=-1) == labels)


params = {"w": jnp.zeros((20, 5)), "b": jnp.zeros(5)}
x, labels = jnp.ones((64, 20)), jnp.zeros(64, jnp.int32)
# tune the classifier for accuracy directly
grads = jax.grad(accuracy)(params, x, labels)  #!
print(grads["w"].shape)
"""),
    Case("shape_conv_transpose_kernel_io_swapped", "jax_shape", "conv_general_dilated",
        "fix_shapes", J + """

def upsample_block(x, kernel):
    # decoder: 64 -> 32 channels, twice the resolution
    return jax.lax.conv_transpose(  #!
        x, kernel, strides=(2, 2), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


kernel = jax.random.normal(jax.random.key(0), (4, 4, 32, 64))  # (H, W, out, in) as in PyTorch
print(jax.jit(upsample_block)(jnp.ones((2, 16, 16, 64)), kernel).shape)
"""),
    Case("shape_equinox_attention_batched_mask_in_vmap", "jax_shape", "vmap", "fix_shapes",
        J + """import equinox as eqx

attn = eqx.nn.MultiheadAttention(num_heads=4, query_size=64, key=jax.random.key(0))
x = jnp.ones((8, 16, 64))  # (batch, seq, dim)
# the padding-aware causal mask, built for the whole batch
mask = jnp.tril(jnp.ones((8, 16, 16), dtype=bool))


@eqx.filter_jit
def forward(attn, x, mask):
    return jax.vmap(lambda seq: attn(seq, seq, seq, mask=mask))(x)  #!


print(forward(attn, x, mask).shape)
"""),
    Case("shape_optax_integer_label_loss_given_one_hot_notebook", "jax_shape", None,
        "fix_shapes", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
import optax

# the new data loader already one-hot encodes the labels (for mixup)
logits = jnp.zeros((32, 10))
labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)


@jax.jit
def eval_loss(logits, labels):
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()  #!


eval_loss(logits, labels)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_sliding_window_triu_traced_offset", "jax_call", None, "static_args", J + """

@jax.jit
def local_attention(q, k, v, window):
    # sliding-window attention: each query sees itself and the `window` keys before it
    t = q.shape[0]
    causal = jnp.tril(jnp.ones((t, t), dtype=bool))
    band = jnp.triu(jnp.ones((t, t), dtype=bool), k=-window)  #!
    scores = jnp.where(causal & band, q @ k.T / jnp.sqrt(q.shape[-1]), -1e9)
    return jax.nn.softmax(scores) @ v


x = jnp.ones((128, 64))
print(local_attention(x, x, x, 16).shape)
"""),
    Case("call_flax_linen_init_int_seed", "jax_call", None, "prng_key",
        J + """import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(128)(x))
        return nn.Dense(10)(x)


SEED = 42
model = Classifier()
params = model.init(SEED, jnp.ones((1, 784)))  #!
print(jax.tree.map(jnp.shape, params))
"""),
    Case("call_debug_nans_adam_eps_zero_unused_rows", "jax_call", None, "find_nan",
        J + """import optax

jax.config.update("jax_debug_nans", True)

# eps=0 to match the paper's update exactly
optimizer = optax.adam(1e-3, eps=0.0)
params = {"embedding": jax.random.normal(jax.random.key(0), (1000, 32))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, token_ids):
    grads = jax.grad(lambda p: (p["embedding"][token_ids] ** 2).mean())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)  #!
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.array([3, 17, 256]))
print(params["embedding"][3, :3])
"""),
    Case("call_register_dataclass_string_field", "jax_call", None, "static_args",
        J + """from dataclasses import dataclass


@jax.tree_util.register_dataclass
@dataclass
class TrainState:
    params: jax.Array
    step: jax.Array
    run_name: str  # for the logger


@jax.jit
def train_step(state, batch):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(state.params)
    return TrainState(state.params - 0.1 * grads, state.step + 1, state.run_name)


state = TrainState(jnp.ones(16), jnp.array(0), "resnet-lr3e-4")
state = train_step(state, jnp.ones((4, 16)))  #!
print(state.step)
"""),
    Case("call_vmap_params_passed_by_keyword", "jax_call", "vmap", "other", J + """

def predict(x, params):
    return jax.nn.softmax(x @ params["w"] + params["b"])


params = {"w": jnp.zeros((16, 4)), "b": jnp.zeros(4)}
batch = jnp.ones((32, 16))
probs = jax.vmap(predict, in_axes=(0, None))(batch, params=params)  #!
print(probs.shape)
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_jit_in_shardings_spec_without_mesh", "sharding", None, "other",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def train_step(w, batch):
    return w - 0.1 * jax.grad(lambda w: ((batch @ w) ** 2).mean())(w)


step = jax.jit(train_step, in_shardings=(P(), P("data")), out_shardings=P())
w = step(jnp.ones(64), jnp.ones((256, 64)))  #!
print(w.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_mesh_two_dims_one_axis_name", "sharding", None, "mesh_axis",
        J + """import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

# 2 replicas of a 4-way tensor-parallel model
devices = np.array(jax.devices()).reshape(2, 4)
mesh = Mesh(devices, ("data",))  #!
w = jax.device_put(jnp.ones((1024, 1024)), NamedSharding(mesh, P(None, "model")))
print(w.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_sparse_embedding_update", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def sparse_sgd(table, token_ids, row_grads, lr=0.1):
    # update only the embedding rows the batch touched
    return table.at[token_ids].add(-lr * row_grads)  #!


table = jax.device_put(jnp.zeros((32_000, 256)), P("model", None))  # vocab-sharded
token_ids = jax.device_put(jnp.arange(64), P("data"))
row_grads = jax.device_put(jnp.ones((64, 256)), P("data", None))
print(sparse_sgd(table, token_ids, row_grads).sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_gqa_tile_kv_heads", "sharding", "tile", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def gqa_scores(q, k):
    # grouped-query attention: 32 query heads share 8 key heads
    groups = q.shape[2] // k.shape[2]
    k = jnp.tile(k, (1, 1, groups, 1))  #!
    return jnp.einsum("bqhd,bkhd->bhqk", q, k)


q = jax.device_put(jnp.ones((8, 128, 32, 64)), P("data", None, "model", None))
k = jax.device_put(jnp.ones((8, 128, 8, 64)), P("data", None, "model", None))
print(gqa_scores(q, k).shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_feature_cross_model_sharded", "sharding", "mul", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def feature_cross(features, w):
    # DLRM-style pairwise interactions of the (model-sharded) dense features
    pairs = features[:, :, None] * features[:, None, :]  #!
    return pairs.reshape(features.shape[0], -1) @ w


features = jax.device_put(jnp.ones((64, 128)), P("data", "model"))
w = jax.device_put(jnp.ones((128 * 128, 8)), P())
print(feature_cross(features, w).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_stft_hann_window_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


@jax.jit
def windowed_spectrum(frames):
    window = jnp.hanning(frames.shape[-1])  #!
    return jnp.abs(jnp.fft.rfft(frames * window, axis=-1))


(n,) = export.symbolic_shape("n")  # the frame length the serving config picks
exp = export.export(windowed_spectrum)(jax.ShapeDtypeStruct((100, n), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_symbolic_constraint_strict_greater", "jax_export", None, "other",
        J + """from jax import export


@jax.jit
def normalize(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-6)


# batch statistics need at least two rows
(b,) = export.symbolic_shape("b", constraints=("b > 1",))  #!
exp = export.export(normalize)(jax.ShapeDtypeStruct((b, 32), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_keep_last_tokens_dynamic_slice_symbolic_len", "jax_export", None, "other",
        J + """from jax import export

CONTEXT = 128


@jax.jit
def recent_context(token_ids):
    # the model only attends to the most recent CONTEXT tokens of the conversation
    start = token_ids.shape[1] - CONTEXT
    return jax.lax.dynamic_slice_in_dim(token_ids, start, CONTEXT, axis=1)  #!


(t,) = export.symbolic_shape("t")  # conversations of any length
exp = export.export(recent_context)(jax.ShapeDtypeStruct((1, t), jnp.int32))
print(exp.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_swiglu_in_spec_half_width", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def swiglu_kernel(h_ref, o_ref):
    # h holds the fused projection: gate in the first half of the columns, up in the second
    f = o_ref.shape[1]
    gate, up = h_ref[:, :f], h_ref[:, f:2 * f]  #!
    o_ref[...] = jax.nn.silu(gate) * up


def swiglu(h, rows=64):
    f = h.shape[1] // 2
    return pl.pallas_call(
        swiglu_kernel,
        out_shape=jax.ShapeDtypeStruct((h.shape[0], f), h.dtype),
        grid=(h.shape[0] // rows,),
        in_specs=[pl.BlockSpec((rows, f), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((rows, f), lambda i: (i, 0)),
        interpret=True,
    )(h)


print(swiglu(jnp.ones((256, 2 * 512))).shape)
"""),
    Case("pallas_when_on_vector_condition", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def relu_grad_kernel(x_ref, g_ref, o_ref):
    o_ref[...] = jnp.zeros_like(g_ref)

    @pl.when(x_ref[...] > 0)  #!
    def _():
        o_ref[...] = g_ref[...]


def relu_grad(x, g):
    return pl.pallas_call(
        relu_grad_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x, g)


print(relu_grad(jnp.ones((8, 128)), jnp.ones((8, 128))).sum())
"""),
    Case("pallas_program_id_called_in_wrapper", "pallas", "program_id", "other",
        J + """from jax.experimental import pallas as pl


def add_position_kernel(x_ref, o_ref, *, row_offset):
    rows = row_offset + jax.lax.broadcasted_iota(jnp.int32, x_ref.shape, 0)
    o_ref[...] = x_ref[...] + rows.astype(x_ref.dtype)


def add_positions(x, rows=8):
    row_offset = pl.program_id(0) * rows  #!
    kernel = lambda x_ref, o_ref: add_position_kernel(x_ref, o_ref, row_offset=row_offset)
    spec = pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // rows,),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)


print(add_positions(jnp.zeros((64, 128)))[:, 0])
"""),
    # ---- out_of_memory / device_allocation --------------------------------------------------
    Case("oom_alibi_bias_for_max_context", "device_allocation", None, "other", J + """

NUM_HEADS, MAX_LEN = 32, 131_072

# ALiBi: precompute the bias of every head for the longest context we serve
slopes = 2.0 ** (-8.0 * jnp.arange(1, NUM_HEADS + 1) / NUM_HEADS)
positions = jnp.arange(MAX_LEN)
alibi_bias = slopes[:, None, None] * (positions[None, None, :] - positions[None, :, None])
print(alibi_bias[0, 0, :4])  #!
"""),
    Case("oom_optax_lbfgs_history_for_large_layer", "device_allocation", None, "other",
        J + """import optax

params = {"w": jnp.zeros((8192, 8192)), "b": jnp.zeros(8192)}
# a long curvature history for the full-batch fine-tune
optimizer = optax.lbfgs(memory_size=200)
opt_state = optimizer.init(params)  #!
print(jax.tree.map(jnp.shape, opt_state))
"""),
    Case("oom_per_example_fisher_outer_products", "device_allocation", None, "other", J + """

@jax.jit
def empirical_fisher(per_example_grads):
    # natural gradient: the outer product of every example's gradient
    return jnp.einsum("bi,bj->bij", per_example_grads, per_example_grads)


grads = jnp.ones((256, 100_000))  # 256 examples, a 100k-parameter model
fisher = empirical_fisher(grads)
print(fisher.mean(axis=0)[0, :4])  #!
"""),
    Case("oom_tf_dense_patches_4k_image", "device_allocation", None, "other",
        """import tensorflow as tf

frame = tf.random.uniform([1, 2160, 3840, 3])  # one 4K frame for the patch denoiser
# every overlapping 16x16 patch (stride 1) as a feature vector
patches = tf.image.extract_patches(  #!
    frame, sizes=[1, 16, 16, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME"
)
print(patches.shape)
""", device="cpu"),
    # ---- tf2xla / tf_known_issue ------------------------------------------------------------
    Case("tf_int8_weight_quantize_jit", "tf2xla", "QuantizeV2", "replace_op",
        """import tensorflow as tf

w = tf.Variable(tf.random.normal([256, 256], stddev=0.05))


@tf.function(jit_compile=True)
def quantized_matmul(x):
    # simulate int8 serving: quantize the weights on the fly
    q = tf.quantization.quantize(w, -0.25, 0.25, tf.qint8)  #!
    w_deq = tf.quantization.dequantize(q.output, q.output_min, q.output_max)
    return x @ w_deq


print(quantized_matmul(tf.random.normal([8, 256])).shape)
""", device="cpu"),
    Case("tf_fresnel_diffraction_jit", "tf2xla", "FresnelCos", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def edge_diffraction_intensity(x, wavelength=0.5e-6, distance=1.0):
    # Fresnel diffraction past a straight edge
    u = x * tf.sqrt(2.0 / (wavelength * distance))
    c = tf.math.special.fresnel_cos(u)  #!
    s = tf.math.special.fresnel_sin(u)
    return 0.5 * ((c + 0.5) ** 2 + (s + 0.5) ** 2)


print(edge_diffraction_intensity(tf.linspace(-1e-3, 1e-3, 512)).shape)
""", device="cpu"),
    Case("tf_keras_fit_voigt_profile_dawsn_jit", "tf2xla", "Dawsn", "replace_op",
        """import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
import numpy as np
import tensorflow as tf


class VoigtLine(keras.layers.Layer):
    # a spectral line: Gaussian broadening approximated through Dawson's integral
    def build(self, input_shape):
        self.center = self.add_weight(shape=(), initializer="zeros")
        self.width = self.add_weight(shape=(), initializer="ones")

    def call(self, wavelengths):
        u = (wavelengths - self.center) / self.width
        return tf.math.special.dawsn(u)  #!


model = keras.Sequential([keras.Input((256,)), VoigtLine(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
spectra = np.random.rand(64, 256).astype("float32")
model.fit(spectra, np.zeros((64, 1), "float32"), epochs=1, verbose=0)
""", device="cpu"),
    Case("tf_parse_tfrecord_in_step_jit", "tf2xla", "_Arg", "replace_op",
        """import tensorflow as tf

FEATURES = {
    "pixels": tf.io.FixedLenFeature([784], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
w = tf.Variable(tf.zeros([784, 10]))


@tf.function(jit_compile=True)
def train_step(serialized):
    batch = tf.io.parse_example(serialized, FEATURES)
    with tf.GradientTape() as tape:
        logits = batch["pixels"] @ w
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(batch["label"], logits)
        loss = tf.reduce_mean(xent)
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


example = tf.train.Example(features=tf.train.Features(feature={
    "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[0.0] * 784)),
    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3])),
})).SerializeToString()
print(train_step(tf.constant([example] * 32)))  #!
""", device="cpu"),
    Case("tf_audio_time_stretch_linspace_jit", "tf_known_issue", "Range", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def time_stretch(wave):
    # speed perturbation: resample the clip at a random rate
    rate = tf.random.uniform([], 0.9, 1.1)
    length = tf.cast(tf.shape(wave)[0], tf.float32)
    new_length = tf.cast(length / rate, tf.int32)
    positions = tf.linspace(0.0, length - 1.0, new_length)  #!
    return tf.gather(wave, tf.cast(positions, tf.int32))


print(time_stretch(tf.random.normal([16000])).shape)
""", device="cpu"),
    Case("tf_keras_elastic_transform_augment_jit", "tf_known_issue", "Range", "fixed_size",
        """import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
import tensorflow as tf

augment = keras.layers.RandomElasticTransform(factor=0.5, scale=0.2)
model = keras.Sequential([keras.layers.Conv2D(16, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
model.build((None, 64, 64, 1))
opt = keras.optimizers.Adam(1e-3)


@tf.function(jit_compile=True)
def train_step(scans, labels):
    scans = augment(scans, training=True)  #!
    with tf.GradientTape() as tape:
        logits = model(scans, training=True)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print(train_step(tf.random.uniform([4, 64, 64, 1]), tf.zeros([4], tf.int32)))
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_serving_prompt_lengths", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

EMB = jax.random.normal(jax.random.key(0), (256, 64))


@jax.jit
def embed_request(token_ids):
    return EMB[token_ids].mean(axis=0)


requests = ["hello", "summarise this article", "hi", "translate to French: good morning",
            "what is the weather like tomorrow in Paris?"]
for text in requests:
    token_ids = jnp.array([min(ord(c), 255) for c in text])
    print(embed_request(token_ids)[:2])  #!
"""),
    Case("recompile_loss_lambda_static_each_step", "recompile", None, "see_recompiles",
        J + """from functools import partial

jax.config.update("jax_explain_cache_misses", True)


@partial(jax.jit, static_argnums=0)
def train_step(loss_fn, params):
    return params - 0.1 * jax.grad(loss_fn)(params)


params = jnp.zeros(32)
for step in range(5):
    batch = jnp.full((16, 32), float(step))
    params = train_step(lambda p: ((batch @ p - 1.0) ** 2).mean(), params)  #!
print(params[:3])
"""),
    # ---- missing_lowering / xla_status ------------------------------------------------------
    Case("lowering_sparse_spsolve_export_for_tpu", "missing_lowering", "spsolve", "replace_op",
        J + """from jax import export
from jax.experimental.sparse.linalg import spsolve


@jax.jit
def heat_step(data, indices, indptr, u):
    # implicit Euler: solve (I - dt L) u_next = u on the FEM mesh
    return spsolve(data, indices, indptr, u)  #!


S = jax.ShapeDtypeStruct
exp = export.export(heat_step, platforms=["tpu"])(
    S((4096,), jnp.float32), S((4096,), jnp.int32), S((1025,), jnp.int32), S((1024,), jnp.float32)
)
open("heat_step.bin", "wb").write(exp.serialize())
"""),
    Case("status_float16_rnn_schur_stability_cpu", "xla_status", "schur", "cast_dtype", J + """

def recurrent_modes(w_hh):
    # stability of the trained RNN: the real Schur form of its recurrent matrix
    t, _ = jax.scipy.linalg.schur(w_hh)
    return jnp.diag(t)


w_hh = jnp.eye(64, dtype=jnp.float16) * 0.9  # the checkpoint is stored in fp16
print(jax.jit(recurrent_modes)(w_hh)[:4])  #!
"""),
    Case("status_bf16_cubic_spline_tridiagonal_cpu", "xla_status", "tridiagonal_solve",
        "cast_dtype", J + """

def spline_second_derivatives(y):
    # natural cubic spline on a unit grid: a tridiagonal system for the curvatures
    n = y.shape[0]
    dl = jnp.ones(n, y.dtype).at[0].set(0)
    du = jnp.ones(n, y.dtype).at[-1].set(0)
    d = jnp.full(n, 4.0, y.dtype)
    rhs = 6.0 * (jnp.roll(y, -1) - 2 * y + jnp.roll(y, 1))
    return jax.lax.linalg.tridiagonal_solve(dl, d, du, rhs[:, None])[:, 0]  #!


y = jnp.sin(jnp.linspace(0, 3, 128)).astype(jnp.bfloat16)  # the model's bf16 output curve
print(jax.jit(spline_second_derivatives)(y)[:4])
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
