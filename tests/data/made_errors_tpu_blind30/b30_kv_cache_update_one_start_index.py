import jax
import jax.numpy as jnp


@jax.jit
def append_kv(cache, new_kv, pos):
    return jax.lax.dynamic_update_slice(cache, new_kv, (pos,))

cache = jnp.zeros((8, 2048, 16, 128), jnp.bfloat16)
new_kv = jnp.ones((8, 1, 16, 128), jnp.bfloat16)
print(append_kv(cache, new_kv, 17).shape)
