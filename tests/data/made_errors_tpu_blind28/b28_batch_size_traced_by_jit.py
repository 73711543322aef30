import jax
import jax.numpy as jnp


@jax.jit
def init_hidden(batch_size, hidden_size):
    return jnp.zeros((batch_size, hidden_size))

h0 = init_hidden(32, 256)
print(h0.shape)
