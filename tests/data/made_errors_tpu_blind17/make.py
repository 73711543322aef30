"""Make a blind batch of errors JAX raises on a real TPU ("blind17"): run on a TPU host only.

Sixteen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or
``../made_errors_tpu_blind15``'s: per-example gradients and full-vocabulary logits too big for
HBM, a distillation teacher kept on the chip while the student's program loads, Pallas kernels
refused in new ways (a VMEM scratch sized to the whole output, dimension semantics shorter
than the grid, an index map that forgets a squeezed dimension or returns a float, a vector
read from SMEM, ``cumsum`` in a kernel), shard_map's out_specs over a partial sum, a 2-D
sharding for a bias, ``jnp.roots`` (``eig``) on a TPU, exporting a host callback, one array
donated twice, ``jax.checkpoint`` tracing a layer count, a decaying learning rate passed as a
static argument. The machinery, the truth by construction and the device decided from the
log (its ``TPU_SIGN``) are ``../made_errors_tpu/make.py``'s; only the cases are this file's.
``EXPECT.md`` says, per case, the words its log is to show (a case whose log lacks them did
not raise the error it was built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, one
``--only NAME`` per case. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind17/make.py`` (``--only NAME`` remakes
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

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b17_per_example_grads_vmap", "out_of_memory", None, "smaller_batch", J + """

def loss_fn(params, x, y):
    w1, w2 = params
    return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

@jax.jit
def per_example_grads(params, xs, ys):
    return jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, xs, ys)

params = (jnp.full((4096, 4096), 0.01), jnp.full((4096, 1024), 0.01))
xs, ys = jnp.ones((1024, 4096)), jnp.ones((1024, 1024))
grads = per_example_grads(params, xs, ys)  #!
clipped_norms = [jnp.linalg.norm(g.reshape(g.shape[0], -1), axis=1) for g in grads]
print([n.max() for n in clipped_norms])
""", env=ON_TPU),
    Case("b17_full_vocab_logits_loss", "out_of_memory", None, "smaller_batch", J + """

VOCAB = 256_000

def lm_loss(w_out, hidden, labels):
    logits = (hidden @ w_out).astype(jnp.float32)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=-1))

