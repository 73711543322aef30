"""Make blind21: an eighth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on:
thirty-five mistakes, each different from the 355 cases of the ``tests/data/made_errors*/make.py``
files and from each other, picked as a user would hit them (token sampling, forecast windows,
gradient accumulation, attention maps kept for plotting, activation histograms, padding masks,
signal smoothing, cross-attention, a spectral loss, depthwise convolutions, gradient noise,
contrastive views, layer initialisation, stacked layers for a scan, a GPT-2 vocabulary,
per-example losses, halo exchange, a model exported on a pod and served on one device, running
maxima, fused kernels, a replay buffer, input Jacobians, box drawing, cutout and cluttered
digits in TensorFlow, a growing KV cache, multi-scale crops, a bfloat16 Gaussian process and a
Riccati solver exported for GPUs; flax linen, equinox and TensorFlow with ``jit_compile=True``;
a notebook cell; a library that re-raises; jit, vmap, grad, scan, jit's out_shardings,
shard_map on eight fake CPUs, Pallas in interpret mode, ``jax.export`` with symbolic shapes),
never by what the tool handles. No rule may be written from these logs before they are scored,
and the folder is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind21/make.py`` (jax/jaxlib 0.10.2,
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
    Case("tracing_np_choice_sampling_in_jit", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np


@jax.jit
def sample_next_token(logits):
    probs = jax.nn.softmax(logits)
    return np.random.choice(probs.shape[0], p=np.asarray(probs))  #!


print(sample_next_token(jnp.zeros(50)))
"""),
    Case("tracing_arange_traced_window_start", "jax_tracing", None, "dynamic_slice", J + """

@jax.jit
def window(series, start):
    # the 24 readings that follow each forecast origin
    idx = jnp.arange(start, start + 24)  #!
    return series[idx]


print(window(jnp.arange(1000.0), 100).shape)
"""),
    Case("tracing_split_micro_batches_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def accumulated_grads(w, batch, num_micro):
    # gradient accumulation over micro-batches to fit a bigger effective batch
    micro = jnp.split(batch, num_micro)  #!
    grads = [jax.grad(lambda w, b: ((b @ w) ** 2).mean())(w, b) for b in micro]
    return sum(grads) / num_micro


print(accumulated_grads(jnp.ones((16, 4)), jnp.ones((64, 16)), 4).shape)
"""),
    Case("tracing_scan_collects_attention_maps_in_list", "jax_tracing", None,
        "no_leaked_tracer", J + """
attention_maps = []  # for the visualisation notebook


def layer(h, w):
    attn = jax.nn.softmax(h @ w @ h.T)
    attention_maps.append(attn)
    return attn @ h, None


@jax.jit
def encoder(h, weights):
    h, _ = jax.lax.scan(layer, h, weights)
    return h


encoder(jnp.ones((16, 32)), jnp.ones((4, 32, 32)))
print(jnp.stack(attention_maps).shape)  #!
"""),
    Case("tracing_histogram_bins_jit_arg", "jax_tracing", None, "static_args", J + """

@jax.jit
def activation_histogram(activations, num_bins):
    # logged to TensorBoard every 100 steps to watch for dead units
    counts, _ = jnp.histogram(activations, bins=num_bins, range=(-3.0, 3.0))  #!
    return counts


print(activation_histogram(jnp.zeros(10_000), 50))
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_padding_mask_without_head_axis", "jax_shape", None, "fix_shapes", J + """

def masked_attention(q, k, v, pad_mask):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / q.shape[-1] ** 0.5
    scores = jnp.where(pad_mask, scores, -1e9)  #!
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores), v)


q = k = v = jnp.ones((4, 8, 32, 16))
pad_mask = jnp.ones((4, 32), bool)  # batch x keys
print(jax.jit(masked_attention)(q, k, v, pad_mask).shape)
"""),
    Case("shape_convolve_batch_of_signals", "jax_shape", "convolve", "fix_shapes", J + """

