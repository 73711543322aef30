import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def gelu_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


@jax.jit
def gelu(x):
    return pl.pallas_call(gelu_kernel, out_shape=x.shape, interpret=True)(x)


print(gelu(jnp.ones((256, 512))).sum())
