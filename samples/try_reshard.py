"""Two arguments sharded two ways over one mesh: XLA's SPMD partitioner cannot go from one to
the other without replicating (its "Involuntary full rematerialization" warning), and
``hloscope try`` places the warning and shows the sharding that avoids it.

    hloscope try samples/try_reshard.py:combine --device tpu-v5e:2x2 --shard 'b=None,x,y'
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def combine(a, b):
    return a * 2 + b


def example_args():
    mesh = jax.make_mesh((2, len(jax.devices()) // 2), ("x", "y"))

    def array(spec):
        return jax.ShapeDtypeStruct((8, 64, 64), jnp.float32, sharding=NamedSharding(mesh, spec))

    # `b` split 4 ways on its last dimension, `a` 2 x 2 on its last two.
    return {"combine": (array(P(None, "x", "y")), array(P(None, None, ("x", "y"))))}
