import jax
import jax.numpy as jnp


jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def decode_step(cache, new_kv):
    # append this token's key/value to the cache and attend over all of it
    cache = jnp.concatenate([cache, new_kv[None]], axis=0)
    return cache, jax.nn.softmax(cache @ new_kv)


cache = jnp.zeros((1, 64))
for _ in range(6):
    cache, attn = decode_step(cache, jnp.ones(64))
