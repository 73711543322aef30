# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp


@jax.jit
def f(key, images, kernel):
    y = jax.lax.conv_general_dilated(
        images, kernel, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    y = jax.lax.reduce_window(jax.nn.relu(y), -jnp.inf, jax.lax.max, (1, 2, 2, 1),
                              (1, 1, 1, 1), "SAME")
    keep = jax.random.bernoulli(key, 0.8, y.shape)
    jitter = jax.random.uniform(key, y.shape)
    return jnp.where(keep, y * jitter, 0.0).sum(axis=(1, 2))


f(jax.random.key(3), jnp.ones((2, 12, 12, 4)), jnp.ones((3, 3, 4, 6)))
