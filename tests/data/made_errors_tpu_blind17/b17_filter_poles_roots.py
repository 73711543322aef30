import jax
import jax.numpy as jnp


def is_stable(denominator):
    poles = jnp.roots(denominator)
    return bool(jnp.all(jnp.abs(poles) < 1.0))

print(is_stable(jnp.array([1.0, -1.2, 0.5, -0.1])))
