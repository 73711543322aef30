"""Make a blind batch of errors JAX raises on a real TPU ("blind26"): run on a TPU host only.

Seventeen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19, blind20, blind22, blind23, blind24 and blind25 batches: attention
scores whose ``einsum`` keeps the head dimension, a covariance per sample ``vmap``-ed over a
whole batch, a KV cache allocated per serving session and never freed, a dense ``meshgrid``
field evaluated eagerly, Pallas kernels refused in new ways (a host ``pure_callback`` inside a
kernel, a bitcast of float32 into bfloat16 pairs, ``BlockSpec`` given in the old argument
order, ``grid`` given beside a ``grid_spec``, a histogram by scatter-add, ``dynamic_slice`` of
a loaded block), a Python list of learning rates indexed by the traced step, a sparse
``BCOO.fromdense`` inside ``jit``, MNIST flattened to 768, a scan whose targets are one step
short, negatives sampled without replacement past the vocabulary, a cache keyed by an array,
and an export whose arguments each made their own symbolic scope.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind26/make.py`` (``--only NAME`` remakes
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
    Case("b26_attention_einsum_keeps_head_dim", "out_of_memory", None, "fix_shapes", J + """

@jax.jit
def attention_weights(q, k):
    scores = jnp.einsum("bqd,bkd->bqkd", q, k) / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=2)

q = jnp.ones((16, 2048, 128), jnp.float32)
k = jnp.ones((16, 2048, 128), jnp.float32)
weights = attention_weights(q, k)  #!
print(weights.shape)
""", env=ON_TPU),
    Case("b26_per_sample_covariance_vmapped", "out_of_memory", None, "smaller_batch", J + """

def covariance(patches):
    centered = patches - patches.mean(axis=0)
    return centered.T @ centered / patches.shape[0]

@jax.jit
def whitening_stats(features):
    return jax.vmap(covariance)(features)

