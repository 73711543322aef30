import jax
import jax.numpy as jnp


def decoder(z, w):
    return jnp.tanh(z @ w)


z = jnp.ones((4, 16))
w = jnp.ones((16, 64)) * 0.1
out, pullback = jax.vjp(decoder, z, w)
# the upstream gradient comes from the bf16 half of the mixed-precision model
upstream = jnp.ones((4, 64), jnp.bfloat16)
dz, dw = pullback(upstream)
print(dz.shape, dw.shape)
