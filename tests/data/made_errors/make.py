"""Make the corpus of errors today's JAX and TensorFlow raise themselves (issue 35).

Each case is a small program built to raise one family of error. It is written out as
``<case>.py`` beside its log, run in a fresh child ``python <case>.py`` from a neutral working
directory, and its stdout+stderr saved verbatim as ``<case>.log`` (paths made neutral:
``/home/user/made/<case>.py``, ``/usr/lib/python3/site-packages``), with ``<case>.json`` the truth
written by construction:

* ``kind``: the family the case was built to raise;
* ``device``: ``"cpu"`` only where the log names the CPU, else ``null``;
* ``op``: the primitive, op or function the message names, else ``null``;
* ``user_line``: ``<case>.py:N``, the innermost line of the case's own code in the traceback
  (the line marked ``#!`` in the source below; the mark is dropped from the written file); for
  TensorFlow's XLA refusals the line that created the op the message names (its "The op is
  created at:"); ``Cell In[1]:N`` in a notebook cell; ``null`` where the log names none (a
  warning JAX raises from its own frame);
* ``advice``: the first fix a competent engineer gives (an :class:`AdviceKind` value).

Run ``python tests/data/made_errors/make.py`` (jax/jaxlib 0.10.2 and TensorFlow 2.21 on CPU made
the committed logs; ``--only NAME`` remakes some). The test reads the files, never re-runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
NEUTRAL_DIR = "/home/user/made"
NEUTRAL_SITE = "/usr/lib/python3/site-packages"
NEUTRAL_STDLIB = "/usr/lib/python3.11"
EIGHT_CPUS = {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
MARK = "  #!"


@dataclass
class Case:
    name: str
    kind: str
    op: str | None
    advice: str | None
    code: str
    device: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    #: Files beside the case (a helper module): relative path -> text.
    extra: dict[str, str] = field(default_factory=dict)
    #: Whether the marked line is in a notebook cell run by IPython (user_line "Cell In[1]:N").
    cell: bool = False
    #: The log names no line of the case (a warning raised from JAX's own frame).
    no_line: bool = False


J = "import jax\nimport jax.numpy as jnp\n"

# The programs keep the layout they are written in (their line numbers are the truths'): not
# reformatted.
# fmt: off
CASES: list[Case] = [
    # ---- jax_tracing ---------------------------------------------------------------------------
    Case("tracing_bool_jit", "jax_tracing", None, "lax_control_flow", J + """
@jax.jit
def relu_sum(x):
    if x.sum() > 0:  #!
        return x.sum()
    return 0.0

print(relu_sum(jnp.arange(4.0)))
"""),
    Case("tracing_bool_vmap", "jax_tracing", None, "lax_control_flow", J + """
def clip(x):
    if x > 1.0:  #!
        return 1.0
    return x

print(jax.vmap(clip)(jnp.linspace(0.0, 2.0, 5)))
"""),
    Case("tracing_while_bool", "jax_tracing", None, "lax_control_flow", J + """
@jax.jit
def halve_until_small(x):
    while x > 1.0:  #!
        x = x / 2
    return x

halve_until_small(jnp.float32(40.0))
"""),
    Case("tracing_integer_range", "jax_tracing", None, "static_args", J + """
@jax.jit
def power_sum(x, n):
    total = 0.0
    for k in range(n):  #!
        total = total + x**k
    return total

power_sum(2.0, 5)
"""),
    Case("tracing_int_jit", "jax_tracing", "int", "static_args", J + """
@jax.jit
def repeat(x, times):
    return jnp.tile(x, int(times))  #!

print(repeat(jnp.ones(2), 3))
"""),
    Case("tracing_numpy_conversion", "jax_tracing", None, "jnp_not_np", J + """import numpy as np

@jax.jit
def softplus(x):
    return np.log1p(np.exp(x))  #!

softplus(jnp.ones(3))
"""),
    Case("tracing_numpy_in_scan", "jax_tracing", None, "jnp_not_np", J + """import numpy as np

