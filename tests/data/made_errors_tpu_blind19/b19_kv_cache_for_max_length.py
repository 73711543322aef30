import jax
import jax.numpy as jnp


layers, batch, max_len, heads, head_dim = 32, 64, 8192, 32, 128

@jax.jit
def init_cache():
    shape = (layers, batch, max_len, heads, head_dim)
    return {"k": jnp.zeros(shape, jnp.bfloat16), "v": jnp.zeros(shape, jnp.bfloat16)}

cache = init_cache()
print(jax.tree.map(jnp.shape, cache))
