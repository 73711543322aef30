import jax
import jax.numpy as jnp


images = jnp.ones((50_000, 32, 32, 3), jnp.float32)  # CIFAR-10, already on the device
# every epoch of the schedule unrolled up front so the loop can just index
epochs = jnp.repeat(images[None], 300, axis=0)
print(epochs.shape)
