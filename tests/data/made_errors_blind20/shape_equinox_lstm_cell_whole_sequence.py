import jax
import jax.numpy as jnp
import equinox as eqx


class Encoder(eqx.Module):
    cell: eqx.nn.LSTMCell

    def __init__(self, key):
        self.cell = eqx.nn.LSTMCell(16, 32, key=key)

    def __call__(self, sequence):
        state = (jnp.zeros(32), jnp.zeros(32))
        h, _ = self.cell(sequence, state)
        return h


encoder = Encoder(jax.random.key(0))
print(eqx.filter_jit(encoder)(jnp.ones((50, 16))).shape)