@jax.jit
def smooth(signals):
    # moving-average filter over every recording of the batch
    kernel = jnp.ones(9) / 9
    return jnp.convolve(signals, kernel, mode="same")  #!


print(smooth(jnp.ones((32, 4000))).shape)
"""),
    Case("shape_dot_product_attention_head_dims", "jax_shape", "dot_product_attention",
        "fix_shapes", J + """

def cross_attention(queries, memory, wk, wv):
    keys = memory @ wk
    values = memory @ wv
    return jax.nn.dot_product_attention(queries, keys, values)  #!


B, T, S, N = 2, 16, 64, 4
queries = jnp.ones((B, T, N, 32))
memory = jnp.ones((B, S, N, 48))
out = jax.jit(cross_attention)(queries, memory, jnp.ones((48, 64)), jnp.ones((48, 32)))
print(out.shape)
"""),
    Case("shape_grad_complex_spectral_loss", "jax_shape", None, "other", J + """

def spectral_loss(w, signal, target_spectrum):
    # match the spectrum of the filtered signal to the target
    spectrum = jnp.fft.rfft(signal * w)
    return jnp.mean(spectrum - target_spectrum) ** 2


signal = jnp.ones(256)
grads = jax.grad(spectral_loss)(jnp.ones(256), signal, jnp.zeros(129))  #!
print(grads.shape)
"""),
    Case("shape_depthwise_conv_groups_not_dividing", "jax_shape", "conv_general_dilated",
        "fix_shapes", J + """

def depthwise_separable(x, depthwise_w, pointwise_w):
    # MobileNet block: one 3x3 filter per input channel, then a 1x1 mix
    y = jax.lax.conv_general_dilated(  #!
        x, depthwise_w, (1, 1), "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=x.shape[-1])
    return y @ pointwise_w


x = jnp.ones((8, 32, 32, 24))
print(jax.jit(depthwise_separable)(x, jnp.ones((3, 3, 1, 32)), jnp.ones((32, 64))).shape)
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_typed_key_plus_step", "jax_call", None, "prng_key", J + """

def noisy_grads(grads, key, step):
    # fresh gradient noise every step
    step_key = key + step  #!
    return grads + 0.01 * jax.random.normal(step_key, grads.shape)


key = jax.random.key(0)
print(noisy_grads(jnp.zeros(8), key, 3))
"""),
    Case("call_jit_generator_augmentations", "jax_call", None, "other", J + """

@jax.jit  #!
def augmentations(image):
    # every view the contrastive loss compares
    yield image
    yield jnp.flip(image, axis=1)
    yield jnp.rot90(image)


for view in augmentations(jnp.ones((32, 32, 3))):
    print(view.shape)
"""),
    Case("call_normal_with_split_keys", "jax_call", None, "prng_key", J + """

def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(keys, (m, n)) / m**0.5 for m, n in zip(sizes[:-1], sizes[1:])]  #!


params = init_mlp(jax.random.key(0), [784, 512, 10])
print([p.shape for p in params])
"""),
    Case("call_equinox_linear_int_seed", "jax_call", None, "prng_key", J + """import equinox as eqx


class Regressor(eqx.Module):
    hidden: eqx.nn.Linear
    out: eqx.nn.Linear

    def __init__(self, seed):
        self.hidden = eqx.nn.Linear(13, 64, key=seed)  #!
        self.out = eqx.nn.Linear(64, 1, key=seed + 1)

    def __call__(self, x):
        return self.out(jax.nn.relu(self.hidden(x)))


model = Regressor(seed=42)
print(jax.vmap(model)(jnp.ones((5, 13))).shape)
"""),
    Case("sharding_library_reraises_batch_over_devices", "sharding", None, "fix_shapes",
        J + """import trainkit

