import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def conv3x3_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jax.lax.conv_general_dilated(
        x_ref[...], w_ref[...], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

images = jnp.ones((1, 16, 16, 128), jnp.float32)
kernel = jnp.ones((3, 3, 128, 128), jnp.float32)
out = pl.pallas_call(conv3x3_kernel,
                     out_shape=jax.ShapeDtypeStruct(images.shape, images.dtype))(images, kernel)
print(out.shape)
