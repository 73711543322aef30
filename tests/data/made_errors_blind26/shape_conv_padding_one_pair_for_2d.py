import jax
import jax.numpy as jnp


def stem(images, kernel):
    # 'same' padding for the 3x3 stem convolution, NCHW as in the PyTorch port
    return jax.lax.conv_general_dilated(images, kernel, (1, 1), ((1, 1),))


images = jnp.ones((8, 3, 224, 224))
kernel = jax.random.normal(jax.random.key(0), (64, 3, 3, 3))
print(jax.jit(stem)(images, kernel).shape)
