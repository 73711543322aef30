import jax
import jax.numpy as jnp
from jax.experimental import checkify


@jax.jit
def safe_log(x):
    checkify.check(jnp.all(x > 0), "log of a non-positive value")
    return jnp.log(x)


print(safe_log(jnp.array([1.0, 2.0, 3.0])))
