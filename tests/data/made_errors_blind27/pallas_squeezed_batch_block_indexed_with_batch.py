import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def time_sum_kernel(x_ref, o_ref):
    acc = jnp.zeros((128,), jnp.float32)
    for t in range(4):
        acc = acc + x_ref[0, t, :]
    o_ref[...] = acc


x = jnp.ones((2, 4, 128))  # (batch, time, features)
out = pl.pallas_call(
    time_sum_kernel,
    out_shape=jax.ShapeDtypeStruct((2, 128), jnp.float32),
    grid=(2,),
    in_specs=[pl.BlockSpec((None, 4, 128), lambda b: (b, 0, 0))],
    out_specs=pl.BlockSpec((None, 128), lambda b: (b, 0)),
    interpret=True,
)(x)
print(out.sum())
