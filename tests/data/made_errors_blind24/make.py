"""Make blind24: an eleventh blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: forty-one
mistakes, each different from the 601 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a depth loss over the valid lidar pixels, a
causal mask sized by an argument, SciPy's logsumexp in a loss, an MAE mask ratio in a notebook,
an answer span found under vmap, CLIP logits with the text projection forgotten, a position
table shorter than the packed sequence, a cross product of quaternions, a Pallas matmul whose K
blocks differ, a discounted return scanned over the configured horizon, a training state kept
in a plain dataclass, a KL divergence over a one-sided distribution with NaN checks on, nnx
dropout without its rngs, reduce-on-plateau without the loss, Gaussian noise on int8 weights, an
equinox model under plain grad, per-device shards against a wrong global shape, a reshard on a
mesh of Auto axes, a KV-cache write into a sequence-sharded cache, a Megatron activation
constraint under explicit sharding, an FFI kernel exported, a spectrum and a moving average over
a symbolic length, Pallas with two outputs and one out spec, an out shape given as a shape, a
scratch shape as a plain tuple, a K-FAC Kronecker factor, a dataset repeated for every epoch,
all-pairs retrieval distances in TensorFlow, sampled softmax, Keras random rotation, a Matern
kernel, a Euclidean-norm clip, Glow's LU, feature hashing with fingerprints in ``jit_compile``
steps, a padding mask that is bool then int, uploaded images of any size, a Jacobi eigensolver
on CPU, half-precision Hessian and whitening spectra, and a metrics logger's KeyError in a debug
callback; flax linen and nnx, equinox, optax, Keras 3 (TensorFlow backend) and TensorFlow with
``jit_compile=True``; a notebook cell; a library's code raising (optax, flax, equinox, Keras);
jit, vmap, grad, scan, explicit sharding on eight fake CPUs, Pallas in interpret mode,
``jax.export`` with symbolic shapes and an FFI call), never by what the tool handles. No rule
may be written from these logs before they are scored, and the folder is sealed to everyone but
its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind24/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, optax 0.2.8, SciPy 1.17.1, IPython 8.12.3, TensorFlow 2.21.0 and
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
    # ---- jax_tracing ------------------------------------------------------------------------
    Case("tracing_extract_valid_depth_pixels", "jax_tracing", "extract", "fixed_size", J + """

@jax.jit
def depth_l1(pred_depth, gt_depth):
    # the lidar ground truth is sparse: score only the pixels that have a return
    valid = gt_depth > 0
    err = jnp.extract(valid, jnp.abs(pred_depth - gt_depth))  #!
    return err.mean()


