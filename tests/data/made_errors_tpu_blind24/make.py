"""Make a blind batch of errors JAX raises on a real TPU ("blind24"): run on a TPU host only.

Sixteen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19, blind20, blind22 and blind23 batches: a CLIP loss over a global
batch on one chip, a 9 GiB dataset normalized out of place on the chip, every step's gradients
kept in a list, a bfloat16 copy of the parameters made beside the float32 ones, Pallas kernels
refused in new ways (a kernel that closes over an array, an index map returning one index for a
2-D block, scratch given as a ``ShapeDtypeStruct``, ``pl.program_id`` called inside an index
map, a Python ``range`` over the program id), ``one_hot`` with a class count computed in
``jit``, ``jnp.unique`` in ``jit``, a scan that grows its carry, a ``vmap`` that maps the
weights too, a 3-D ``PartitionSpec`` put on a 2-D array, a remat policy given by name, and a
``jax.export`` with a symbolic batch compared in a ``cond``.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's runs on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all sixteen in one
run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind24/make.py`` (``--only NAME`` remakes
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
J_SPEC = J + "from jax.sharding import PartitionSpec as P"

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses the program at compile time ---------------------------
    Case("b24_clip_loss_global_batch_one_chip", "out_of_memory", None, "smaller_batch", J + """

def clip_loss(image_emb, text_emb):
    image_emb = image_emb / jnp.linalg.norm(image_emb, axis=1, keepdims=True)
    text_emb = text_emb / jnp.linalg.norm(text_emb, axis=1, keepdims=True)
    logits = image_emb @ text_emb.T / 0.07
    labels = jnp.arange(logits.shape[0])
    loss_i = -jnp.take_along_axis(jax.nn.log_softmax(logits, 1), labels[:, None], 1)
    loss_t = -jnp.take_along_axis(jax.nn.log_softmax(logits, 0), labels[None, :], 0)
    return (loss_i.mean() + loss_t.mean()) / 2

image_emb = jnp.ones((65536, 512), jnp.float32)
text_emb = jnp.ones((65536, 512), jnp.float32)
loss, grads = jax.jit(jax.value_and_grad(clip_loss, argnums=(0, 1)))(image_emb, text_emb)  #!
print(loss)
""", env=ON_TPU),
    Case("b24_dataset_normalized_out_of_place", "out_of_memory", None, "donate", J + """