w_out = jnp.full((1024, VOCAB), 0.01, jnp.bfloat16)
hidden = jnp.ones((16 * 2048, 1024), jnp.bfloat16)
labels = jnp.arange(16 * 2048, dtype=jnp.int32) % VOCAB
grad_fn = jax.jit(jax.value_and_grad(lm_loss))
loss, g = grad_fn(w_out, hidden, labels)  #!
print(loss)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator, arrays kept alive ----------------------
    Case("b17_teacher_kept_for_distillation", "device_allocation", None, "free_memory", J + """

teacher = [jnp.full((16384, 16384), 0.01, jnp.float32) for _ in range(12)]
jax.block_until_ready(teacher)

@jax.jit
def student_grads(w, x):
    return jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)

w = jnp.full((4096, 4096), 0.01, jnp.float32)
x = jnp.ones((131072, 4096), jnp.float32)
grads = student_grads(w, x)  #!
print(float(grads.sum()))
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b17_pallas_scratch_sized_to_output", "pallas", None, "smaller_blocks", P + """

def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    i, j, k = pl.program_id(0), pl.program_id(1), pl.program_id(2)
    rows = pl.ds(pl.multiple_of(i * 256, 256), 256)
    cols = pl.ds(pl.multiple_of(j * 256, 256), 256)

    @pl.when(k == 0)
    def _init():
        acc_ref[rows, cols] = jnp.zeros((256, 256), jnp.float32)

    acc_ref[rows, cols] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[rows, cols].astype(o_ref.dtype)

def matmul(x, y):
    m, kdim = x.shape
    n = y.shape[1]
    return pl.pallas_call(  #!
        matmul_kernel,
        grid=(m // 256, n // 256, kdim // 512),
        in_specs=[pl.BlockSpec((256, 512), lambda i, j, k: (i, k)),
                  pl.BlockSpec((512, 256), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((m, n), jnp.float32)],
    )(x, y)

x = jnp.ones((8192, 4096), jnp.bfloat16)
y = jnp.ones((4096, 8192), jnp.bfloat16)
print(matmul(x, y)[0, 0])
""", env=ON_TPU),
    Case("b17_pallas_dimension_semantics_one_for_2d_grid", "pallas", None, "fix_shapes", P + """

def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

x = jnp.ones((1024, 1024), jnp.float32)
spec = pl.BlockSpec((256, 256), lambda i, j: (i, j))
out = pl.pallas_call(  #!
    add_kernel,
    grid=(4, 4),
    in_specs=[spec, spec],
    out_specs=spec,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(x, x)
print(out.sum())
""", env=ON_TPU),
    Case("b17_pallas_squeezed_dim_missing_index", "pallas", None, "fix_shapes", P + """

def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    o_ref[...] = e / e.sum(axis=-1, keepdims=True)

def batched_softmax(x):
    batch, rows, cols = x.shape
    spec = pl.BlockSpec((None, rows, cols), lambda b: (b, 0))
    return pl.pallas_call(softmax_kernel, grid=(batch,), in_specs=[spec], out_specs=spec,  #!
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

print(batched_softmax(jnp.ones((4, 128, 256), jnp.float32)).sum())
""", env=ON_TPU),
    Case("b17_pallas_index_map_true_division", "pallas", None, "fix_shapes", P + """

def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]

def upsample_rows(x, block=256):
    rows, cols = x.shape
    return pl.pallas_call(  #!
        copy_kernel,
        grid=(2 * rows // block,),
        in_specs=[pl.BlockSpec((block, cols), lambda i: (i / 2, 0))],
        out_specs=pl.BlockSpec((block, cols), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((2 * rows, cols), x.dtype),
    )(x)

print(upsample_rows(jnp.ones((1024, 128), jnp.float32)).shape)
""", env=ON_TPU),
    Case("b17_pallas_weights_tile_in_smem", "pallas", None, "other", P + """

def scale_kernel(w_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * w_ref[...]

w = jnp.full((8, 128), 0.5, jnp.float32)
x = jnp.ones((8, 128), jnp.float32)
out = pl.pallas_call(  #!
    scale_kernel,
    in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
)(w, x)
print(out.sum())
""", env=ON_TPU),
    Case("b17_pallas_cumsum_in_kernel", "pallas", "cumsum", "replace_op", P + """

def offsets_kernel(lengths_ref, o_ref):
    o_ref[...] = jnp.cumsum(lengths_ref[...], axis=1)

lengths = jnp.ones((8, 128), jnp.int32)
offsets = pl.pallas_call(offsets_kernel,  #!
                         out_shape=jax.ShapeDtypeStruct(lengths.shape, lengths.dtype))(lengths)
print(offsets[0, -1])
""", env=ON_TPU),
    # ---- sharding: meshes and specs on the one chip ------------------------------------------
    Case("b17_shard_map_partial_sum_out_spec", "sharding", "shard_map", "reduce_or_spec",
         J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def partial_loss(w, x):
    return jnp.sum((x @ w) ** 2)

loss_fn = jax.shard_map(partial_loss, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
w = jnp.ones((128, 16))
x = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("data")))
print(jax.jit(loss_fn)(w, x))  #!
""", env=ON_TPU),
    Case("b17_in_shardings_2d_spec_for_bias", "sharding", None, "fix_shapes", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("model",))
w_sharding = NamedSharding(mesh, P(None, "model"))

@jax.jit
def init():
    return jnp.ones((512, 1024)), jnp.zeros((1024,))

dense = jax.jit(lambda w, b, x: x @ w + b, in_shardings=(w_sharding, w_sharding, None))
w, b = init()
print(dense(w, b, jnp.ones((8, 512))).shape)  #!
""", env=ON_TPU),
    # ---- missing_lowering: linalg without a TPU lowering ---------------------------------------
    Case("b17_filter_poles_roots", "missing_lowering", "eig", "replace_op", J + """

def is_stable(denominator):
    poles = jnp.roots(denominator)  #!
    return bool(jnp.all(jnp.abs(poles) < 1.0))

print(is_stable(jnp.array([1.0, -1.2, 0.5, -0.1])))
""", env=ON_TPU),
    # ---- jax_export: what jax.export refuses to serialize ---------------------------------------
    Case("b17_export_with_host_callback", "jax_export", None, "other", J_NUMPY + """
from jax import export

def host_tokenize(x):
    return np.round(np.asarray(x) * 100).astype(np.int32)

def model(x):
    ids = jax.pure_callback(host_tokenize, jax.ShapeDtypeStruct(x.shape, jnp.int32), x)
    return jnp.sum(ids)

exported = export.export(jax.jit(model))(jax.ShapeDtypeStruct((16,), jnp.float32))  #!
print(len(exported.serialize()))
""", env=ON_TPU),
    # ---- jax_call / jax_tracing / recompile ----------------------------------------------------
    Case("b17_donate_same_zeros_twice", "jax_call", None, "reused_donation", J + """
from functools import partial

@partial(jax.jit, donate_argnums=(0, 1))
def adam_moments(mu, nu, g):
    return 0.9 * mu + 0.1 * g, 0.999 * nu + 0.001 * g * g

zeros = jnp.zeros((1024, 1024))
g = jnp.ones((1024, 1024))
mu, nu = adam_moments(zeros, zeros, g)  #!
print(mu.sum(), nu.sum())
""", env=ON_TPU),
    Case("b17_checkpoint_layer_count_traced", "jax_tracing", None, "static_args", J + """

def mlp(x, w, n_layers):
    for _ in range(n_layers):  #!
        x = jnp.tanh(x @ w)
    return x

@jax.jit
def loss(w, x):
    return jnp.sum(jax.checkpoint(mlp)(x, w, 4) ** 2)

print(jax.grad(loss)(jnp.ones((128, 128)) * 0.01, jnp.ones((8, 128))).sum())
""", env=ON_TPU),
    Case("b17_decayed_lr_static_arg", "recompile", None, "see_recompiles", J + """
from functools import partial

jax.config.update("jax_explain_cache_misses", True)

@partial(jax.jit, static_argnames="lr")
def sgd_step(w, g, lr):
    return w - lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
for step in range(3):
    w = sgd_step(w, g, lr=0.1 * 0.9**step)  #!
    print(step, float(w[0, 0]))
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
