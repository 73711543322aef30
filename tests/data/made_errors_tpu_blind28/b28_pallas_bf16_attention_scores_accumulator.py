import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scores_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.einsum("hqd,hkd->hqk", q_ref[...], k_ref[...]) * 0.125

q = jnp.ones((4, 128, 64), jnp.bfloat16)
k = jnp.ones((4, 128, 64), jnp.bfloat16)
scores = pl.pallas_call(scores_kernel,
                        out_shape=jax.ShapeDtypeStruct((4, 128, 128), jnp.bfloat16))(q, k)
print(scores.shape)
