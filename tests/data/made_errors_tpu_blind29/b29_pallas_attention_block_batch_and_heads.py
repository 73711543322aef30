import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scores_kernel(q_ref, k_ref, o_ref):
    o_ref[...] = jnp.einsum("bhqd,bhkd->bhqk", q_ref[...], k_ref[...],
                            preferred_element_type=jnp.float32)

q = jnp.ones((4, 4, 128, 128), jnp.bfloat16)
k = jnp.ones((4, 4, 128, 128), jnp.bfloat16)
block = pl.BlockSpec((1, 4, 128, 128), lambda b: (b, 0, 0, 0))
scores = pl.pallas_call(scores_kernel, grid=(4,), in_specs=[block, block], out_specs=block,
                        out_shape=jax.ShapeDtypeStruct((4, 4, 128, 128), jnp.float32))(q, k)
print(scores.shape)
