import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def histogram_kernel(bins_ref, o_ref):
    bins = bins_ref[...].reshape(-1)
    o_ref[...] = jnp.zeros((1, 128), jnp.int32).at[0, bins].add(1)

bins = jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128) % 128
counts = pl.pallas_call(histogram_kernel,
                        out_shape=jax.ShapeDtypeStruct((1, 128), jnp.int32))(bins)
print(counts.sum())
