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


def product(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(  # fails here
        x_ref[...], y_ref[...], preferred_element_type=jnp.int32
    )


def step(x, y):
    out = jax.ShapeDtypeStruct((8, 128), jnp.int32)
    return pl.pallas_call(product, out_shape=out)(x, y)


jax.jit(step).lower(spec((8, 3), jnp.int16), spec((3, 128), jnp.int16)).compile()
