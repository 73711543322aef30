import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=x.shape, interpret=True)(x, y)


print(add(jnp.ones((8, 8)), jnp.ones((8, 8))))
