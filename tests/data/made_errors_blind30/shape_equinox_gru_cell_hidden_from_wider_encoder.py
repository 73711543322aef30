import jax
import jax.numpy as jnp
import equinox as eqx

key = jax.random.key(0)
cell = eqx.nn.GRUCell(input_size=32, hidden_size=64, key=key)


def decode(encoder_state, inputs):
    # the decoder starts from the encoder's final state (the encoder was widened to 128)
    def step(h, x):
        h = cell(x, h)
        return h, h

    return jax.lax.scan(step, encoder_state, inputs)[1]


print(jax.jit(decode)(jnp.zeros(128), jnp.ones((10, 32))).shape)
