"""Make a blind batch of errors JAX raises on a real TPU ("blind19"): run on a TPU host only.

Seventeen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15, blind17
and blind18 batches: naive attention over a long context, the Hessian of a layer's weights, a KV
cache sized for the longest sequence and the largest batch, a model initialised layer by layer
in float32 past the HBM, Pallas kernels refused in new ways (a Triton kernel's ``atomic_add``, a
load from a ref left in HBM, complex64, an int8 reduction, a window at a lane offset not a
multiple of 128), a spec naming one mesh axis twice, a scalar loss given the batch's
out_shardings, a contracting dimension sharded under explicit axes, a list as a static argument,
a random crop of a traced size, an optional mask that is None then an array, ``hessenberg`` on
the chip and ``JAX_PLATFORMS=gpu`` copied from a GPU job.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind19/make.py`` (``--only NAME`` remakes
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
    Case("b19_attention_scores_long_context", "out_of_memory", None, "shorter_input", J + """

def attention(q, k, v):
    scores = jnp.einsum("hqd,hkd->hqk", q, k) / jnp.sqrt(jnp.bfloat16(q.shape[-1]))
    return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(scores, axis=-1), v)

heads, seq_len, head_dim = 16, 32768, 128
q = k = v = jnp.ones((heads, seq_len, head_dim), jnp.bfloat16)
out = jax.jit(attention)(q, k, v)  #!
print(out.shape)
""", env=ON_TPU),
    Case("b19_hessian_of_layer_weights", "out_of_memory", None, "other", J + """

def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)

w = jnp.full((2048, 1024), 0.01)
x = jnp.ones((64, 2048))
curvature = jax.jit(jax.hessian(loss))(w, x)  #!
print(jnp.trace(curvature.reshape(w.size, w.size)))
""", env=ON_TPU),
    Case("b19_kv_cache_for_max_length", "out_of_memory", None, "smaller_batch", J + """

layers, batch, max_len, heads, head_dim = 32, 64, 8192, 32, 128

@jax.jit
def init_cache():
    shape = (layers, batch, max_len, heads, head_dim)
    return {"k": jnp.zeros(shape, jnp.bfloat16), "v": jnp.zeros(shape, jnp.bfloat16)}

cache = init_cache()  #!
print(jax.tree.map(jnp.shape, cache))
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b19_eager_init_model_too_big", "device_allocation", None, "lower_precision", J + """

n_layers, d_model, d_ff = 24, 8192, 32768
layers = []
for i in range(n_layers):
    w = jax.random.normal(jax.random.key(i), (d_model, d_ff), jnp.float32) * 0.02  #!
    layers.append(w)
    print("initialised layer", i)
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b19_pallas_atomic_add_from_triton", "pallas", "atomic_rmw", "replace_op", P + """
from jax.experimental.pallas import triton as plgpu

def column_sum_kernel(x_ref, o_ref):
    plgpu.atomic_add(o_ref, (slice(None), slice(None)), x_ref[...])

