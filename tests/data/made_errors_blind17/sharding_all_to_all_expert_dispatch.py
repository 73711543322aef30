import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("expert",))


def dispatch(tokens):
    # send each expert its slice of this device's tokens
    return jax.lax.all_to_all(tokens, "expert", split_axis=0, concat_axis=0, tiled=True)


route = jax.shard_map(dispatch, mesh=mesh, in_specs=P("expert"), out_specs=P("expert"))
tokens = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh, P("expert")))
print(jax.jit(route)(tokens).shape)
