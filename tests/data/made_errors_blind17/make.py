"""Make blind17: a fourth blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch (made 2026-12-07) measures ``explain-error`` on errors nobody tuned it on: forty-two
mistakes, each different from the 195 cases of the ``tests/data/made_errors*/make.py`` files and
from each other, picked as a user would hit them (a training step, a data pipeline, an inference
loop, a model; flax, optax, equinox and Keras 3 on top, TensorFlow with ``jit_compile=True``;
notebook cells; a library that re-raises; jit, vmap, grad, while_loop, shard_map on eight fake
CPUs, explicit sharding, Pallas in interpret mode, ``jax.export``), never by what the tool
handles. No rule may be written from these logs before they are scored, and the folder is
sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind17/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, optax 0.2.8, equinox 0.13.8, TensorFlow 2.21.0 and Keras 3.15.1 on CPU made the
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
    Case("tracing_top_k_beam_width", "jax_tracing", None, "static_args", J + """

@jax.jit
def beam_step(log_probs, beam_width):
    flat = log_probs.reshape(-1)
    scores, idx = jax.lax.top_k(flat, beam_width)  #!
    return scores, idx // log_probs.shape[-1]


log_probs = jax.nn.log_softmax(jnp.ones((4, 100)))
print(beam_step(log_probs, 4))
"""),
    Case("tracing_warmup_schedule_if", "jax_tracing", None, "lax_control_flow", J + """

def learning_rate(step, base=1e-3, warmup=100):
    if step < warmup:  #!
        return base * step / warmup
    return base


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, step):
    grads = jax.grad(loss_fn)(w, x, y)
    return w - learning_rate(step) * grads


w = jnp.zeros(4)
x, y = jnp.ones((16, 4)), jnp.ones(16)
for step in range(3):
    w = train_step(w, x, y, step)
"""),
    Case("tracing_keras_layer_norm_if", "jax_tracing", None, "lax_control_flow",
        """import numpy as np
import keras
from keras import ops


class ClipByNorm(keras.layers.Layer):
    def call(self, x):
        norm = ops.sqrt(ops.sum(x * x))
        if norm > 1.0:
            x = x / norm
        return x


model = keras.Sequential([keras.layers.Dense(16), ClipByNorm(), keras.layers.Dense(1)])
model(np.ones((1, 8)))  # build the weights  #!
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((32, 8)), np.ones((32, 1)), epochs=1, verbose=0)
""", env={"KERAS_BACKEND": "jax"}),
    Case("tracing_newton_cond_and", "jax_tracing", None, "lax_control_flow", J + """

