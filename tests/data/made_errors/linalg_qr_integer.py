import jax
import jax.numpy as jnp

counts = jnp.arange(9, dtype=jnp.int32).reshape(3, 3)
q, r = jax.lax.linalg.qr(counts)
