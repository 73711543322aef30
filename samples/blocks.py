"""A model made of identical blocks, trained with and without rematerialization. Input for a diff.

The model maps ``x[batch, width]`` through ``BLOCKS`` residual blocks that are the same code with
their own weights (layer norm, a GELU MLP, a residual add), then a linear head, and learns a target
under mean-squared error:

    for i, p in enumerate(params["blocks"]):
        with jax.named_scope(f"block{i}"):
            x = block(p, x)

Each block runs inside ``jax.named_scope(f"block{i}")``, as Flax and Haiku name their modules, so
the ``op_name`` of every op says which block it belongs to (``jit(train_step)/jvp()/block1/...``)
while the source lines of the two blocks are the same lines.

``train_step`` is one SGD step. ``train_step_remat`` is the same step with ``jax.checkpoint`` on
each block: the backward pass recomputes each block's activations instead of keeping them, so XLA
makes different kernels (fewer saved arrays, extra recomputed matmuls), and every op of a
checkpointed block gets ``checkpoint`` (and, for the recomputation, ``rematted_computation``)
in its ``op_name``. Diffing the two shows what rematerialization changed, block by block (a
kernel of block 1 must be compared with block 1's, not with block 0's twin that looks just like
it)::

    hloscope diff samples/blocks.py:train_step samples/blocks.py:train_step_remat

``example_args()`` gives ``(params, x, target)`` for either function. Importing this module does no
JAX work.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

Params = dict[str, object]

#: How many identical blocks the model has.
BLOCKS = 2
LEARNING_RATE = 1e-2


def layer_norm(x: jax.Array, scale: jax.Array, bias: jax.Array) -> jax.Array:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + 1e-5) * scale + bias


def block(p: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    """Pre-norm residual MLP block: ``x + W2 gelu(W1 norm(x))``."""
    h = layer_norm(x, p["scale"], p["bias"])
    h = h @ p["w_in"]
    h = jax.nn.gelu(h)
    h = h @ p["w_out"]
    return x + h


def forward(params: Params, x: jax.Array, remat: bool = False) -> jax.Array:
    """The blocks in order, each in a named scope of its own, then the head."""
    apply: Callable[[dict[str, jax.Array], jax.Array], jax.Array] = (
        jax.checkpoint(block) if remat else block
    )
    for i, p in enumerate(params["blocks"]):  # type: ignore[arg-type]
        with jax.named_scope(f"block{i}"):
            x = apply(p, x)
    return x @ params["head"]  # type: ignore[operator]


def _loss(params: Params, x: jax.Array, target: jax.Array, remat: bool) -> jax.Array:
    return jnp.mean((forward(params, x, remat) - target) ** 2)


def _sgd(params: Params, grads: Params) -> Params:
    return jax.tree.map(lambda w, g: w - LEARNING_RATE * g, params, grads)


@jax.jit
def train_step(params: Params, x: jax.Array, target: jax.Array) -> tuple[jax.Array, Params]:
    """Loss and SGD-updated parameters; the backward pass reads the saved activations."""
    loss, grads = jax.value_and_grad(_loss)(params, x, target, False)
    return loss, _sgd(params, grads)


@jax.jit
def train_step_remat(params: Params, x: jax.Array, target: jax.Array) -> tuple[jax.Array, Params]:
    """The same step with ``jax.checkpoint`` on each block: activations are recomputed."""
    loss, grads = jax.value_and_grad(_loss)(params, x, target, True)
    return loss, _sgd(params, grads)


def init_params(
    blocks: int = BLOCKS, width: int = 32, hidden: int = 128, out: int = 8, seed: int = 0
) -> Params:
    """Scaled-normal weights, built with numpy so that making them compiles nothing."""
    rng = np.random.default_rng(seed)

    def dense(n_in: int, n_out: int) -> jax.Array:
        return jnp.asarray(rng.normal(0.0, n_in**-0.5, (n_in, n_out)).astype(np.float32))

    def const(n: int, value: float) -> jax.Array:
        return jnp.asarray(np.full((n,), value, np.float32))

    layers = [
        {
            "scale": const(width, 1.0),
            "bias": const(width, 0.0),
            "w_in": dense(width, hidden),
            "w_out": dense(hidden, width),
        }
        for _ in range(blocks)
    ]
    return {"blocks": layers, "head": dense(width, out)}


def example_args(
    blocks: int = BLOCKS, width: int = 32, hidden: int = 128, batch: int = 16, seed: int = 0
) -> tuple[Params, jax.Array, jax.Array]:
    """``(params, x, target)`` for :func:`train_step` and :func:`train_step_remat`."""
    params = init_params(blocks, width, hidden, seed=seed)
    rng = np.random.default_rng(seed + 1)
    x = jnp.asarray(rng.normal(size=(batch, width)).astype(np.float32))
    target = jnp.asarray(rng.normal(size=(batch, 8)).astype(np.float32))
    return params, x, target


def main() -> None:
    args = example_args()
    loss, _ = train_step(*args)
    loss_remat, _ = train_step_remat(*args)
    print(f"loss {float(loss):.6f}; with remat {float(loss_remat):.6f}")


if __name__ == "__main__":
    main()