gt = jnp.zeros((64, 64)).at[::4, ::4].set(10.0)
print(depth_l1(jnp.ones((64, 64)), gt))
"""),
    Case("tracing_causal_mask_from_seq_len_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def causal_attention(q, k, v, seq_len):
    mask = jnp.tril(jnp.ones((seq_len, seq_len), dtype=bool))  #!
    scores = jnp.where(mask, q @ k.T / jnp.sqrt(q.shape[-1]), -1e9)
    return jax.nn.softmax(scores) @ v


x = jnp.ones((12, 32))
print(causal_attention(x, x, x, 12).shape)
"""),
    Case("tracing_scipy_logsumexp_in_loss", "jax_tracing", None, "jnp_not_np",
        J + """from scipy.special import logsumexp


def nll(params, x, y):
    logits = x @ params
    log_z = logsumexp(logits, axis=-1)  #!
    return (log_z - jnp.take_along_axis(logits, y[:, None], axis=-1)[:, 0]).mean()


params = jnp.zeros((20, 5))
grads = jax.jit(jax.grad(nll))(params, jnp.ones((8, 20)), jnp.zeros(8, jnp.int32))
print(grads.shape)
"""),
    Case("tracing_mae_mask_ratio_arg_notebook", "jax_tracing", None, "static_args",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def random_masking(key, patches, mask_ratio):
    # MAE: keep a random subset of the patches, the rest is reconstructed
    num_keep = int(patches.shape[0] * (1 - mask_ratio))  #!
    keep = jax.random.permutation(key, patches.shape[0])[:num_keep]
    return patches[keep]


print(random_masking(jax.random.key(0), jnp.ones((196, 768)), 0.75).shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_vmap_answer_span_flatnonzero", "jax_tracing", None, "fixed_size", J + """

def answer_span(start_mask):
    # extractive QA: the token positions the annotators marked as the answer
    positions = jnp.flatnonzero(start_mask)  #!
    return positions.min(), positions.max()


masks = jnp.zeros((16, 384), bool).at[:, 40:47].set(True)
starts, ends = jax.vmap(answer_span)(masks)
print(starts[:4], ends[:4])
"""),
    # ---- jax_shape --------------------------------------------------------------------------
    Case("shape_clip_logits_text_not_projected", "jax_shape", "dot_general", "fix_shapes",
        J + """

def clip_logits(image_features, text_features, w_image, temperature=0.07):
    image_emb = image_features @ w_image  # projected to the 512-d joint space
    text_emb = text_features  # the text tower's 768-d output, projection forgotten
    image_emb = image_emb / jnp.linalg.norm(image_emb, axis=-1, keepdims=True)
    text_emb = text_emb / jnp.linalg.norm(text_emb, axis=-1, keepdims=True)
    return image_emb @ text_emb.T / temperature  #!


logits = jax.jit(clip_logits)(jnp.ones((32, 1024)), jnp.ones((32, 768)), jnp.ones((1024, 512)))
print(logits.shape)
"""),
    Case("shape_position_table_shorter_than_sequence", "jax_shape", "add", "fix_shapes",
        J + """import flax.linen as nn


class GPTEmbed(nn.Module):
    vocab: int = 1000
    max_len: int = 128
    dim: int = 64

    @nn.compact
    def __call__(self, tokens):
        tok = nn.Embed(self.vocab, self.dim)(tokens)
        pos = self.param("pos", nn.initializers.normal(0.02), (self.max_len, self.dim))
        return tok + pos[None]  #!


tokens = jnp.zeros((4, 256), jnp.int32)  # the new data loader packs 256 tokens
params = GPTEmbed().init(jax.random.key(0), tokens)
"""),
    Case("shape_cross_product_of_quaternions", "jax_shape", "cross", "fix_shapes", J + """

@jax.jit
def angular_velocity_error(q_pred, q_true):
    # rotations are stored as (w, x, y, z) quaternions
    return jnp.linalg.norm(jnp.cross(q_pred, q_true), axis=-1)  #!


print(angular_velocity_error(jnp.ones((16, 4)), jnp.ones((16, 4))))
"""),
    Case("shape_pallas_matmul_k_blocks_mismatch", "jax_shape", "dot_general", "fix_shapes",
        J + """from jax.experimental import pallas as pl


def matmul_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...])  #!


def matmul(x, w, bm=32, bn=64):
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        grid=(x.shape[0] // bm, w.shape[1] // bn),
        in_specs=[
            pl.BlockSpec((bm, 64), lambda i, j: (i, 0)),  # K tiled by 64...
            pl.BlockSpec((w.shape[0], bn), lambda i, j: (0, j)),  # ...but not here
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(x, w)


print(matmul(jnp.ones((128, 256)), jnp.ones((256, 128))).sum())
"""),
    Case("shape_scan_rollout_horizon_from_config", "jax_shape", None, "fix_shapes", J + """
CONFIG = {"horizon": 100, "gamma": 0.99}


def discounted_return(rewards):
    def step(acc, r):
        acc = r + CONFIG["gamma"] * acc
        return acc, acc

    _, returns = jax.lax.scan(step, 0.0, rewards[::-1], length=CONFIG["horizon"])  #!
    return returns[::-1]


episode_rewards = jnp.ones(64)  # this environment ends episodes after 64 steps
print(jax.jit(discounted_return)(episode_rewards)[:3])
"""),
    # ---- jax_call ---------------------------------------------------------------------------
    Case("call_dataclass_train_state_not_pytree", "jax_call", None, "other",
        J + """from dataclasses import dataclass


@dataclass
class TrainState:
    params: jax.Array
    step: int


@jax.jit
def train_step(state, batch):
    grads = jax.grad(lambda p: ((batch @ p) ** 2).mean())(state.params)
    return TrainState(state.params - 0.1 * grads, state.step + 1)


state = TrainState(jnp.ones(16), 0)
state = train_step(state, jnp.ones((4, 16)))  #!
print(state.step)
"""),
    Case("call_debug_nans_kl_zero_probabilities", "jax_call", None, "find_nan", J + """
jax.config.update("jax_debug_nans", True)


@jax.jit
def kl_divergence(p, q):
    return jnp.sum(p * jnp.log(p / q), axis=-1)  #!


p = jnp.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])  # a one-sided label distribution
q = jnp.full((2, 3), 1 / 3)
print(kl_divergence(p, q))
"""),
    Case("call_nnx_dropout_without_rngs", "jax_call", None, "other", J + """from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.fc1 = nnx.Linear(32, 64, rngs=rngs)
        self.drop = nnx.Dropout(0.1)
        self.fc2 = nnx.Linear(64, 10, rngs=rngs)

    def __call__(self, x):
        return self.fc2(self.drop(nnx.relu(self.fc1(x))))  #!


