import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def residual_kernel(x_ref, delta_ref, o_ref):
    o_ref[...] = x_ref[...] + delta_ref[...]


def residual_add(x, delta):
    # write the sum in place: o_ref (the kernel's third ref) reuses x's buffer
    return pl.pallas_call(
        residual_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        input_output_aliases={2: 0},
        interpret=True,
    )(x, delta)


print(residual_add(jnp.ones((8, 128)), jnp.ones((8, 128))).shape)
