import jax
import jax.numpy as jnp
from flax import nnx


class Decoder(nnx.Module):
    def __init__(self, rngs):
        self.proj = nnx.Linear(64, 64, rngs=rngs)
        # the cache length, kept with the weights so that checkpoints remember it
        self.cache_len = nnx.Variable(jnp.array(128))

    def init_cache(self, batch):
        return jnp.zeros((batch, self.cache_len.value, 64))


@nnx.jit
def start_decoding(model, prompt):
    cache = model.init_cache(prompt.shape[0])
    return cache.at[:, : prompt.shape[1]].set(model.proj(prompt))


print(start_decoding(Decoder(nnx.Rngs(0)), jnp.ones((2, 16, 64))).shape)