params = {"w": jnp.zeros((16, 4))}
batch = jnp.ones((12, 16))  # the last, smaller batch of the epoch
params = trainkit.data_parallel_step(params, batch)  #!
print(params["w"].shape)
""", env=EIGHT_CPUS,
        extra={"site-packages/trainkit/__init__.py": '''"""A small data-parallel trainer."""

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


class TrainError(RuntimeError):
    """A training step failed."""


def _loss(params, batch):
    return ((batch @ params["w"]) ** 2).mean()


def data_parallel_step(params, batch, lr=0.1):
    mesh = jax.make_mesh((len(jax.devices()),), ("data",))
    try:
        batch = jax.device_put(batch, NamedSharding(mesh, P("data")))
    except ValueError as err:
        raise TrainError(f"could not shard the batch over {mesh.size} devices") from err
    grads = jax.grad(_loss)(params, batch)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
'''}),
    Case("shape_stack_layer_weights_for_scan_notebook", "jax_shape", None, "fix_shapes",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.key(0), 4)
widths = [32, 64, 64, 64, 64]
layers = [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, widths[:-1], widths[1:])]
# stack the layers to run them with one scan
stacked = jnp.stack(layers)  #!
out, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), jnp.ones((8, 32)), stacked)
print(out.shape)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("call_flax_linen_apply_params_unwrapped", "jax_call", None, "other",
        J + """import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(10)(nn.relu(nn.Dense(128)(x)))  #!


model = Classifier()
variables = model.init(jax.random.key(0), jnp.ones((1, 784)))
params = variables["params"]  # what the optimizer trains


@jax.jit
def predict(params, images):
    return model.apply(params, images).argmax(-1)


print(predict(params, jnp.ones((8, 784))))
"""),
    # ---- sharding -----------------------------------------------------------------------------
    Case("sharding_gpt2_vocab_rows_over_eight", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",))
vocab_sharding = NamedSharding(mesh, P("model", None))


@jax.jit
def logits(embedding, hidden):
    return hidden @ embedding.T


embedding = jax.device_put(jnp.zeros((50257, 128)), vocab_sharding)  #!
print(logits(embedding, jnp.ones((4, 128))).shape)
""", env=EIGHT_CPUS),
    Case("sharding_out_shardings_rank_for_loss", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
batch_sharding = NamedSharding(mesh, P("data", None))


def per_example_loss(w, x):
    return ((x @ w) ** 2).mean(axis=-1)


step = jax.jit(per_example_loss, out_shardings=batch_sharding)
x = jax.device_put(jnp.ones((64, 32)), batch_sharding)
print(step(jnp.ones((32, 8)), x).shape)  #!
""", env=EIGHT_CPUS),
    Case("sharding_halo_exchange_duplicate_destination", "sharding", "ppermute", "other",
        J + """from functools import partial

from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
field = jax.device_put(jnp.arange(64.0), jax.sharding.NamedSharding(mesh, P("x")))


@partial(jax.shard_map, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
def halo_sum(u):
    # each shard adds its left neighbour's edge value (periodic domain)
    edge = u[-1:]
    perm = [(i, (i + 1) % 8) for i in range(8)] + [(0, 1)]
    return u + jax.lax.ppermute(edge, "x", perm).sum()  #!


print(halo_sum(field).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_sharded_eight_called_on_one", "jax_export", None, "other",
        """import os
import subprocess
import sys

import jax
import jax.numpy as jnp
from jax import export
from jax.sharding import NamedSharding, PartitionSpec as P

if len(sys.argv) == 1:
    # export on the training pod (eight devices) ...
    mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
    spec = NamedSharding(mesh, P("data"))
    exp = export.export(jax.jit(lambda x: jnp.tanh(x) * 2, in_shardings=spec, out_shardings=spec))(
        jax.ShapeDtypeStruct((64,), jnp.float32))
    open("model.bin", "wb").write(exp.serialize())
    env = dict(os.environ, XLA_FLAGS="")
    sys.exit(subprocess.run([sys.executable, __file__, "serve"], env=env).returncode)

# ... and serve it on a one-device host
exp = export.deserialize(bytearray(open("model.bin", "rb").read()))
print(exp.call(jnp.ones((64,))))  #!
""", env=EIGHT_CPUS),
    Case("export_symbolic_shape_spec_typo", "jax_export", None, "other",
        J + """from jax import export


def encoder(tokens):
    return jnp.tanh(tokens @ jnp.ones((256, 256)))


batch, seq = export.symbolic_shape("batch, seq,, ")  #!
exp = export.export(jax.jit(encoder))(jax.ShapeDtypeStruct((batch, seq, 256), jnp.float32))
print(exp.in_avals)
"""),
    Case("export_python_loop_over_symbolic_len", "jax_export", None, "other",
        J + """from jax import export


def running_max(scores):
    # best score so far at every position
    out = [scores[0]]
    for t in range(1, scores.shape[0]):  #!
        out.append(jnp.maximum(out[-1], scores[t]))
    return jnp.stack(out)


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(running_max))(jax.ShapeDtypeStruct((n,), jnp.float32))
print(exp.out_avals)
"""),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_grid_and_grid_spec_both", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


spec = pl.BlockSpec((128, 128), lambda i: (i, 0))
grid_spec = pl.GridSpec(grid=(4,), in_specs=[spec], out_specs=spec)
out = pl.pallas_call(  #!
    scale_kernel,
    out_shape=jax.ShapeDtypeStruct((512, 128), jnp.float32),
    grid=(4,),
    grid_spec=grid_spec,
    interpret=True,
)(jnp.ones((512, 128)))
print(out.shape)
"""),
    Case("pallas_blockspec_old_argument_order", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    # BlockSpec(index_map, block_shape), as an older tutorial wrote it
    spec = pl.BlockSpec(lambda i: (i, 0), (256, 128))
    return pl.pallas_call(  #!
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 256,),
        in_specs=[spec, spec],
        out_specs=spec,
        interpret=True,
    )(x, y)


print(add(jnp.ones((1024, 128)), jnp.ones((1024, 128))).shape)
"""),
    Case("pallas_in_specs_dict_for_positional_inputs", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def fused_bias_gelu_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...] + b_ref[...])


