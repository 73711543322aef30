"""Make blind13: a second, blind corpus of errors today's JAX and TensorFlow raise themselves.

This batch measures ``explain-error`` on errors nobody tuned it on: forty-two mistakes, each
different from the 77 of ``tests/data/made_errors/`` and from each other, picked as a user would
hit them (a training step, a data pipeline, a model; flax, optax, equinox and Keras on top;
notebook cells), never by what the tool handles. No rule may be written from these logs before
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
  warning JAX raises from its own frame);
* ``advice``: the first fix a competent engineer gives (an :class:`AdviceKind` value).

Run ``JAX_PLATFORMS=cpu python tests/data/made_errors_blind13/make.py`` (jax/jaxlib 0.10.2,
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
    Case("tracing_float_log_notebook", "jax_tracing", "float", "other", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

@jax.jit
def train_step(p, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
    print(f"loss {float(loss):.4f}")  #!
    return jax.tree.map(lambda a, g: a - 0.1 * g, p, grads)

params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
x, y = jnp.ones((16, 3)), jnp.ones(16)
for epoch in range(3):
    params = train_step(params, x, y)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("import numpy as np")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("tracing_python_max_hinge", "jax_tracing", None, "jnp_not_np", J + """

@jax.jit
def hinge_loss(scores, labels):
    margins = 1.0 - scores * labels
    return sum(max(m, 0.0) for m in margins) / len(margins)  #!


scores = jnp.array([0.3, -1.2, 2.0, 0.9])
labels = jnp.array([1.0, -1.0, 1.0, -1.0])
print("hinge", hinge_loss(scores, labels))
"""),
    Case("tracing_np_asarray_under_grad", "jax_tracing", None, "jnp_not_np",
        J + """import numpy as np


def mse(w, x, y):
    pred = x @ w
    err = np.asarray(pred) - y  #!
    return (err ** 2).mean()


def fit(x, y, steps=10, lr=0.1):
    w = jnp.zeros(x.shape[1])
    for _ in range(steps):
        w = w - lr * jax.grad(mse)(w, x, y)
    return w


rng = np.random.default_rng(0)
x = jnp.asarray(rng.normal(size=(32, 3)), jnp.float32)
y = np.asarray(x @ jnp.array([1.0, -2.0, 0.5]))
print(fit(x, y))
"""),
    Case("tracing_unique_classes", "jax_tracing", "unique", "fixed_size", J + """

@jax.jit
def class_balance(labels):
    classes = jnp.unique(labels)  #!
    counts = (labels[:, None] == classes[None, :]).sum(0)
    return counts / labels.shape[0]


batch_labels = jnp.array([0, 2, 2, 1, 0, 2, 2, 1])
print(class_balance(batch_labels))
"""),
    Case("tracing_flax_mask_branch", "jax_tracing", None, "lax_control_flow",
        J + """import flax.linen as nn


class MaskedEncoder(nn.Module):
    features: int = 8

    @nn.compact
    def __call__(self, x, mask):
        h = nn.Dense(self.features)(x)
        if mask.any():  #!
            h = jnp.where(mask[:, None], h, 0.0)
        return nn.relu(h)


model = MaskedEncoder()
x = jnp.ones((4, 3))
mask = jnp.array([True, False, True, True])
variables = jax.jit(model.init)(jax.random.key(0), x, mask)
print(jax.tree.map(jnp.shape, variables))
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_grad_vector_loss", "jax_shape", None, "fix_shapes", J + """

def per_example_loss(w, x, y):
    return (x @ w - y) ** 2


x = jnp.ones((8, 3))
y = jnp.linspace(0.0, 1.0, 8)
w = jnp.zeros(3)
for step in range(5):
    g = jax.grad(per_example_loss)(w, x, y)  #!
    w = w - 0.1 * g
"""),
    Case("shape_grad_int_params", "jax_shape", "grad", "cast_dtype", J + """

def loss(w, x):
    return jnp.sum((x * w - 1.0) ** 2)


w = jnp.arange(3)
x = jnp.ones(3)
g = jax.grad(loss)(w, x)  #!
print(g)
"""),
    Case("shape_einsum_head_dim", "jax_shape", None, "fix_shapes", J + """

