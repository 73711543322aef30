"""Programs for 8 chips whose collectives XLA:TPU runs inside fusions and loops, read by
``tests/test_collectives_fused.py`` against XLA's own parse of their optimized modules:

* ``fsdp_mlp_grads``: the gradient of a two-layer MLP whose weights are FSDP-split over the
  chips (each layer's weight gathered forward and backward, its gradient reduce-scattered),
  the layers applied under ``jax.lax.scan``;
* ``ring``: a ``jax.lax.fori_loop`` that passes each chip's block of rows to the next chip
  (a roll by one block) and adds it, ``TRIPS`` times.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS = 4
D_MODEL = 512
D_HIDDEN = 1024
BATCH = 128
TRIPS = 7


def _mesh():
    return jax.make_mesh((len(jax.devices()),), ("fsdp",))


def fsdp_mlp_grads(params, x):
    """The gradient of the MLP stack's mean squared output with respect to its weights."""

    def loss(p):
        def layer(h, w):
            up, down = w
            return h + jnp.tanh(h @ up) @ down, None

        h, _ = jax.lax.scan(layer, x, (p["up"], p["down"]))
        return jnp.mean(h * h)

    return jax.grad(loss)(params)


def ring(x):
    """Each chip's block of rows shifted to the next chip round the ring and added,
    ``TRIPS`` times (XLA's partitioner turns the roll of a split dimension into a permute)."""
    rows = x.shape[0] // len(jax.devices())
    return jax.lax.fori_loop(0, TRIPS, lambda _, h: h + 0.5 * jnp.roll(h, rows, axis=0), x)


def example_args():
    mesh = _mesh()

    def array(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(mesh, spec))

    return {
        "fsdp_mlp_grads": (
            {
                "up": array((LAYERS, D_MODEL, D_HIDDEN), P(None, "fsdp", None)),
                "down": array((LAYERS, D_HIDDEN, D_MODEL), P(None, "fsdp", None)),
            },
            array((BATCH, D_MODEL), P("fsdp", None)),
        ),
        "ring": (array((8 * 256, 512), P("fsdp", None)),),
    }
