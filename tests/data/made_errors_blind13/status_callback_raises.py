import jax
import jax.numpy as jnp
import numpy as np


def lookup_rows(ids):
    table = np.load("embeddings.npy")
    return table[ids]


@jax.jit
def embed(ids):
    shape = jax.ShapeDtypeStruct(ids.shape + (16,), jnp.float32)
    return jax.pure_callback(lookup_rows, shape, ids)


print(embed(jnp.arange(4)))
