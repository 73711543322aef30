"""Two programs of this test suite's own for ``diff --python-a`` (two environments): each compiles
under the oldest supported jax and the newest alike.

``norm_mlp``: a layer norm, a dense layer and a GELU, written plainly (one matmul and the
elementwise work XLA fuses around it). ``scan_rnn``: a small recurrent cell stepped by
``lax.scan`` (a while loop whose body holds a matmul and a tanh), a different shape of program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def norm_mlp(x: jax.Array, w: jax.Array) -> jax.Array:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    h = (x - mean) * jax.lax.rsqrt(var + 1e-6)
    return jax.nn.gelu(h @ w)


@jax.jit
def scan_rnn(h0: jax.Array, xs: jax.Array, w: jax.Array) -> jax.Array:
    def step(h: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(h @ w + x)
        return h, h.sum()

    last, sums = jax.lax.scan(step, h0, xs)
    return last * sums.mean()


def example_args() -> dict[str, tuple[jax.Array, ...]]:
    rng = np.random.default_rng(0)
    return {
        "norm_mlp": (
            jnp.asarray(rng.normal(size=(16, 64)).astype(np.float32)),
            jnp.asarray(rng.normal(size=(64, 128)).astype(np.float32)),
        ),
        "scan_rnn": (
            jnp.zeros((8, 32), jnp.float32),
            jnp.asarray(rng.normal(size=(12, 8, 32)).astype(np.float32)),
            jnp.asarray(rng.normal(0.0, 0.1, size=(32, 32)).astype(np.float32)),
        ),
    }
