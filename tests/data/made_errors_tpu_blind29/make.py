"""Make a blind batch of errors JAX raises on a real TPU ("blind29"): run on a TPU host only.

Sixteen TPU errors nobody has tuned explain-error on (written 2026-12-08), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15 to
blind28 batches: Sinkhorn transport between two whole point clouds, a k-nearest-neighbour
search of every query at once, sliding windows gathered before a matmul, a dataset reshuffled
into a whole copy on the device each epoch, an int8 checkpoint dequantized to
float32 layer by layer up front, Pallas kernels refused in new ways (a DMA from a bfloat16 HBM
array into a float32 scratch, a DMA waited on a regular semaphore, ``vmem_limit_bytes`` given
in MiB, an attention block with both batch and head dimensions), a function exported for an
eight-chip mesh called on one chip, a square symbolic shape given a rectangular matrix,
``jax.grad`` taken with respect to token ids, bilinear sampling indexed with floats, ``vmap``
along an axis its input lacks, a sampling ``scan`` with neither inputs nor a length, and
``shard_map`` specs given as a list.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-08, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind29/make.py`` (``--only NAME`` remakes
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
    Case("b29_sinkhorn_between_whole_point_clouds", "out_of_memory", None, "smaller_batch",
         J + """

@jax.jit
def sinkhorn_cost(x, y):
    cost = jnp.sum(x**2, 1)[:, None] + jnp.sum(y**2, 1)[None, :] - 2 * x @ y.T
    kernel = jnp.exp(-cost / 0.05)

    def body(i, uv):
        u, v = uv
        u = 1.0 / (kernel @ v)
        return u, 1.0 / (kernel.T @ u)

    ones = (jnp.ones(x.shape[0]), jnp.ones(y.shape[0]))
    u, v = jax.lax.fori_loop(0, 100, body, ones)
    return jnp.sum(u[:, None] * kernel * v[None, :] * cost)

source = jax.random.normal(jax.random.key(0), (65536, 3))
target = jax.random.normal(jax.random.key(1), (65536, 3)) + 1.0
print(sinkhorn_cost(source, target))  #!
""", env=ON_TPU),
    Case("b29_knn_distances_for_every_query", "out_of_memory", None, "smaller_batch", J + """

@jax.jit
def nearest_neighbours(queries, database):
    dist = (jnp.sum(queries**2, 1)[:, None] - 2 * queries @ database.T
            + jnp.sum(database**2, 1)[None, :])
    return jax.lax.top_k(-dist, 10)[1]

queries = jax.random.normal(jax.random.key(0), (65536, 128))
database = jax.random.normal(jax.random.key(1), (131072, 128))
ids = nearest_neighbours(queries, database)  #!
print(ids[:2])
""", env=ON_TPU),
    Case("b29_sliding_windows_gathered_before_matmul", "out_of_memory", None, "replace_op",
         J + """

@jax.jit
def frame_features(signal, filters):
    width = filters.shape[0]
    starts = jnp.arange(signal.shape[0] - width + 1)
    frames = jax.vmap(lambda s: jax.lax.dynamic_slice(signal, (s,), (width,)))(starts)
    return frames @ filters

signal = jnp.sin(jnp.arange(16777216, dtype=jnp.float32) * 0.01)
filters = jnp.ones((1024, 64), jnp.float32) / 1024
features = frame_features(signal, filters)  #!
print(features.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b29_epoch_shuffle_beside_last_copy", "device_allocation", None, "other", J + """

train_x = jnp.zeros((24576, 256, 256), jnp.float32)
shuffled = train_x
for epoch in range(3):
    perm = jax.random.permutation(jax.random.key(epoch), train_x.shape[0])
    shuffled = train_x[perm]  #!
    print("epoch", epoch, "shuffled copy", shuffled.nbytes / 2**30, "GiB")
""", env=ON_TPU),
    Case("b29_int8_checkpoint_dequantized_up_front", "device_allocation", None, "other", J + """

num_layers = 28
w_int8 = jnp.ones((num_layers, 8192, 16384), jnp.int8)
scales = jnp.full((num_layers, 1, 16384), 0.01, jnp.float32)
weights = []
for i in range(num_layers):
    weights.append(w_int8[i].astype(jnp.float32) * scales[i])  #!
    print("layer", i, "dequantized", (i + 1) * 0.5, "GiB")
print(len(weights))
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b29_pallas_dma_bf16_into_f32_scratch", "pallas", None, "cast_dtype", P + """

def head_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 256)], buf, sem)
    copy.start()  #!
    copy.wait()
    o_ref[...] = buf[...] * 2.0

x = jnp.ones((1024, 512), jnp.bfloat16)
out = pl.pallas_call(head_kernel, out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((256, 512), jnp.float32),
                                     pltpu.SemaphoreType.DMA])(x)
print(out.sum())
""", env=ON_TPU),
    Case("b29_pallas_dma_waited_on_regular_semaphore", "pallas", None, "other", P + """

def gather_rows_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(128, 256)], buf, sem)
    copy.start()
    copy.wait()  #!
    o_ref[...] = buf[...]

x = jnp.ones((1024, 512), jnp.float32)
out = pl.pallas_call(gather_rows_kernel, out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((256, 512), jnp.float32),
                                     pltpu.SemaphoreType.REGULAR])(x)
