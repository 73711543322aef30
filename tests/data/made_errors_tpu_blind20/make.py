"""Make a blind batch of errors JAX raises on a real TPU ("blind20"): run on a TPU host only.

Eighteen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18 and blind19 batches: a scan that keeps every state of a long simulation,
label-smoothed one-hot targets over a large vocabulary, parameter snapshots kept for weight
averaging until the HBM is full, Pallas kernels refused in new ways (a one-argument index map
for a 2-D grid, an input/output alias naming an input that is not there, ``lgamma`` and
``top_k`` inside a kernel), ``in_shardings`` for one of two arguments, ``tridiagonal`` on the
chip, an export for float32 called with bfloat16 and one for ``cuda`` called on the chip,
``pure_callback`` under ``vmap``, reverse-mode through a ``fori_loop`` of a traced trip count,
an int as a PRNG key, a string to a jitted function, a boolean mask under ``jit``, an early
stop ``if`` on a traced loss, and a switch to bfloat16 after the warm-up steps.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind20/make.py`` (``--only NAME`` remakes
some); the tests read the files, never run this.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).parent


def _tpu_machinery() -> ModuleType:
    path = HERE.parent / "made_errors_tpu" / "make.py"
    spec = importlib.util.spec_from_file_location("made_errors_tpu_make", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


#: The TPU corpus's module, its globals (``HERE``, ``CASES``) set to this folder's by :func:`main`.
TPU: Any = _tpu_machinery()
Case = TPU.Case
ON_TPU = TPU.ON_TPU
J = TPU.J
P = TPU.P
#: The cases' headers with one more import (their first lines stay as the programs read).
J_NUMPY = J + "import numpy as np"
J_NAMED = J + "from jax.sharding import NamedSharding, PartitionSpec as P"
J_SPEC = J + "from jax.sharding import PartitionSpec as P"
#: A TPU host's default platforms (``JAX_PLATFORMS`` unset): the chip and the host's CPU.
TPU_AND_CPU = {"JAX_PLATFORMS": "tpu,cpu"}

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b20_scan_keeps_every_state", "out_of_memory", None, "shorter_input", J + """

def step(state, _):
    state = jnp.tanh(state @ state.T * 1e-3)
    return state, state

@jax.jit
def simulate(state0):
    final, trajectory = jax.lax.scan(step, state0, None, length=5000)
    return final, trajectory

final, trajectory = simulate(jnp.ones((1024, 1024), jnp.float32))  #!
print(trajectory.shape)
""", env=ON_TPU),
    Case("b20_smoothed_one_hot_targets", "out_of_memory", None, "smaller_batch", J + """

vocab, smoothing = 128000, 0.1

@jax.jit
def make_targets(labels):
    one_hot = jax.nn.one_hot(labels, vocab, dtype=jnp.float32)
    return one_hot * (1.0 - smoothing) + smoothing / vocab