features = jnp.ones((1024, 256, 2048), jnp.float32)
print("features", features.nbytes / 2**30, "GiB")
covs = whitening_stats(features)  #!
print(covs.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b26_kv_cache_per_session_never_freed", "device_allocation", None, "free_memory",
         J + """

sessions = {}
for request_id in range(12):
    cache = jnp.zeros((2, 32, 8192, 1024), jnp.float32)  #!
    sessions[request_id] = cache
    print("request", request_id, "cache", cache.nbytes / 2**30, "GiB")
""", env=ON_TPU),
    Case("b26_meshgrid_dense_field_eager", "device_allocation", None, "other", J + """

x = jnp.linspace(-1.0, 1.0, 32768)
xx, yy = jnp.meshgrid(x, x)
print("grid", xx.shape, xx.nbytes / 2**30, "GiB each")
radius = jnp.sqrt(xx**2 + yy**2)  #!
field = jnp.exp(-radius)
print(field.mean())
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b26_pallas_host_callback_in_kernel", "pallas", "pure_callback", "other", P + """
import numpy as np

def normalize_kernel(x_ref, o_ref):
    x = x_ref[...]
    peak = jax.pure_callback(lambda a: np.float32(np.abs(a).max()),
                             jax.ShapeDtypeStruct((), jnp.float32), x)
    o_ref[...] = x / peak

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(normalize_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b26_pallas_bitcast_f32_into_bf16_pairs", "pallas", None, "other", P + """

def split_halves_kernel(x_ref, o_ref):
    o_ref[...] = jax.lax.bitcast_convert_type(x_ref[...], jnp.bfloat16)

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(split_halves_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct((256, 256, 2), jnp.bfloat16))(x)
print(out.shape)
""", env=ON_TPU),
    Case("b26_pallas_blockspec_old_argument_order", "pallas", None, "other", P + """

def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((1024, 256), jnp.float32)
spec = pl.BlockSpec(lambda i: (i, 0), (256, 256))
out = pl.pallas_call(double_kernel, grid=(4,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b26_pallas_grid_beside_grid_spec", "pallas", None, "other", P + """

def gather_rows_kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]

ids = jnp.array([3, 0, 2, 1], jnp.int32)
table = jnp.ones((1024, 256), jnp.float32)
spec = pl.BlockSpec((256, 256), lambda i, ids_ref: (ids_ref[i], 0))
out_spec = pl.BlockSpec((256, 256), lambda i, ids_ref: (i, 0))
grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(4,),
                                         in_specs=[spec], out_specs=out_spec)
out = pl.pallas_call(gather_rows_kernel, grid=(4,), grid_spec=grid_spec,  #!
                     out_shape=jax.ShapeDtypeStruct(table.shape, table.dtype))(ids, table)
print(out.sum())
""", env=ON_TPU),
    Case("b26_pallas_histogram_scatter_add", "pallas", "scatter-add", "replace_op", P + """

def histogram_kernel(bins_ref, o_ref):
    bins = bins_ref[...].reshape(-1)
    o_ref[...] = jnp.zeros((1, 128), jnp.int32).at[0, bins].add(1)

bins = jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128) % 128
counts = pl.pallas_call(histogram_kernel,  #!
                        out_shape=jax.ShapeDtypeStruct((1, 128), jnp.int32))(bins)
print(counts.sum())
""", env=ON_TPU),
    Case("b26_pallas_dynamic_slice_of_loaded_block", "pallas", "dynamic_slice", "replace_op",
         P + """

def row_tile_kernel(x_ref, o_ref):
    block = x_ref[...]
    i = pl.program_id(0)
    o_ref[...] = jax.lax.dynamic_slice(block, (i * 8, 0), (8, 128))

x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(row_tile_kernel, grid=(4,),  #!
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    # ---- jax_tracing / jax_shape / jax_call ------------------------------------------------------
    Case("b26_lr_schedule_list_indexed_by_step", "jax_tracing", None, "other", J + """

lr_schedule = [0.1] * 100 + [0.01] * 100

@jax.jit
def sgd_step(w, g, step):
    lr = lr_schedule[step]  #!
    return w - lr * g

w = sgd_step(jnp.ones((256,)), jnp.full((256,), 0.5), 3)
print(w[0])
""", env=ON_TPU),
    Case("b26_sparse_fromdense_in_jit", "jax_tracing", "bcoo_fromdense", "fixed_size", J + """
from jax.experimental import sparse

@jax.jit
def pruned_matmul(w, x):
    w = jnp.where(jnp.abs(w) > 0.5, w, 0.0)
    w_sparse = sparse.BCOO.fromdense(w)  #!
    return w_sparse @ x

w = jax.random.normal(jax.random.key(0), (512, 512))
print(pruned_matmul(w, jnp.ones((512, 64))).shape)
""", env=ON_TPU),
    Case("b26_flatten_mnist_reshape_768", "jax_shape", "reshape", "fix_shapes", J + """

@jax.jit
def classify(images, w):
    flat = images.reshape(images.shape[0], 768)  #!
    return flat @ w

images = jnp.ones((64, 28, 28), jnp.float32)
w = jnp.zeros((784, 10), jnp.float32)
print(classify(images, w).shape)
""", env=ON_TPU),
    Case("b26_scan_targets_one_step_short", "jax_shape", "scan", "fix_shapes", J + """

def rnn_step(h, inputs):
    x, target = inputs
    h = jnp.tanh(h + x)
    return h, jnp.mean((h - target) ** 2)

tokens = jnp.ones((100, 32, 64), jnp.float32)
inputs, targets = tokens, tokens[1:]
_, losses = jax.lax.scan(rnn_step, jnp.zeros((32, 64)), (inputs, targets))  #!
print(losses.mean())
""", env=ON_TPU),
    Case("b26_negatives_sampled_past_vocab", "jax_call", None, "other", J + """

vocab_size = 32000
key = jax.random.key(0)
negatives = jax.random.choice(key, vocab_size, shape=(50000,), replace=False)  #!
print(negatives.shape)
""", env=ON_TPU),
    Case("b26_embedding_cache_keyed_by_array", "jax_call", None, "other", J + """

table = jnp.ones((1000, 64), jnp.float32)
cache = {}

def embed(token_ids):
    if token_ids not in cache:  #!
        cache[token_ids] = table[token_ids].mean(axis=0)
    return cache[token_ids]

print(embed(jnp.array([1, 2, 3])).shape)
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b26_export_two_symbolic_scopes", "jax_export", None, "other", J + """
from jax import export

def batch_spec(width):
    batch, = export.symbolic_shape("batch")
    return jax.ShapeDtypeStruct((batch, width), jnp.float32)

def loss(x, y):
    w = jnp.full((128, 10), 0.01, jnp.float32)
    return jnp.mean((x @ w - y) ** 2)

exported = export.export(jax.jit(loss), platforms=("tpu",))(batch_spec(128), batch_spec(10))  #!
print(exported.in_avals)
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
