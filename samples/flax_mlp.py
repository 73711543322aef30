"""A small Flax MLP trained with optax's AdamW: what a framework does to your source lines.

The model is ``blocks`` residual MLP blocks (``LayerNorm`` → ``Dense`` → GELU → ``Dense``, added
back to the input), a final ``LayerNorm`` and a ``Dense`` head, written with ``flax.linen``; the
training step takes the mean-squared error and its gradient and applies ``optax.adamw``. Every
op of it is traced inside Flax or optax (``flax/linen/normalization.py``, ``optax/_src/...``),
so the innermost frame of each op's stack is a framework's. hloscope attributes an op to the
innermost frame *in this file* instead (the ``nn.LayerNorm()(x)`` line of :class:`Block`, the
``optimizer.update`` line of :func:`train_step`): ``hloscope fusions --by-source
samples/flax_mlp.py:train_step`` shows which of these lines ended up in which kernels.

    args = example_args()
    loss, params, opt_state = train_step(*args)

``example_args()`` returns ``(params, opt_state, x, y)`` for :func:`train_step`; importing this
module does no JAX work (the parameters are made in ``example_args``). Run it as a script to
take a few steps: ``python samples/flax_mlp.py``.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

WIDTH = 64
HIDDEN = 256
BLOCKS = 3
LEARNING_RATE = 1e-3


class Block(nn.Module):
    """Pre-norm residual MLP block: ``x + Dense(gelu(Dense(LayerNorm(x))))``."""

    hidden: int

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        h = nn.LayerNorm()(x)
        h = nn.Dense(self.hidden)(h)
        h = nn.gelu(h)
        h = nn.Dense(x.shape[-1])(h)
        return x + h


class MLP(nn.Module):
    """``blocks`` :class:`Block` s, a final ``LayerNorm`` and a ``Dense`` head."""

    blocks: int = BLOCKS
    hidden: int = HIDDEN
    out: int = WIDTH

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for _ in range(self.blocks):
            x = Block(self.hidden)(x)
        x = nn.LayerNorm()(x)
        return nn.Dense(self.out)(x)


MODEL = MLP()
optimizer = optax.adamw(LEARNING_RATE, weight_decay=1e-4)


def loss_fn(params: Any, x: jax.Array, y: jax.Array) -> jax.Array:
    prediction = MODEL.apply(params, x)
    return jnp.mean((prediction - y) ** 2)


@jax.jit
def train_step(
    params: Any, opt_state: Any, x: jax.Array, y: jax.Array
) -> tuple[jax.Array, Any, Any]:
    """One AdamW step on the mean-squared error: ``(loss, new params, new optimizer state)``."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    params = optax.apply_updates(params, updates)
    return loss, params, opt_state


def example_args(batch: int = 16, seed: int = 0) -> tuple[Any, Any, jax.Array, jax.Array]:
    """Arguments ``(params, opt_state, x, y)`` for :func:`train_step`: a freshly initialised
    model and optimizer, and a batch of ``[batch, WIDTH]`` inputs and targets."""
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.normal(size=(batch, WIDTH)).astype(np.float32))
    y = jnp.asarray(rng.normal(size=(batch, WIDTH)).astype(np.float32))
    params = MODEL.init(jax.random.key(seed), x)
    return params, optimizer.init(params), x, y


def main() -> None:
    params, opt_state, x, y = example_args()
    for step in range(3):
        loss, params, opt_state = train_step(params, opt_state, x, y)
        print(f"step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()
