"""Two programs for ``memory --scale`` (``tests/test_memory_scale.py``): a two-layer MLP's
gradient and a transformer-ish train step, each with its example arguments."""

from __future__ import annotations

import jax
import jax.numpy as jnp

D, V, T = 64, 256, 32


def mlp_step(w1, w2, x):
    """The gradient of a two-layer MLP's loss: its batch ``x`` (16, 64) is what grows."""
    return jax.grad(lambda a, b: jnp.mean(jnp.tanh(x @ a) @ b), (0, 1))(w1, w2)


mlp_step.example_args = lambda: (jnp.ones((64, 128)), jnp.ones((128, 64)), jnp.ones((16, 64)))


def train_step(params, tokens):
    """Embedding, one attention layer, an MLP and SGD: ``tokens`` (8, 32) grows by its batch."""

    def loss(p):
        x = p["embed"][tokens]
        q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
        att = jax.nn.softmax(q @ jnp.swapaxes(k, -1, -2) / 8.0, axis=-1)
        x = x + (att @ v) @ p["wo"]
        x = x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]
        return jnp.mean((x @ p["embed"].T) ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree.map(lambda a, g: a - 1e-3 * g, params, grads)


def _params():
    shapes = {"embed": (V, D), "wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D)}
    shapes |= {"w1": (D, 4 * D), "w2": (4 * D, D)}
    return {name: jnp.ones(shape) * 0.01 for name, shape in shapes.items()}


train_step.example_args = lambda: (_params(), jnp.zeros((8, T), jnp.int32))
