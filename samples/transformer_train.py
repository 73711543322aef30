"""A small transformer training step in JAX: what XLA does to a real model.

The model has no embedding or vocabulary: it maps a ``[batch, seq, width]`` activation to one of the
same shape through ``layers`` pre-norm blocks of causal multi-head attention and a GELU MLP, and
learns to match a target under mean-squared error. The training step takes the loss and its
gradient with ``jax.value_and_grad`` and applies plain SGD, so its HLO holds everything a real
step does: matmuls (``dot``), softmax reductions, layer norms, a causal mask, the backward pass
and the parameter update, and after optimization, the fusions XLA makes of them.

    step, args = make(layers=2, width=64)
    loss, params = step(*args)

Run it as a script to run one step (``python samples/transformer_train.py --layers 4``); hloscope
captures it with ``hloscope <command> samples/transformer_train.py``. Importing it does no JAX work.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Params = list[dict[str, jax.Array]]

LEARNING_RATE = 1e-2


def layer_norm(x: jax.Array, scale: jax.Array, bias: jax.Array) -> jax.Array:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + 1e-5) * scale + bias


def attention(x: jax.Array, p: dict[str, jax.Array], heads: int) -> jax.Array:
    batch, seq, width = x.shape

    def split_heads(t: jax.Array) -> jax.Array:  # [b, s, w] -> [b, heads, s, w / heads]
        return t.reshape(batch, seq, heads, width // heads).transpose(0, 2, 1, 3)

    q, k, v = split_heads(x @ p["wq"]), split_heads(x @ p["wk"]), split_heads(x @ p["wv"])
    scores = q @ k.swapaxes(-1, -2) * (width // heads) ** -0.5
    causal = jnp.tril(jnp.ones((seq, seq), dtype=bool))
    scores = jnp.where(causal, scores, -1e9)
    mixed = jax.nn.softmax(scores, axis=-1) @ v
    return mixed.transpose(0, 2, 1, 3).reshape(batch, seq, width) @ p["wo"]


def mlp(x: jax.Array, p: dict[str, jax.Array]) -> jax.Array:
    return jax.nn.gelu(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def block(x: jax.Array, p: dict[str, jax.Array], heads: int) -> jax.Array:
    x = x + attention(layer_norm(x, p["ln1_scale"], p["ln1_bias"]), p, heads)
    return x + mlp(layer_norm(x, p["ln2_scale"], p["ln2_bias"]), p)


def loss_fn(params: Params, x: jax.Array, target: jax.Array, heads: int) -> jax.Array:
    for p in params:
        x = block(x, p, heads)
    return jnp.mean((x - target) ** 2)


def init_params(layers: int, width: int, seed: int = 0) -> Params:
    """Scaled-normal weights, built with numpy so that making them compiles nothing."""
    rng = np.random.default_rng(seed)

    def dense(n_in: int, n_out: int) -> jax.Array:
        return jnp.asarray(rng.normal(0.0, n_in**-0.5, (n_in, n_out)).astype(np.float32))

    def const(n: int, value: float) -> jax.Array:
        return jnp.asarray(np.full((n,), value, np.float32))

    return [
        {
            "ln1_scale": const(width, 1.0), "ln1_bias": const(width, 0.0),
            "wq": dense(width, width), "wk": dense(width, width), "wv": dense(width, width),
            "wo": dense(width, width),
            "ln2_scale": const(width, 1.0), "ln2_bias": const(width, 0.0),
            "w1": dense(width, 4 * width), "b1": const(4 * width, 0.0),
            "w2": dense(4 * width, width), "b2": const(width, 0.0),
        }
        for _ in range(layers)
    ]


def make(
    layers: int = 2, width: int = 64, seq: int = 16, batch: int = 2, heads: int = 4
) -> tuple[Any, tuple[Params, jax.Array, jax.Array]]:
    """The jitted training step and example arguments ``(params, x, target)`` for it.

    ``step(params, x, target)`` returns ``(loss, new_params)``.
    """
    if width % heads:
        raise ValueError(f"width {width} is not a multiple of heads {heads}")

    @jax.jit
    def train_step(params: Params, x: jax.Array, target: jax.Array) -> tuple[jax.Array, Params]:
        loss, grads = jax.value_and_grad(loss_fn)(params, x, target, heads)
        new_params = jax.tree.map(lambda w, g: w - LEARNING_RATE * g, params, grads)
        return loss, new_params

    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(batch, seq, width)).astype(np.float32))
    target = jnp.asarray(rng.normal(size=(batch, seq, width)).astype(np.float32))
    return train_step, (init_params(layers, width), x, target)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Run one training step of the sample transformer.")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    options = parser.parse_args(argv)
    step, args = make(options.layers, options.width, options.seq, options.batch, options.heads)
    loss, _ = step(*args)
    print(f"loss after one step: {float(loss):.4f}")


if __name__ == "__main__":
    main()
