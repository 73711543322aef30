"""A mesh of three axes, one of them (``pipe``) replicating both arguments: XLA's SPMD
partitioner cannot bring ``b`` (its last dimension over ``data`` and ``model`` together) to
``a``'s sharding without replicating it, and ``hloscope try`` says both shardings as the
``PartitionSpec`` a JAX user writes on this mesh, not in XLA's device-list notation.

    hloscope try samples/try_respec.py:combine --device tpu-v5e:2x4 \\
        --shard 'b=None,data,model'
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

#: The mesh: ``pipe`` major, then ``data`` and ``model``, two chips each (eight in all).
AXES = ("pipe", "data", "model")


def combine(a, b):
    return a * 2 + b


def example_args():
    mesh = jax.make_mesh((2, 2, len(jax.devices()) // 4), AXES)

    def array(spec):
        return jax.ShapeDtypeStruct((8, 64, 64), jnp.float32, sharding=NamedSharding(mesh, spec))

    # `a` split over data and model on its last two dimensions, `b` over both on its last.
    return {"combine": (array(P(None, "data", "model")), array(P(None, None, ("data", "model"))))}