def fused_bias_gelu(x, bias):
    return pl.pallas_call(  #!
        fused_bias_gelu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        # one spec per input, named for readability
        in_specs={"x": pl.BlockSpec((128, 256), lambda i: (i, 0)),
                  "bias": pl.BlockSpec((1, 256), lambda i: (0, 0))},
        out_specs=pl.BlockSpec((128, 256), lambda i: (i, 0)),
        interpret=True,
    )(x, bias)


print(fused_bias_gelu(jnp.ones((512, 256)), jnp.zeros((1, 256))).shape)
"""),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_replay_buffer_preallocated", "device_allocation", None, "smaller_batch", J + """

# DQN replay buffer: ten million Atari frames stacked four deep
buffer = jnp.zeros((10_000_000, 84, 84, 4), jnp.uint8)  #!
print(buffer.shape, buffer[0, 0, 0, 0])
"""),
    Case("oom_jacfwd_image_to_image_model", "device_allocation", None, "other", J + """

def denoiser(w, image):
    return jnp.tanh(image * w)


@jax.jit
def input_jacobian(w, image):
    # how each output pixel depends on each input pixel
    return jax.jacfwd(denoiser, argnums=1)(w, image)


jac = input_jacobian(jnp.ones((512, 512, 3)), jnp.ones((512, 512, 3)))
print(jac.shape, jac[0, 0, 0, 0, 0, 0])  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_draw_boxes_in_eval_step_jit", "tf2xla", "DrawBoundingBoxesV2", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def eval_step(images, boxes):
    # draw the predicted boxes for the TensorBoard image summary
    colors = tf.constant([[1.0, 0.0, 0.0, 1.0]])
    return tf.image.draw_bounding_boxes(images, boxes, colors)  #!


