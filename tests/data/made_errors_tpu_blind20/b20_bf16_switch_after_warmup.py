import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def forward(w, x):
    return jnp.tanh(x @ w).mean()

w = jnp.ones((1024, 1024), jnp.float32)
for step in range(4):
    dtype = jnp.float32 if step < 2 else jnp.bfloat16
    print(step, float(forward(w.astype(dtype), jnp.ones((256, 1024), dtype))))
