import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def expand_for_sampling(prompts, num_samples=4):
    # four completions per prompt: repeat each prompt row
    return jnp.repeat(prompts, num_samples, axis=0)


prompts = jax.device_put(jnp.zeros((16, 128), jnp.int32), NamedSharding(mesh, P("data")))
print(expand_for_sampling(prompts).shape)
