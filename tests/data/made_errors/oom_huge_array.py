import jax
import jax.numpy as jnp

x = jnp.ones((1 << 40,), jnp.float32)
print(x.sum())
