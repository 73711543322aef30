import jax
import jax.numpy as jnp


x = jnp.ones((1024, 1024))
x_gpu = jax.device_put(x, jax.devices("gpu")[0])
print(x_gpu.devices())
