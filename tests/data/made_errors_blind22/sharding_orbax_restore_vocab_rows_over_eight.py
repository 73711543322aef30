import jax
import jax.numpy as jnp
import os

import orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec as P

path = os.path.abspath("checkpoints/1000")
state = {"embed": jnp.zeros((50257, 64)), "step": jnp.int32(1000)}
with ocp.StandardCheckpointer() as checkpointer:
    checkpointer.save(path, state)

# resume on the eight-way mesh of the new job, the embedding split by rows
mesh = jax.make_mesh((8,), ("data",))
target = {
    "embed": jax.ShapeDtypeStruct((50257, 64), jnp.float32,
                                  sharding=NamedSharding(mesh, P("data"))),
    "step": jax.ShapeDtypeStruct((), jnp.int32, sharding=NamedSharding(mesh, P())),
}
with ocp.StandardCheckpointer() as checkpointer:
    restored = checkpointer.restore(path, target)
print(restored["embed"].sharding)
