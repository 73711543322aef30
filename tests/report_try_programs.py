"""Functions XLA:TPU cannot compile for a v5e slice as written, each with a variant that
compiles: ``hloscope report --try`` shows which (``tests/test_report_try_failed.py``).

* ``solve``: a float64 linear solve (the script enables ``jax_enable_x64``, as scientific code
  does). XLA:TPU refuses it outright: its LU decomposition takes float32 and complex64 only.
  ``--cast system=f32`` compiles.
* ``mean_step``: an MLP step whose example arguments split a batch of 6 over a ``data`` axis of
  4 devices, which JAX refuses before XLA sees the program; ``--mesh data=2,model=2`` (the
  same arguments on another shape of the slice's mesh) compiles.

The example arguments are ``jax.ShapeDtypeStruct``: nothing is allocated here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

jax.config.update("jax_enable_x64", True)

SIZE = 1024
RHS = 8
BATCH = 6
WIDTH = 512


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
    return {
        "solve": (system,),
        "mean_step": (params, on_mesh((BATCH, WIDTH), P("data", None))),
    }
