import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def softmax_kernel(x_ref, o_ref):
    z = x_ref - jnp.max(x_ref, axis=-1, keepdims=True)
    e = jnp.exp(z)
    o_ref[...] = e / e.sum(axis=-1, keepdims=True)


def softmax(x):
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(jax.jit(softmax)(jnp.ones((64, 128)))[0, :3])
