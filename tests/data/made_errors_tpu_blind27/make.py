"""Make a blind batch of errors JAX raises on a real TPU ("blind27"): run on a TPU host only.

Seventeen TPU errors nobody has tuned explain-error on (written 2026-12-07), each a mistake TPU
users make and none the same mistake as ``../made_errors_tpu``'s or those of its blind15,
blind17, blind18, blind19, blind20, blind22, blind23, blind24, blind25 and blind26 batches: a
beam search that repeats the whole KV cache per beam, a graph layer that builds a dense
adjacency matrix from its edge list, a dataset turned from NCHW to NHWC on the device beside
the other splits, a learning-rate sweep that keeps every run's parameters, Pallas kernels
refused in new ways (an exact GELU, a second output missing from ``out_shape``, a 3-D block
for a 2-D array, an ``associative_scan`` prefix sum, ``dimension_semantics`` given as a bare
string), an int step counter inside the differentiated train state, per-token log-probs
gathered without a trailing axis, the hidden layer's bias added to the logits, an export
that loops in Python over a symbolic batch, a ``fori_loop`` bounded by a true division, a
run-length decode by ``jnp.repeat`` inside ``jit``, an RNN with bfloat16 weights and a float32
carry in ``scan``, and a batch of split keys handed to ``jax.random.normal``.
The machinery, the truth by construction and the device decided from the log (its ``TPU_SIGN``)
are ``../made_errors_tpu/make.py``'s; only the cases are this file's. ``EXPECT.md`` says, per
case, the words its log is to show (a case whose log lacks them did not raise the error it was
built for and is dropped), and which cases were dropped and why.

The logs are this script's run on a TPU v5e (JAX 0.10.2, libtpu) on 2026-12-07, all cases in
one run. No case needs a package beyond JAX and numpy.

Run on the chip: ``python tests/data/made_errors_tpu_blind27/make.py`` (``--only NAME`` remakes
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
    Case("b27_beam_search_repeats_kv_cache", "out_of_memory", None, "smaller_batch", J + """

@jax.jit
def expand_for_beams(kv_cache):
    return jnp.repeat(kv_cache, 8, axis=1)

kv_cache = jnp.zeros((16, 4, 4096, 4096), jnp.bfloat16)
print("kv cache", kv_cache.nbytes / 2**30, "GiB")
beams = expand_for_beams(kv_cache)  #!
print(beams.shape)
""", env=ON_TPU),
    Case("b27_gcn_dense_adjacency_from_edges", "out_of_memory", None, "other", J + """

@jax.jit
def gcn_layer(features, src, dst, w):
    n = features.shape[0]
    adjacency = jnp.zeros((n, n), jnp.float32).at[src, dst].set(1.0)
    return jax.nn.relu(adjacency @ features @ w)

features = jnp.ones((70000, 128), jnp.float32)
src = jnp.arange(1000000, dtype=jnp.int32) % 70000
dst = (src * 7 + 1) % 70000
out = gcn_layer(features, src, dst, jnp.ones((128, 64), jnp.float32))  #!
print(out.shape)
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator while the program runs ---------------------
    Case("b27_dataset_nchw_to_nhwc_on_device", "device_allocation", None, "other", J + """

train = jnp.zeros((8192, 3, 256, 256), jnp.float32)
val = jnp.zeros((4096, 3, 256, 256), jnp.float32)
test = jnp.zeros((4096, 3, 256, 256), jnp.float32)
print("train", train.nbytes / 2**30, "GiB, val", val.nbytes / 2**30, "GiB")
train = jnp.transpose(train, (0, 2, 3, 1))  #!
val = jnp.transpose(val, (0, 2, 3, 1))
print(train.shape)
""", env=ON_TPU),
    Case("b27_lr_sweep_keeps_every_run_params", "device_allocation", None, "free_memory",
         J + """

@jax.jit
def init_mlp(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (16384, 32768)) * 0.01,
            "w2": jax.random.normal(k2, (32768, 16384)) * 0.01}

results = {}
for lr in [1e-2, 3e-3, 1e-3, 3e-4, 1e-4]:
    params = init_mlp(jax.random.key(0))  #!
    results[lr] = params
    print("lr", lr, "runs kept", len(results), "params", 4 * len(results), "GiB")
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU --------------------------------------
    Case("b27_pallas_exact_gelu_in_mlp_kernel", "pallas", "erfc", "replace_op", P + """

def mlp_kernel(x_ref, w_ref, o_ref):
    h = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = jax.nn.gelu(h, approximate=False)

x = jnp.ones((256, 512), jnp.float32)
w = jnp.ones((512, 256), jnp.float32)
out = pl.pallas_call(mlp_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32))(x, w)
print(out.sum())
""", env=ON_TPU),
    Case("b27_pallas_second_output_missing_from_out_shape", "pallas", None, "fix_shapes", P + """

def softmax_stats_kernel(x_ref, o_ref, max_ref):
    x = x_ref[...]
    m = jnp.max(x, axis=1, keepdims=True)
    o_ref[...] = jnp.exp(x - m)
    max_ref[...] = m

