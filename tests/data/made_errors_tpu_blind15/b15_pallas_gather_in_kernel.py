import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def permute_rows_kernel(perm_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...][perm_ref[...], :]

perm = jnp.arange(127, -1, -1, dtype=jnp.int32)
x = jnp.ones((128, 128), jnp.float32)
out = pl.pallas_call(permute_rows_kernel,
                     out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(perm, x)
print(out.sum())
