import jax
import jax.numpy as jnp


images = jnp.ones((32, 224, 224, 3), jnp.float32)
kernel = jnp.ones((7, 7, 3, 64), jnp.float32)
stem = jax.lax.conv(images, kernel, (2, 2), "SAME")
print(stem.shape)
