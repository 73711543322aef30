import jax
import jax.numpy as jnp
from functools import lru_cache


@lru_cache(maxsize=8)
def rope_table(seq_len, dim=64):
    # computed once per length, then reused by every layer
    inv_freq = 1.0 / 10000 ** (jnp.arange(0, dim, 2) / dim)
    angles = jnp.arange(seq_len)[:, None] * inv_freq[None]
    return jnp.cos(angles), jnp.sin(angles)


@jax.jit
def apply_rope(x, lengths):
    cos, sin = rope_table(lengths.max())
    x1, x2 = x[..., ::2], x[..., 1::2]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


print(apply_rope(jnp.ones((4, 128, 64)), jnp.array([128, 100, 64, 128])).shape)
