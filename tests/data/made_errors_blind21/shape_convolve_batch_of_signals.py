import jax
import jax.numpy as jnp


@jax.jit
def smooth(signals):
    # moving-average filter over every recording of the batch
    kernel = jnp.ones(9) / 9
    return jnp.convolve(signals, kernel, mode="same")


print(smooth(jnp.ones((32, 4000))).shape)
