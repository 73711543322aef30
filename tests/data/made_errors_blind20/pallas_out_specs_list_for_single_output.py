import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rmsnorm_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)


def rmsnorm(x):
    return pl.pallas_call(
        rmsnorm_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))],
        interpret=True,
    )(x)


print(rmsnorm(jnp.ones((64, 512))).shape)
