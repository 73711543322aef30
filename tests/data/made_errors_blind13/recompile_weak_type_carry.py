import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def ema(avg, x, decay):
    return decay * avg + (1 - decay) * x


avg = 0.0
for x in jnp.linspace(0.0, 1.0, 4):
    avg = ema(avg, x, 0.99)
print(avg)