model = MLP(nnx.Rngs(0))
print(model(jnp.ones((4, 32))).shape)
"""),
    Case("call_optax_reduce_on_plateau_without_value", "jax_call", None, "other",
        J + """import optax
from optax import contrib

optimizer = optax.chain(optax.adam(1e-3), contrib.reduce_on_plateau(patience=5))
params = {"w": jnp.ones((8, 8))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x):
    loss, grads = jax.value_and_grad(lambda p: ((x @ p["w"]) ** 2).mean())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)  #!
    return optax.apply_updates(params, updates), opt_state, loss


params, opt_state, loss = train_step(params, opt_state, jnp.ones((4, 8)))
print(loss)
"""),
    Case("call_gaussian_noise_on_int8_weights", "jax_call", "normal", "cast_dtype", J + """

def perturb(params, key, sigma=1e-3):
    # robustness check of the int8-quantized model: jitter every weight
    leaves, treedef = jax.tree.flatten(params)
    keys = jax.random.split(key, len(leaves))
    noisy = [w + sigma * jax.random.normal(k, w.shape, w.dtype) for w, k in zip(leaves, keys)]  #!
    return jax.tree.unflatten(treedef, noisy)


params = {"w": jnp.ones((64, 64), jnp.int8), "b": jnp.zeros(64, jnp.int8)}
print(perturb(params, jax.random.key(0))["w"][0, :4])
"""),
    Case("call_equinox_model_plain_grad", "jax_call", None, "other",
        J + """import equinox as eqx


def loss_fn(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)


model = eqx.nn.MLP(in_size=8, out_size=1, width_size=32, depth=2, key=jax.random.key(0))
x, y = jnp.ones((64, 8)), jnp.zeros((64, 1))
grads = jax.grad(loss_fn)(model, x, y)  #!
print(grads.layers[0].weight.shape)
"""),
    # ---- sharding ---------------------------------------------------------------------------
    Case("sharding_per_host_shards_wrong_global_shape", "sharding", None, "fix_shapes",
        J + """import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
sharding = NamedSharding(mesh, P("data"))
# each device gets its own slice of the host's batch of 64 examples
local = [jax.device_put(np.ones((8, 128), np.float32), d) for d in jax.devices()]
global_batch = jax.make_array_from_single_device_arrays((32, 128), sharding, local)  #!
print(global_batch.shape)
""", env=EIGHT_CPUS),
    Case("sharding_reshard_on_auto_mesh_axes", "sharding", None, "other",
        J + """from jax.sharding import AxisType, PartitionSpec as P

