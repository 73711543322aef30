import jax
import jax.numpy as jnp


w_hh = jnp.ones((256, 256), jnp.bfloat16) * 0.01
w_xh = jnp.ones((128, 256), jnp.bfloat16) * 0.01

def rnn_cell(h, x):
    h = jnp.tanh(h.astype(jnp.bfloat16) @ w_hh + x.astype(jnp.bfloat16) @ w_xh)
    return h, h

xs = jnp.ones((64, 32, 128), jnp.float32)
h_last, hs = jax.lax.scan(rnn_cell, jnp.zeros((32, 256), jnp.float32), xs)
print(h_last.shape)