labels = jnp.zeros((32, 2048), jnp.int32)
targets = make_targets(labels)  #!
print(targets.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b20_weight_averaging_snapshots", "device_allocation", None, "free_memory", J + """

@jax.jit
def train_epoch(params):
    return jax.tree.map(lambda w: w * 0.999 + 1e-4, params)

params = {"w": jnp.ones((24, 8192, 4096), jnp.float32)}
snapshots = []
for epoch in range(8):
    params = train_epoch(params)  #!
    snapshots.append(params)
    jax.block_until_ready(params)
    print("epoch", epoch, "snapshots kept", len(snapshots))
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b20_pallas_index_map_one_arg_2d_grid", "pallas", None, "fix_shapes", P + """

def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

x = jnp.ones((1024, 512), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(  #!
    add_kernel,
    grid=(4, 4),
    in_specs=[spec, spec],
    out_specs=spec,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
)(x, x)
print(out.sum())
""", env=ON_TPU),
    Case("b20_pallas_alias_input_out_of_range", "pallas", None, "fix_shapes", P + """

def inplace_scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(  #!
    inplace_scale_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    input_output_aliases={1: 0},
)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b20_pallas_lgamma_in_kernel", "pallas", "lgamma", "replace_op", P + """

def log_gamma_kernel(x_ref, o_ref):
    o_ref[...] = jax.lax.lgamma(x_ref[...])

x = jnp.full((8, 128), 3.5, jnp.float32)
out = pl.pallas_call(log_gamma_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out[0, 0])
""", env=ON_TPU),
    Case("b20_pallas_top_k_in_kernel", "pallas", "top_k", "replace_op", P + """

def top8_kernel(scores_ref, o_ref):
    values, _ = jax.lax.top_k(scores_ref[...], 8)
    o_ref[...] = values

scores = jnp.ones((8, 128), jnp.float32)
best = pl.pallas_call(top8_kernel,  #!
                      out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32))(scores)
print(best)
""", env=ON_TPU),
    # ---- sharding: specs and meshes on the one chip --------------------------------------------
    Case("b20_in_shardings_for_one_of_two_args", "sharding", None, "other", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))
data_sharding = NamedSharding(mesh, P("data"))

def predict(params, x):
    return x @ params

predict_jit = jax.jit(predict, in_shardings=(data_sharding,))
print(predict_jit(jnp.ones((512, 10)), jnp.ones((64, 512))).shape)  #!
""", env=ON_TPU),
    # ---- missing_lowering: linalg without a TPU lowering ---------------------------------------
    Case("b20_tridiagonal_for_lanczos", "missing_lowering", "tridiagonal", "replace_op", J + """
from jax.lax.linalg import tridiagonal

a = jax.random.normal(jax.random.key(0), (128, 128))
a = (a + a.T) / 2
t, d, e, taus = tridiagonal(a)  #!
print(d[:4], e[:4])
""", env=ON_TPU),
    # ---- jax_export: an artifact and its call ---------------------------------------------------
    Case("b20_export_f32_called_with_bf16", "jax_export", None, "cast_dtype", J + """
from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.ones((256, 10), x.dtype))

exported = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((32, 256), jnp.float32))
batch = jnp.ones((32, 256), jnp.bfloat16)
print(exported.call(batch).shape)  #!
""", env=ON_TPU),
    Case("b20_export_for_cuda_called_on_tpu", "jax_export", None, "other", J + """
from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.ones((256, 10), x.dtype))

spec = jax.ShapeDtypeStruct((32, 256), jnp.float32)
exported = export.export(jax.jit(classify), platforms=["cuda"])(spec)
print(exported.call(jnp.ones((32, 256))).shape)  #!
""", env=ON_TPU),
    # ---- jax_call: how a call or an array was used ---------------------------------------------
    Case("b20_pure_callback_under_vmap", "jax_call", None, "other", J_NUMPY + """

def host_median(x):
    return np.median(np.asarray(x)).astype(np.float32)

def robust_center(x):
    median = jax.pure_callback(host_median, jax.ShapeDtypeStruct((), jnp.float32), x)  #!
    return x - median

batch = jnp.ones((16, 1024), jnp.float32)
print(jax.vmap(robust_center)(batch).shape)
""", env=ON_TPU),
    Case("b20_grad_through_fori_loop_traced_steps", "jax_call", None, "lax_control_flow", J + """

def rollout_loss(velocity, n_steps):
    def body(i, position):
        return position + velocity * 0.01
    final = jax.lax.fori_loop(0, n_steps, body, jnp.zeros_like(velocity))
    return jnp.sum(final ** 2)

grad_fn = jax.jit(jax.grad(rollout_loss))
print(grad_fn(jnp.ones((1024,)), 100))  #!
""", env=ON_TPU),
    Case("b20_int_seed_as_key", "jax_call", None, "prng_key", J + """

seed = 42
noise = jax.random.normal(seed, (1024, 1024))  #!
print(noise.std())
""", env=ON_TPU),
    Case("b20_activation_name_to_jit", "jax_call", None, "static_args", J + """

@jax.jit
def dense(x, w, activation):
    y = x @ w
    return jax.nn.relu(y) if activation == "relu" else jnp.tanh(y)

print(dense(jnp.ones((64, 512)), jnp.ones((512, 256)), "relu").shape)  #!
""", env=ON_TPU),
    # ---- jax_tracing / recompile ---------------------------------------------------
    Case("b20_boolean_mask_select_in_jit", "jax_tracing", None, "fixed_size", J + """

@jax.jit
def positive_mean(x):
    positives = x[x > 0]  #!
    return positives.mean()

print(positive_mean(jnp.linspace(-1.0, 1.0, 4096)))
""", env=ON_TPU),
    Case("b20_early_stop_if_in_jit", "jax_tracing", None, "lax_control_flow", J + """

@jax.jit
def train_step(w, x):
    loss = jnp.mean((x @ w) ** 2)
    if loss < 1e-3:  #!
        return w, loss
    return w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w), loss

print(train_step(jnp.ones((512, 8)), jnp.ones((64, 512)))[1])
""", env=ON_TPU),
    Case("b20_bf16_switch_after_warmup", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def forward(w, x):
    return jnp.tanh(x @ w).mean()

w = jnp.ones((1024, 1024), jnp.float32)
for step in range(4):
    dtype = jnp.float32 if step < 2 else jnp.bfloat16
    print(step, float(forward(w.astype(dtype), jnp.ones((256, 1024), dtype))))  #!
""", env=ON_TPU),
]

# fmt: on


def main(argv: list[str]) -> int:
    """The TPU corpus's ``main``, writing this folder's cases beside this file."""
    TPU.HERE = HERE
    TPU.CASES = CASES
    TPU.__doc__ = __doc__  # its --help names this batch
    result: int = TPU.main(argv)
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
