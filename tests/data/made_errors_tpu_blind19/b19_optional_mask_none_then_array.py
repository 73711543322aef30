import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def masked_mean(x, mask=None):
    if mask is None:
        return x.mean()
    return (x * mask).sum() / mask.sum()

x = jnp.ones((1024, 1024))
for step in range(3):
    mask = None if step == 0 else (jnp.arange(1024) < 1000 - step)[:, None] * jnp.ones((1, 1024))
    print(step, float(masked_mean(x, mask)))
