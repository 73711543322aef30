import jax
import jax.numpy as jnp


def init_layer(key, fan_in, fan_out):
    # He initialisation
    w = jax.random.normal((fan_in, fan_out), key) * jnp.sqrt(2.0 / fan_in)
    return {"w": w, "b": jnp.zeros(fan_out)}


params = init_layer(jax.random.key(0), 784, 256)
print(params["w"].shape)
