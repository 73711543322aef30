import jax
import jax.numpy as jnp


@jax.jit
def prefill(cache_k, new_k):
    return jax.lax.dynamic_update_slice(cache_k, new_k, (0, 0, 0, 0))

max_len = 1024
cache_k = jnp.zeros((1, max_len, 8, 64), jnp.bfloat16)
prompt_k = jnp.ones((1, 2048, 8, 64), jnp.bfloat16)
cache_k = prefill(cache_k, prompt_k)
print(cache_k.shape)
