import jax
import jax.numpy as jnp


print(jax.devices())
x = jnp.ones((1024, 1024))
print((x @ x).sum())