data = jnp.ones((2304, 1024, 1024), jnp.float32)
print("dataset", data.nbytes / 2**30, "GiB")
mean, std = 0.5, 0.25
data = ((data - mean) / std).block_until_ready()  #!
print(data.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b24_gradients_kept_in_list", "device_allocation", None, "free_memory", J + """

@jax.jit
def grad_fn(w, x):
    return jax.grad(lambda w: jnp.sum(w * x))(w)

w = jnp.ones((512, 1024, 1024), jnp.float32)
x = jnp.full((1024,), 0.5, jnp.float32)
grads = []
for step in range(10):
    grads.append(grad_fn(w, x * step))  #!
    print("step", step, len(grads))
mean_grad = sum(grads) / len(grads)
""", env=ON_TPU),
    Case("b24_bf16_params_beside_float32", "device_allocation", None, "free_memory", J + """

params = {f"layer{i}": jnp.ones((256, 1024, 1024), jnp.float32) for i in range(11)}
jax.block_until_ready(params)
print("float32 params", sum(p.nbytes for p in params.values()) / 2**30, "GiB")
params_bf16 = {}
for name, p in params.items():
    params_bf16[name] = p.astype(jnp.bfloat16).block_until_ready()  #!
    print("cast", name)
""", env=ON_TPU),
    # ---- pallas: kernels Pallas refuses on a TPU ----------------------------------------------
    Case("b24_pallas_kernel_closes_over_array", "pallas", None, "other", P + """

gain = jnp.full((256, 128), 2.0, jnp.float32)

def apply_gain_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * gain

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(apply_gain_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b24_pallas_index_map_one_index_2d_block", "pallas", None, "fix_shapes", P + """

def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0

x = jnp.ones((1024, 128), jnp.float32)
row_block = pl.BlockSpec((256, 128), lambda i: (i,))
out = pl.pallas_call(add_one_kernel, grid=(4,), in_specs=[row_block],  #!
                     out_specs=pl.BlockSpec((256, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b24_pallas_scratch_as_shape_dtype_struct", "pallas", None, "other", P + """

def running_sum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]

x = jnp.ones((1024, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(running_sum_kernel, grid=(4,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     scratch_shapes=[jax.ShapeDtypeStruct((256, 128), jnp.float32)])(x)
print(out.sum())
""", env=ON_TPU),
    Case("b24_pallas_program_id_in_index_map", "pallas", None, "other", P + """

def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5

x = jnp.ones((1024, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (pl.program_id(0), 0))
out = pl.pallas_call(scale_kernel, grid=(4,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out.sum())
""", env=ON_TPU),
    Case("b24_pallas_python_range_over_program_id", "jax_tracing", None, "lax_control_flow",
         P + """

def causal_prefix_kernel(x_ref, o_ref):
    acc = jnp.zeros((8, 128), jnp.float32)
    for j in range(pl.program_id(0) + 1):  #!
        acc += x_ref[pl.ds(j * 8, 8), :]
    o_ref[...] = acc

x = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(causal_prefix_kernel, grid=(4,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                     out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32))(x)
print(out.sum())
""", env=ON_TPU),
    # ---- jax_tracing / jax_shape -----------------------------------------------------------------
    Case("b24_one_hot_classes_from_labels_max", "jax_tracing", None, "static_args", J + """

@jax.jit
def cross_entropy(logits, labels):
    targets = jax.nn.one_hot(labels, labels.max() + 1)  #!
    return -jnp.mean(jnp.sum(targets * jax.nn.log_softmax(logits), axis=-1))

print(cross_entropy(jnp.zeros((64, 10)), jnp.arange(64) % 10))
""", env=ON_TPU),
    Case("b24_unique_tokens_in_jit", "jax_tracing", None, "fixed_size", J + """

@jax.jit
def vocab_coverage(token_ids):
    seen = jnp.unique(token_ids)  #!
    return seen.shape[0] / 32000

print(vocab_coverage(jnp.arange(4096) % 1000))
""", env=ON_TPU),
    Case("b24_scan_carry_collects_outputs", "jax_shape", None, "fix_shapes", J + """

def rnn_step(carry, x):
    h, outputs = carry
    h = jnp.tanh(h + x)
    return (h, jnp.concatenate([outputs, h[None]])), None

xs = jnp.ones((128, 256), jnp.float32)
init = (jnp.zeros(256), jnp.zeros((0, 256)))
(h, outputs), _ = jax.lax.scan(rnn_step, init, xs)  #!
print(outputs.shape)
""", env=ON_TPU),
    Case("b24_vmap_maps_the_weights_too", "jax_shape", None, "fix_shapes", J + """

def predict(w, x):
    return jax.nn.relu(x @ w)

w = jnp.ones((512, 10), jnp.float32)
batch = jnp.ones((32, 512), jnp.float32)
out = jax.vmap(predict)(w, batch)  #!
print(out.shape)
""", env=ON_TPU),
    # ---- sharding ------------------------------------------------------------------------------
    Case("b24_activation_spec_on_2d_array", "sharding", None, "fix_shapes", J_SPEC + """
from jax.sharding import NamedSharding

mesh = jax.make_mesh((jax.device_count(),), ("data",))
act_sharding = NamedSharding(mesh, P("data", None, None))  # (batch, seq, hidden)
pooled = jnp.ones((64, 768), jnp.float32)
pooled = jax.device_put(pooled, act_sharding)  #!
print(pooled.sharding)
""", env=ON_TPU),
    # ---- jax_call / jax_export -------------------------------------------------------------------
    Case("b24_remat_policy_given_by_name", "jax_call", None, "other", J + """

def mlp_block(w, x):
    return jnp.tanh(x @ w)

block = jax.checkpoint(mlp_block, policy="dots_saveable")

def loss(w, x):
    return jnp.sum(block(w, x) ** 2)  #!

grads = jax.jit(jax.grad(loss))(jnp.ones((256, 256)), jnp.ones((64, 256)))
print(grads.shape)
""", env=ON_TPU),
    Case("b24_export_symbolic_batch_in_cond", "jax_export", None, "other", J + """
from jax import export

def classify(x):
    return jax.lax.cond(x.shape[0] > 16, lambda: x.mean(0), lambda: x[0])  #!

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(classify), platforms=("tpu",))(
    jax.ShapeDtypeStruct((batch, 128), jnp.float32))
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
