import jax
import jax.numpy as jnp

@jax.custom_jvp
def softclip(x):
    return jnp.tanh(x)

@softclip.defjvp
def softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softclip(x), (t * (1 - jnp.tanh(x) ** 2), t)

jax.jvp(softclip, (1.0,), (1.0,))
