"""Functions XLA:TPU cannot compile for a v5e slice as written, each with a variant that
compiles: ``hloscope report --try`` shows which (``tests/test_report_try_failed.py``).

* ``solve``: a float64 linear solve (the script enables ``jax_enable_x64``, as scientific code
  does). XLA:TPU refuses it outright: its LU decomposition takes float32 and complex64 only.
  ``--cast system=f32`` compiles.
* ``mean_step``: an MLP step whose example arguments split a batch of 6 over a ``data`` axis of
  4 devices, which JAX refuses before XLA sees the program; ``--mesh data=2,model=2`` (the
  same arguments on another shape of the slice's mesh) compiles.
* ``adam_step``: an MLP's Adam step with 4 GiB of weights in float32, replicated on every chip
  as written: with the moments, the gradients and the new copies it does not fit a v5e's HBM,
  and XLA:TPU refuses it after optimizing (the report is of the module it dumped); data
  parallel still does not fit, ``--shard fsdp`` (the weights and moments split over the
  four chips) does.

The example arguments are ``jax.ShapeDtypeStruct``: nothing is allocated here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

jax.config.update("jax_enable_x64", True)

SIZE = 256
RHS = 8
BATCH = 6
WIDTH = 512
D_IN = 16384
D_HIDDEN = 32768
ADAM_BATCH = 64


def solve(system):
    """``a x = b`` for x, in the arguments' dtype."""
    return jnp.linalg.solve(system["a"], system["b"])


def mean_step(params, x):
    """One SGD step of a two-layer MLP on the batch ``x``."""

    def loss(params):
        h = jax.nn.relu(x @ params["w1"])
        return jnp.mean((h @ params["w2"] - x) ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def adam_step(params, m, v, x):
    """One Adam step of a two-layer MLP on the batch ``x``."""

    def loss(params):
        return jnp.mean(jnp.tanh(x @ params["w1"]) @ params["w2"])

    grads = jax.grad(loss)(params)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    params = jax.tree.map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return params, m, v


def adam_shapes():
    """The weights' shapes of ``adam_step``: 2 GiB each in float32."""
    return {"w1": (D_IN, D_HIDDEN), "w2": (D_HIDDEN, D_IN)}


def example_args():
    f32 = jnp.float32
    mesh = jax.make_mesh((len(jax.devices()), 1), ("data", "model"))

    def on_mesh(shape, spec):
        return jax.ShapeDtypeStruct(shape, f32, sharding=NamedSharding(mesh, spec))

    params = {"w1": on_mesh((WIDTH, WIDTH), P(None, "model")), "w2": on_mesh((WIDTH, WIDTH), P())}
    system = {
        "a": jax.ShapeDtypeStruct((SIZE, SIZE), jnp.float64),
        "b": jax.ShapeDtypeStruct((SIZE, RHS), jnp.float64),
    }
    weights = {k: jax.ShapeDtypeStruct(shape, f32) for k, shape in adam_shapes().items()}
    return {
        "solve": (system,),
        "mean_step": (params, on_mesh((BATCH, WIDTH), P("data", None))),
        "adam_step": (weights, weights, weights, jax.ShapeDtypeStruct((ADAM_BATCH, D_IN), f32)),
    }
