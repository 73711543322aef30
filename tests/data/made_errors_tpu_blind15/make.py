"""Make a blind batch of errors JAX raises on a real TPU ("blind15"): run on a TPU host only.

Two dozen TPU errors nobody has tuned explain-error on, each a mistake TPU users make (a train
step that does not fit HBM, the allocator running out while arrays are kept alive, kernels
Mosaic refuses, meshes one chip cannot hold, donation, f64 and int64 on a TPU, linalg without
a TPU lowering, host callbacks, a device that does not exist), none the same mistake as
``../made_errors_tpu``'s. The machinery, the truth by construction and the device decided from
the log (its ``TPU_SIGN``) are ``../made_errors_tpu/make.py``'s; only the cases are this file's.
``EXPECT.md`` says, per case, the words its log is to show (a case whose log lacks them did
not raise the error it was built for and is dropped).

Each program was run once on a TPU v5e (JAX 0.10.2, libtpu) while the batch was written, to
see that it raises the error built for (no log of that run is kept: the logs are this script's).
One case imports optax: the host running this needs it (and absl) importable (through
``PYTHONPATH``, which the children keep and the logs name as site-packages).

Run on the chip: ``python tests/data/made_errors_tpu_blind15/make.py`` (``--only NAME`` remakes
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
J_OPTAX = J + "import optax"
J_SPEC = J + "from jax.sharding import PartitionSpec as P"

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b15_adam_state_no_donation", "out_of_memory", None, "donate", J + """

def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n), jnp.float32) * 0.01, jnp.zeros((n,), jnp.float32))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

def loss_fn(params, x, y):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b - y) ** 2)

@jax.jit
def train_step(params, mu, nu, x, y, lr=1e-4):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, mu, grads)
    nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, nu, grads)
    params = jax.tree.map(lambda p, m, v: p - lr * m / (jnp.sqrt(v) + 1e-8), params, mu, nu)
    return params, mu, nu, loss

params = init_mlp(jax.random.key(0), [8192] * 17)
mu = jax.tree.map(jnp.zeros_like, params)
nu = jax.tree.map(jnp.zeros_like, params)
x, y = jnp.ones((256, 8192)), jnp.ones((256, 8192))
for step in range(3):
    params, mu, nu, loss = train_step(params, mu, nu, x, y)  #!
    print(step, loss)
""", env=ON_TPU),
    Case("b15_long_context_activations", "out_of_memory", None, "remat", J + """

def block(h, w):
    w_in, w_out = w
    return h + jax.nn.gelu(h @ w_in) @ w_out, None

def loss_fn(weights, tokens):
    h, _ = jax.lax.scan(block, tokens, weights)
    return jnp.mean(h.astype(jnp.float32) ** 2)

layers, seq, d_model, d_ff = 24, 65536, 1024, 4096
weights = (jnp.full((layers, d_model, d_ff), 0.01, jnp.bfloat16),
           jnp.full((layers, d_ff, d_model), 0.01, jnp.bfloat16))
tokens = jnp.ones((seq, d_model), jnp.bfloat16)
grads = jax.jit(jax.grad(loss_fn))(weights, tokens)  #!
print(jax.tree.map(jnp.shape, grads))
""", env=ON_TPU),
    Case("b15_embedding_table_too_big", "out_of_memory", None, "shard", J + """

VOCAB, DIM = 10_000_000, 1024

def init_params(key):
    k_emb, k_out = jax.random.split(key)
    return {
        "embedding": jax.random.normal(k_emb, (VOCAB, DIM), jnp.float32) * 0.02,
        "out": jax.random.normal(k_out, (DIM, 512), jnp.float32) * 0.02,
    }

def forward(params, ids):
    return jnp.take(params["embedding"], ids, axis=0) @ params["out"]

params = jax.jit(init_params)(jax.random.key(0))  #!
print(forward(params, jnp.arange(8)).shape)
""", env=ON_TPU),
    Case("b15_grad_accumulation_microbatch_too_big", "out_of_memory", None, "smaller_batch", J + """

def loss_fn(params, batch):
    w1, w2 = params
    h = jax.nn.gelu(batch @ w1)
    return jnp.mean((h @ w2 - batch) ** 2)

@jax.jit
def accumulated_grads(params, microbatches):
    def body(acc, batch):
        grads = jax.grad(loss_fn)(params, batch)
        return jax.tree.map(jnp.add, acc, grads), None
    zeros = jax.tree.map(jnp.zeros_like, params)
    grads, _ = jax.lax.scan(body, zeros, microbatches)
    return grads