def step(carry, x):
    carry = carry + np.asarray(x)  #!
    return carry, carry

jax.lax.scan(step, jnp.zeros(()), jnp.arange(5.0))
"""),
    Case("tracing_leaked_global", "jax_tracing", None, "no_leaked_tracer", J + """
saved = []

@jax.jit
def remember(x):
    saved.append(x * 2)
    return x

remember(jnp.ones(2))
print(saved[0] + 1)  #!
"""),
    Case("tracing_checking_leaks", "jax_tracing", None, "no_leaked_tracer", J + """
class Model:
    def __init__(self):
        self.cache = None

    def __call__(self, x):
        self.cache = x + 1
        return x * 2

model = Model()
with jax.checking_leaks():
    jax.jit(model)(jnp.ones(3))  #!
"""),
    Case("tracing_shape_from_value", "jax_tracing", None, "static_args", J + """
@jax.jit
def make_buffer(n):
    return jnp.zeros((n, 4))  #!

make_buffer(3)
"""),
    Case("tracing_nonzero", "jax_tracing", "nonzero", "fixed_size", J + """
@jax.jit
def positive_positions(x):
    return jnp.nonzero(x > 0)  #!

positive_positions(jnp.array([1.0, -1.0, 2.0]))
"""),
    Case("tracing_boolean_index", "jax_tracing", None, "fixed_size", J + """
@jax.jit
def keep_positive(x):
    return x[x > 0].sum()  #!

keep_positive(jnp.array([1.0, -1.0, 2.0]))
"""),
    Case("tracing_dynamic_slice", "jax_tracing", None, "dynamic_slice", J + """
@jax.jit
def prefix_sum(x, n):
    return x[:n].sum()  #!

prefix_sum(jnp.arange(10.0), 4)
"""),
    Case("tracing_bool_in_cond", "jax_tracing", None, "lax_control_flow", J + """
def branch(x):
    return jax.lax.cond(x > 0, lambda v: v if v > 1 else -v, lambda v: v, x)  #!

jax.jit(branch)(jnp.float32(2.0))
"""),
    # ---- jax_shape ----------------------------------------------------------------------------
    Case("shape_dot_general", "jax_shape", "dot_general", "fix_shapes", J + """
def dense(x, w):
    return jnp.dot(x, w)  #!

dense(jnp.ones((8, 4)), jnp.ones((5, 16)))
"""),
    Case("shape_matmul_jit", "jax_shape", "dot_general", "fix_shapes", J + """
@jax.jit
def layer(x, w):
    return jax.nn.relu(x @ w)  #!

layer(jnp.ones((2, 3)), jnp.ones((4, 3)))
"""),
    Case("shape_broadcast", "jax_shape", None, "fix_shapes", J + """
def add_bias(x, b):
    return x + b  #!

add_bias(jnp.ones((4, 3)), jnp.ones(4))
"""),
    Case("shape_reshape", "jax_shape", "reshape", "fix_shapes", J + """
@jax.jit
def flatten_pairs(x):
    return x.reshape(-1, 4)  #!

flatten_pairs(jnp.ones(6))
"""),
    Case("shape_concatenate", "jax_shape", "concatenate", "fix_shapes", J + """
def join(a, b):
    return jnp.concatenate([a, b], axis=0)  #!

join(jnp.ones((2, 3)), jnp.ones((2, 4)))
"""),
    Case("shape_conv_features", "jax_shape", "conv_general_dilated", "fix_shapes", J + """
def conv(x, k):
    return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME")  #!

conv(jnp.ones((1, 3, 8, 8)), jnp.ones((16, 4, 3, 3)))
"""),
    Case("shape_scan_carry", "jax_shape", "scan", "fix_shapes", J + """
def step(carry, x):
    return jnp.stack([carry, x]), x

jax.lax.scan(step, jnp.zeros(()), jnp.arange(3.0))  #!
"""),
    Case("shape_cond_branches", "jax_shape", "cond", "fix_shapes", J + """
@jax.jit
def pick(p, x):
    return jax.lax.cond(p, lambda v: v, lambda v: v[:2], x)  #!

