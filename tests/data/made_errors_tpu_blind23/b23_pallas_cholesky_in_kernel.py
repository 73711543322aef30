import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def factor_block_kernel(cov_ref, o_ref):
    o_ref[...] = jnp.linalg.cholesky(cov_ref[...])

cov = jnp.eye(128, dtype=jnp.float32) * 2.0
factor = pl.pallas_call(factor_block_kernel,
                        out_shape=jax.ShapeDtypeStruct(cov.shape, cov.dtype))(cov)
print(factor[0, 0])