# the mesh helper copied from the team's older GSPMD code
mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
with jax.set_mesh(mesh):
    w_ffn = jnp.ones((1024, 4096))
    # tensor parallel: split the FFN's hidden units over the model axis
    w_ffn = jax.sharding.reshard(w_ffn, P(None, "model"))  #!
    print(w_ffn.sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_kv_cache_write_seq_sharded", "sharding", "dynamic_update_slice",
        "reshard", J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "seq"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def write_kv(cache, new_kv, pos):
    # decode step: write this token's keys into the sequence-sharded cache
    return jax.lax.dynamic_update_slice(cache, new_kv, (0, pos, 0))  #!


cache = jax.device_put(jnp.zeros((8, 1024, 64)), P("data", "seq"))
new_kv = jax.device_put(jnp.ones((8, 1, 64)), P("data"))
print(write_kv(cache, new_kv, 17).sharding)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_constraint_on_ffn_activation", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def ffn(x, w_in, w_out):
    h = jax.nn.gelu(x @ w_in)
    # Megatron-style: keep the hidden activation split over the model axis
    h = jax.lax.with_sharding_constraint(h, P("data", "model"))  #!
    return h @ w_out


x = jax.device_put(jnp.ones((8, 64)), P("data", None))
w_in = jax.device_put(jnp.ones((64, 256)), P())
w_out = jax.device_put(jnp.ones((256, 64)), P())
print(ffn(x, w_in, w_out).sharding)
""", env=EIGHT_CPUS),
    # ---- jax_export -------------------------------------------------------------------------
    Case("export_ffi_rms_norm_kernel", "jax_export", "rms_norm_fwd", "disable_check",
        J + """import numpy as np
from jax import export


def fused_rms_norm(x, eps=1e-6):
    # the team's C++ kernel, registered with jax.ffi at import in production
    return jax.ffi.ffi_call("rms_norm_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype))(
        x, eps=np.float32(eps)
    )


@jax.jit
def block(x, w):
    return fused_rms_norm(x) @ w


exp = export.export(block)(  #!
    jax.ShapeDtypeStruct((16, 512), jnp.float32), jax.ShapeDtypeStruct((512, 512), jnp.float32)
)
open("block.bin", "wb").write(exp.serialize())
"""),
    Case("export_spectrogram_rfft_symbolic_len", "jax_export", "fft", "other",
        J + """from jax import export


@jax.jit
def power_spectrum(audio):
    return jnp.abs(jnp.fft.rfft(audio, axis=-1)) ** 2  #!


(n,) = export.symbolic_shape("n")  # clips of any length
exp = export.export(power_spectrum)(jax.ShapeDtypeStruct((4, n), jnp.float32))
print(exp.out_avals)
"""),
    Case("export_moving_average_convolve_symbolic_len", "jax_export", "convolve", "other",
        J + """from jax import export


@jax.jit
def smooth(signal):
    kernel = jnp.ones(9) / 9
    return jnp.convolve(signal, kernel, mode="same")  #!


(t,) = export.symbolic_shape("t")
exp = export.export(smooth)(jax.ShapeDtypeStruct((t,), jnp.float32))
print(exp.out_avals)
"""),
    # ---- pallas -----------------------------------------------------------------------------
    Case("pallas_two_outputs_one_out_spec", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def softmax_stats_kernel(x_ref, max_ref, sum_ref):
    x = x_ref[...]
    m = x.max(axis=-1, keepdims=True)
    max_ref[...] = m
    sum_ref[...] = jnp.exp(x - m).sum(axis=-1, keepdims=True)


def softmax_stats(x, rows=8):
    out = jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype)
    return pl.pallas_call(  #!
        softmax_stats_kernel,
        out_shape=(out, out),
        grid=(x.shape[0] // rows,),
        in_specs=[pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((rows, 1), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(softmax_stats(jnp.ones((64, 128))))
"""),
    Case("pallas_out_shape_given_as_x_shape", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def gelu_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@jax.jit
def gelu(x):
    return pl.pallas_call(gelu_kernel, out_shape=x.shape, interpret=True)(x)  #!


print(gelu(jnp.ones((256, 512))).sum())
"""),
    Case("pallas_scratch_shapes_plain_tuple", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def row_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...].sum(axis=1, keepdims=True)
    o_ref[...] = acc_ref[...]


def row_sum(x, bm=64, bk=128):
    return pl.pallas_call(  #!
        row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype),
        grid=(x.shape[0] // bm, x.shape[1] // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((bm, 1), lambda i, k: (i, 0)),
        scratch_shapes=[(bm, 1)],  # the f32 accumulator
        interpret=True,
    )(x)


print(row_sum(jnp.ones((256, 1024)))[:2])
"""),
    # ---- out_of_memory / device_allocation --------------------------------------------------
    Case("oom_kfac_kronecker_preconditioner", "device_allocation", None, "other", J + """

@jax.jit
def kfac_precondition(grad_w, activations, output_grads, damping=1e-3):
    a = activations.T @ activations / activations.shape[0]  # (in, in)
    g = output_grads.T @ output_grads / output_grads.shape[0]  # (out, out)
    fisher = jnp.kron(a, g)  # the full Fisher block of the layer
    return jnp.linalg.solve(fisher + damping * jnp.eye(fisher.shape[0]), grad_w.reshape(-1))


w_grad = jnp.ones((2048, 2048))
print(kfac_precondition(w_grad, jnp.ones((64, 2048)), jnp.ones((64, 2048)))[:4])  #!
"""),
    Case("oom_repeat_dataset_for_epochs", "device_allocation", None, "other", J + """

images = jnp.ones((50_000, 32, 32, 3), jnp.float32)  # CIFAR-10, already on the device
# every epoch of the schedule unrolled up front so the loop can just index
epochs = jnp.repeat(images[None], 300, axis=0)  #!
print(epochs.shape)
"""),
    Case("oom_tf_all_pairs_retrieval_distances", "device_allocation", None, "smaller_batch",
        """import tensorflow as tf

queries = tf.random.normal([200_000, 128])
corpus = tf.random.normal([1_000_000, 128])
# exact nearest neighbours: every query against every document at once
distances = tf.reduce_sum(tf.square(queries[:, None, :] - corpus[None, :, :]), axis=-1)  #!
print(tf.argmin(distances, axis=1)[:5])
""", device="cpu"),
    # ---- tf2xla -----------------------------------------------------------------------------
    Case("tf_sampled_softmax_candidates_jit", "tf2xla", "LogUniformCandidateSampler",
        "replace_op", """import tensorflow as tf

VOCAB, DIM = 50_000, 128
out_w = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=0.02))
out_b = tf.Variable(tf.zeros([VOCAB]))


@tf.function(jit_compile=True)
def lm_loss(hidden, next_tokens):
    return tf.reduce_mean(
        tf.nn.sampled_softmax_loss(  #!
            out_w, out_b, next_tokens, hidden, num_sampled=512, num_classes=VOCAB
        )
    )


print(lm_loss(tf.random.normal([64, DIM]), tf.zeros([64, 1], tf.int64)))
""", device="cpu"),
    Case("tf_keras_random_rotation_augment_jit", "tf2xla", "ImageProjectiveTransformV3",
        "replace_op", """import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
import tensorflow as tf

augment = keras.Sequential([keras.layers.RandomFlip("horizontal"),
                           keras.layers.RandomRotation(0.1)])
model = keras.Sequential([keras.layers.Conv2D(8, 3), keras.layers.GlobalAveragePooling2D(),
                          keras.layers.Dense(10)])
opt = keras.optimizers.Adam(1e-3)
model.build((None, 32, 32, 3))


@tf.function(jit_compile=True)
def train_step(images, labels):
    images = augment(images, training=True)  #!
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print(train_step(tf.zeros([8, 32, 32, 3]), tf.zeros([8], tf.int32)))
""", device="cpu"),
    Case("tf_matern_kernel_bessel_k_jit", "tf2xla", "BesselK0", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def matern_kernel(x1, x2, length_scale=1.0):
    # nu = 0 Matern covariance for the spatial GP
    r = tf.norm(x1[:, None, :] - x2[None, :, :], axis=-1) / length_scale
    return tf.math.special.bessel_k0(r + 1e-6)  #!


print(matern_kernel(tf.random.normal([32, 2]), tf.random.normal([16, 2])).shape)
""", device="cpu"),
    Case("tf_grad_norm_euclidean_clip_jit", "tf2xla", "EuclideanNorm", "replace_op",
        """import tensorflow as tf

w = tf.Variable(tf.random.normal([128, 64]))


@tf.function(jit_compile=True)
def clipped_step(x, y, max_norm=1.0):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    (g,) = tape.gradient(loss, [w])
    norm = tf.math.reduce_euclidean_norm(g)  #!
    w.assign_sub(0.01 * g * tf.minimum(1.0, max_norm / norm))
    return loss


print(clipped_step(tf.random.normal([32, 128]), tf.random.normal([32, 64])))
""", device="cpu"),
    Case("tf_glow_invertible_conv_lu_init_jit", "tf2xla", "Lu", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def invertible_1x1_logdet(weight, height, width):
    # Glow: the LU-decomposed 1x1 convolution's log-determinant
    lu, _ = tf.linalg.lu(weight)  #!
    log_s = tf.math.log(tf.abs(tf.linalg.diag_part(lu)))
    return tf.cast(height * width, tf.float32) * tf.reduce_sum(log_s)


q, _ = tf.linalg.qr(tf.random.normal([48, 48]))
print(invertible_1x1_logdet(q, 32, 32))
""", device="cpu"),
    Case("tf_feature_hashing_fingerprint_jit", "tf2xla", "Fingerprint", "replace_op",
        """import tensorflow as tf

NUM_BUCKETS = 1 << 20
table = tf.Variable(tf.random.normal([NUM_BUCKETS // 64, 16]))


@tf.function(jit_compile=True)
def embed_user_ids(user_ids):
    # hash trick: stable 64-bit hashes of the raw ids
    hashed = tf.fingerprint(user_ids)  #!
    buckets = tf.math.floormod(tf.bitcast(hashed, tf.int64), NUM_BUCKETS // 64)
    return tf.gather(table, buckets)


print(embed_user_ids(tf.constant([12345, 67890, 42], tf.int64)).shape)
""", device="cpu"),
    # ---- recompile --------------------------------------------------------------------------
    Case("recompile_padding_mask_bool_then_int", "recompile", None, "see_recompiles", J + """
import numpy as np

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def masked_mean_loss(logits, mask):
    per_token = jax.nn.logsumexp(logits, axis=-1)
    return (per_token * mask).sum() / mask.sum()


for step in range(4):
    logits = jnp.ones((8, 32, 100))
    # the packed loader gives a bool mask, the bucketed one an int32 mask
    mask = np.ones((8, 32), bool) if step % 2 == 0 else np.ones((8, 32), np.int32)
    print(masked_mean_loss(logits, mask))  #!
"""),
    Case("recompile_tf_unbatched_images_any_size", "recompile", None, "see_recompiles",
        """import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(8, 3, activation="relu"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dense(10),
])


@tf.function
def classify(image):
    return tf.argmax(model(image[None]), axis=-1)


# uploaded photos come in whatever size the user's camera makes
for size in [(480, 640), (600, 800), (720, 1280), (1080, 1920), (1200, 1600), (768, 1024)]:
    print(classify(tf.zeros(size + (3,))))
""", no_line=True),
    # ---- missing_lowering / xla_status ------------------------------------------------------
    Case("lowering_eigh_jacobi_for_hessian_spectrum_cpu", "missing_lowering", "eigh",
        "replace_op", J + """

@jax.jit
def hessian_spectrum(h):
    # Jacobi is said to be more accurate for small eigenvalues
    return jax.lax.linalg.eigh(h, implementation=jax.lax.linalg.EighImplementation.JACOBI)  #!


print(hessian_spectrum(jnp.eye(32))[1][:4])
""", device="cpu"),
    Case("status_float16_hessian_eigvalsh_cpu", "xla_status", "eigh", "cast_dtype", J + """

def sharpness(hessian):
    # top eigenvalue of the loss Hessian, kept in the model's fp16
    return jnp.linalg.eigvalsh(hessian)[-1]


h = jnp.eye(64, dtype=jnp.float16)
print(jax.jit(sharpness)(h))  #!
"""),
    Case("status_bf16_whitening_eig_cpu", "xla_status", "eig", "cast_dtype", J + """

def whitening_spectrum(features):
    cov = features.T @ features / features.shape[0]
    return jnp.linalg.eigvals(cov)  #!


print(whitening_spectrum(jnp.ones((128, 16), jnp.bfloat16))[:3])
"""),
    Case("status_debug_callback_metrics_logger_keyerror", "xla_status", "debug_callback", "other",
        J + """
history = {"train/loss": []}


def log_metrics(step, metrics):
    for name, value in metrics.items():
        history[f"val/{name}"].append(float(value))  #!


@jax.jit
def train_step(w, x, step):
    loss, g = jax.value_and_grad(lambda w: ((x @ w) ** 2).mean())(w)
    jax.debug.callback(log_metrics, step, {"loss": loss})
    return w - 0.1 * g


w = jnp.ones(8)
for step in range(3):
    w = train_step(w, jnp.ones((4, 8)), step)
print(w.block_until_ready())
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
