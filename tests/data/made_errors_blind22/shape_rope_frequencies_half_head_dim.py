import jax
import jax.numpy as jnp


def apply_rope(x, positions):
    # rotary position embedding over the last axis (head_dim)
    head_dim = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (jnp.arange(0, head_dim, 2) / head_dim))
    angles = positions[:, None] * inv_freq[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    rotated = jnp.concatenate([-x[..., head_dim // 2:], x[..., : head_dim // 2]], axis=-1)
    return x * cos[:, None, :] + rotated * sin[:, None, :]


q = jnp.ones((128, 8, 64))  # seq x heads x head_dim
print(jax.jit(apply_rope)(q, jnp.arange(128.0)).shape)
