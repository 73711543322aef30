"""Make a blind batch of errors JAX raises on a real TPU ("blind28"): run on a TPU host only.

Sixteen TPU errors nobody has tuned explain-error on (written 2026-12-08), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15 to
blind27 batches: a bilinear layer whose einsum keeps a (batch, in, out) intermediate, random
Fourier features of a whole dataset in one call, an ensemble stacked on the device beside its
members and the training set, diffusion noise drawn up front for every sampling step, Pallas
kernels refused in new ways (a row sum stored without its kept axis, a kernel exported for
``tpu`` and ``cpu`` at once, batched bfloat16 attention scores without a float32 accumulator,
int8 blocks sized for float32 tiles), a ``shard_map`` spec on a scalar learning rate, a
``while_loop`` condition that returns a vector, an LSTM ``scan`` whose carry comes back as a
list, a batch size passed to ``jit`` as a traced argument, ``has_aux=True`` on a loss that
returns only the loss, a prompt prefilled into a shorter KV cache, ``vmap`` over an exported
function's ``call``, and a Glorot initializer given a bias's shape.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-08, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind28/make.py`` (``--only NAME`` remakes
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

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b28_bilinear_layer_einsum_intermediate", "out_of_memory", None, "smaller_batch",
         J + """

@jax.jit
def bilinear_scores(x, w, y):
    return jnp.einsum("bi,ijk,bj->bk", x, w, y)

x = jnp.ones((32768, 512), jnp.float32)
y = jnp.ones((32768, 512), jnp.float32)
w = jnp.ones((512, 512, 256), jnp.float32) * 0.01
out = bilinear_scores(x, w, y)  #!
print(out.shape)
""", env=ON_TPU),
    Case("b28_random_fourier_features_whole_dataset", "out_of_memory", None, "smaller_batch",
         J + """

@jax.jit
def fit_random_features(x, y, omega):
    z = jnp.cos(x @ omega) * (2.0 / omega.shape[1]) ** 0.5
    gram = z.T @ z + 1e-3 * jnp.eye(omega.shape[1])
    return jnp.linalg.solve(gram, z.T @ y)

x = jax.random.normal(jax.random.key(0), (1048576, 64))
y = jnp.sin(x[:, 0])
omega = jax.random.normal(jax.random.key(1), (64, 8192))
coef = fit_random_features(x, y, omega)  #!
print(coef[:4])
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b28_ensemble_stacked_beside_members", "device_allocation", None, "other", J + """

@jax.jit
def init_member(key):
    return {"w": jax.random.normal(key, (16384, 16384)) * 0.01}

train_x = jnp.zeros((28672, 256, 256), jnp.float32)
members = [init_member(jax.random.key(i)) for i in range(5)]
print("train_x", train_x.nbytes / 2**30, "GiB, members", len(members), "GiB")
ensemble = jax.tree.map(lambda *ws: jnp.stack(ws), *members)  #!
print(ensemble["w"].shape)
""", env=ON_TPU),
    Case("b28_diffusion_noise_drawn_for_every_step", "device_allocation", None, "other", J + """

num_steps = 1000
keys = jax.random.split(jax.random.key(0), num_steps)
noise = []
for t in range(num_steps):
    noise.append(jax.random.normal(keys[t], (32, 4, 512, 512)))  #!
    if t % 25 == 0:
        print("step", t, "noise kept", len(noise) * 128 / 1024, "GiB")
print(len(noise))
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b28_pallas_row_sum_without_keepdims", "pallas", None, "fix_shapes", P + """

def row_sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1)  #!

x = jnp.ones((256, 512), jnp.float32)
sums = pl.pallas_call(row_sum_kernel,
                      out_shape=jax.ShapeDtypeStruct((256, 1), jnp.float32))(x)
print(sums[:4])
""", env=ON_TPU),
    Case("b28_pallas_kernel_exported_for_tpu_and_cpu", "pallas", None, "other", P + """
from jax import export

def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

exported = export.export(jax.jit(double), platforms=("tpu", "cpu"))(  #!
    jax.ShapeDtypeStruct((256, 256), jnp.float32))
print(exported.platforms)
""", env=ON_TPU),
    Case("b28_pallas_bf16_attention_scores_accumulator", "pallas", None, "cast_dtype", P + """

def scores_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.einsum("hqd,hkd->hqk", q_ref[...], k_ref[...]) * 0.125  #!

q = jnp.ones((4, 128, 64), jnp.bfloat16)
k = jnp.ones((4, 128, 64), jnp.bfloat16)
scores = pl.pallas_call(scores_kernel,
                        out_shape=jax.ShapeDtypeStruct((4, 128, 128), jnp.bfloat16))(q, k)
print(scores.shape)
""", env=ON_TPU),
    Case("b28_pallas_int8_blocks_sized_for_float32", "pallas", None, "fix_shapes", P + """

