"""Make a blind batch of errors JAX raises on a real TPU ("blind22"): run on a TPU host only.

Twenty TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19 and blind20 batches: the gradient of a long RNN scan that keeps every
step's residuals, a learning-rate sweep vmapped over 256 copies of the weights, a whole
training set kept on the HBM beside a train step's temporaries, a prefetch queue of 1 GiB
batches, Pallas kernels refused in new ways (an ``argmax`` stored into a float32 output, the
dimension semantics ``"reduction"``, a scratch buffer the kernel does not take, a convolution
and a ``flip`` inside a kernel, ``program_id(1)`` on a 1-D grid), a Mesh of a flat device list
with two axis names, ``pmean`` outside ``shard_map``, ``check_rep`` to ``jax.shard_map``,
``pure_callback`` under ``grad``, a typed key plus the step number, ``np.percentile`` of a
tracer, running statistics leaked out of ``jit``, ``cond`` branches of two shapes, an export
of a function that is not jitted, and ``jax.distributed`` on a second host whose coordinator
never started.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's runs on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07: nineteen cases
in one run, the distributed one (rebuilt after it) in a second with ``--only``. No case needs a
package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind22/make.py`` (``--only NAME`` remakes
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
    Case("b22_rnn_grad_long_sequence", "out_of_memory", None, "remat", J + """

def sequence_loss(params, inputs):
    def cell(h, x):
        h = jnp.tanh(h @ params["recurrent"] + x @ params["input"])
        return h, None
    h0 = jnp.zeros((inputs.shape[1], 2048), jnp.float32)
    h_last, _ = jax.lax.scan(cell, h0, inputs)
    return jnp.mean(h_last ** 2)

params = {"recurrent": jnp.eye(2048) * 0.5, "input": jnp.full((512, 2048), 1e-3)}
inputs = jnp.ones((4096, 256, 512), jnp.float32)
grads = jax.jit(jax.grad(sequence_loss))(params, inputs)  #!
print(grads["recurrent"].shape)
""", env=ON_TPU),
    Case("b22_lr_sweep_vmapped_weights", "out_of_memory", None, "smaller_batch", J + """

def train_step(lr, w, x):
    grad = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
    return w - lr * grad

