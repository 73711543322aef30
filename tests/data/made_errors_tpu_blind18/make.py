"""Make a blind batch of errors JAX raises on a real TPU ("blind18"): run on a TPU host only.

Twenty-two TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s, ``../made_errors_tpu_blind15``'s
or ``../made_errors_tpu_blind17``'s: a whole test set evaluated in one call, a remat policy that
saves everything, ``jax_enable_x64`` doubling a train step, device arrays kept alive by an
``lru_cache`` or by the state a restored checkpoint replaces, Pallas kernels refused in new ways
(a kernel that returns its result, a reshape that splits the lanes, float16, an int32 matmul, a
0-d output in VMEM, a DMA into a smaller buffer), arguments on the TPU and the CPU, an
``all_gather`` over an axis the mesh lacks, a sharding constraint without a mesh, the memory
kind ``"host"``, complex128 on the chip, a host callback returning the wrong shape, the
gradient of a ``fori_loop`` with a traced trip count, ``jax.jit`` of a lambda in a loop, a
learning rate that is a Python float then an array, an export called with another batch and
a symbolic batch reshaped. The machinery, the truth by construction and the device decided from
the log (its ``TPU_SIGN``) are ``../made_errors_tpu/make.py``'s; only the cases are this file's.
``EXPECT.md`` says, per case, the words its log is to show (a case whose log lacks them did
not raise the error it was built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind18/make.py`` (``--only NAME`` remakes
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
    Case("b18_eval_whole_test_set_one_call", "out_of_memory", None, "smaller_batch", J + """

def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

@jax.jit
def predict(params, images):
    h = images
    for w in params[:-1]:
        h = jax.nn.relu(conv(h, w))
    return h.mean(axis=(1, 2)) @ params[-1]

keys = jax.random.split(jax.random.key(0), 4)
shapes = [(3, 3, 3, 64), (3, 3, 64, 64), (3, 3, 64, 128), (128, 1000)]
params = [jax.random.normal(k, s) * 0.05 for k, s in zip(keys, shapes)]
test_images = jnp.ones((10000, 224, 224, 3), jnp.float32)
logits = predict(params, test_images)  #!
print("accuracy", float((logits.argmax(-1) == 0).mean()))
""", env=ON_TPU),
    Case("b18_remat_policy_saves_everything", "out_of_memory", None, "remat", J + """

def block(h, w):
    w_in, w_out = w
    return h + jax.nn.gelu(h @ w_in) @ w_out

remat_block = jax.checkpoint(block, policy=jax.checkpoint_policies.everything_saveable)

def loss_fn(weights, tokens):
    h, _ = jax.lax.scan(lambda h, w: (remat_block(h, w), None), tokens, weights)
    return jnp.mean(h.astype(jnp.float32) ** 2)

layers, d_model, d_ff = 32, 1024, 4096
weights = (jnp.full((layers, d_model, d_ff), 0.01, jnp.bfloat16),
           jnp.full((layers, d_ff, d_model), 0.01, jnp.bfloat16))
tokens = jnp.ones((16384, d_model), jnp.bfloat16)
grads = jax.jit(jax.grad(loss_fn))(weights, tokens)  #!
print(jax.tree.map(jnp.shape, grads))
""", env=ON_TPU),
    Case("b18_x64_flag_doubles_train_step", "out_of_memory", None, "lower_precision", J + """
jax.config.update("jax_enable_x64", True)  # for the float64 metrics computed elsewhere

def loss_fn(params, x, y):
    w1, w2 = params
    return jnp.mean((jax.nn.gelu(x @ w1) @ w2 - y) ** 2)

@jax.jit
def train_step(params, x, y):
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

