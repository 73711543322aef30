import jax
import jax.numpy as jnp


def upsample_block(x, kernel):
    # decoder: 64 -> 32 channels, twice the resolution
    return jax.lax.conv_transpose(
        x, kernel, strides=(2, 2), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


kernel = jax.random.normal(jax.random.key(0), (4, 4, 32, 64))  # (H, W, out, in) as in PyTorch
print(jax.jit(upsample_block)(jnp.ones((2, 16, 16, 64)), kernel).shape)
