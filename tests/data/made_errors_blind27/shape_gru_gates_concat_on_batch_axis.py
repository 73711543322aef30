import jax
import jax.numpy as jnp


def gru_cell(params, h, x):
    hx = jnp.concatenate([h, x])
    z = jax.nn.sigmoid(hx @ params["wz"])
    r = jax.nn.sigmoid(hx @ params["wr"])
    n = jnp.tanh(jnp.concatenate([r * h, x], axis=-1) @ params["wn"])
    return (1 - z) * h + z * n


k = jax.random.key(0)
params = {name: jax.random.normal(k, (64 + 32, 64)) * 0.1 for name in ("wz", "wr", "wn")}
h = jnp.zeros((16, 64))
xs = jnp.ones((10, 16, 32))
h, _ = jax.lax.scan(lambda h, x: (gru_cell(params, h, x), None), h, xs)
print(h.shape)
