import jax
import jax.numpy as jnp
import trainkit

params = {"w": jnp.zeros((16, 4))}
batch = jnp.ones((12, 16))  # the last, smaller batch of the epoch
params = trainkit.data_parallel_step(params, batch)
print(params["w"].shape)
