import jax
import jax.numpy as jnp


def rnn_step(h, inputs):
    x, m = inputs
    h = jnp.tanh(h + x) * m
    return h, h


def run_rnn(xs, masks):
    h0 = jnp.zeros(xs.shape[-1])
    return jax.lax.scan(rnn_step, h0, (xs, masks))


xs = jnp.ones((5, 3))
masks = jnp.ones((4, 1))
final, hs = run_rnn(xs, masks)
