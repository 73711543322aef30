import jax
import jax.numpy as jnp


@jax.jit
def decode_runs(values, counts):
    return jnp.repeat(values, counts)

values = jnp.array([3, 7, 1, 9], jnp.int32)
counts = jnp.array([2, 1, 4, 3], jnp.int32)
print(decode_runs(values, counts))