x = jnp.ones((256, 512), jnp.float32)
probs = pl.pallas_call(softmax_stats_kernel,  #!
                       out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(probs.sum())
""", env=ON_TPU),
    Case("b27_pallas_3d_block_for_2d_array", "pallas", None, "fix_shapes", P + """

def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5

frames = jnp.ones((16, 64, 256), jnp.float32).reshape(16 * 64, 256)
spec = pl.BlockSpec((1, 64, 256), lambda i: (i, 0, 0))
out = pl.pallas_call(scale_kernel, grid=(16,), in_specs=[spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(frames.shape, frames.dtype))(frames)
print(out.shape)
""", env=ON_TPU),
    Case("b27_pallas_associative_scan_prefix_sum", "pallas", None, "replace_op", P + """

def prefix_sum_kernel(x_ref, o_ref):
    o_ref[...] = jax.lax.associative_scan(jnp.add, x_ref[...], axis=1)

x = jnp.ones((8, 128), jnp.float32)
out = pl.pallas_call(prefix_sum_kernel,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
print(out[0, -1])
""", env=ON_TPU),
    Case("b27_pallas_dimension_semantics_bare_string", "pallas", None, "fix_shapes", P + """

def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]

x = jnp.ones((1024, 256), jnp.float32)
spec = pl.BlockSpec((256, 256), lambda i: (i, 0))
out = pl.pallas_call(add_kernel, grid=(4,), in_specs=[spec, spec], out_specs=spec,  #!
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     compiler_params=pltpu.CompilerParams(dimension_semantics="parallel"))(x, x)
print(out.sum())
""", env=ON_TPU),
    # ---- jax_call / jax_tracing / jax_shape ------------------------------------------------------
    Case("b27_int_step_counter_in_grad_state", "jax_call", None, "other", J + """

def loss_fn(state, x, y):
    pred = x @ state["w"] + state["b"]
    return jnp.mean((pred - y) ** 2)

state = {"w": jnp.zeros((128, 10)), "b": jnp.zeros((10,)), "step": jnp.array(0)}
x, y = jnp.ones((32, 128)), jnp.ones((32, 10))
grads = jax.grad(loss_fn)(state, x, y)  #!
print(grads["w"].shape)
""", env=ON_TPU),
    Case("b27_fori_loop_bound_true_division", "jax_call", "fori_loop", "other", J + """

num_steps = 100

@jax.jit
def warmup(params):
    return jax.lax.fori_loop(0, num_steps / 2, lambda i, p: p * 0.99, params)  #!

print(warmup(jnp.ones((256,))).sum())
""", env=ON_TPU),
    Case("b27_split_keys_given_to_normal", "jax_call", None, "prng_key", J + """

key = jax.random.key(0)
layer_keys = jax.random.split(key, 4)
noise = jax.random.normal(layer_keys, (4, 256, 256))  #!
print(noise.std())
""", env=ON_TPU),
    Case("b27_run_length_decode_repeat_in_jit", "jax_tracing", "repeat", "fixed_size", J + """

@jax.jit
def decode_runs(values, counts):
    return jnp.repeat(values, counts)  #!

values = jnp.array([3, 7, 1, 9], jnp.int32)
counts = jnp.array([2, 1, 4, 3], jnp.int32)
print(decode_runs(values, counts))
""", env=ON_TPU),
    Case("b27_token_logprobs_gather_without_axis", "jax_shape", "take_along_axis", "fix_shapes",
         J + """

@jax.jit
def sequence_logprob(logits, tokens):
    logprobs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logprobs, tokens, axis=-1)  #!
    return picked.sum(axis=1)

logits = jnp.zeros((8, 512, 32000), jnp.float32)
tokens = jnp.zeros((8, 512), jnp.int32)
print(sequence_logprob(logits, tokens))
""", env=ON_TPU),
    Case("b27_hidden_bias_added_to_logits", "jax_shape", None, "fix_shapes", J + """

@jax.jit
def mlp(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b1"]  #!

params = {"w1": jnp.ones((784, 256)), "b1": jnp.zeros((256,)),
          "w2": jnp.ones((256, 10)), "b2": jnp.zeros((10,))}
print(mlp(params, jnp.ones((32, 784))).shape)
""", env=ON_TPU),
    Case("b27_rnn_bf16_weights_float32_carry", "jax_shape", "scan", "cast_dtype", J + """

w_hh = jnp.ones((256, 256), jnp.bfloat16) * 0.01
w_xh = jnp.ones((128, 256), jnp.bfloat16) * 0.01

def rnn_cell(h, x):
    h = jnp.tanh(h.astype(jnp.bfloat16) @ w_hh + x.astype(jnp.bfloat16) @ w_xh)
    return h, h

xs = jnp.ones((64, 32, 128), jnp.float32)
h_last, hs = jax.lax.scan(rnn_cell, jnp.zeros((32, 256), jnp.float32), xs)  #!
print(h_last.shape)
""", env=ON_TPU),
    # ---- jax_export ------------------------------------------------------------------------------
    Case("b27_export_python_loop_over_symbolic_batch", "jax_export", None, "other", J + """
from jax import export

def normalize_each(x):
    rows = [x[i] / jnp.linalg.norm(x[i]) for i in range(x.shape[0])]  #!
    return jnp.stack(rows)

batch, = export.symbolic_shape("batch")
exported = export.export(jax.jit(normalize_each), platforms=("tpu",))(
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
