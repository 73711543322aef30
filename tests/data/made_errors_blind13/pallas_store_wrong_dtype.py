import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def quantize_kernel(x_ref, o_ref):
    o_ref[...] = jnp.round(x_ref[...] * 127).astype(jnp.int8)


def quantize(x):
    return pl.pallas_call(
        quantize_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        interpret=True,
    )(x)


print(quantize(jnp.linspace(-1.0, 1.0, 16)))
