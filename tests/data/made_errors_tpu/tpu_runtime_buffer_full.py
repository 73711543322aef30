import jax
import jax.numpy as jnp

kept = [jnp.ones((1024, 1024, 256), jnp.float32) for _ in range(13)]
jax.block_until_ready(kept)
big = jnp.ones((1024, 1024, 1024), jnp.float32); big.block_until_ready()
