import jax
import jax.numpy as jnp


@jax.jit
def spectral_penalty(w):
    # the largest eigenvalue of W^T W, for a Lipschitz penalty, in the bf16 training dtype
    return jnp.linalg.eigh(w.T @ w)[0][-1]


w = jnp.ones((256, 128), jnp.bfloat16) * 0.01
print(spectral_penalty(w))
