"""Make blind19: a sixth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: thirty-eight
mistakes, each different from the 279 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a diffusion sampler, a data pipeline's
shuffle, greedy decoding, image and CT-volume models, a mixture-of-experts dispatch, a control
library on AMD GPUs, an object detector, inception-style augmentation, serving an exported
model; flax, optax, equinox and Keras 3 on top, TensorFlow with ``jit_compile=True``; notebook
cells; a library that re-raises or calls an API JAX removed; jit, vmap, scan, shard_map and
explicit sharding on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic
shapes, JAX's key-reuse checker), never by what the tool handles. No rule may be written from
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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind19/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, equinox 0.13.8, TensorFlow 2.21.0 and Keras 3.15.1 on CPU made the
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
    Case("tracing_diffusion_linspace_num_steps", "jax_tracing", None, "static_args", J + """

def denoise(model_w, x, t):
    return x - 0.1 * jnp.tanh(x @ model_w) * t


@jax.jit
def sample(model_w, noise, num_steps):
    # fewer steps at eval time for speed
    timesteps = jnp.linspace(1.0, 0.0, num_steps)  #!

    def step(x, t):
        return denoise(model_w, x, t), None

    x, _ = jax.lax.scan(step, noise, timesteps)
    return x


noise = jax.random.normal(jax.random.key(0), (4, 16))
print(sample(jnp.eye(16), noise, 50).shape)
"""),
    Case("tracing_shuffle_permutation_count_notebook", "jax_tracing", None, "static_args",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

@jax.jit
def shuffled_batches(key, images, labels, num_examples):
    order = jax.random.permutation(key, num_examples)  #!
    return images[order].reshape(-1, 32, 784), labels[order].reshape(-1, 32)

images = jnp.zeros((1024, 784))
labels = jnp.zeros(1024, jnp.int32)
xb, yb = shuffled_batches(jax.random.key(1), images, labels, images.shape[0])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_greedy_decode_vocab_list", "jax_tracing", None, "other", J + """

VOCAB = ["<pad>", "<eos>", "the", "cat", "sat", "on", "mat"]


@jax.jit
def decode_step(embed, hidden):
    logits = embed @ hidden
    next_id = jnp.argmax(logits)
    return VOCAB[next_id], next_id  #!


embed = jax.random.normal(jax.random.key(0), (len(VOCAB), 8))
hidden = jnp.ones(8)
words = []
for _ in range(5):
    word, _ = decode_step(embed, hidden)
    words.append(word)
print(" ".join(words))
"""),
    Case("tracing_one_hot_classes_from_labels_max", "jax_tracing", None, "static_args",
        J + """import optax


@jax.jit
def loss_fn(logits, labels):
    # the number of classes read off the labels of the batch
    targets = jax.nn.one_hot(labels, labels.max() + 1)  #!
    return optax.softmax_cross_entropy(logits, targets).mean()


print(loss_fn(jnp.zeros((4, 5)), jnp.array([0, 4, 2, 1])))
"""),
    Case("tracing_nnx_step_counter_modulo_if", "jax_tracing", None, "lax_control_flow",
        J + """from flax import nnx


class EMAStats(nnx.Module):
    def __init__(self, dim):
        self.step = nnx.Variable(jnp.array(0))
        self.mean = nnx.Variable(jnp.zeros(dim))

    def __call__(self, x):
        self.step[...] = self.step[...] + 1
        # reset the running mean every 100 steps
        if self.step[...] % 100 == 0:  #!
            self.mean[...] = jnp.zeros_like(self.mean[...])
        self.mean[...] = 0.99 * self.mean[...] + 0.01 * x.mean(0)
        return x - self.mean[...]


@nnx.jit
def normalise(stats, x):
    return stats(x)


stats = EMAStats(8)
print(normalise(stats, jnp.ones((32, 8))).shape)
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_maxpool_reduce_window_rank", "jax_shape", "reduce_window", "fix_shapes", J + """

