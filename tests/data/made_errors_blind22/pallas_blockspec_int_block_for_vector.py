import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def axpy_kernel(a_ref, x_ref, y_ref, o_ref):
    o_ref[...] = a_ref[0] * x_ref[...] + y_ref[...]


def axpy(a, x, y):
    block = pl.BlockSpec(1024, lambda i: (i,))  # 1024 elements per program
    return pl.pallas_call(
        axpy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 1024,),
        in_specs=[pl.BlockSpec((1,), lambda i: (0,)), block, block],
        out_specs=block,
        interpret=True,
    )(a, x, y)


print(axpy(jnp.ones(1), jnp.ones(8192), jnp.ones(8192)).shape)
