"""Make blind15: a third blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch measures ``explain-error`` on errors nobody tuned it on: about thirty mistakes, each
different from the 77 of ``tests/data/made_errors/``, the 42 of ``tests/data/made_errors_blind13/``
and from each other, picked as a user would hit them (a training step, a data pipeline, a model;
flax, optax, equinox and Keras on top; notebook cells; a library that re-raises), never by what
the tool handles. No rule may be written from these logs before they are scored, and the folder
is sealed to everyone but its maker.

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

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind15/make.py`` (jax/jaxlib 0.10.2,
flax 0.12.8, optax 0.2.8, equinox 0.13.8, TensorFlow 2.21 and Keras 3.15 on CPU made the
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
    Case("tracing_arange_positions_notebook", "jax_tracing", "arange", "static_args",
        """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def sinusoidal(seq_len, dim):
    pos = jnp.arange(seq_len)[:, None]  #!
    i = jnp.arange(dim // 2)[None, :]
    angle = pos / (10000 ** (2 * i / dim))
    return jnp.concatenate([jnp.sin(angle), jnp.cos(angle)], axis=-1)

@jax.jit
def embed(tokens, lengths, table):
    max_len = lengths.max()
    x = table[tokens]
    return x + sinusoidal(max_len, table.shape[1])

table = jnp.ones((100, 16))
tokens = jnp.zeros((4, 12), jnp.int32)
out = embed(tokens, jnp.array([12, 9, 7, 3]), table)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("import numpy as np")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_repeat_ragged_counts", "jax_tracing", "repeat", "fixed_size", J + """

@jax.jit
def expand_segments(values, lengths):
    # one row per token: repeat each segment's value by its length
    return jnp.repeat(values, lengths)  #!


values = jnp.array([0.5, 1.5, 2.5])
lengths = jnp.array([2, 1, 3])
print(expand_segments(values, lengths))
"""),
    Case("tracing_flax_dropout_train_flag", "jax_tracing", None, "static_args",
        J + """import flax.linen as nn


class Classifier(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.relu(nn.Dense(32)(x))
        x = nn.Dropout(0.1, deterministic=not train)(x)  #!
        return nn.Dense(4)(x)


model = Classifier()
x = jnp.ones((8, 16))
params = model.init(jax.random.key(0), x, train=False)


@jax.jit
def forward(params, x, train, key):
    return model.apply(params, x, train, rngs={"dropout": key})


logits = forward(params, x, True, jax.random.key(1))
"""),
    Case("tracing_scan_length_from_arg", "jax_tracing", "scan", "static_args", J + """

def rollout(state, n_steps):
    def step(s, _):
        s = 0.9 * s + 0.1
        return s, s
    _, trajectory = jax.lax.scan(step, state, None, length=n_steps)  #!
    return trajectory


simulate = jax.jit(rollout)
print(simulate(jnp.zeros(2), 10).shape)
"""),
    Case("tracing_nnx_closure_update", "jax_tracing", None, "other",
        J + """from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.total = nnx.Variable(jnp.zeros(()))
        self.linear = nnx.Linear(3, 1, rngs=nnx.Rngs(0))

    def __call__(self, x):
        self.total.value = self.total.value + x.sum()  #!
        return self.linear(x)


model = Counter()


@jax.jit
def run(x):
    return model(x)


print(run(jnp.ones((2, 3))))
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_take_along_axis_nll", "jax_shape", "take_along_axis", "fix_shapes", J + """

def nll_loss(logits, labels):
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(log_probs, labels, axis=-1)  #!
    return -picked.mean()


logits = jnp.zeros((32, 10))
labels = jnp.arange(32) % 10
print(jax.jit(nll_loss)(logits, labels))
"""),
    Case("shape_split_qkv_uneven", "jax_shape", "split", "fix_shapes", J + """

def self_attention(x, w_qkv):
    qkv = x @ w_qkv
    q, k, v = jnp.split(qkv, 3, axis=-1)  #!
    weights = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
    return weights @ v


d_model = 64
w_qkv = jnp.ones((d_model, 2 * d_model))
out = jax.jit(self_attention)(jnp.ones((10, d_model)), w_qkv)
"""),
    Case("shape_collate_ragged_library", "jax_shape", None, "fix_shapes", J + """
import numpy as np
import datalib

rng = np.random.default_rng(0)
examples = [rng.normal(size=(n, 4)).astype(np.float32) for n in (7, 7, 5, 7)]
for batch in datalib.batches(examples, batch_size=4):  #!
    print(batch.shape)
""", extra={"site-packages/datalib/__init__.py": '''"""A small data-loading library."""
import jax.numpy as jnp


class CollateError(ValueError):
    """The library's own error."""


def collate(items):
    try:
        return jnp.stack(items)
    except ValueError as err:
        raise CollateError(f"could not collate a batch of {len(items)} examples") from err


def batches(examples, batch_size):
    for start in range(0, len(examples), batch_size):
        yield collate(examples[start : start + batch_size])
'''}),
    Case("shape_select_mask_shape", "jax_shape", "select", "fix_shapes", J + """

@jax.jit
def masked_fill(scores, mask):
    return jax.lax.select(mask, scores, jnp.full_like(scores, -1e9))  #!


scores = jnp.ones((2, 4, 4))
mask = jnp.tril(jnp.ones((4, 4), bool))
print(masked_fill(scores, mask))
"""),
    Case("shape_scan_grad_rnn_weights", "jax_shape", "dot_general", "fix_shapes", J + """

def rnn_loss(params, xs):
    def cell(h, x):
        h = jnp.tanh(params["wx"] @ x + params["wh"] @ h)  #!
        return h, h

    _, hs = jax.lax.scan(cell, jnp.zeros(8), xs)
    return jnp.mean(hs ** 2)


params = {"wx": jnp.ones((8, 3)), "wh": jnp.ones((8, 16))}
xs = jnp.ones((20, 3))
grads = jax.jit(jax.grad(rnn_loss))(params, xs)
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_grad_aux_tuple", "jax_call", None, "other", J + """

def loss_with_metrics(w, x, y):
    pred = x @ w
    loss = jnp.mean((pred - y) ** 2)
    return loss, {"mae": jnp.mean(jnp.abs(pred - y))}


w = jnp.zeros(4)
x, y = jnp.ones((32, 4)), jnp.ones(32)
for step in range(3):
    grads = jax.grad(loss_with_metrics)(w, x, y)  #!
    w = w - 0.1 * grads
"""),
    Case("call_debug_infs_inverse_freq", "jax_call", "div", "find_nan", J + """
jax.config.update("jax_debug_infs", True)


@jax.jit
def class_weights(counts):
    return counts.sum() / counts  #!


counts = jnp.array([120.0, 30.0, 0.0, 50.0])
print(class_weights(counts))
"""),
    Case("call_checkify_check_plain_jit", "jax_call", None, "other",
        J + """from jax.experimental import checkify


@jax.jit
def safe_log(x):
    checkify.check(jnp.all(x > 0), "log of a non-positive value")  #!
    return jnp.log(x)


print(safe_log(jnp.array([1.0, 2.0, 3.0])))
"""),
    Case("call_equinox_dropout_no_key", "jax_call", None, "other", J + """import equinox as eqx


class Net(eqx.Module):
    layers: list
    dropout: eqx.nn.Dropout

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.layers = [eqx.nn.Linear(8, 32, key=k1), eqx.nn.Linear(32, 1, key=k2)]
        self.dropout = eqx.nn.Dropout(0.1)

    def __call__(self, x, key=None):
        x = jax.nn.relu(self.layers[0](x))
        x = self.dropout(x, key=key)  #!
        return self.layers[1](x)


@eqx.filter_value_and_grad
def loss(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred[:, 0] - y) ** 2)


model = Net(jax.random.key(0))
value, grads = loss(model, jnp.ones((16, 8)), jnp.ones(16))
"""),
    Case("call_vmap_axis_beyond_rank", "jax_call", "vmap", "fix_shapes", J + """

def normalise(features):
    return (features - features.mean()) / (features.std() + 1e-6)


batch = jnp.ones((32, 10))
per_feature = jax.vmap(normalise, in_axes=2)(batch)  #!
"""),
    Case("call_pure_callback_vmap_method", "jax_call", "pure_callback", "other",
        J + """import numpy as np


def host_median(x):
    return np.median(np.asarray(x)).astype(np.float32)


def robust_center(x):
    med = jax.pure_callback(host_median, jax.ShapeDtypeStruct((), jnp.float32), x)  #!
    return x - med


batch = jnp.arange(12.0).reshape(3, 4)
print(jax.vmap(robust_center)(batch))
"""),
    Case("call_optax_state_after_new_param", "jax_call", None, "other", J + """import optax


def loss_fn(params, x, y):
    pred = (x @ params["w"] + params["b"]) * params.get("scale", 1.0)
    return jnp.mean((pred - y) ** 2)


opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3))
params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}
opt_state = opt.init(params)

# fine-tuning: add a learnable output scale to the restored model
params["scale"] = jnp.ones(1)
x, y = jnp.ones((16, 4)), jnp.ones((16, 1))
grads = jax.grad(loss_fn)(params, x, y)
updates, opt_state = opt.update(grads, opt_state, params)  #!
params = optax.apply_updates(params, updates)
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_shard_map_ragged_batch", "sharding", "shard_map", "fix_shapes",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def local_loss(w, xb):
    return jax.lax.pmean(jnp.mean((xb @ w) ** 2), "data")


loss = jax.jit(jax.shard_map(local_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P()))
w = jnp.ones(4)
last_batch = jnp.ones((60, 4))
print(loss(w, last_batch))  #!
""", env=EIGHT_CPUS),
    Case("sharding_ppermute_ring_overflow", "sharding", "ppermute", "other",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("ring",))
n = 8


def pass_right(block):
    return jax.lax.ppermute(block, "ring", perm=[(i, i + 1) for i in range(n)])  #!


f = jax.shard_map(pass_right, mesh=mesh, in_specs=P("ring"), out_specs=P("ring"))
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("ring")))
print(jax.jit(f)(x))
""", env=EIGHT_CPUS),
    Case("sharding_constraint_without_mesh", "sharding", "with_sharding_constraint", "other",
        J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


@jax.jit
def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    h = jax.lax.with_sharding_constraint(h, P("data", "model"))  #!
    return h @ w2


x, w1, w2 = jnp.ones((8, 16)), jnp.ones((16, 32)), jnp.ones((32, 4))
print(mlp(x, w1, w2).shape)
""", env=EIGHT_CPUS),
    Case("sharding_explicit_add_conflict", "sharding", "add", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 8)), P("data", None))
bias = jax.device_put(jnp.ones((8, 8)), P(None, "data"))


@jax.jit
def add_bias(x, bias):
    return x + bias  #!


print(add_bias(x, bias))
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_in_specs_count", "sharding", "shard_map", "other",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def sgd_update(params, grads, lr):
    return params - lr * jax.lax.pmean(grads, "data")


update = jax.shard_map(sgd_update, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
params = jnp.ones(4)
grads = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data")))
params = update(params, grads, 0.1)  #!
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_unjitted_function", "jax_export", None, "other", J + """from jax import export


def predict(params, x):
    return jax.nn.softmax(x @ params["w"] + params["b"])


params = {"w": jnp.ones((4, 3)), "b": jnp.zeros(3)}
exported = export.export(predict)(params, jnp.ones((1, 4)))  #!
open("model.bin", "wb").write(exported.serialize())
"""),
    Case("export_symbolic_reshape_uneven", "jax_export", None, "other",
        J + """from jax import export


def to_rgb_pixels(images):
    b = images.shape[0]
    return images.reshape(b, -1, 3).mean(axis=1)  #!


b, h, w = export.symbolic_shape("b, h, w")
spec = jax.ShapeDtypeStruct((b, h, w), jnp.float32)
exp = export.export(jax.jit(to_rgb_pixels))(spec)
"""),
    Case("export_two_symbolic_scopes", "jax_export", None, "other", J + """from jax import export


def encoder(tokens, mask):
    return (tokens * mask).sum(-1)


(batch,) = export.symbolic_shape("batch")
(seq,) = export.symbolic_shape("seq")
tokens = jax.ShapeDtypeStruct((batch, seq), jnp.float32)
mask = jax.ShapeDtypeStruct((batch, seq), jnp.float32)
exp = export.export(jax.jit(encoder))(tokens, mask)  #!
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_sqrtm_for_cuda", "missing_lowering", "schur", "replace_op",
        J + """import jax.scipy.linalg
from jax import export


def whiten(cov, x):
    root = jax.scipy.linalg.sqrtm(cov)
    return jnp.linalg.solve(root, x)


exp = export.export(jax.jit(whiten), platforms=["cuda"])(jnp.eye(4), jnp.ones(4))  #!
""", device="gpu"),
    Case("status_callback_argsort_dtype", "xla_status", "pure_callback", "cast_dtype",
        J + """import numpy as np


def host_rank(scores):
    return np.argsort(np.argsort(-np.asarray(scores)))


@jax.jit
def rank_weights(scores):
    ranks = jax.pure_callback(host_rank, jax.ShapeDtypeStruct(scores.shape, scores.dtype), scores)
    return 1.0 / (1.0 + ranks)


print(rank_weights(jnp.array([0.3, 0.9, 0.1, 0.5])))  #!
""", device="cpu"),
    Case("status_tpu_compile_option_on_cpu", "xla_status", None, "other", J + """

def train_step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)


# tuned for the TPU pod; run here on a laptop for a quick test
OPTIONS = {"xla_tpu_enable_latency_hiding_scheduler": "true"}
lowered = jax.jit(train_step).lower(jnp.ones(8), jnp.ones((32, 8)))
compiled = lowered.compile(compiler_options=OPTIONS)  #!
print(compiled(jnp.ones(8), jnp.ones((32, 8))))
"""),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_pytree_optional_key", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def forward(batch):
    x = batch["x"]
    if "mask" in batch:
        x = x * batch["mask"]
    return x.sum()


for step in range(4):
    batch = {"x": jnp.ones((8, 4))}
    if step % 2:
        batch["mask"] = jnp.ones((8, 4))
    forward(batch)  #!
"""),
    Case("recompile_tf_varying_batches", "recompile", None, "see_recompiles",
        """import numpy as np
import tensorflow as tf


@tf.function
def train_step(x):
    return tf.reduce_mean(tf.square(x))


rng = np.random.default_rng(0)
for n in range(10, 20):
    train_step(rng.normal(size=(n, 3)).astype(np.float32))
print("done")
""", no_line=True),
    Case("recompile_tf_function_in_loop", "recompile", None, "see_recompiles",
        """import tensorflow as tf


def normalise(x):
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)


dataset = tf.data.Dataset.from_tensor_slices(tf.random.normal((64, 8))).batch(8)
for batch in dataset:
    step = tf.function(normalise)
    out = step(batch)
print("done")
""", no_line=True),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_one_hot_smoothed_targets", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def smoothed_targets(labels, eps=0.1):
    vocab = 256_000
    one_hot = jax.nn.one_hot(labels, vocab)
    return one_hot * (1.0 - eps) + eps / vocab


labels = jnp.zeros((64 * 2048,), jnp.int32)
targets = smoothed_targets(labels)
print(targets.sum())  #!
"""),
    Case("oom_tf_embedding_vocab", "device_allocation", None, "fix_shapes",
        """import tensorflow as tf

VOCAB = 2_000_000_000

embed = tf.keras.layers.Embedding(VOCAB, 256)
tokens = tf.constant([[1, 2, 3]])
print(embed(tokens).shape)  #!
""", device="cpu"),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_kernel_returns_value", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def gelu_kernel(x_ref, o_ref):
    x = x_ref[...]
    return 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


def gelu(x):
    return pl.pallas_call(  #!
        gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x)


print(gelu(jnp.linspace(-2.0, 2.0, 8)))
"""),
    Case("pallas_program_id_axis", "pallas", "program_id", "fix_shapes",
        J + """from jax.experimental import pallas as pl


def row_scale_kernel(x_ref, o_ref):
    row = pl.program_id(1)  #!
    o_ref[...] = x_ref[...] * (row + 1)


x = jnp.ones((16, 8))
out = pl.pallas_call(
    row_scale_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x)
"""),
    Case("pallas_store_block_shape", "pallas", "swap", "fix_shapes",
        J + """from jax.experimental import pallas as pl


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].sum(axis=1)  #!


x = jnp.ones((16, 8))
out = pl.pallas_call(
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((16, 8), x.dtype),
    grid=(4,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i: (i, 0)),
    interpret=True,
)(x)
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_token_counts_jit", "tf2xla", "UniqueWithCounts", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def token_frequencies(token_ids):
    tokens, _, counts = tf.unique_with_counts(token_ids)  #!
    return tokens, tf.cast(counts, tf.float32) / tf.cast(tf.size(token_ids), tf.float32)


print(token_frequencies(tf.constant([4, 1, 4, 7, 1, 4])))
""", device="cpu"),
    Case("tf_decode_png_jit", "tf2xla", "_Arg", "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def preprocess(png_bytes):
    image = tf.io.decode_png(png_bytes, channels=3)
    image = tf.image.resize(tf.cast(image, tf.float32), (32, 32))
    return image / 255.0


png = tf.io.encode_png(tf.zeros((8, 8, 3), tf.uint8))
print(preprocess(png).shape)  #!
""", device="cpu"),
    Case("tf_category_lookup_jit", "tf2xla", "LookupTableFindV2", "replace_op",
        """import tensorflow as tf

# product id -> category index, built from the catalogue
categories = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer(
        tf.constant([1001, 1002, 2001], tf.int64), tf.constant([0, 0, 1], tf.int64)
    ),
    default_value=2,
)
category_embeddings = tf.Variable(tf.random.normal((3, 8)))


@tf.function(jit_compile=True)
def basket_embedding(product_ids):
    ids = categories.lookup(product_ids)  #!
    return tf.reduce_mean(tf.gather(category_embeddings, ids), axis=0)


print(basket_embedding(tf.constant([1001, 2001, 3005], tf.int64)))
""", device="cpu"),
    Case("tf_poisson_noise_jit", "tf2xla", "RandomPoissonV2", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def shot_noise(image, photons=50.0):
    counts = tf.random.poisson([], image * photons)  #!
    return counts / photons


print(shot_noise(tf.fill((4, 4), 0.5)).shape)
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