def dequantize_kernel(q_ref, scale_ref, o_ref):
    o_ref[...] = q_ref[...].astype(jnp.float32) * scale_ref[...]

q = jnp.ones((4096, 1024), jnp.int8)
scale = jnp.full((4096, 1), 0.02, jnp.float32)
rows = pl.BlockSpec((8, 1024), lambda i: (i, 0))
out = pl.pallas_call(dequantize_kernel, grid=(512,),  #!
                     in_specs=[rows, pl.BlockSpec((8, 1), lambda i: (i, 0))], out_specs=rows,
                     out_shape=jax.ShapeDtypeStruct(q.shape, jnp.float32))(q, scale)
print(out.sum())
""", env=ON_TPU),
    # ---- sharding -------------------------------------------------------------------------------
    Case("b28_shard_map_spec_on_scalar_learning_rate", "sharding", "shard_map", "fix_shapes",
         J + """from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def sgd_step(w, x, lr):
    grad = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    return w - lr * jax.lax.pmean(grad, "data")

step = jax.shard_map(sgd_step, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P())
w = step(jnp.ones((128, 10)), jnp.ones((64, 128)), jnp.float32(0.01))  #!
print(w.shape)
""", env=ON_TPU),
    # ---- jax_shape / jax_tracing / jax_call ----------------------------------------------------
    Case("b28_while_loop_cond_returns_vector", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def newton_sqrt(a):
    def cond(state):
        x, step = state
        return jnp.abs(x * x - a) > 1e-6

    def body(state):
        x, step = state
        return 0.5 * (x + a / x), step + 1

    x, steps = jax.lax.while_loop(cond, body, (a, 0))  #!
    return x, steps

print(newton_sqrt(jnp.arange(1.0, 257.0)))
""", env=ON_TPU),
    Case("b28_lstm_scan_carry_returned_as_list", "jax_shape", "scan", "other", J + """

w_x = jnp.ones((64, 512)) * 0.01
w_h = jnp.ones((128, 512)) * 0.01

def lstm_step(carry, x):
    h, c = carry
    i, f, g, o = jnp.split(x @ w_x + h @ w_h, 4, axis=-1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return [h, c], h

xs = jnp.ones((100, 32, 64))
init = (jnp.zeros((32, 128)), jnp.zeros((32, 128)))
(h, c), hs = jax.lax.scan(lstm_step, init, xs)  #!
print(hs.shape)
""", env=ON_TPU),
    Case("b28_prefill_prompt_longer_than_kv_cache", "jax_shape", "dynamic_update_slice",
         "shorter_input", J + """

@jax.jit
def prefill(cache_k, new_k):
    return jax.lax.dynamic_update_slice(cache_k, new_k, (0, 0, 0, 0))  #!

max_len = 1024
cache_k = jnp.zeros((1, max_len, 8, 64), jnp.bfloat16)
prompt_k = jnp.ones((1, 2048, 8, 64), jnp.bfloat16)
cache_k = prefill(cache_k, prompt_k)
print(cache_k.shape)
""", env=ON_TPU),
    Case("b28_glorot_initializer_for_bias", "jax_shape", None, "other", J + """

init = jax.nn.initializers.glorot_normal()
k1, k2 = jax.random.split(jax.random.key(0))
params = {"w": init(k1, (784, 256)), "b": init(k2, (256,))}  #!
print(params["w"].shape)
""", env=ON_TPU),
    Case("b28_batch_size_traced_by_jit", "jax_tracing", None, "static_args", J + """

@jax.jit
def init_hidden(batch_size, hidden_size):
    return jnp.zeros((batch_size, hidden_size))  #!

h0 = init_hidden(32, 256)
print(h0.shape)
""", env=ON_TPU),
    Case("b28_has_aux_on_loss_without_aux", "jax_call", None, "other", J + """

def loss_fn(params, x, y):
    logits = x @ params["w"] + params["b"]
    return jnp.mean((logits - y) ** 2)

params = {"w": jnp.zeros((128, 10)), "b": jnp.zeros((10,))}
x, y = jnp.ones((32, 128)), jnp.ones((32, 10))
(loss, metrics), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)  #!
print(loss, metrics)
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b28_vmap_over_exported_call", "jax_export", "call_exported", "other", J + """
from jax import export

def score(w, x):
    return jax.nn.sigmoid(x @ w)

exported = export.export(jax.jit(score))(jax.ShapeDtypeStruct((128,), jnp.float32),
                                         jax.ShapeDtypeStruct((32, 128), jnp.float32))
ensemble_w = jnp.ones((8, 128))
scores = jax.vmap(exported.call, in_axes=(0, None))(ensemble_w, jnp.ones((32, 128)))  #!
print(scores.shape)
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
