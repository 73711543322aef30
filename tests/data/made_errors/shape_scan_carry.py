import jax
import jax.numpy as jnp

def step(carry, x):
    return jnp.stack([carry, x]), x

jax.lax.scan(step, jnp.zeros(()), jnp.arange(3.0))
