import jax
import jax.numpy as jnp


@jax.jit
def log_likelihood(weight, z):
    # a normalizing flow's 1x1 invertible convolution, trained in bf16
    log_det = jnp.log(jnp.abs(jnp.linalg.det(weight)))
    return -0.5 * jnp.sum(z**2) + z.shape[0] * log_det


weight = jnp.eye(48, dtype=jnp.bfloat16) + 0.01
print(log_likelihood(weight, jnp.ones((64, 48), jnp.bfloat16)))
