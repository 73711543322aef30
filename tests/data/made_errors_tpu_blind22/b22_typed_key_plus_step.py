import jax
import jax.numpy as jnp


key = jax.random.key(0)
for step in range(3):
    noise = jax.random.normal(key + step, (1024, 1024))
    print(step, noise.std())
