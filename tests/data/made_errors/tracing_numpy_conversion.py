import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def softplus(x):
    return np.log1p(np.exp(x))

softplus(jnp.ones(3))