print(eval_step(tf.zeros((2, 64, 64, 3)), tf.constant([[[0.1, 0.1, 0.5, 0.5]]] * 2)).shape)
""", device="cpu"),
    Case("tf_cutout_random_patch_size_jit", "tf_known_issue", "Fill", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def cutout(image):
    # erase a square patch of random size from the top-left corner
    size = tf.random.uniform((), 8, 32, dtype=tf.int32)
    patch = tf.zeros([size, size, 3])  #!
    mask = tf.image.pad_to_bounding_box(patch + 1.0, 0, 0, 64, 64)
    return image * (1.0 - mask)


print(cutout(tf.ones((64, 64, 3))).shape)
""", device="cpu"),
    Case("tf_cluttered_digits_random_offset_jit", "tf_known_issue", "Pad", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def place_digit(digit):
    # cluttered MNIST: put the 28x28 digit at a random place on a 60x60 canvas
    offset = tf.random.uniform((2,), 0, 32, dtype=tf.int32)
    return tf.image.pad_to_bounding_box(digit, offset[0], offset[1], 60, 60)  #!


print(place_digit(tf.ones((28, 28, 1))).shape)
""", device="cpu"),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_kv_cache_concat_growing", "recompile", None, "see_recompiles", J + """

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def decode_step(cache, new_kv):
    # append this token's key/value to the cache and attend over all of it
    cache = jnp.concatenate([cache, new_kv[None]], axis=0)
    return cache, jax.nn.softmax(cache @ new_kv)


cache = jnp.zeros((1, 64))
for _ in range(6):
    cache, attn = decode_step(cache, jnp.ones(64))  #!
"""),
    Case("recompile_tf_random_crop_size_python", "recompile", None, "see_recompiles",
        """import random

import tensorflow as tf


@tf.function
def random_crop(images, size):
    # multi-scale training: a new crop size every batch
    return tf.image.random_crop(images, [tf.shape(images)[0], size, size, 3])


images = tf.random.uniform((8, 256, 256, 3))
random.seed(0)
for step in range(10):
    random_crop(images, random.choice([160, 192, 224, 240, 256, 128, 96]))
""", no_line=True),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("status_bf16_gp_cholesky_cpu", "xla_status", "cholesky", "cast_dtype", J + """

jax.config.update("jax_default_matmul_precision", "bfloat16")


@jax.jit
def gp_log_likelihood(x, y, lengthscale):
    # the whole model runs in bfloat16 to match the TPU training run
    sq = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    k = jnp.exp(-sq / lengthscale) + 1e-2 * jnp.eye(x.shape[0], dtype=x.dtype)
    chol = jnp.linalg.cholesky(k)
    alpha = jax.scipy.linalg.cho_solve((chol, True), y)
    return -0.5 * y @ alpha - jnp.log(jnp.diag(chol)).sum()


x = jnp.ones((64, 3), jnp.bfloat16) * jnp.arange(64, dtype=jnp.bfloat16)[:, None]
print(gp_log_likelihood(x, jnp.ones(64, jnp.bfloat16), jnp.bfloat16(2.0)))  #!
""", device=None),
    Case("lowering_riccati_schur_export_for_cuda", "missing_lowering", "schur", "replace_op",
        J + """from jax import export


def stable_subspace(hamiltonian):
    # Riccati solver: the Schur vectors of the Hamiltonian matrix span the stable subspace
    t, z = jax.scipy.linalg.schur(hamiltonian)
    n = hamiltonian.shape[0] // 2
    return z[n:, :n] @ jnp.linalg.inv(z[:n, :n])


# the controller is served from the GPU cluster
exp = export.export(jax.jit(stable_subspace), platforms=["cuda"])(jnp.eye(8))  #!
print(exp.out_avals)
"""),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