params = (jnp.full((4096, 16384), 0.01), jnp.full((16384, 4096), 0.01))
x, y = jnp.ones((32768, 4096)), jnp.zeros((32768, 4096))
params = train_step(params, x, y)  #!
print(params[0].dtype, float(params[0][0, 0]))
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator, arrays kept alive ----------------------
    Case("b18_lru_cache_of_attention_masks", "device_allocation", None, "free_memory", J + """
from functools import lru_cache

@lru_cache(maxsize=None)
def causal_bias(seq_len):
    return jnp.where(jnp.tri(seq_len, dtype=bool), 0.0, -jnp.inf)  #!

for step, seq_len in enumerate(range(16384, 16384 + 20 * 512, 512)):
    bias = causal_bias(seq_len)
    print(step, seq_len, bias.shape, bias.dtype)
""", env=ON_TPU),
    Case("b18_restore_checkpoint_beside_live_state", "device_allocation", None, "free_memory",
         J_NUMPY + """

def init_state():
    params = jnp.full((32768, 32768), 0.01, jnp.float32)
    return {"params": params, "mu": jnp.zeros_like(params), "nu": jnp.zeros_like(params)}

def load_checkpoint(names):
    return {name: np.full((32768, 32768), 0.02, np.float32) for name in names}

state = init_state()
jax.block_until_ready(state)
restored = load_checkpoint(state)
state = {name: jax.device_put(array) for name, array in restored.items()}  #!
print({name: float(array[0, 0]) for name, array in state.items()})
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b18_pallas_kernel_returns_result", "pallas", None, "other", P + """

def gelu_kernel(x_ref, o_ref):
    x = x_ref[...]
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

x = jnp.ones((256, 512), jnp.float32)
out = pl.pallas_call(gelu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  #!
print(out.sum())
""", env=ON_TPU),
    Case("b18_pallas_reshape_splits_lanes", "pallas", "reshape", "fix_shapes", P + """

def fold_rows_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x.reshape(x.shape[0] * 2, x.shape[1] // 2)  #!

def pair_rows(x):
    rows, cols = x.shape
    return pl.pallas_call(fold_rows_kernel,
                          out_shape=jax.ShapeDtypeStruct((rows * 2, cols // 2), x.dtype))(x)

print(pair_rows(jnp.ones((8, 128), jnp.float32)).shape)
""", env=ON_TPU),
    Case("b18_pallas_float16_kernel", "pallas", None, "cast_dtype", P + """

def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5  #!

weights = jnp.ones((512, 1024), jnp.float16)  # as exported from a GPU checkpoint
out = pl.pallas_call(scale_kernel,
                     out_shape=jax.ShapeDtypeStruct(weights.shape, weights.dtype))(weights)
print(out.dtype, out.sum())
""", env=ON_TPU),
    Case("b18_pallas_int32_matmul", "pallas", "dot_general", "cast_dtype", P + """

def count_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...])  #!

adjacency = jnp.ones((256, 256), jnp.int32)
paths = pl.pallas_call(count_kernel,
                       out_shape=jax.ShapeDtypeStruct((256, 256), jnp.int32))(adjacency, adjacency)
print(paths[0, 0])
""", env=ON_TPU),
    Case("b18_pallas_scalar_output_in_vmem", "pallas", None, "fix_shapes", P + """

def sum_of_squares_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...] ** 2)

x = jnp.ones((512, 512), jnp.float32)
total = pl.pallas_call(sum_of_squares_kernel,  #!
                       out_shape=jax.ShapeDtypeStruct((), jnp.float32))(x)
print(total)
""", env=ON_TPU),
    Case("b18_pallas_dma_into_smaller_buffer", "pallas", None, "fix_shapes", P + """

def head_rows_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 16)], buf, sem)
    copy.start()  #!
    copy.wait()
    o_ref[...] = buf[...]

x = jnp.ones((1024, 128), jnp.float32)
out = pl.pallas_call(
    head_rows_kernel,
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
)(x)
print(out.sum())
""", env=ON_TPU),
    # ---- sharding: devices, meshes and memory kinds on the one chip --------------------------
    Case("b18_jit_args_on_tpu_and_cpu", "sharding", None, "same_devices", J + """

stats = jax.device_put(jnp.linspace(0.0, 1.0, 1024), jax.devices("cpu")[0])
x = jax.device_put(jnp.ones((1024,)), jax.devices()[0])
normalise = jax.jit(lambda x, s: (x - s.mean()) / s.std())
print(normalise(x, stats))  #!
""", env=TPU_AND_CPU),
    Case("b18_shard_map_all_gather_wrong_axis", "sharding", "all_gather", "mesh_axis", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def gather_predictions(preds):
    return jax.lax.all_gather(preds, "batch", tiled=True)  #!

gather = jax.shard_map(gather_predictions, mesh=mesh, in_specs=P("data"), out_specs=P())
preds = jax.device_put(jnp.ones((64, 10)), NamedSharding(mesh, P("data")))
print(jax.jit(gather)(preds).shape)
""", env=ON_TPU),
    Case("b18_sharding_constraint_without_mesh", "sharding", None, "other", J_SPEC + """

@jax.jit
def forward(x, w):
    h = x @ w
    h = jax.lax.with_sharding_constraint(h, P("data", None))  #!
    return jnp.tanh(h)

print(forward(jnp.ones((64, 512)), jnp.ones((512, 512))).shape)
""", env=ON_TPU),
    Case("b18_memory_kind_host_for_offload", "sharding", None, "other", J_NAMED + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))
