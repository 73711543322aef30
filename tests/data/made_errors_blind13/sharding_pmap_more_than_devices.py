import jax
import jax.numpy as jnp


@jax.pmap
def per_device_mean(x):
    return x.mean()


batch = jnp.ones((16, 4))
means = per_device_mean(batch)
