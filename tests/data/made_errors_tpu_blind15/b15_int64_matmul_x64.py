import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

@jax.jit
def cooccurrence(onehots):
    return onehots.T @ onehots

tokens = jnp.arange(4096) % 512
onehots = jax.nn.one_hot(tokens, 512, dtype=jnp.int64)
print(cooccurrence(onehots).sum())
