"""A small library of layers the refactored MLP (norm_mlp_b.py) calls instead of its own."""

import jax
import jax.numpy as jnp


def rms_norm(x, scale, eps=1e-6):
    """Root-mean-square normalization, as in T5 and LLaMA: no mean subtracted."""
    ms = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(ms + eps) * scale


def dense_gelu(x, w):
    return jax.nn.gelu(x @ w, approximate=True)
