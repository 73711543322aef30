import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def rowsum_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = jnp.sum(x_ref[...], axis=-1, keepdims=True)
    o_ref[...] = acc_ref[...]


x = jnp.ones((8, 128))
out = pl.pallas_call(
    rowsum_kernel,
    out_shape=jax.ShapeDtypeStruct((8, 1), jnp.float32),
    scratch_shapes=[pltpu.VMEM((8, 1))],
    interpret=True,
)(x)
print(out.sum())
