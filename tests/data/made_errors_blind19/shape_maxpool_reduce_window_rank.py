import jax
import jax.numpy as jnp


def max_pool(x, window=2):
    # x is NHWC; the window is given for the spatial dims only
    dims = (window, window)
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, dims, dims, "VALID")


@jax.jit
def features(images, kernel):
    x = jax.lax.conv_general_dilated(images, kernel, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return max_pool(jax.nn.relu(x))


images = jnp.ones((8, 28, 28, 1))
kernel = jnp.ones((3, 3, 1, 16)) / 9
print(features(images, kernel).shape)
