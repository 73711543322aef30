import jax
import jax.numpy as jnp


def retrieval_scores(queries, keys):
    # written for one example, called on the batch the loader returns
    return jnp.einsum("qd,kd->qk", queries, keys) / jnp.sqrt(queries.shape[-1])


queries = jnp.ones((16, 5, 64))
keys = jnp.ones((16, 100, 64))
print(jax.jit(retrieval_scores)(queries, keys).shape)
