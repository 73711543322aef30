import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def relu_grad_kernel(x_ref, g_ref, o_ref):
    o_ref[...] = jnp.zeros_like(g_ref)

    @pl.when(x_ref[...] > 0)
    def _():
        o_ref[...] = g_ref[...]


def relu_grad(x, g):
    return pl.pallas_call(
        relu_grad_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
    )(x, g)


print(relu_grad(jnp.ones((8, 128)), jnp.ones((8, 128))).sum())
