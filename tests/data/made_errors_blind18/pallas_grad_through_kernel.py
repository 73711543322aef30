import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def fused_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.tanh(x_ref[...] @ w_ref[...])


def fused_layer(x, w):
    out = jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype)
    return pl.pallas_call(fused_kernel, out_shape=out, interpret=True)(x, w)


def loss(w, x):
    return jnp.mean(fused_layer(x, w) ** 2)


grads = jax.grad(loss)(jnp.ones((8, 8)), jnp.ones((8, 8)))