def max_pool(x, window=2):
    # x is NHWC; the window is given for the spatial dims only
    dims = (window, window)
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, dims, dims, "VALID")  #!


@jax.jit
def features(images, kernel):
    x = jax.lax.conv_general_dilated(images, kernel, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return max_pool(jax.nn.relu(x))


images = jnp.ones((8, 28, 28, 1))
kernel = jnp.ones((3, 3, 1, 16)) / 9
print(features(images, kernel).shape)
"""),
    Case("shape_layernorm_mean_no_keepdims", "jax_shape", None, "fix_shapes", J + """

def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1)
    var = x.var(axis=-1)
    return gamma * (x - mean) / jnp.sqrt(var + eps) + beta  #!


@jax.jit
def block(params, x):
    h = layer_norm(x, params["gamma"], params["beta"])
    return x + jax.nn.gelu(h @ params["w"])


params = {"gamma": jnp.ones(64), "beta": jnp.zeros(64), "w": jnp.eye(64)}
print(block(params, jnp.ones((16, 64))).shape)
"""),
    Case("shape_nhwc_to_nchw_transpose_perm", "jax_shape", "transpose", "fix_shapes", J + """

@jax.jit
def preprocess(images):
    # the PyTorch-ported backbone wants NCHW
    images = images.astype(jnp.float32) / 255.0
    return jnp.transpose(images, (0, 2, 1))  #!


batch = jnp.zeros((8, 224, 224, 3), jnp.uint8)
print(preprocess(batch).shape)
"""),
    Case("shape_equinox_conv_channels_last", "jax_shape", "conv_general_dilated", "fix_shapes",
        J + """import equinox as eqx


class Encoder(eqx.Module):
    conv: eqx.nn.Conv2d
    head: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.conv = eqx.nn.Conv2d(3, 16, kernel_size=3, padding=1, key=k1)
        self.head = eqx.nn.Linear(16, 10, key=k2)

    def __call__(self, image):
        h = jax.nn.relu(self.conv(image))  #!
        return self.head(h.mean(axis=(1, 2)))


@eqx.filter_jit
def predict(model, images):
    return jax.vmap(model)(images)


model = Encoder(jax.random.key(0))
images = jnp.ones((4, 32, 32, 3))  # from the image loader, channels last
logits = predict(model, images)
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_key_reuse_dropout_masks", "jax_call", None, "prng_key", J + """
jax.config.update("jax_debug_key_reuse", True)


def dropout(x, key, rate=0.1):
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)  #!
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def mlp(params, x, key):
    h = dropout(jax.nn.relu(x @ params["w1"]), key)
    return dropout(h @ params["w2"], key)


params = {"w1": jnp.ones((8, 32)), "w2": jnp.ones((32, 4))}
print(mlp(params, jnp.ones((2, 8)), jax.random.key(0)))
"""),
    Case("call_static_argnums_after_removing_arg", "jax_call", None, "static_args",
        J + """from functools import partial


