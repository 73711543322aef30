import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref, *, scale):
    o_ref[...] = x_ref[...] * scale


x = jnp.ones((8, 128))
out = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                     interpret=True)(x, scale=0.5)
print(out.sum())