learning_rates = jnp.logspace(-4, -1, 256)
w = jnp.full((4096, 4096), 1e-3)
x = jnp.ones((8192, 4096))
sweep = jax.jit(jax.vmap(train_step, in_axes=(0, None, None)))
new_ws = sweep(learning_rates, w, x)  #!
print(new_ws.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b22_train_set_on_hbm_beside_step", "device_allocation", None, "free_memory", J + """

train_images = jnp.ones((2_621_440, 1024), jnp.float32)
w = jnp.full((1024, 16384), 1e-3)

@jax.jit
def hardest_scores(w, batch):
    scores = batch @ w
    return jnp.sort(scores, axis=1)[:, -8:].mean()

for i in range(3):
    batch = train_images[i * 65536:(i + 1) * 65536]
    print(i, hardest_scores(w, batch))  #!
""", env=ON_TPU),
    Case("b22_prefetch_queue_too_deep", "device_allocation", None, "free_memory", J_NUMPY + """
import collections

def host_batches():
    while True:
        yield np.zeros((256, 1024, 1024), np.float32)

prefetched = collections.deque()
batches = host_batches()
for _ in range(24):
    prefetched.append(jax.device_put(next(batches)))  #!
    print("batches on device", len(prefetched))
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("b22_pallas_argmax_into_float_output", "pallas", None, "cast_dtype", P + """

def argmax_kernel(logits_ref, o_ref):
    o_ref[...] = jnp.argmax(logits_ref[...], axis=1, keepdims=True)  #!

logits = jnp.ones((8, 128), jnp.float32)
best = pl.pallas_call(argmax_kernel,
                      out_shape=jax.ShapeDtypeStruct((8, 1), jnp.float32))(logits)
print(best)
""", env=ON_TPU),
    Case("b22_pallas_reduction_dimension_semantics", "pallas", None, "other", P + """

def column_block_sum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[...]

x = jnp.ones((1024, 512), jnp.float32)
out = pl.pallas_call(  #!
    column_block_sum_kernel,
    grid=(4, 4),
    in_specs=[pl.BlockSpec((256, 128), lambda i, j: (i, j))],
    out_specs=pl.BlockSpec((256, 128), lambda i, j: (i, 0)),
    out_shape=jax.ShapeDtypeStruct((1024, 128), jnp.float32),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "reduction")),
)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b22_pallas_scratch_not_in_kernel_args", "pallas", None, "fix_shapes", P + """

def scaled_copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(  #!
    scaled_copy_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    scratch_shapes=[pltpu.VMEM((256, 128), jnp.float32)],
)(x)
print(out.sum())
""", env=ON_TPU),
    Case("b22_pallas_conv_in_kernel", "pallas", "conv_general_dilated", "replace_op", P + """

def conv3x3_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jax.lax.conv_general_dilated(
        x_ref[...], w_ref[...], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

images = jnp.ones((1, 16, 16, 128), jnp.float32)
kernel = jnp.ones((3, 3, 128, 128), jnp.float32)
out = pl.pallas_call(conv3x3_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(images.shape, images.dtype))(images, kernel)
print(out.shape)
""", env=ON_TPU),
    Case("b22_pallas_flip_for_reverse_scan", "pallas", "rev", "replace_op", P + """

def reverse_time_kernel(x_ref, o_ref):
    o_ref[...] = jnp.flip(x_ref[...], axis=0)

sequence = jnp.ones((128, 256), jnp.float32)
backward = pl.pallas_call(reverse_time_kernel,  #!
                          out_shape=jax.ShapeDtypeStruct(sequence.shape, sequence.dtype))(sequence)
print(backward[0, :4])
""", env=ON_TPU),
    Case("b22_pallas_program_id_axis_past_grid", "pallas", None, "fix_shapes", P + """

def scale_rows_kernel(x_ref, o_ref):
    row_block = pl.program_id(1)  #!
    o_ref[...] = x_ref[...] * (row_block + 1).astype(jnp.float32)

x = jnp.ones((1024, 128), jnp.float32)
spec = pl.BlockSpec((256, 128), lambda i: (i, 0))
out = pl.pallas_call(scale_rows_kernel, grid=(4,), in_specs=[spec], out_specs=spec,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out[::256, 0])
""", env=ON_TPU),
    # ---- sharding: meshes and collectives on the one chip --------------------------------------
    Case("b22_mesh_flat_devices_two_axes", "sharding", None, "fix_shapes", J + """
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(jax.devices(), ("data", "model"))  #!
weights = jax.device_put(jnp.ones((1024, 1024)), NamedSharding(mesh, P("data", "model")))
print(weights.sharding)
""", env=ON_TPU),
    Case("b22_pmean_without_shard_map", "sharding", None, "mesh_axis", J + """

@jax.jit
def train_step(w, x):
    grads = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
    grads = jax.lax.pmean(grads, axis_name="batch")  #!
    return w - 0.01 * grads

print(train_step(jnp.ones((512, 8)), jnp.ones((64, 512))).shape)
""", env=ON_TPU),
    # ---- jax_call: how a call or an array was used ---------------------------------------------
    Case("b22_shard_map_check_rep_keyword", "jax_call", None, "other", J_SPEC + """

mesh = jax.make_mesh((jax.device_count(),), ("data",))

def local_loss(x):
    return jax.lax.psum(jnp.sum(x ** 2), "data")

loss_fn = jax.shard_map(local_loss, mesh=mesh, in_specs=P("data"), out_specs=P(),  #!
                        check_rep=False)
print(loss_fn(jnp.ones((1024,))))
""", env=ON_TPU),
    Case("b22_pure_callback_in_loss_under_grad", "jax_call", None, "other", J_NUMPY + """

def host_l1(w):
    return np.float32(np.abs(np.asarray(w)).sum())

def loss(w, x):
    l1 = jax.pure_callback(host_l1, jax.ShapeDtypeStruct((), jnp.float32), w)  #!
    return jnp.mean((x @ w) ** 2) + 1e-4 * l1

grads = jax.grad(loss)(jnp.ones((512, 8)), jnp.ones((64, 512)))
print(grads.shape)
""", env=ON_TPU),
    Case("b22_typed_key_plus_step", "jax_call", None, "prng_key", J + """

key = jax.random.key(0)
for step in range(3):
    noise = jax.random.normal(key + step, (1024, 1024))  #!
    print(step, noise.std())
""", env=ON_TPU),
    # ---- jax_tracing / jax_shape -----------------------------------------------------------------
    Case("b22_np_percentile_clip_in_jit", "jax_tracing", None, "jnp_not_np", J_NUMPY + """

@jax.jit
def clip_grads(grads):
    threshold = np.percentile(np.abs(grads), 99)  #!
    return jnp.clip(grads, -threshold, threshold)

print(clip_grads(jnp.linspace(-1.0, 1.0, 4096)).max())
""", env=ON_TPU),
    Case("b22_running_mean_leaked_from_jit", "jax_tracing", None, "no_leaked_tracer", J + """

class RunningStats:
    def __init__(self):
        self.mean = jnp.zeros(256)

stats = RunningStats()

@jax.jit
def normalize(x):
    stats.mean = 0.9 * stats.mean + 0.1 * x.mean(axis=0)
    return x - stats.mean

for step in range(2):
    y = normalize(jnp.ones((64, 256)))
print("running mean", stats.mean[:4])  #!
""", env=ON_TPU),
    Case("b22_cond_crop_only_in_training", "jax_shape", None, "fix_shapes", J + """

def random_crop(image):
    return jax.lax.dynamic_slice(image, (4, 4, 0), (56, 56, 3))

def keep(image):
    return image

@jax.jit
def preprocess(image, training):
    return jax.lax.cond(training, random_crop, keep, image)  #!

print(preprocess(jnp.ones((64, 64, 3)), True).shape)
""", env=ON_TPU),
    # ---- jax_export: an artifact and its making ------------------------------------------------
    Case("b22_export_function_not_jitted", "jax_export", None, "other", J + """
from jax import export

def classify(x):
    return jax.nn.softmax(x @ jnp.ones((256, 10), x.dtype))

exported = export.export(classify)(jax.ShapeDtypeStruct((32, 256), jnp.float32))  #!
print(exported.mlir_module()[:200])
""", env=ON_TPU),
    # ---- distributed: a job whose first host never came ----------------------------------------
    Case("b22_distributed_coordinator_never_started", "distributed", None, "check_hosts", J + """

jax.distributed.initialize(coordinator_address="127.0.0.1:12355", num_processes=2,
                           process_id=1, initialization_timeout=10,
                           cluster_detection_method="deactivate")
print(jax.process_count(), jax.devices())
""", env=ON_TPU, no_line=True),
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