# `rng` used to be the second argument; the step no longer needs it
@partial(jax.jit, static_argnums=(2,))  #!
def train_step(params, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    return params - 0.1 * grads


params = jnp.ones(4)
for _ in range(3):
    params = train_step(params, jnp.ones((8, 4)))
"""),
    Case("call_old_library_tree_map_removed", "jax_call", None, "install", J + """
import emalib

params = {"w": jnp.ones((4, 4)), "b": jnp.zeros(4)}
ema = emalib.init(params)
for step in range(3):
    params = jax.tree.map(lambda p: p * 0.99, params)
    ema = emalib.update(ema, params, decay=0.999)  #!
print(ema["b"])
""", extra={"site-packages/emalib/__init__.py": '''"""Parameter EMAs (for jax 0.4)."""

import jax


def init(params):
    return jax.tree_util.tree_map(lambda p: p, params)


def update(ema, params, decay):
    return jax.tree_map(lambda e, p: decay * e + (1 - decay) * p, ema, params)
'''}),
    Case("call_saliency_grad_argnums_one_based", "jax_call", None, "other", J + """

def class_score(params, image, label=3):
    logits = jnp.tanh(image.reshape(-1) @ params)
    return logits[label]


params = jnp.ones((28 * 28, 10)) / 100
image = jnp.ones((28, 28))
# the gradient with respect to the image (its second argument) is the saliency map
saliency = jax.grad(class_score, argnums=2)(params, image)  #!
print(saliency.shape)
"""),
    Case("call_optax_update_args_swapped", "jax_call", None, "other", J + """import optax


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


optimizer = optax.adamw(1e-3)
params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(opt_state, grads, params)  #!
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.ones((8, 4)), jnp.ones((8, 1)))
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_explicit_scan_carry_init_replicated", "sharding", "scan", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def accumulate_grads(microbatches, w):
    # gradient accumulation over microbatches, each sharded over the batch
    def body(acc, mb):
        g = jax.grad(lambda w: jnp.mean((mb @ w) ** 2))(w)
        return acc + mb * g.sum(), None

    total, _ = jax.lax.scan(body, jnp.zeros(microbatches.shape[1:]), microbatches)  #!
    return total


