import jax
import jax.numpy as jnp


@jax.jit
def decode(features, kernel):
    x = jnp.repeat(jnp.repeat(features, 4, axis=1), 4, axis=2)
    return jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

features = jnp.ones((16, 512, 512, 64), jnp.float32)
kernel = jnp.ones((3, 3, 64, 64), jnp.float32) / 576
images = decode(features, kernel)
print(images.shape)
