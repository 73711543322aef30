import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental import topologies
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

CHIPS = 'v5e:1x1'
bounds = {"chips_per_host_bounds": (1, 1, 1)} if CHIPS == "v5e:1x1" else {}
topology = topologies.get_topology_desc(platform="tpu", topology_name=CHIPS, **bounds)
ONE = jax.sharding.SingleDeviceSharding(topology.devices[0])


def spec(shape, dtype=jnp.float32, sharding=ONE):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


def regroup(x_ref, o_ref):
    o_ref[...] = x_ref[...].reshape(24, 5, 7)  # fails here


def step(x):
    out = jax.ShapeDtypeStruct((24, 5, 7), jnp.float32)
    return pl.pallas_call(regroup, out_shape=out)(x)


jax.jit(step).lower(spec((8, 105))).compile()