microbatches = jax.device_put(jnp.ones((4, 64, 16)), P(None, "data"))
print(accumulate_grads(microbatches, jnp.ones(16)).shape)
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_no_mesh_context", "sharding", None, "other",
        J + """from jax.sharding import PartitionSpec as P


def local_histogram(values):
    counts = jnp.bincount(values, length=16)
    return jax.lax.psum(counts, "data")


histogram = jax.shard_map(local_histogram, in_specs=P("data"), out_specs=P())
mesh = jax.make_mesh((8,), ("data",))
values = jnp.arange(1024) % 16
print(jax.jit(histogram)(values))  #!
""", env=EIGHT_CPUS),
    Case("sharding_explicit_concat_padding_rows", "sharding", "concatenate", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def pad_batch(batch):
    # pad the last batch of the epoch up to the fixed size with zero rows
    padding = jnp.zeros((64 - batch.shape[0], batch.shape[1]))
    return jnp.concatenate([batch, padding], axis=0)  #!


batch = jax.device_put(jnp.ones((48, 32)), P("data"))
print(pad_batch(batch).shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_roll_next_token_targets", "sharding", None, "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("seq",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def lm_targets(tokens):
    # sequence parallelism: the sequence axis is split over the devices
    targets = jnp.roll(tokens, -1, axis=1)  #!
    return targets.at[:, -1].set(0)


tokens = jax.device_put(jnp.ones((4, 1024), jnp.int32), P(None, "seq"))
print(lm_targets(tokens).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_positions_int_of_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def embed_with_positions(token_embeddings):
    seq_len = int(token_embeddings.shape[0])  #!
    positions = jnp.arange(seq_len)[:, None] / 10000.0
    return token_embeddings + jnp.sin(positions)


(seq,) = export.symbolic_shape("seq")
exp = export.export(jax.jit(embed_with_positions))(jax.ShapeDtypeStruct((seq, 64), jnp.float32))
blob = exp.serialize()
"""),
    Case("export_call_batch_below_constraint", "jax_export", None, "fix_shapes",
        J + """from jax import export


def classify(x, w):
    return jax.nn.softmax(x @ w)


# the serving stack only ever sends padded batches of at least 16
(b,) = export.symbolic_shape("b", constraints=("b >= 16",))
exp = export.export(jax.jit(classify))(
    jax.ShapeDtypeStruct((b, 32), jnp.float32), jax.ShapeDtypeStruct((32, 10), jnp.float32)
)
served = export.deserialize(exp.serialize())
# ... but the health check sends a batch of 8
print(served.call(jnp.ones((8, 32)), jnp.ones((32, 10))).shape)  #!
"""),
    Case("export_call_params_gained_key", "jax_export", None, "other",
        J + """from jax import export


def predict(params, x):
    return x @ params["w"] + params["b"]


params = {"w": jnp.ones((4, 2)), "b": jnp.zeros(2)}
served = export.deserialize(export.export(jax.jit(predict))(params, jnp.ones((3, 4))).serialize())

# the training code since added a temperature to the parameters
params = {**params, "temperature": jnp.ones(())}
print(served.call(params, jnp.ones((3, 4))))  #!
"""),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_index_map_returns_too_few", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def scale_heads(x):
    # x (heads, seq, dim): one head per grid step
    heads, seq, dim = x.shape
    return pl.pallas_call(  #!
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(heads,),
        in_specs=[pl.BlockSpec((1, seq, dim), lambda h: (h, 0))],
        out_specs=pl.BlockSpec((1, seq, dim), lambda h: (h, 0, 0)),
        interpret=True,
    )(x)


print(scale_heads(jnp.ones((4, 64, 128))).shape)
"""),
    Case("pallas_aliases_input_index_out_of_range", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def residual_kernel(x_ref, delta_ref, o_ref):
    o_ref[...] = x_ref[...] + delta_ref[...]


def residual_add(x, delta):
    # write the sum in place: o_ref (the kernel's third ref) reuses x's buffer
    return pl.pallas_call(  #!
        residual_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        input_output_aliases={2: 0},
        interpret=True,
    )(x, delta)


print(residual_add(jnp.ones((8, 128)), jnp.ones((8, 128))).shape)
"""),
    Case("pallas_kernel_captures_weight_array", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl

W_PROJ = jax.random.normal(jax.random.key(0), (128, 128)) / 11.3


def proj_kernel(x_ref, o_ref):
    o_ref[...] = jnp.tanh(x_ref[...] @ W_PROJ)


@jax.jit
def project(x):
    return pl.pallas_call(  #!
        proj_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x)


print(project(jnp.ones((8, 128))).shape)
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_lyapunov_schur_for_rocm", "missing_lowering", "schur", "replace_op",
        J + """from jax import export


def lyapunov_solve(a, q):
    # Bartels-Stewart: reduce A to Schur form, solve the triangular system, map back
    t, u = jax.scipy.linalg.schur(a)
    f = u.T @ q @ u
    y = jax.scipy.linalg.solve_triangular(t, f, lower=False)
    return u @ y @ u.T


# the cluster we deploy to has AMD GPUs
exp = export.export(jax.jit(lyapunov_solve), platforms=["rocm"])(jnp.eye(4), jnp.eye(4))  #!
"""),
    Case("lowering_gpu_only_kernel_library_on_cpu", "missing_lowering", "fused_rms_norm",
        "replace_op", J + """import fastnorm


@jax.jit
def block(w, x):
    return fastnorm.rms_norm(x @ w) + x  #!


# a laptop run of the model trained on the GPU cluster
print(block(jnp.eye(64), jnp.ones((4, 64))).shape)
""", device="cpu", extra={"site-packages/fastnorm/__init__.py": '''"""Fused RMSNorm (NVIDIA)."""

import jax.numpy as jnp
from jax.extend.core import Primitive
from jax.interpreters import mlir

rms_norm_p = Primitive("fused_rms_norm")
rms_norm_p.def_abstract_eval(lambda x: x)


def _reference(x):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


# the CUDA kernel goes here in the real library; only CUDA is registered
mlir.register_lowering(
    rms_norm_p, mlir.lower_fun(_reference, multiple_results=False), platform="cuda"
)


def rms_norm(x):
    return rms_norm_p.bind(x)
'''}),
    Case("status_moe_ragged_all_to_all_cpu", "xla_status", "ragged-all-to-all", "replace_op",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("expert",))
TOKENS = 16  # per device


def dispatch(tokens, output, input_offsets, send_sizes, output_offsets, recv_sizes):
    # mixture of experts: send each device's tokens to the devices holding their experts
    return jax.lax.ragged_all_to_all(tokens, output, input_offsets, send_sizes,
                                     output_offsets, recv_sizes, axis_name="expert")


sharded = NamedSharding(mesh, P("expert"))
n = 8 * TOKENS
tokens = jax.device_put(jnp.ones((n, 32)), sharded)
output = jax.device_put(jnp.zeros((n, 32)), sharded)
offsets = jax.device_put(jnp.tile(jnp.arange(8, dtype=jnp.int32) * 2, 8), sharded)
sizes = jax.device_put(jnp.full((64,), 2, jnp.int32), sharded)
dispatch_sharded = jax.shard_map(dispatch, mesh=mesh, in_specs=P("expert"), out_specs=P("expert"))
moe_dispatch = jax.jit(dispatch_sharded)
print(moe_dispatch(tokens, output, offsets, sizes, offsets, sizes).shape)  #!
""", device="cpu", env=EIGHT_CPUS),
    Case("status_ffi_lapack_lu_missing_results", "xla_status", None, "fix_shapes", J + """

def lu_factor(a):
    # call LAPACK's getrf through the FFI target jaxlib registers, skipping jnp.linalg
    call = jax.ffi.ffi_call("lapack_sgetrf_ffi", jax.ShapeDtypeStruct(a.shape, a.dtype))
    return call(a)


a = jnp.eye(4) + 0.1
lu = jax.jit(lu_factor)(a)  #!
print(lu)
"""),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_equinox_temperature_field", "recompile", None, "see_recompiles",
        J + """import equinox as eqx

jax.config.update("jax_explain_cache_misses", True)


class Sampler(eqx.Module):
    proj: eqx.nn.Linear
    temperature: float

    def __call__(self, key, h):
        return jax.random.categorical(key, self.proj(h) / self.temperature)  #!


@eqx.filter_jit
def sample(sampler, key, h):
    return sampler(key, h)


sampler = Sampler(eqx.nn.Linear(16, 100, key=jax.random.key(0)), temperature=1.0)
for step in range(4):
    # anneal the temperature every step
    sampler = eqx.tree_at(lambda s: s.temperature, sampler, 1.0 / (1 + step))
    token = sample(sampler, jax.random.key(step), jnp.ones(16))
"""),
    Case("recompile_tf_class_weights_python_list", "recompile", None, "see_recompiles",
        """import tensorflow as tf


@tf.function
def weighted_loss(labels, logits, class_weights):
    weights = tf.gather(tf.constant(class_weights), labels)
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    return tf.reduce_sum(weights * losses) / tf.reduce_sum(weights)


labels = tf.constant([0, 1, 2, 1])
logits = tf.random.normal((4, 3))
for epoch in range(8):
    # re-balanced from the class counts seen so far
    class_weights = [1.0, 1.0 + 0.1 * epoch, 2.0 - 0.1 * epoch]
    print(weighted_loss(labels, logits, class_weights).numpy())
""", no_line=True),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_flax_embed_vocab_typo", "device_allocation", None, "fix_shapes",
        J + """import flax.linen as nn


class LanguageModel(nn.Module):
    vocab_size: int
    d_model: int = 4096

    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(self.vocab_size, self.d_model)(tokens)
        return nn.Dense(self.d_model)(x)


model = LanguageModel(vocab_size=32_000_000)  # meant 32k tokens
params = model.init(jax.random.key(0), jnp.zeros((1, 8), jnp.int32))
print(params["params"]["Embed_0"]["embedding"][0, :4])  #!
"""),
    Case("oom_ct_volume_batch_resize", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def upsample(volumes):
    # 128^3 CT volumes up to the 512^3 grid of the segmentation model
    return jax.image.resize(volumes, (volumes.shape[0], 512, 512, 512), method="trilinear")


volumes = jnp.zeros((256, 128, 128, 128), jnp.float32)  # the whole validation split
dense = upsample(volumes)
print(dense.shape, dense[0, 0, 0, 0])  #!
"""),
    Case("oom_scan_keeps_every_simulation_frame", "device_allocation", None, "other", J + """

def diffuse(field, _):
    # one explicit step of the heat equation on the grid
    lap = (jnp.roll(field, 1, 0) + jnp.roll(field, -1, 0) + jnp.roll(field, 1, 1)
           + jnp.roll(field, -1, 1) - 4 * field)
    field = field + 0.1 * lap
    return field, field  # every frame kept for the movie


@jax.jit
def simulate(field0):
    return jax.lax.scan(diffuse, field0, None, length=20_000)


final, frames = simulate(jnp.zeros((2048, 2048)))
print(frames.shape, final[0, 0])  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_detector_combined_nms_jit", "tf2xla", "CombinedNonMaxSuppression", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def detect(boxes, class_scores):
    # boxes (batch, anchors, 1, 4), class_scores (batch, anchors, classes)
    result = tf.image.combined_non_max_suppression(  #!
        boxes, class_scores, max_output_size_per_class=20, max_total_size=50)
    return result.nmsed_boxes, result.nmsed_scores, result.valid_detections


out = detect(tf.random.uniform((2, 500, 1, 4)), tf.random.uniform((2, 500, 20)))
print(out[2])
""", device="cpu"),
    Case("tf_inception_crop_jit", "tf2xla", "SampleDistortedBoundingBoxV2", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def random_crop(image):
    # inception-style crop covering at least a tenth of the object
    begin, size, _ = tf.image.sample_distorted_bounding_box(  #!
        tf.shape(image), bounding_boxes=tf.constant([[[0.0, 0.0, 1.0, 1.0]]]),
        min_object_covered=0.1, area_range=(0.08, 1.0))
    crop = tf.slice(image, begin, size)
    return tf.image.resize(crop, (224, 224))


print(random_crop(tf.random.uniform((256, 256, 3))).shape)
""", device="cpu"),
    Case("tf_fid_matrix_sqrt_jit", "tf2xla", "MatrixSquareRoot", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def frechet_distance(mu1, sigma1, mu2, sigma2):
    covmean = tf.linalg.sqrtm(sigma1 @ sigma2)  #!
    return tf.reduce_sum((mu1 - mu2) ** 2) + tf.linalg.trace(sigma1 + sigma2 - 2.0 * covmean)


# Inception features of real and generated images
real = tf.random.normal((256, 64))
fake = tf.random.normal((256, 64))
sigma_real = tf.linalg.matmul(real, real, transpose_a=True) / 255.0
sigma_fake = tf.linalg.matmul(fake, fake, transpose_a=True) / 255.0
print(frechet_distance(tf.reduce_mean(real, 0), sigma_real, tf.reduce_mean(fake, 0), sigma_fake))
""", device="cpu"),
    Case("tf_keras_token_shuffle_layer_jit", "tf2xla", "StatelessShuffle", "replace_op",
        """import numpy as np
import keras
import tensorflow as tf


class ShuffleTokens(keras.layers.Layer):
    # order-robustness augmentation: shuffle the tokens of each batch while training
    def call(self, x, training=False):
        if training:
            by_position = tf.transpose(x, [1, 0, 2])
            by_position = tf.random.experimental.stateless_shuffle(by_position, seed=[1, 2])  #!
            x = tf.transpose(by_position, [1, 0, 2])
        return x


model = keras.Sequential([
    keras.Input((16, 8)),
    ShuffleTokens(),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.ones((32, 16, 8)), np.ones((32, 1)), epochs=1, verbose=0)
""", device="cpu", env={"KERAS_BACKEND": "tensorflow"}),
    Case("tf_random_shift_pad_jit", "tf_known_issue", "Pad", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def random_shift(images, max_shift=4):
    # translate by a random offset: pad on the top-left, crop back to size
    dy = tf.random.uniform([], 0, max_shift + 1, dtype=tf.int32)
    dx = tf.random.uniform([], 0, max_shift + 1, dtype=tf.int32)
    padded = tf.pad(images, [[0, 0], [dy, 0], [dx, 0], [0, 0]])  #!
    return padded[:, :32, :32, :]


print(random_shift(tf.zeros((16, 32, 32, 3))).shape)
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
