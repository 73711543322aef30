import jax
import jax.numpy as jnp


data = jnp.ones((2304, 1024, 1024), jnp.float32)
print("dataset", data.nbytes / 2**30, "GiB")
mean, std = 0.5, 0.25
data = ((data - mean) / std).block_until_ready()
print(data.shape)
