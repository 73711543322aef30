import jax
import jax.numpy as jnp


@jax.pmap
def local_loss(x):
    return jnp.mean(x ** 2)

batch = jnp.ones((8, 32, 128))
print(local_loss(batch))
