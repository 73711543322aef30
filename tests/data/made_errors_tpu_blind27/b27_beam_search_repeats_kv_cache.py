import jax
import jax.numpy as jnp


@jax.jit
def expand_for_beams(kv_cache):
    return jnp.repeat(kv_cache, 8, axis=1)

kv_cache = jnp.zeros((16, 4, 4096, 4096), jnp.bfloat16)
print("kv cache", kv_cache.nbytes / 2**30, "GiB")
beams = expand_for_beams(kv_cache)
print(beams.shape)
