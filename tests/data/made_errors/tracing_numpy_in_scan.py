import jax
import jax.numpy as jnp
import numpy as np

def step(carry, x):
    carry = carry + np.asarray(x)
    return carry, carry

jax.lax.scan(step, jnp.zeros(()), jnp.arange(5.0))