def attention(q, k, v):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1])  #!
    weights = jax.nn.softmax(scores, axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", weights, v)


batch, heads, seq = 2, 4, 10
q = jnp.ones((batch, heads, seq, 16))
k = jnp.ones((batch, heads, seq, 32))
v = jnp.ones((batch, heads, seq, 32))
out = jax.jit(attention)(q, k, v)
"""),
    Case("shape_scan_xs_lengths", "jax_shape", "scan", "fix_shapes", J + """

def rnn_step(h, inputs):
    x, m = inputs
    h = jnp.tanh(h + x) * m
    return h, h


def run_rnn(xs, masks):
    h0 = jnp.zeros(xs.shape[-1])
    return jax.lax.scan(rnn_step, h0, (xs, masks))  #!


xs = jnp.ones((5, 3))
masks = jnp.ones((4, 1))
final, hs = run_rnn(xs, masks)
"""),
    Case("shape_kv_cache_update", "jax_shape", "dynamic_update_slice", "fix_shapes", J + """

@jax.jit
def append_kv(cache, new_kv, pos):
    return jax.lax.dynamic_update_slice(cache, new_kv, (pos, 0))  #!


cache = jnp.zeros((128, 64))
for pos in range(3):
    new_kv = jnp.full((64,), float(pos))
    cache = append_kv(cache, new_kv, pos)
"""),
    Case("shape_equinox_forgot_vmap", "jax_shape", "dot_general", "fix_shapes",
        J + """import equinox as eqx

model = eqx.nn.MLP(in_size=4, out_size=2, width_size=16, depth=2, key=jax.random.key(0))


@eqx.filter_jit
def predict(model, x):
    return model(x)  #!


batch = jnp.ones((32, 4))
print(predict(model, batch).shape)
"""),
    Case("shape_optax_integer_labels", "jax_shape", None, "fix_shapes", J + """import optax


def classifier_loss(w, x, labels):
    logits = x @ w
    return optax.softmax_cross_entropy(logits, labels).mean()  #!


x = jnp.ones((32, 20))
w = jnp.zeros((20, 10))
labels = jnp.arange(32) % 10
loss, grads = jax.value_and_grad(classifier_loss)(w, x, labels)
"""),
    Case("shape_lax_add_int_float", "jax_shape", "add", "cast_dtype", J + """

def residual(x, step_index):
    return jax.lax.add(x, step_index)  #!


h = jnp.ones(3)
for t in range(2):
    h = residual(h, jnp.full((3,), t))
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_vmap_scalar_notebook", "jax_call", "vmap", "fix_shapes", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

def scaled_logits(temperature, x):
    return x / temperature

temperature = 0.7
batch = jnp.ones((8, 10))
probs = jax.nn.softmax(jax.vmap(scaled_logits)(temperature, batch))  #!
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("call_config_object_arg", "jax_call", "sgd_step", "static_args", J + """

class Config:
    def __init__(self, lr, momentum):
        self.lr = lr
        self.momentum = momentum


@jax.jit
def sgd_step(params, grads, cfg):
    return jax.tree.map(lambda p, g: p - cfg.lr * g, params, grads)


params = {"w": jnp.ones(3)}
grads = {"w": jnp.full(3, 0.5)}
cfg = Config(lr=0.1, momentum=0.9)
params = sgd_step(params, grads, cfg)  #!
"""),
    Case("call_optax_adamw_no_params", "jax_call", None, "other", J + """import optax


def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)


opt = optax.adamw(1e-3, weight_decay=1e-4)


@jax.jit
def train_step(params, opt_state, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    updates, opt_state = opt.update(grads, opt_state)  #!
    return optax.apply_updates(params, updates), opt_state


params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
opt_state = opt.init(params)
x, y = jnp.ones((16, 3)), jnp.ones(16)
for step in range(3):
    params, opt_state = train_step(params, opt_state, x, y)
"""),
    Case("call_tree_map_mismatch", "jax_call", None, "other", J + """

def head_loss(head, features, y):
    return jnp.mean((features @ head["w"] - y) ** 2)


params = {
    "encoder": {"w": jnp.ones((5, 3))},
    "head": {"w": jnp.zeros(3)},
}
x, y = jnp.ones((16, 5)), jnp.ones(16)
features = x @ params["encoder"]["w"]
grads = jax.grad(head_loss)(params["head"], features, y)
params = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)  #!
"""),
    Case("call_equinox_plain_jit", "jax_call", "predict", "other", J + """import equinox as eqx

model = eqx.nn.MLP(
    in_size=4, out_size=1, width_size=32, depth=2, activation=jax.nn.gelu, key=jax.random.key(1)
)


@jax.jit
def predict(model, x):
    return jax.vmap(model)(x)


x = jnp.ones((16, 4))
print(predict(model, x).shape)  #!
"""),
    Case("call_flax_batch_stats_immutable", "jax_call", None, "other",
        J + """import flax.linen as nn


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(8)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)  #!
        return nn.relu(x)


model = Net()
x = jnp.ones((4, 3))
variables = model.init(jax.random.key(0), x, train=False)


def loss_fn(params):
    out = model.apply({"params": params, "batch_stats": variables["batch_stats"]}, x, train=True)
    return out.mean()


grads = jax.grad(loss_fn)(variables["params"])
"""),
    Case("call_debug_nans_sqrt_grad", "jax_call", "mul", "find_nan", J + """
jax.config.update("jax_debug_nans", True)


def norm_penalty(x):
    return jnp.sqrt(jnp.sum(x ** 2))


@jax.jit
def regularised_step(x):
    return x - 0.1 * jax.grad(norm_penalty)(x)  #!


x = jnp.zeros(3)
x = regularised_step(x)
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_pmap_more_than_devices", "sharding", "squeeze", "fix_shapes", J + """

@jax.pmap
def per_device_mean(x):
    return x.mean()


batch = jnp.ones((16, 4))
means = per_device_mean(batch)  #!
""", env=EIGHT_CPUS),
    Case("sharding_mesh_shape_devices", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 4), ("data", "model"))  #!
params = jax.device_put(jnp.ones((16, 16)), NamedSharding(mesh, P(None, "model")))
""", env=EIGHT_CPUS),
    Case("sharding_pmean_unbound_axis", "sharding", None, "mesh_axis", J + """

def local_loss(w, x):
    loss = jnp.mean((x @ w) ** 2)
    return jax.lax.pmean(loss, axis_name="batch")  #!


w = jnp.ones(4)
x = jnp.ones((8, 4))
print(jax.jit(jax.value_and_grad(local_loss))(w, x))
""", env=EIGHT_CPUS),
    Case("sharding_explicit_contracting", "sharding", "dot_general", "reshard",
        J + """from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit, AxisType.Explicit))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 16)), P("data", "model"))
w = jax.device_put(jnp.ones((16, 4)), P("data", None))


@jax.jit
def dense(x, w):
    return x @ w  #!


y = dense(x, w)
""", env=EIGHT_CPUS),
    Case("sharding_constraint_rank", "sharding", None, "fix_shapes",
        J + """from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))


@jax.jit
def pooled(x):
    h = jnp.tanh(x).sum(axis=-1)
    return jax.lax.with_sharding_constraint(h, NamedSharding(mesh, P("data", "model")))  #!


x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P("data", "model")))
pooled(x)
""", env=EIGHT_CPUS),
    # ---- jax_export ---------------------------------------------------------------------------
    Case("export_symbolic_shape_branch", "jax_export", None, "other", J + """from jax import export


def pad_to_even(x):
    if x.shape[0] % 2:
        x = jnp.pad(x, (0, 1))
    return x.reshape(-1, 2).sum(-1)  #!


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(pad_to_even))(jax.ShapeDtypeStruct((b,), jnp.float32))
"""),
    Case("export_call_other_shape", "jax_export", None, "fix_shapes", J + """from jax import export


def model(x):
    return jnp.tanh(x @ jnp.ones((3, 2)))


blob = export.export(jax.jit(model))(jnp.ones((4, 3))).serialize()
restored = export.deserialize(blob)
print(restored.call(jnp.ones((8, 3))))  #!
"""),
    # ---- missing_lowering / xla_status ----------------------------------------------------------
    Case("lowering_custom_primitive", "missing_lowering", "my_softplus", "other",
        J + """from jax.extend.core import Primitive

softplus_p = Primitive("my_softplus")
softplus_p.def_impl(lambda x: jnp.log1p(jnp.exp(x)))
softplus_p.def_abstract_eval(lambda x: x)


def my_softplus(x):
    return softplus_p.bind(x)  #!


print(my_softplus(jnp.ones(3)))
print(jax.jit(my_softplus)(jnp.ones(3)))
""", device="cpu"),
    Case("lowering_hessenberg_tpu", "missing_lowering", "hessenberg", "replace_op",
        J + """import jax.scipy.linalg
from jax import export

exp = export.export(jax.jit(jax.scipy.linalg.hessenberg), platforms=["tpu"])(jnp.eye(4))  #!
""", device="tpu"),
    Case("status_callback_raises", "xla_status", "pure_callback", "other", J + """import numpy as np


def lookup_rows(ids):
    table = np.load("embeddings.npy")  #!
    return table[ids]


@jax.jit
def embed(ids):
    shape = jax.ShapeDtypeStruct(ids.shape + (16,), jnp.float32)
    return jax.pure_callback(lookup_rows, shape, ids)


print(embed(jnp.arange(4)))
""", device="cpu"),
    Case("status_callback_wrong_shape", "xla_status", None, "fix_shapes", J + """import numpy as np


def host_topk(x):
    return np.sort(np.asarray(x))[-3:]


@jax.jit
def top_scores(x):
    return jax.pure_callback(host_topk, jax.ShapeDtypeStruct((5,), x.dtype), x)


print(top_scores(jnp.arange(10.0)))  #!
""", device="cpu"),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_tf_python_float", "recompile", None, "see_recompiles",
        """import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


for step in range(10):
    scale(tf.ones(3), 0.1 * step)
print("done")
""", no_line=True),
    Case("recompile_log_compiles_last_batch", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_log_compiles", True)


@jax.jit
def train_step(w, xb):
    grad = jax.grad(lambda w: jnp.mean((xb @ w - 1.0) ** 2))(w)
    return w - 0.01 * grad


data = jnp.ones((1000, 8))
w = jnp.zeros(8)
for epoch in range(2):
    for i in range(0, 1000, 128):
        w = train_step(w, data[i : i + 128])
print(w)
""", no_line=True),
    Case("recompile_weak_type_carry", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def ema(avg, x, decay):
    return decay * avg + (1 - decay) * x


avg = 0.0
for x in jnp.linspace(0.0, 1.0, 4):
    avg = ema(avg, x, 0.99)  #!
print(avg)
"""),
    # ---- out of memory / device allocation ------------------------------------------------------
    Case("oom_knn_pairwise_distances", "device_allocation", None, "smaller_batch", J + """

@jax.jit
def nearest_neighbour(points):
    d = jnp.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    return jnp.argsort(d, axis=1)[:, 1:6]


points = jax.random.normal(jax.random.key(0), (1_000_000, 3))
neighbours = nearest_neighbour(points)
print(neighbours[:3])  #!
"""),
    Case("oom_keras_dense_megapixel", "device_allocation", None, "fix_shapes",
        """import tensorflow as tf

IMG_PIXELS = 1024 * 1024

model = tf.keras.Sequential(  #!
    [
        tf.keras.Input(shape=(IMG_PIXELS,)),
        tf.keras.layers.Dense(IMG_PIXELS, activation="relu"),
    ]
)
model.summary()
""", device="cpu"),
    # ---- pallas -------------------------------------------------------------------------------
    Case("pallas_cpu_without_interpret", "pallas", None, "other",
        J + """from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


@jax.jit
def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)  #!


print(add(jnp.ones(8), jnp.ones(8)))
""", device="cpu"),
    Case("pallas_store_wrong_dtype", "pallas", "swap", "cast_dtype",
        J + """from jax.experimental import pallas as pl


def quantize_kernel(x_ref, o_ref):
    o_ref[...] = jnp.round(x_ref[...] * 127).astype(jnp.int8)  #!


def quantize(x):
    return pl.pallas_call(
        quantize_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        interpret=True,
    )(x)


print(quantize(jnp.linspace(-1.0, 1.0, 16)))
"""),
    Case("pallas_kernel_missing_scratch", "pallas", "matmul_kernel", "other",
        J + """from jax.experimental import pallas as pl


def matmul_kernel(x_ref, w_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] @ w_ref[...]
    o_ref[...] = acc_ref[...]


def matmul(x, w):
    return pl.pallas_call(  #!
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype),
        interpret=True,
    )(x, w)


print(matmul(jnp.ones((8, 8)), jnp.ones((8, 8))).sum())
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_count_in_loop_zeros", "tf_known_issue", "Fill", "fixed_size",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def positive_slots(scores):
    count = tf.constant(0)
    for i in tf.range(tf.shape(scores)[0]):
        count += tf.cast(scores[i] > 0, tf.int32)
    return tf.zeros([count, 4])  #!


print(positive_slots(tf.constant([0.3, -1.0, 2.0, 0.7])))
""", device="cpu"),
    Case("tf_eig_spectrum_jit", "tf2xla", "Eig", "replace_op", """import tensorflow as tf


@tf.function(jit_compile=True)
def spectral_radius(adjacency):
    eigenvalues, _ = tf.linalg.eig(adjacency)  #!
    return tf.reduce_max(tf.abs(eigenvalues))


graph = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
print(spectral_radius(graph))
""", device="cpu"),
    Case("tf_ragged_padding_jit", "tf2xla", "RaggedTensorToTensor", "replace_op",
        """import tensorflow as tf


@tf.function(jit_compile=True)
def embed_batch(token_ids, row_lengths, table):
    ragged = tf.RaggedTensor.from_row_lengths(token_ids, row_lengths)
    padded = ragged.to_tensor(default_value=0)  #!
    return tf.reduce_mean(tf.gather(table, padded), axis=1)


table = tf.random.normal((100, 8))
print(embed_batch(tf.constant([5, 9, 2, 7, 7, 1]), tf.constant([3, 1, 2]), table))
""", device="cpu"),
]


def main(argv: list[str]) -> int:
    """The machinery's command line (``--only``, ``--truths``) on this folder's cases."""
    MADE.HERE, MADE.CASES = HERE, CASES  # it writes beside this file
    return MADE.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
