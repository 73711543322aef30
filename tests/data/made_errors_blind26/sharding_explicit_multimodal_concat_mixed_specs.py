import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
jax.set_mesh(mesh)


@jax.jit
def fuse_tokens(image_tokens, text_tokens):
    # one sequence: the image patches, then the caption
    return jnp.concatenate([image_tokens, text_tokens], axis=1)


image_tokens = jax.device_put(jnp.ones((8, 256, 512)), P("data", None, "model"))
text_tokens = jax.device_put(jnp.ones((8, 64, 512)), P("data", None, None))
print(fuse_tokens(image_tokens, text_tokens).sharding)
