"""Programs whose compile ``tests/test_compile_time*.py`` measure and explain.

``layers_loop`` and ``layers_scan`` are one model, a stack of bf16 dense layers with a gelu,
written two ways: a Python loop over the layers (JAX traces every layer into the program, and
XLA compiles each one) and ``lax.scan`` over the stacked weights (one body, compiled once).
``lookup_table`` folds a large NumPy table into the program as a constant.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

LAYERS = 48
WIDTH = 128


def layer(x, w):
    return jax.nn.gelu(x @ w)


def layers_loop(x, ws):
    for w in ws:
        x = layer(x, w)
    return x.sum()


def layers_scan(x, ws):
    def body(carry, w):
        return layer(carry, w), None

    x, _ = jax.lax.scan(body, x, ws)
    return x.sum()


def _weights():
    return jnp.zeros((LAYERS, WIDTH, WIDTH), jnp.bfloat16)


TABLE = np.arange(256 * 1024, dtype=np.float32).reshape(256, 1024) / 7.0


def lookup_table(x):
    return (x @ TABLE).sum()


EXAMPLE_ARGS = {
    "layers_loop": (
        jnp.zeros((64, WIDTH), jnp.bfloat16),
        [jnp.zeros((WIDTH, WIDTH), jnp.bfloat16) for _ in range(LAYERS)],
    ),
    "layers_scan": (jnp.zeros((64, WIDTH), jnp.bfloat16), _weights()),
    "lookup_table": (jnp.zeros((8, 256), jnp.float32),),
}
