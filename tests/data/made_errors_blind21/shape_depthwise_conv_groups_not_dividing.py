import jax
import jax.numpy as jnp


def depthwise_separable(x, depthwise_w, pointwise_w):
    # MobileNet block: one 3x3 filter per input channel, then a 1x1 mix
    y = jax.lax.conv_general_dilated(
        x, depthwise_w, (1, 1), "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=x.shape[-1])
    return y @ pointwise_w


x = jnp.ones((8, 32, 32, 24))
print(jax.jit(depthwise_separable)(x, jnp.ones((3, 3, 1, 32)), jnp.ones((32, 64))).shape)