pick(True, jnp.ones(3))
"""),
    Case("shape_vmap_sizes", "jax_shape", "vmap", "fix_shapes", J + """
def pair(a, b):
    return a * b

jax.vmap(pair)(jnp.ones(3), jnp.ones(4))  #!
"""),
    Case("shape_while_carry", "jax_shape", "while_loop", "fix_shapes", J + """
def body(c):
    return c.astype(jnp.float32) + 1

jax.lax.while_loop(lambda c: c < 10, body, jnp.int32(0))  #!
"""),
    # ---- jax_call -----------------------------------------------------------------------------
    Case("call_string_argument", "jax_call", "scale", "static_args", J + """
@jax.jit
def scale(x, mode):
    return x * 2

scale(jnp.ones(3), "double")  #!
"""),
    Case("call_unhashable_static", "jax_call", None, "hashable_static", J + """
import functools

@functools.partial(jax.jit, static_argnums=1)
def take(x, idx):
    return x[jnp.array(idx)]

take(jnp.arange(5.0), [0, 2])  #!
"""),
    Case("call_vmap_in_axes", "jax_call", "vmap", "fix_shapes", J + """
def f(a, b):
    return a + b

jax.vmap(f, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))  #!
"""),
    Case("call_in_shardings_tree", "jax_call", "jit", "fix_shapes", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
s = NamedSharding(mesh, P("x"))
f = jax.jit(lambda a: a * 2, in_shardings=(s, s))
f(jnp.ones(8))  #!
""", env=EIGHT_CPUS),
    Case("call_custom_vjp_bwd", "jax_shape", "custom_vjp", "fix_shapes", J + """
@jax.custom_vjp
def mul(x, y):
    return x * y

def mul_fwd(x, y):
    return x * y, (x, y)

def mul_bwd(res, g):
    x, y = res
    return (g * y,)

mul.defvjp(mul_fwd, mul_bwd)
jax.grad(mul)(2.0, 3.0)  #!
"""),
    Case("call_jit_non_callable", "jax_call", None, "other", J + """
weights = jnp.ones(3)
step = jax.jit(weights)  #!
"""),
    Case("call_prng_int_key", "jax_call", None, "prng_key", J + """
key = 0
noise = jax.random.normal(key, (3,))  #!
"""),
    Case("call_prng_key_array_split", "jax_call", None, "prng_key", J + """
keys = jax.random.split(jax.random.key(0), 2)
a, b = jax.random.split(keys)  #!
"""),
    Case("call_donated_reused", "jax_call", None, "reused_donation", J + """
update = jax.jit(lambda p: p - 0.1, donate_argnums=0)
params = jnp.ones(4)
new = update(params)
print(params.sum())  #!
"""),
    Case("call_donation_unusable", "jax_call", None, "unused_donation", J + """
total = jax.jit(lambda p: p.sum(), donate_argnums=0)
total(jnp.ones((128, 128)))
""", no_line=True),
    Case("call_debug_nans", "jax_call", "log", "find_nan", J + """
jax.config.update("jax_debug_nans", True)

@jax.jit
def entropy(p):
    return -(p * jnp.log(p)).sum()  #!

entropy(jnp.array([0.5, -0.5]))
"""),
    # ---- sharding (8 CPU devices) -------------------------------------------------------------
    Case("sharding_missing_axis", "sharding", None, "mesh_axis", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
x = jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh, P("batch", None)))  #!
""", env=EIGHT_CPUS),
    Case("sharding_duplicate_axis", "sharding", None, "mesh_axis", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
s = NamedSharding(mesh, P("x", "x"))  #!
""", env=EIGHT_CPUS),
    Case("sharding_divisibility", "sharding", None, "fix_shapes", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
x = jax.device_put(jnp.ones((6, 4)), NamedSharding(mesh, P("x")))  #!
""", device="cpu", env=EIGHT_CPUS),
    Case("sharding_shard_map_out_specs", "sharding", "shard_map", "reduce_or_spec", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))

def local_sum(a):
    return a.sum(keepdims=True)

f = jax.shard_map(local_sum, mesh=mesh, in_specs=P("x"), out_specs=P())
x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("x")))
jax.jit(f)(x)  #!
""", env=EIGHT_CPUS),
    Case("sharding_shard_map_rank", "sharding", "shard_map", "fix_shapes", J + """
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("x", "y"))
f = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
f(jnp.ones(8))  #!
""", env=EIGHT_CPUS),
    Case("sharding_devices_mismatch", "sharding", None, "same_devices", J + """
devices = jax.devices()
a = jax.device_put(jnp.ones(3), devices[0])
b = jax.device_put(jnp.ones(3), devices[1])
jax.jit(lambda x, y: x + y)(a, b)  #!
""", device="cpu", env=EIGHT_CPUS),
    Case("sharding_shard_map_unknown_axis", "sharding", None, "mesh_axis", J + """
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
f = jax.shard_map(
    lambda a: jax.lax.all_gather(a, "batch"), mesh=mesh, in_specs=P("x"), out_specs=P("x")  #!
)
f(jax.device_put(jnp.ones(8), NamedSharding(mesh, P("x"))))
""", env=EIGHT_CPUS),
    # ---- out_of_memory / xla_status ------------------------------------------------------------
    Case("oom_huge_array", "device_allocation", None, "fix_shapes", J + """
x = jnp.ones((1 << 40,), jnp.float32)  #!
print(x.sum())
"""),
    Case("oom_huge_matmul_jit", "device_allocation", None, "fix_shapes", J + """
@jax.jit
def grid(offset):
    return jnp.zeros((1 << 20, 1 << 20)) + offset

grid(1.0)  #!
"""),
    Case("status_ffi_unknown_target", "xla_status", "my_custom_kernel", "install", J + """
import numpy as np

def fast_gelu(x):
    return jax.ffi.ffi_call("my_custom_kernel", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

jax.jit(fast_gelu)(np.ones(4, np.float32))  #!
""", device="cpu"),
    # ---- linalg / missing lowering --------------------------------------------------------------
    Case("linalg_eig_for_tpu", "missing_lowering", "eig", "replace_op", J + """
from jax import export

exp = export.export(jax.jit(jnp.linalg.eig), platforms=["tpu"])(jnp.ones((4, 4)))  #!
""", device="tpu"),
    Case("export_callback", "jax_export", "host_callback", "replace_op", J + """
import numpy as np
from jax import export

def host_sin(x):
    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

exp = export.export(jax.jit(host_sin))(jnp.ones(3))  #!
"""),
    Case("export_wrong_platform", "jax_export", None, "other", J + """
from jax import export

exp = export.export(jax.jit(jnp.sin), platforms=["tpu"])(jnp.ones(3))
exp.call(jnp.ones(3))  #!
""", device="cpu"),
    Case("export_deserialize_garbage", "jax_export", None, "other", J + """
from jax import export

exp = export.deserialize(bytearray(b"not an exported artifact"))  #!
"""),
    # ---- pallas (interpret mode) ----------------------------------------------------------------
    Case("pallas_block_rank", "pallas", None, "fix_shapes", J + """
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

x = jnp.ones(16)
spec = pl.BlockSpec((4, 4), lambda i: (i, 0))
pl.pallas_call(  #!
    kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
    in_specs=[spec], out_specs=spec, interpret=True,
)(x)
"""),
    Case("pallas_index_map_arity", "pallas", None, "fix_shapes", J + """
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

x = jnp.ones((8, 8))
spec = pl.BlockSpec((4, 4), lambda i: (i, 0))
pl.pallas_call(  #!
    kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2, 2),
    in_specs=[spec], out_specs=spec, interpret=True,
)(x)
"""),
    Case("shape_concatenate_rank", "jax_shape", "concatenate", "fix_shapes", J + """
@jax.jit
def append_row(table, row):
    return jnp.concatenate([table, row])  #!

append_row(jnp.ones((2, 3)), jnp.ones(3))
"""),
    Case("shape_custom_jvp_rule", "jax_shape", "custom_jvp", "fix_shapes", J + """
@jax.custom_jvp
def softclip(x):
    return jnp.tanh(x)

@softclip.defjvp
def softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softclip(x), (t * (1 - jnp.tanh(x) ** 2), t)

jax.jvp(softclip, (1.0,), (1.0,))  #!
"""),
    Case("call_vmap_out_axes", "jax_call", "vmap", "fix_shapes", J + """
def pair(x):
    return x, x * 2

jax.vmap(pair, out_axes=(0, 0, 0))(jnp.ones(3))  #!
"""),
    Case("call_grad_non_callable", "jax_call", None, "other", J + """
def loss(w):
    return (w ** 2).sum()

w = jnp.ones(3)
dloss = jax.grad(loss(w))  #!
"""),
    Case("export_deserialize_truncated", "jax_export", None, "other", J + """
from jax import export

blob = export.export(jax.jit(jnp.cos))(jnp.ones(3)).serialize()
exp = export.deserialize(blob[: len(blob) // 3])  #!
"""),
    Case("pallas_out_index_map_arity", "pallas", None, "fix_shapes", J + """
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3

x = jnp.ones((8, 8))
pl.pallas_call(  #!
    kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
    in_specs=[pl.BlockSpec((4, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((4, 8), lambda i, j: (i, j)), interpret=True,
)(x)
"""),
    # ---- recompile ----------------------------------------------------------------------------
    Case("recompile_cache_miss", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def norm(x):
    return jnp.sqrt((x * x).sum())

for n in (3, 4, 5):
    norm(jnp.ones(n))  #!
"""),
    Case("recompile_static_changes", "recompile", None, "see_recompiles", J + """
import functools

jax.config.update("jax_explain_cache_misses", True)

@functools.partial(jax.jit, static_argnames="scale")
def scaled(x, scale):
    return x * scale

for step in range(3):
    scaled(jnp.ones(4), scale=0.1 * step)  #!
"""),
    Case("linalg_schur_for_tpu", "missing_lowering", "schur", "replace_op", J + """
import jax.scipy.linalg
from jax import export

exp = export.export(jax.jit(jax.scipy.linalg.schur), platforms=["tpu"])(jnp.eye(4))  #!
""", device="tpu"),
    Case("linalg_qr_integer", "jax_shape", "qr", "cast_dtype", J + """
counts = jnp.arange(9, dtype=jnp.int32).reshape(3, 3)
q, r = jax.lax.linalg.qr(counts)  #!
"""),
    Case("shape_dynamic_slice_size", "jax_shape", None, "fix_shapes", J + """
@jax.jit
def window(x, start):
    return jax.lax.dynamic_slice(x, (start,), (5,))  #!

window(jnp.arange(3.0), 0)
"""),
    Case("export_eig_for_cuda", "jax_export", None, "disable_check", J + """
from jax import export

exp = export.export(jax.jit(jnp.linalg.eig), platforms=["cuda"])(jnp.eye(3))  #!
""", device="gpu"),
    Case("call_compiled_other_shape", "jax_call", None, "fix_shapes", J + """
compiled = jax.jit(jnp.sin).lower(jnp.ones(3)).compile()
compiled(jnp.ones(4))  #!
"""),
    Case("recompile_new_closure", "recompile", None, "see_recompiles", J + """
jax.config.update("jax_explain_cache_misses", True)

def scale_by(k):
    return jax.jit(lambda x: x * k)

for k in (1.0, 2.0, 3.0):
    scale_by(k)(jnp.ones(3))  #!
"""),
    # ---- TensorFlow ---------------------------------------------------------------------------
    Case("tf_py_function_jit", "tf2xla", "EagerPyFunc", "replace_op", """import tensorflow as tf

@tf.function(jit_compile=True)
def f(x):
    y = tf.py_function(lambda v: v * 2, [x], tf.float32)  #!
    return y + 1

f(tf.ones(3))
""", device="cpu"),
    Case("tf_strings_jit", "tf2xla", "AsString", "replace_op", """import tensorflow as tf

@tf.function(jit_compile=True)
def labels(x):
    return tf.strings.join([tf.strings.as_string(x), "!"])  #!

labels(tf.constant([1, 2, 3]))
""", device="cpu"),
    Case("tf_numpy_function_jit", "tf2xla", "PyFunc", "replace_op", """import numpy as np
import tensorflow as tf

@tf.function(jit_compile=True)
def normalised(x):
    y = tf.numpy_function(lambda v: v / np.linalg.norm(v), [x], tf.float32)  #!
    return y * 2

normalised(tf.ones(4))
""", device="cpu"),
    Case("tf_oom_cpu", "device_allocation", None, "smaller_batch", """import tensorflow as tf

x = tf.zeros((1 << 20, 1 << 20))  #!
""", device="cpu"),
    # ---- the same errors, wrapped ---------------------------------------------------------------
    Case("wrapped_pytest_dot", "jax_shape", "dot_general", "fix_shapes", J + """import sys

import pytest


def test_dense_layer():
    x = jnp.ones((8, 4))
    w = jnp.ones((5, 16))
    assert (x @ w).shape == (8, 16)  #!


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
"""),
    Case("wrapped_pytest_tracer_bool", "jax_tracing", None, "lax_control_flow", J + """import sys

import pytest


@jax.jit
def clipped(x):
    return x if x < 1 else 1.0  #!


def test_clipped():
    assert clipped(0.5) == 0.5


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
"""),
    Case("wrapped_notebook_shape", "jax_shape", "dot_general", "fix_shapes", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
x = jnp.ones((8, 4))
w = jnp.ones((5, 16))
y = jnp.dot(x, w)  #!
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
shell.run_cell("1 + 1")
shell.run_cell("2 + 2")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("wrapped_notebook_tracing", "jax_tracing", None, "static_args", """import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
@jax.jit
def f(x, n):
    return jnp.ones((n,)) * x  #!
f(1.0, 3)
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
""", cell=True),
    Case("wrapped_library_shape", "jax_shape", "dot_general", "fix_shapes", J + """
import modellib

params = {"w": jnp.ones((5, 16))}
modellib.apply(params, jnp.ones((8, 4)))  #!
""", extra={"site-packages/modellib/__init__.py": '''"""A library-shaped wrapper."""
import jax
import jax.numpy as jnp


class ModelError(RuntimeError):
    """The library's own error."""


@jax.jit
def _forward(params, x):
    return jnp.tanh(x @ params["w"])


def apply(params, x):
    try:
        return _forward(params, x)
    except TypeError as err:
        raise ModelError("modellib: the model could not be applied to the input") from err
'''}),
    Case("wrapped_library_tracing", "jax_tracing", None, "lax_control_flow", J + """
import modellib

def loss(x):
    return x * 2 if x.mean() > 0 else x  #!

modellib.train_step(loss, jnp.ones(3))
""", extra={"site-packages/modellib/__init__.py": '''"""A library-shaped wrapper."""
import jax


def train_step(loss, x):
    return jax.jit(jax.grad(lambda v: loss(v).sum()))(x)
'''}),
    Case("wrapped_unfiltered_shape", "jax_shape", "dot_general", "fix_shapes", J + """
@jax.jit
def attention(q, k):
    return q @ k  #!

attention(jnp.ones((4, 8)), jnp.ones((4, 8)))
""", env={"JAX_TRACEBACK_FILTERING": "off"}),
    Case("wrapped_unfiltered_tracer", "jax_tracing", None, "jnp_not_np", J + """import numpy as np

@jax.jit
def f(x):
    return np.tanh(x)  #!

f(jnp.ones(2))
""", env={"JAX_TRACEBACK_FILTERING": "off"}),
]


def _marked(code: str) -> tuple[str, int | None]:
    """The code without its ``#!`` mark, and the mark's line (1-based)."""
    lines = code.lstrip("\n").split("\n")
    found = None
    for number, text in enumerate(lines, 1):
        if text.endswith(MARK):
            lines[number - 1] = text[: -len(MARK)]
            found = number
    return "\n".join(lines), found


def _cell_line(code: str) -> int | None:
    """The mark's line inside the notebook cell (the text of ``CELL = '''...'''``)."""
    cell = code.split("CELL = '''", 1)[1]
    for number, text in enumerate(cell.split("\n"), 1):
        if text.endswith(MARK):
            return number
    return None


def neutral(text: str, made: Path) -> str:
    """``text`` with this machine's paths replaced by neutral ones."""
    paths = sysconfig.get_paths()
    swaps = [
        (str(made / "site-packages"), NEUTRAL_SITE),
        (str(made), NEUTRAL_DIR),
        # TensorFlow's "The op is created at:" drops the leading slash.
        (str(made).lstrip("/"), NEUTRAL_DIR.lstrip("/")),
        # ... and the installed packages' folder too (its "Stack trace for op definition:").
        (paths["purelib"].lstrip("/"), NEUTRAL_SITE.lstrip("/")),
        (paths["purelib"], NEUTRAL_SITE),
        (paths["platlib"], NEUTRAL_SITE),
        (paths["stdlib"], NEUTRAL_STDLIB),
        (sys.prefix, "/usr"),
        (os.path.expanduser("~"), "/home/user"),
    ]
    for old, new in sorted(set(swaps), key=lambda s: -len(s[0])):
        text = text.replace(old, new)
    # Temporary folders TensorFlow and pytest name.
    return re.sub(r"/tmp/[\w.-]+", "/tmp/tmpdir", text)


def make(case: Case, workdir: Path) -> None:
    made = workdir / "made"
    made.mkdir(parents=True, exist_ok=True)
    cwd = workdir / "cwd"
    cwd.mkdir(exist_ok=True)
    # A notebook case's file keeps its cell's text whole (the mark dropped).
    code = case.code.lstrip("\n").replace(MARK, "") if case.cell else _marked(case.code)[0]
    if _line(case) is None and not case.no_line:
        raise SystemExit(f"{case.name}: no line marked {MARK!r}")
    (made / f"{case.name}.py").write_text(code)
    (HERE / f"{case.name}.py").write_text(code)
    for relative, text in case.extra.items():
        path = made / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", **case.env}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    env.pop("PYTHONPATH", None)
    if case.extra:
        env["PYTHONPATH"] = str(made / "site-packages")
    run = subprocess.run(
        [sys.executable, str(made / f"{case.name}.py")],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=120,
        check=False,
    )
    log = neutral(run.stdout.decode("utf-8", "replace"), made)
    (HERE / f"{case.name}.log").write_text(log)
    write_truth(case, run.returncode)
    print(f"{case.name}: exit {run.returncode}, {len(log.splitlines())} lines")


def _line(case: Case) -> int | None:
    """The marked line: of the case's file, or of its notebook cell."""
    return _cell_line(case.code) if case.cell else _marked(case.code)[1]


def write_truth(case: Case, exit_code: int) -> None:
    """``<case>.json``: the truth by construction and how the run ended."""
    line = _line(case)
    where = "Cell In[1]" if case.cell else f"{case.name}.py"
    truth = {
        "kind": case.kind,
        "device": case.device,
        "op": case.op,
        "user_line": None if line is None else f"{where}:{line}",
        "advice": case.advice,
    }
    meta = {"case": case.name, "exit_code": exit_code, "env": case.env, "truth": truth}
    (HERE / f"{case.name}.json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", nargs="*", default=None, help="remake only these cases")
    parser.add_argument(
        "--truths", action="store_true", help="rewrite the truths only (the logs as they are)"
    )
    args = parser.parse_args(argv)
    chosen = [c for c in CASES if args.only is None or c.name in args.only]
    if args.truths:
        for case in chosen:
            write_truth(case, json.loads((HERE / f"{case.name}.json").read_text())["exit_code"])
        return 0
    for case in chosen:
        workdir = Path(tempfile.mkdtemp(prefix="made_errors_"))
        try:
            make(case, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
