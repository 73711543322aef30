import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_valid_kernel(len_ref, x_ref, o_ref):
    n = len_ref[0]  # how many positions of this sequence are real
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[pl.ds(0, n)] = x_ref[pl.ds(0, n)] * 2.0


x = jnp.ones((512,))
out = pl.pallas_call(scale_valid_kernel, out_shape=jax.ShapeDtypeStruct((512,), jnp.float32),
                     interpret=True)(jnp.array([300]), x)
print(out.sum())