params = (jnp.full((1024, 16384), 0.01), jnp.full((16384, 1024), 0.01))
microbatches = jnp.ones((4, 262144, 1024))
grads = accumulated_grads(params, microbatches)  #!
print(jax.tree.map(lambda g: float(jnp.abs(g).max()), grads))
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator, arrays kept alive ----------------------
    Case("b15_eval_logits_kept", "device_allocation", None, "free_memory", J + """

@jax.jit
def logits_fn(w, x):
    return jnp.tanh(x @ w)

w = jnp.full((4096, 32768), 0.01, jnp.bfloat16)
all_logits = []
for step in range(64):
    x = jnp.full((8192, 4096), step, jnp.bfloat16)
    all_logits.append(logits_fn(w, x))  #!
    print(step, float(all_logits[-1][0, 0]))
""", env=ON_TPU),
    Case("b15_whole_dataset_device_put", "device_allocation", None, "smaller_batch", J_NUMPY + """

images = np.zeros((120_000, 224, 224, 3), np.uint8)
labels = np.zeros((120_000,), np.int32)
images_on_tpu = jax.device_put(images)  #!
labels_on_tpu = jax.device_put(labels)
print(images_on_tpu.shape)
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b15_pallas_matmul_scoped_vmem", "pallas", None, "raise_vmem_limit", P + """

def matmul_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

def matmul(x, y, bm=1024, bn=1024):
    m, k = x.shape
    _, n = y.shape
    return pl.pallas_call(  #!
        matmul_kernel,
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
    )(x, y)

x = jnp.ones((4096, 1024), jnp.float32)
y = jnp.ones((1024, 4096), jnp.float32)
print(matmul(x, y).sum())
""", env=ON_TPU),
    Case("b15_pallas_prefetch_table_smem", "pallas", None, "fewer_scalars", P + """

def gather_rows_kernel(ids_ref, table_ref, o_ref):
    o_ref[...] = table_ref[...]

def gather_rows(ids, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(ids.shape[0] // 64,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, ids_ref: (ids_ref[i * 64], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, ids_ref: (i, 0)),
    )
    return pl.pallas_call(  #!
        gather_rows_kernel, grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct((ids.shape[0] // 64 * 8, 128), table.dtype),
    )(ids, table)

ids = jnp.arange(2_000_000, dtype=jnp.int32) % 1024
table = jnp.ones((8192, 128), jnp.float32)
print(gather_rows(ids, table).shape)
""", env=ON_TPU),
    Case("b15_pallas_index_map_missing_prefetch_arg", "pallas", None, "fix_shapes", P + """

def scale_rows_kernel(scale_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale_ref[0]

def scale_rows(scale, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )
    return pl.pallas_call(scale_rows_kernel, grid_spec=grid_spec,  #!
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(scale, x)

print(scale_rows(jnp.array([2.0]), jnp.ones((64, 128))).sum())
""", env=ON_TPU),
    Case("b15_pallas_f64_kernel", "xla_status", "pallas_call", "cast_dtype", P + """
jax.config.update("jax_enable_x64", True)

def axpy_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...] + y_ref[...]

x = jnp.ones((256, 256))
y = jnp.ones((256, 256))
out = pl.pallas_call(axpy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)  #!
print(out.sum())
""", env=ON_TPU),
    Case("b15_pallas_gather_in_kernel", "pallas", "gather", "replace_op", P + """

def permute_rows_kernel(perm_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...][perm_ref[...], :]

perm = jnp.arange(127, -1, -1, dtype=jnp.int32)
x = jnp.ones((128, 128), jnp.float32)
out = pl.pallas_call(permute_rows_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(perm, x)
print(out.sum())
""", env=ON_TPU),
    Case("b15_pallas_block_index_is_offset", "pallas", None, "fix_shapes", P + """

def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

def add_one(x, block=256):
    spec = pl.BlockSpec((block, 128), lambda i: (i * block, 0))
    return pl.pallas_call(add_one_kernel, grid=(x.shape[0] // block,),
                          in_specs=[spec], out_specs=spec,
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

x = jnp.zeros((1024, 128), jnp.float32)
print(add_one(x).sum())  #!
""", env=ON_TPU),
    Case("b15_pallas_if_on_ref_value", "jax_tracing", None, "lax_control_flow", P + """

def relu_or_copy_kernel(flag_ref, x_ref, o_ref):
    if flag_ref[0] > 0:  #!
        o_ref[...] = jnp.maximum(x_ref[...], 0)
    else:
        o_ref[...] = x_ref[...]

flag = jnp.array([1], jnp.int32)
x = jnp.ones((8, 128), jnp.float32)
out = pl.pallas_call(
    relu_or_copy_kernel,
    in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
)(flag, x)
print(out.sum())
""", env=ON_TPU),
    # ---- sharding: meshes and specs the one chip cannot hold ---------------------------------
    Case("b15_pmap_written_for_v3_8", "sharding", "squeeze", "fix_shapes", J + """

@jax.pmap
def local_loss(x):
    return jnp.mean(x ** 2)

batch = jnp.ones((8, 32, 128))
print(local_loss(batch))  #!
""", env=ON_TPU),
    Case("b15_fsdp_spec_missing_axis", "sharding", None, "mesh_axis", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))
w = jnp.ones((4096, 4096), jnp.float32)
w_sharded = jax.device_put(w, NamedSharding(mesh, P("fsdp", None)))  #!
print(w_sharded.sharding)
""", env=ON_TPU),
    Case("b15_shard_map_in_specs_unsharded_input", "sharding", "shard_map", "reshard", J_SPEC + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def per_shard_loss(w, x):
    return jnp.mean((x @ w) ** 2)

loss_fn = jax.shard_map(per_shard_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
print(jax.jit(loss_fn)(jnp.ones((128, 16)), jnp.ones((64, 128))))  #!
""", env=ON_TPU),
    Case("b15_device_put_gpu_on_tpu_host", "backend_startup", None, "other", J + """

x = jnp.ones((1024, 1024))
x_gpu = jax.device_put(x, jax.devices("gpu")[0])  #!
print(x_gpu.devices())
""", env=ON_TPU),
    # ---- jax_call: donation --------------------------------------------------------------------
    Case("b15_donated_params_logged", "jax_call", None, "reused_donation", J + """
from functools import partial

@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

params = {"w": jnp.ones((512, 512))}
x = jnp.ones((64, 512))
new_params = sgd_step(params, x)
print("weight norm before step", jnp.linalg.norm(params["w"]))  #!
""", env=ON_TPU),
    # ---- xla_status: 64-bit types the TPU refuses ----------------------------------------------
    Case("b15_int64_matmul_x64", "xla_status", "dot_general", "cast_dtype", J + """
jax.config.update("jax_enable_x64", True)

@jax.jit
def cooccurrence(onehots):
    return onehots.T @ onehots

tokens = jnp.arange(4096) % 512
onehots = jax.nn.one_hot(tokens, 512, dtype=jnp.int64)
print(cooccurrence(onehots).sum())  #!
""", env=ON_TPU),
    Case("b15_f64_solve_x64", "xla_status", "LuDecomposition", "cast_dtype", J + """
jax.config.update("jax_enable_x64", True)

def ridge_weights(features, targets, lam=1e-3):
    gram = features.T @ features + lam * jnp.eye(features.shape[1])
    return jnp.linalg.solve(gram, features.T @ targets)  #!

features = jax.random.normal(jax.random.key(0), (1000, 64))
targets = jax.random.normal(jax.random.key(1), (1000,))
print(ridge_weights(features, targets)[:4])
""", env=ON_TPU),
    # ---- missing_lowering: linalg without a TPU lowering ---------------------------------------
    Case("b15_fid_sqrtm", "missing_lowering", "schur", "replace_op", J + """
from jax.scipy.linalg import sqrtm

def frechet_distance(mu1, cov1, mu2, cov2):
    covmean = sqrtm(cov1 @ cov2)  #!
    return jnp.sum((mu1 - mu2) ** 2) + jnp.trace(cov1 + cov2 - 2 * covmean.real)

feats1 = jax.random.normal(jax.random.key(0), (512, 64))
feats2 = jax.random.normal(jax.random.key(1), (512, 64))
print(frechet_distance(feats1.mean(0), jnp.cov(feats1.T), feats2.mean(0), jnp.cov(feats2.T)))
""", env=ON_TPU),
    # ---- xla_status: a host callback with JAX_PLATFORMS=tpu (no CPU device to run it on) ------
    Case("b15_callback_platforms_tpu_only", "xla_status", "pure_callback", "other", J_NUMPY + """

def host_rank(x):
    return np.argsort(np.argsort(np.asarray(x))) / len(x)

@jax.jit
def rank_normalise(x):
    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    return jax.pure_callback(host_rank, out, x)

print(rank_normalise(jnp.linspace(0.0, 1.0, 128)))  #!
""", env=ON_TPU),
    # ---- recompile: a sequence length per batch ------------------------------------------------
    Case("b15_recompile_each_seq_len", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def train_step(w, tokens):
    h = jnp.take(w, tokens, axis=0)
    return w - 0.01 * jax.grad(lambda w: jnp.mean(jnp.take(w, tokens, axis=0) ** 2))(w), h.mean()

w = jnp.ones((1000, 128))
for seq_len in (37, 52, 41):
    tokens = jnp.arange(8 * seq_len).reshape(8, seq_len) % 1000
    w, loss = train_step(w, tokens)  #!
    print(seq_len, loss)
""", env=ON_TPU),
    # ---- optax on the TPU ---------------------------------------------------------------------
    Case("b15_optax_state_after_adding_layer", "jax_call", None, "other", J_OPTAX + """

params = {"encoder": jnp.ones((256, 256))}
tx = optax.adam(1e-3)
opt_state = tx.init(params)
params["head"] = jnp.ones((256, 10))

@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["encoder"] @ p["head"]) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)  #!
    return optax.apply_updates(params, updates), opt_state

params, opt_state = train_step(params, opt_state, jnp.ones((32, 256)))
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
