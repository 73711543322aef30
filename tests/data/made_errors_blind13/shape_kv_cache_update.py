import jax
import jax.numpy as jnp


@jax.jit
def append_kv(cache, new_kv, pos):
    return jax.lax.dynamic_update_slice(cache, new_kv, (pos, 0))


cache = jnp.zeros((128, 64))
for pos in range(3):
    new_kv = jnp.full((64,), float(pos))
    cache = append_kv(cache, new_kv, pos)
