import jax
import jax.numpy as jnp


tokens = jnp.array([[5, 8, 13, 0, 0, 0], [7, 2, 0, 0, 0, 0]])
mask = jnp.ones(tokens.shape, jnp.bool_)
mask[tokens == 0] = False
print(mask.sum())