def newton_sqrt(a, tol=1e-6, max_iter=50):
    def keep_going(state):
        x, i = state
        return jnp.abs(x * x - a) > tol and i < max_iter  #!

    def update(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, _ = jax.lax.while_loop(keep_going, update, (a, 0))
    return x


print(jax.vmap(newton_sqrt)(jnp.array([2.0, 9.0, 10.0])))
"""),
    Case("tracing_equinox_training_flag_array", "jax_tracing", None, "static_args",
        J + """import equinox as eqx


class Block(eqx.Module):
    linear: eqx.nn.Linear
    training: jax.Array

    def __init__(self, key):
        self.linear = eqx.nn.Linear(8, 8, key=key)
        self.training = jnp.array(True)

    def __call__(self, x, key):
        x = self.linear(x)
        if self.training:  #!
            x = x * jax.random.bernoulli(key, 0.9, x.shape) / 0.9
        return x


@eqx.filter_jit
def forward(model, x, key):
    return model(x, key)


print(forward(Block(jax.random.key(0)), jnp.ones(8), jax.random.key(1)))
"""),
    Case("tracing_metrics_library_float", "jax_tracing", None, "other", J + """
import metriclib


@jax.jit
def eval_step(params, x, y):
    pred = x @ params
    metrics = metriclib.Tracker()
    metrics.update("mse", jnp.mean((pred - y) ** 2))  #!
    return pred, metrics.summary()


print(eval_step(jnp.ones(4), jnp.ones((8, 4)), jnp.ones(8)))
""", extra={"site-packages/metriclib/__init__.py": '''"""A small metrics tracker."""


class MetricError(TypeError):
    """The library's own error."""


class Tracker:
    def __init__(self):
        self.values = {}

    def update(self, name, value):
        try:
            self.values.setdefault(name, []).append(float(value))
        except TypeError as err:
            msg = f"metric {name!r} must be a number, got {type(value).__name__}"
            raise MetricError(msg) from err

    def summary(self):
        return {k: sum(v) / len(v) for k, v in self.values.items()}
'''}),
    Case("tracing_fstring_loss_format", "jax_tracing", None, "other", J + """

def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(w, x, y)
    print(f"loss {loss:.4f}")  #!
    return w - 0.1 * grads


w = train_step(jnp.zeros(4), jnp.ones((16, 4)), jnp.ones(16))
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_flax_dense_new_input_width", "jax_shape", None, "fix_shapes",
        J + """import flax.linen as nn


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(64)(x))  #!
        return nn.Dense(10)(x)


model = MLP()
params = model.init(jax.random.key(0), jnp.ones((1, 28 * 28)))

# the new data loader keeps the colour channels
images = jnp.ones((32, 28 * 28 * 3))
logits = model.apply(params, images)
"""),
    Case("shape_one_hot_extra_class", "jax_shape", "mul", "fix_shapes", J + """import optax

NUM_CLASSES = 11  # ten digits and a padding label


def loss_fn(params, x, labels):
    logits = x @ params["w"]
    targets = jax.nn.one_hot(labels, NUM_CLASSES)
    return optax.softmax_cross_entropy(logits, targets).mean()  #!


params = {"w": jnp.zeros((16, 10))}
x = jnp.ones((32, 16))
labels = jnp.arange(32) % 10
grads = jax.jit(jax.grad(loss_fn))(params, x, labels)
"""),
    Case("shape_attention_heads_first_layout", "jax_shape", "and", "fix_shapes", J + """

def causal_attention(q, k, v):
    seq = q.shape[2]
    mask = jnp.tril(jnp.ones((seq, seq), bool))[None, None]
    return jax.nn.dot_product_attention(q, k, v, mask=mask)  #!


# (batch, heads, seq, head_dim), the layout of the PyTorch port
q = k = v = jnp.ones((2, 8, 128, 64))
out = jax.jit(causal_attention)(q, k, v)
"""),
    Case("shape_pad_width_batch_images", "jax_shape", "pad", "fix_shapes", J + """

def random_crop(key, images, pad=4):
    padded = jnp.pad(images, ((pad, pad), (pad, pad)), mode="reflect")  #!
    dx, dy = jax.random.randint(key, (2,), 0, 2 * pad)
    return jax.lax.dynamic_slice(padded, (0, dx, dy, 0), images.shape)


images = jnp.ones((32, 32, 32, 3))
crops = jax.jit(random_crop)(jax.random.key(0), images)
"""),
    Case("shape_solve_batch_first_rhs", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def whiten_batch(cov, batch):
    # batch is (examples, features): one right-hand side per example
    return jnp.linalg.solve(cov, batch)  #!


cov = jnp.eye(4) * 2.0
batch = jnp.ones((32, 4))
print(whiten_batch(cov, batch).shape)
"""),
    Case("shape_orbax_restore_widened_layer", "jax_shape", None, "fix_shapes",
        J + """import os

import orbax.checkpoint as ocp

path = os.path.abspath("checkpoints/step_1000")
checkpointer = ocp.StandardCheckpointer()
checkpointer.save(path, {"w": jnp.ones((784, 64)), "b": jnp.zeros(64)})
checkpointer.wait_until_finished()

# the model now reads colour images: the first layer is three times wider
abstract = {
    "w": jax.ShapeDtypeStruct((784 * 3, 64), jnp.float32),
    "b": jax.ShapeDtypeStruct((64,), jnp.float32),
}
params = checkpointer.restore(path, abstract)  #!
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_has_aux_plain_loss", "jax_call", None, "other", J + """

def loss_fn(w, x, y):
    pred = x @ w
    return jnp.mean((pred - y) ** 2)


grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
w = jnp.zeros(4)
x, y = jnp.ones((32, 4)), jnp.ones(32)
(loss, metrics), grads = grad_fn(w, x, y)  #!
"""),
    Case("call_jit_method_self", "jax_call", "Trainer.step", "static_args", J + """

class Trainer:
    def __init__(self, lr):
        self.lr = lr
        self.w = jnp.zeros(4)

    @jax.jit
    def step(self, x, y):
        grads = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(self.w)
        return self.w - self.lr * grads


trainer = Trainer(0.1)
trainer.w = trainer.step(jnp.ones((8, 4)), jnp.ones(8))  #!
"""),
    Case("call_setitem_padding_notebook", "jax_call", None, "other", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax.numpy as jnp

def mask_padding(logits, lengths):
    for i, n in enumerate(lengths):
        logits[i, n:] = -1e9  #!
    return logits

logits = jnp.zeros((3, 5))
masked = mask_padding(logits, [5, 3, 2])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("call_randint_float_offsets", "jax_call", "randint", "cast_dtype", J + """

def jitter(key, points, max_shift=3):
    shift = jax.random.randint(key, points.shape, -max_shift, max_shift, dtype=jnp.float32)  #!
    return points + shift


print(jitter(jax.random.key(0), jnp.zeros((4, 2))))
"""),
    Case("call_save_typed_key_numpy", "jax_call", None, "prng_key", J + """import numpy as np

state = {"step": 100, "params": jnp.ones(4), "rng": jax.random.key(0)}
# checkpoint the training state with numpy
np.savez("state.npz", **{k: np.asarray(v) for k, v in state.items()})  #!
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_explicit_reshape_minor_sharded", "sharding", "reshape", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
# activations (batch, seq, heads, head_dim), head_dim split over the model axis
attn = jax.device_put(jnp.ones((4, 16, 4, 8)), P(None, None, None, "model"))


@jax.jit
def merge_heads(x):
    return x.reshape(x.shape[0], x.shape[1], -1)  #!


print(merge_heads(attn).shape)
""", env=EIGHT_CPUS),
    Case("sharding_all_to_all_expert_dispatch", "sharding", "all_to_all", "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("expert",))


def dispatch(tokens):
    # send each expert its slice of this device's tokens
    return jax.lax.all_to_all(tokens, "expert", split_axis=0, concat_axis=0, tiled=True)  #!


route = jax.shard_map(dispatch, mesh=mesh, in_specs=P("expert"), out_specs=P("expert"))
tokens = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh, P("expert")))
print(jax.jit(route)(tokens).shape)
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_axis_names_subset", "sharding", "shard_map", "mesh_axis",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


def local_matmul(x, w):
    return x @ w


# manual over the data axis only; the model axis is left to the compiler
f = jax.shard_map(local_matmul, mesh=mesh, in_specs=(P("data"), P(None, "model")),
                  out_specs=P("data"), axis_names={"data"})
print(jax.jit(f)(jnp.ones((8, 16)), jnp.ones((16, 4))).shape)  #!
""", env=EIGHT_CPUS),
    Case("sharding_two_meshes_one_step", "sharding", None, "reshard",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

data_mesh = jax.make_mesh((8,), ("data",))
model_mesh = jax.make_mesh((4, 2), ("data", "model"))
params = jax.device_put(jnp.ones((16, 4)), NamedSharding(model_mesh, P(None, "model")))
batch = jax.device_put(jnp.ones((64, 16)), NamedSharding(data_mesh, P("data")))


@jax.jit
def forward(params, batch):
    return batch @ params  #!


print(forward(params, batch).shape)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_call_bfloat16_inputs", "jax_export", None, "cast_dtype",
        J + """from jax import export


def predict(x):
    return jnp.tanh(x @ jnp.ones((4, 2)))


exp = export.export(jax.jit(predict))(jax.ShapeDtypeStruct((8, 4), jnp.float32))
served = export.deserialize(exp.serialize())
# the serving frontend casts requests to bfloat16
print(served.call(jnp.ones((8, 4), jnp.bfloat16)))  #!
"""),
    Case("export_shared_dim_inconsistent_call", "jax_export", None, "fix_shapes",
        J + """from jax import export


def score(queries, labels):
    return ((queries.sum(-1) - labels) ** 2).mean()


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(score))(
    jax.ShapeDtypeStruct((b, 16), jnp.float32), jax.ShapeDtypeStruct((b,), jnp.float32)
)
served = export.deserialize(exp.serialize())
print(served.call(jnp.ones((32, 16)), jnp.ones(30)))  #!
"""),
    Case("export_grad_through_served_model", "jax_export", None, "other",
        J + """from jax import export


def predict(w, x):
    return jnp.tanh(x @ w)


exp = export.export(jax.jit(predict))(jnp.ones((4, 2)), jnp.ones((8, 4)))
served = export.deserialize(exp.serialize())


def finetune_loss(w, x):
    return jnp.mean(served.call(w, x) ** 2)  #!


grads = jax.grad(finetune_loss)(jnp.ones((4, 2)), jnp.ones((8, 4)))
"""),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_out_shape_plain_tuple", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=x.shape, interpret=True)(x, y)  #!


print(add(jnp.ones((8, 8)), jnp.ones((8, 8))))
"""),
    Case("pallas_in_specs_one_short", "pallas", None, "fix_shapes",
        J + """from jax.experimental import pallas as pl


def bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[...]


x = jnp.ones((16, 8))
bias = jnp.ones((16, 8))
out = pl.pallas_call(  #!
    bias_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x, bias)
"""),
    Case("pallas_alias_int_to_float", "pallas", None, "cast_dtype",
        J + """from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale_in_place(x):
    return pl.pallas_call(  #!
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        input_output_aliases={0: 0},
        interpret=True,
    )(x)


counts = jnp.arange(32, dtype=jnp.int32).reshape(4, 8)
print(scale_in_place(counts))
"""),
    Case("pallas_kernel_missing_out_ref", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def relu_kernel(x_ref):
    x_ref[...] = jnp.maximum(x_ref[...], 0.0)


def relu(x):
    return pl.pallas_call(  #!
        relu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x)


print(relu(jnp.linspace(-1.0, 1.0, 8)))
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_tridiagonal_for_tpu", "missing_lowering", "tridiagonal", "replace_op",
        J + """from jax import export


def lanczos_prep(h):
    # reduce the symmetric Hessian to tridiagonal form before the eigen-solve
    _, diag, off_diag, _ = jax.lax.linalg.tridiagonal(h)  #!
    return diag, off_diag


h = jnp.eye(16)
exp = export.export(jax.jit(lanczos_prep), platforms=["tpu"])(h)
"""),
    Case("lowering_poly_roots_for_tpu", "missing_lowering", "eig", "replace_op",
        J + """from jax import export


def filter_poles(coeffs):
    poles = jnp.roots(coeffs, strip_zeros=False)
    return jnp.max(jnp.abs(poles))


exp = export.export(jax.jit(filter_poles), platforms=["tpu"])(jnp.array([1.0, -0.5, 0.2]))  #!
"""),
    Case("status_callback_returns_pair", "xla_status", "pure_callback", "fix_shapes",
        J + """import numpy as np


def host_lookup(ids):
    ids = np.asarray(ids)
    found = ids < 1000
    return np.where(found, ids * 2.0, 0.0).astype(np.float32), found


@jax.jit
def features(ids):
    out = jax.ShapeDtypeStruct(ids.shape, jnp.float32)
    return jax.pure_callback(host_lookup, out, ids)


print(features(jnp.array([3, 1500, 7])))  #!
""", device="cpu"),
    Case("status_io_callback_log_write", "xla_status", "io_callback", "other",
        J + """from jax.experimental import io_callback

log_file = open("train.log", "w")


@jax.jit
def train_step(w, x):
    loss, grads = jax.value_and_grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    io_callback(lambda v: log_file.write(f"loss {v}\\n"), None, loss)
    return w - 0.1 * grads


w = train_step(jnp.ones(4), jnp.ones((8, 4)))  #!
print(w)
""", device="cpu"),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_uint8_cached_batches", "recompile", None, "see_recompiles",
        J + """import numpy as np

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def normalise(images):
    return (images / 255.0 - 0.5) / 0.25


def load_batch(step):
    raw = np.zeros((8, 32, 32, 3), np.uint8)
    # augmented batches come back from the worker pool as float32
    return raw if step % 2 == 0 else raw.astype(np.float32)


for step in range(4):
    normalise(load_batch(step))  #!
"""),
    Case("recompile_prefetched_batch_sharding", "recompile", None, "see_recompiles",
        J + """import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

jax.config.update("jax_explain_cache_misses", True)
mesh = jax.make_mesh((8,), ("data",))


@jax.jit
def loss(w, x):
    return jnp.mean((x @ w) ** 2)


w = jnp.ones(16)
for step in range(4):
    x = np.ones((64, 16), np.float32)
    if step % 2:
        # batches from the prefetch thread arrive already sharded
        x = jax.device_put(x, NamedSharding(mesh, P("data")))
    loss(w, x)  #!
""", env=EIGHT_CPUS),
    Case("recompile_growing_history_list", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def smoothed(history):
    return sum(history) / len(history)


history = []
for step in range(4):
    history.append(jnp.float32(step))
    print(smoothed(history))  #!
"""),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_attention_long_document", "device_allocation", None, "shorter_input", J + """

@jax.jit
def attention_logits(tokens, table):
    x = table[tokens]  # (batch, seq, dim)
    q = k = x.reshape(x.shape[0], x.shape[1], 8, -1)
    return jnp.einsum("bqhd,bkhd->bhqk", q, k)


table = jnp.ones((1000, 64))
document = jnp.zeros((1, 200_000), jnp.int32)
logits = attention_logits(document, table)
print(logits[0, 0, 0, 0])  #!
"""),
    Case("oom_per_example_grads_embedding", "device_allocation", None, "smaller_batch", J + """

def loss(table, tokens):
    return jnp.mean(table[tokens] ** 2)


@jax.jit
def per_example_grads(table, batch):
    # DP-SGD: one gradient per example, clipped before averaging
    return jax.vmap(jax.grad(loss), in_axes=(None, 0))(table, batch)


table = jnp.ones((50_000, 256))
batch = jnp.zeros((8192, 8), jnp.int32)
grads = per_example_grads(table, batch)
print(grads[0].sum())  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_resize_area_jit", "tf2xla", "ResizeArea", "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def thumbnails(images):
    return tf.image.resize(images, (32, 32), method="area")  #!


print(thumbnails(tf.zeros((4, 128, 128, 3))).shape)
""", device="cpu"),
    Case("tf_mixup_beta_jit", "tf2xla", "RandomGamma", "replace_op", """import tensorflow as tf


def sample_beta(alpha, n):
    a = tf.random.gamma([n], alpha)  #!
    b = tf.random.gamma([n], alpha)
    return a / (a + b)


@tf.function(jit_compile=True)
def mixup(images, labels, alpha=0.2):
    lam = sample_beta(alpha, 1)[0]
    index = tf.reverse(tf.range(tf.shape(images)[0]), [0])
    mixed = lam * images + (1 - lam) * tf.gather(images, index)
    return mixed, lam * labels + (1 - lam) * tf.gather(labels, index)


images, labels = tf.ones((8, 32, 32, 3)), tf.one_hot(tf.range(8) % 4, 4)
print(mixup(images, labels)[0].shape)
""", device="cpu"),
    Case("tf_roi_crop_and_resize_jit", "tf2xla", "CropAndResize", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def roi_features(feature_map, boxes, box_indices):
    return tf.image.crop_and_resize(feature_map, boxes, box_indices, crop_size=(7, 7))  #!


features = tf.random.normal((2, 32, 32, 64))
boxes = tf.constant([[0.1, 0.1, 0.5, 0.5], [0.2, 0.3, 0.9, 0.8]])
print(roi_features(features, boxes, tf.constant([0, 1])).shape)
""", device="cpu"),
    Case("tf_specaugment_time_mask_jit", "tf_known_issue", "Fill", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def time_mask(spectrogram, max_width=10):
    frames = tf.shape(spectrogram)[0]
    width = tf.random.uniform([], 0, max_width, dtype=tf.int32)
    start = tf.random.uniform([], 0, frames - width, dtype=tf.int32)
    rest = frames - start - width
    keep = tf.concat([tf.ones([start]), tf.zeros([width]), tf.ones([rest])], 0)  #!
    return spectrogram * keep[:, None]


print(time_mask(tf.ones((100, 80))).shape)
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
