"""Programs whose sharding makes XLA's SPMD partitioner move data it need not move, each
with the ``hloscope try`` variant that shows the layout without it:

* ``scanned_stack``: a stack of layers under ``jax.lax.scan`` with its weights FSDP-split: the
  loop body all-gathers one layer per trip (``--shard dp`` keeps them whole: no gather);
* ``looped_matmul``: a ``fori_loop`` over a matmul whose weight is split on the contracted
  dimension: an all-reduce every trip (``--shard dp``);
* ``host_callback``: a ``jax.pure_callback`` on a sharded array: the partitioner's
  "Involuntary full rematerialization" to and from device 0 (``--shard dp`` replicates it).

    hloscope try samples/try_partitioner.py:scanned_stack --device tpu-v5e:2x2 --shard dp
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS = 6
D_MODEL = 1024
BATCH = 256
TRIPS = 5


def scanned_stack(params, x):
    """The layers' forward pass, one scan trip per layer."""

    def layer(h, w):
        return jnp.tanh(h @ w), None

    h, _ = jax.lax.scan(layer, x, params["layers"])
    return h


def scanned_grads(params, x):
    """The gradient of the stack's mean output with respect to its layers."""
    return jax.grad(lambda p: jnp.mean(scanned_stack(p, x)))(params)


def looped_matmul(w, x):
    """The same matmul ``TRIPS`` times, each trip on the last one's result."""
    return jax.lax.fori_loop(0, TRIPS, lambda i, h: jnp.tanh(h @ w), x)


def _on_host(a):
    return np.sort(a, axis=-1)


def host_callback(x):
    """Each row sorted by NumPy on the host, then scaled on the chips."""
    y = jax.pure_callback(_on_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y * 2 + x


def example_args():
    mesh = jax.make_mesh((len(jax.devices()),), ("data",))

    def array(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(mesh, spec))

    return {
        # FSDP: each layer's rows over the chips; the batch too.
        "scanned_stack": (
            {"layers": array((LAYERS, D_MODEL, D_MODEL), P(None, "data", None))},
            array((BATCH, D_MODEL), P("data", None)),
        ),
        "scanned_grads": (
            {"layers": array((LAYERS, D_MODEL, D_MODEL), P(None, "data", None))},
            array((BATCH, D_MODEL), P("data", None)),
        ),
        # The weight's rows, the dimension the matmul contracts, over the chips.
        "looped_matmul": (
            array((D_MODEL, D_MODEL), P("data", None)),
            array((BATCH, D_MODEL), P()),
        ),
        "host_callback": (array((BATCH, D_MODEL), P(None, "data")),),
    }
