import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def append_kernel(cache_ref, new_ref, o_ref):
    o_ref[:, :128] = cache_ref[...]
    o_ref[:, 128:] = new_ref[...]


def extend_cache(cache, new):
    # grow the cache in place
    return pl.pallas_call(
        append_kernel,
        out_shape=jax.ShapeDtypeStruct((cache.shape[0], 256), cache.dtype),
        input_output_aliases={0: 0},
        interpret=True,
    )(cache, new)


print(extend_cache(jnp.ones((8, 128)), jnp.ones((8, 128))).shape)
