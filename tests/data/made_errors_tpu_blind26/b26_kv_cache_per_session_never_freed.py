import jax
import jax.numpy as jnp


sessions = {}
for request_id in range(12):
    cache = jnp.zeros((2, 32, 8192, 1024), jnp.float32)
    sessions[request_id] = cache
    print("request", request_id, "cache", cache.nbytes / 2**30, "GiB")