offload = NamedSharding(mesh, P(), memory_kind="host")  #!
opt_state = jax.device_put(jnp.zeros((4096, 4096)), offload)
print(opt_state.sharding)
""", env=ON_TPU),
    # ---- xla_crash / xla_status: complex128 and a host callback on the TPU --------------------
    Case("b18_x64_complex128_phase", "xla_crash", None, "cast_dtype", J + """
jax.config.update("jax_enable_x64", True)

@jax.jit
def evolve(psi, energies, t):
    return jnp.exp(-1j * energies * t) * psi

psi = jnp.ones((1024,), jnp.complex128) / 32
energies = jnp.linspace(0.0, 1.0, 1024)
print(evolve(psi, energies, 0.1)[:4])
""", env=ON_TPU, no_line=True),
    Case("b18_callback_result_shape_wrong", "xla_status", "pure_callback", "fix_shapes",
         J_NUMPY + """

def host_percentiles(x):
    return np.percentile(np.asarray(x), [5, 95]).astype(np.float32)

@jax.jit
def robust_scale(x):
    q = jax.pure_callback(host_percentiles, jax.ShapeDtypeStruct((3,), jnp.float32), x)
    return (x - q[1]) / (q[2] - q[0])

print(robust_scale(jnp.linspace(0.0, 1.0, 1000)))  #!
""", env=TPU_AND_CPU),
    # ---- jax_tracing / recompile ---------------------------------------------------------------
    Case("b18_grad_simulation_traced_steps", "jax_tracing", None, "static_args", J + """

def simulate(x0, v0, n_steps, dt=0.01):
    def step(_, state):
        x, v = state
        return x + dt * v, v - dt * x
    return jax.lax.fori_loop(0, n_steps, step, (x0, v0))[0]  #!

@jax.jit
def loss(v0, n_steps):
    return jnp.sum((simulate(jnp.ones(16), v0, n_steps) - 1.0) ** 2)

print(jax.grad(loss)(jnp.zeros(16), 100))
""", env=ON_TPU),
    Case("b18_jit_lambda_inside_loop", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

w = jnp.ones((1024, 1024))
g = jnp.full((1024, 1024), 0.01)
for step in range(3):
    w = jax.jit(lambda w, g: w - 0.1 * g)(w, g)  #!
    print(step, float(w[0, 0]))
""", env=ON_TPU),
    Case("b18_lr_python_float_then_array", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def sgd_step(w, g, lr):
    return w - lr * g

w, g = jnp.ones((1024, 1024)), jnp.full((1024, 1024), 0.01)
schedule = [0.1, jnp.float32(0.05), 0.01]
for step, lr in enumerate(schedule):
    w = sgd_step(w, g, lr)  #!
    print(step, float(w[0, 0]))
""", env=ON_TPU),
    # ---- jax_export: what jax.export refuses ---------------------------------------------------
    Case("b18_export_fixed_batch_served_smaller", "jax_export", None, "fix_shapes", J + """
from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.full((784, 10), 0.01), axis=-1)

exported = export.export(jax.jit(classify))(jax.ShapeDtypeStruct((32, 784), jnp.float32))
print(exported.call(jnp.ones((8, 784))).shape)  #!
""", env=ON_TPU),
    Case("b18_export_symbolic_batch_reshape", "jax_export", None, "fix_shapes", J + """
from jax import export

def pooled_blocks(x):
    if x.shape[0] % 128 != 0:
        x = jnp.pad(x, ((0, 128 - x.shape[0] % 128), (0, 0)))
    return x.reshape(-1, 128, x.shape[1]).sum(axis=1)  #!

batch = export.symbolic_shape("b")[0]
exported = export.export(jax.jit(pooled_blocks))(jax.ShapeDtypeStruct((batch, 256), jnp.float32))
print(exported.out_avals)
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
