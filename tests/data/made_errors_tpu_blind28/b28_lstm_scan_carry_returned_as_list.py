import jax
import jax.numpy as jnp


w_x = jnp.ones((64, 512)) * 0.01
w_h = jnp.ones((128, 512)) * 0.01

def lstm_step(carry, x):
    h, c = carry
    i, f, g, o = jnp.split(x @ w_x + h @ w_h, 4, axis=-1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return [h, c], h

xs = jnp.ones((100, 32, 64))
init = (jnp.zeros((32, 128)), jnp.zeros((32, 128)))
(h, c), hs = jax.lax.scan(lstm_step, init, xs)
print(hs.shape)
