import jax
import jax.numpy as jnp


def normalize(v):
    return v / jnp.linalg.norm(v, axis=-1, keepdims=True)

embedding = jnp.ones((128,), jnp.float32)
unit = jax.vmap(normalize, in_axes=1)(embedding)
print(unit.shape)