print(out.sum())
""", env=ON_TPU),
    Case("b29_pallas_vmem_limit_given_in_mib", "pallas", None, "raise_vmem_limit", P + """

def matmul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

a = jnp.ones((2048, 1024), jnp.float32)
b = jnp.ones((1024, 2048), jnp.float32)
out = pl.pallas_call(matmul_kernel, grid=(4, 4),  #!
                     in_specs=[pl.BlockSpec((512, 1024), lambda i, j: (i, 0)),
                               pl.BlockSpec((1024, 512), lambda i, j: (0, j))],
                     out_specs=pl.BlockSpec((512, 512), lambda i, j: (i, j)),
                     out_shape=jax.ShapeDtypeStruct((2048, 2048), jnp.float32),
                     compiler_params=pltpu.CompilerParams(vmem_limit_bytes=64))(a, b)
print(out[0, 0])
""", env=ON_TPU),
    Case("b29_pallas_attention_block_batch_and_heads", "pallas", None, "fix_shapes", P + """

def scores_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.einsum("bhqd,bhkd->bhqk", q_ref[...], k_ref[...],  #!
                            preferred_element_type=jnp.float32)

q = jnp.ones((4, 4, 128, 128), jnp.bfloat16)
k = jnp.ones((4, 4, 128, 128), jnp.bfloat16)
block = pl.BlockSpec((1, 4, 128, 128), lambda b: (b, 0, 0, 0))
scores = pl.pallas_call(scores_kernel, grid=(4,), in_specs=[block, block], out_specs=block,
                        out_shape=jax.ShapeDtypeStruct((4, 4, 128, 128), jnp.float32))(q, k)
print(scores.shape)
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b29_export_for_eight_chips_called_on_one", "jax_export", None, "other", J + """
from jax import export
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

pod = AbstractMesh((8,), ("data",))

def predict(x, w):
    return jnp.tanh(x @ w)

exported = export.export(jax.jit(predict))(
    jax.ShapeDtypeStruct((256, 128), jnp.float32, sharding=NamedSharding(pod, P("data"))),
    jax.ShapeDtypeStruct((128, 64), jnp.float32, sharding=NamedSharding(pod, P())))
print("exported for", exported.nr_devices, "devices")
out = exported.call(jnp.ones((256, 128)), jnp.ones((128, 64)))  #!
print(out.shape)
""", env=ON_TPU),
    Case("b29_export_square_symbolic_given_rectangle", "jax_export", None, "fix_shapes", J + """
from jax import export

def normalize_adjacency(adj):
    deg = jnp.sum(adj, axis=1) + 1.0
    return adj / jnp.sqrt(deg[:, None] * deg[None, :])

n, = export.symbolic_shape("n")
exported = export.export(jax.jit(normalize_adjacency))(jax.ShapeDtypeStruct((n, n), jnp.float32))
user_item = jnp.ones((32, 64), jnp.float32)
out = exported.call(user_item)  #!
print(out.shape)
""", env=ON_TPU),
    # ---- jax_call ------------------------------------------------------------------------------
    Case("b29_grad_taken_for_token_ids", "jax_call", None, "other", J + """

def loss_fn(tokens, embedding):
    return jnp.mean(embedding[tokens] ** 2)

tokens = jnp.zeros((8, 16), jnp.int32)
embedding = jnp.ones((32000, 256), jnp.float32)
grads = jax.grad(loss_fn)(tokens, embedding)  #!
print(grads.shape)
""", env=ON_TPU),
    Case("b29_bilinear_sample_with_float_indices", "jax_call", None, "cast_dtype", J + """

@jax.jit
def sample_nearest(image, coords):
    x0 = jnp.floor(coords[:, 0])
    y0 = jnp.floor(coords[:, 1])
    return image[y0, x0]  #!

image = jnp.ones((512, 512), jnp.float32)
coords = jax.random.uniform(jax.random.key(0), (1024, 2)) * 511
print(sample_nearest(image, coords).shape)
""", env=ON_TPU),
    # ---- jax_shape -------------------------------------------------------------------------------
    Case("b29_vmap_along_axis_input_lacks", "jax_shape", None, "fix_shapes", J + """

def normalize(v):
    return v / jnp.linalg.norm(v, axis=-1, keepdims=True)

embedding = jnp.ones((128,), jnp.float32)
unit = jax.vmap(normalize, in_axes=1)(embedding)  #!
print(unit.shape)
""", env=ON_TPU),
    Case("b29_sampling_scan_without_length", "jax_shape", "scan", "other", J + """

def denoise_step(x, _):
    return x * 0.99 + 0.01 * jnp.tanh(x), None

x_T = jax.random.normal(jax.random.key(0), (4, 64, 64, 3))
x_0, _ = jax.lax.scan(denoise_step, x_T, None)  #!
print(x_0.shape)
""", env=ON_TPU),
    # ---- sharding -------------------------------------------------------------------------------
    Case("b29_shard_map_in_specs_as_list", "sharding", "shard_map", "other", J + """
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def forward(x, w):
    return jnp.tanh(x @ w)

sharded = jax.shard_map(forward, mesh=mesh, in_specs=[P("data"), P()], out_specs=P("data"))
out = sharded(jnp.ones((64, 128)), jnp.ones((128, 10)))  #!
print(out.shape)
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