x = jnp.ones((1024, 128), jnp.float32)
total = pl.pallas_call(  #!
    column_sum_kernel,
    grid=(128,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
)(x)
print(total.sum())
""", env=ON_TPU),
    Case("b19_pallas_load_from_hbm_ref", "pallas", None, "other", P + """

def scale_kernel(x_hbm, o_ref):
    o_ref[...] = x_hbm[...] * 2.0

x = jnp.ones((512, 128), jnp.float32)
out = pl.pallas_call(  #!
    scale_kernel,
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b19_pallas_complex64_kernel", "pallas", None, "cast_dtype", P + """

def rotate_kernel(z_ref, o_ref):
    o_ref[...] = z_ref[...] * (0.6 + 0.8j)

z = jnp.ones((8, 128), jnp.complex64)
out = pl.pallas_call(rotate_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(z.shape, z.dtype))(z)
print(out[0, 0])
""", env=ON_TPU),
    Case("b19_pallas_int8_absmax", "pallas", None, "cast_dtype", P + """

def absmax_kernel(q_ref, o_ref):
    o_ref[...] = jnp.max(q_ref[...], axis=0, keepdims=True)

quantized = jnp.ones((256, 128), jnp.int8)
col_max = pl.pallas_call(absmax_kernel,  #!
                         out_shape=jax.ShapeDtypeStruct((1, 128), jnp.int8))(quantized)
print(col_max)
""", env=ON_TPU),
    Case("b19_pallas_frames_at_hop_three", "pallas", None, "fix_shapes", P + """

def frames_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[:, pl.ds(i * 3, 128)]  #!

signal = jnp.ones((8, 512), jnp.float32)
frames = pl.pallas_call(
    frames_kernel,
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)),
    out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32),
)(signal)
print(frames.shape)
""", env=ON_TPU),
    # ---- sharding: specs and meshes on the one chip --------------------------------------------
    Case("b19_spec_same_axis_twice", "sharding", None, "mesh_axis", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))
w = jnp.ones((4096, 4096), jnp.float32)
w_sharded = jax.device_put(w, NamedSharding(mesh, P("data", "data")))  #!
print(w_sharded.sharding)
""", env=ON_TPU),
    Case("b19_scalar_loss_batch_out_sharding", "sharding", None, "reduce_or_spec", J_NAMED + """
from functools import partial

mesh = jax.make_mesh((jax.device_count(),), ("data",))
batch_sharding = NamedSharding(mesh, P("data"))

@partial(jax.jit, out_shardings=batch_sharding)
def loss_fn(w, x):
    return jnp.mean((x @ w) ** 2)

x = jax.device_put(jnp.ones((64, 512)), batch_sharding)
print(loss_fn(jnp.ones((512, 16)), x))  #!
""", env=ON_TPU),
    Case("b19_explicit_axes_contracting_sharded", "sharding", "dot_general", "reshard",
         J_SPEC + """
from jax.sharding import AxisType

mesh = jax.make_mesh((jax.device_count(),), ("model",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((64, 512)), P(None, "model"))
w = jax.device_put(jnp.ones((512, 256)), P("model", None))

@jax.jit
def dense(x, w):
    return jnp.tanh(x @ w)  #!

print(dense(x, w).shape)
""", env=ON_TPU),
    # ---- jax_call / jax_tracing / recompile ----------------------------------------------------
    Case("b19_static_layer_sizes_list", "jax_call", None, "hashable_static", J + """
from functools import partial

@partial(jax.jit, static_argnums=1)
def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(k, (m, n)) * 0.01 for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

params = init_mlp(jax.random.key(0), [784, 512, 10])  #!
print([p.shape for p in params])
""", env=ON_TPU),
    Case("b19_random_crop_traced_size", "jax_tracing", None, "fixed_size", J + """

@jax.jit
def random_crop(key, image):
    k_size, k_start = jax.random.split(key)
    size = jax.random.randint(k_size, (), 160, 224)
    start = jax.random.randint(k_start, (), 0, 224 - size)
    return jax.lax.dynamic_slice(image, (start, start, 0), (size, size, 3))  #!

print(random_crop(jax.random.key(0), jnp.ones((224, 224, 3))).shape)
""", env=ON_TPU),
    Case("b19_optional_mask_none_then_array", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def masked_mean(x, mask=None):
    if mask is None:
        return x.mean()
    return (x * mask).sum() / mask.sum()

x = jnp.ones((1024, 1024))
for step in range(3):
    mask = None if step == 0 else (jnp.arange(1024) < 1000 - step)[:, None] * jnp.ones((1, 1024))
    print(step, float(masked_mean(x, mask)))  #!
""", env=ON_TPU),
    # ---- missing_lowering: linalg without a TPU lowering ---------------------------------------
    Case("b19_hessenberg_for_controller", "missing_lowering", "hessenberg", "replace_op", J + """
from jax.scipy.linalg import hessenberg

a = jax.random.normal(jax.random.key(0), (64, 64))
h, q = hessenberg(a, calc_q=True)  #!
print(jnp.abs(q @ h @ q.T - a).max())
""", env=ON_TPU),
    # ---- backend_startup: a GPU job's platforms on the TPU host --------------------------------
    Case("b19_platforms_gpu_from_gpu_job", "backend_startup", None, "other", J + """

print(jax.devices())  #!
x = jnp.ones((1024, 1024))
print((x @ x).sum())
""", env={"JAX_PLATFORMS": "gpu"}),
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
