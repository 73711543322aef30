"""Kinds of TPU programs whose kernels differ in what bounds them, for ``bench --per-kernel``.

Each function is a ``SCRIPT.py:FUNCTION`` target with example arguments (``example_args()``),
sized for one TPU v5e (15.75 GiB of HBM), so ``hloscope bench
samples/tpu_kernel_programs.py:attention_step --per-kernel`` on a TPU host times every kernel
inside the program, and ``--device tpu-v5e`` compiles it with XLA:TPU anywhere:

* ``attention_step``: a bf16 self-attention block's training step (projections, softmax of
  ``QK^T``, MLP, loss, SGD), its parameters donated;
* ``embedding_step``: an embedding table's gather and the scatter-add of its gradient;
* ``rnn_scan``: a tanh RNN over 256 steps under ``lax.scan`` (a loop: its body's kernels run
  once per step, with a ``dynamic-update-slice`` of the outputs);
* ``topk_router``: a mixture-of-experts router (logits, ``top_k``, softmax of the chosen,
  one-hot dispatch and combine weights);
* ``matmul``: one 8192 x 8192 x 8192 bf16 product (compute-bound);
* ``elementwise``: one f32 elementwise op over 1 GiB (memory-bound);
* ``softmax_attention``: ``softmax(QK^T)V`` in bf16 with heads of 64, which XLA:TPU writes as
  a kernel of its own (an ``online-softmax`` custom call, given no cost estimate: hloscope
  counts its FLOPs from the kernel's body).

Importing builds nothing; ``example_args()`` makes the arguments on demand.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

BF16 = jnp.bfloat16
ATTENTION = dict(batch=8, seq=1024, width=1024, heads=8)


def _attention_params(key: jax.Array, width: int, **_: Any) -> dict[str, jax.Array]:
    keys = jax.random.split(key, 4)
    scale = width**-0.5

    def dense(k: jax.Array, shape: tuple[int, int]) -> jax.Array:
        return (jax.random.normal(k, shape, jnp.float32) * scale).astype(BF16)

    return {
        "qkv": dense(keys[0], (width, 3 * width)),
        "out": dense(keys[1], (width, width)),
        "up": dense(keys[2], (width, 4 * width)),
        "down": dense(keys[3], (4 * width, width)),
    }


def _attention_loss(params: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    batch, seq, width = x.shape
    heads = ATTENTION["heads"]
    q, k, v = jnp.split(x @ params["qkv"], 3, axis=-1)

    def split_heads(a: jax.Array) -> jax.Array:
        return a.reshape(batch, seq, heads, width // heads).transpose(0, 2, 1, 3)

    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    scores = (q @ k.transpose(0, 1, 3, 2)).astype(jnp.float32) * (width // heads) ** -0.5
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1).astype(BF16)
    attended = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, seq, width)
    h = x + attended @ params["out"]
    h = h + jax.nn.gelu(h @ params["up"]) @ params["down"]
    return jnp.mean(jnp.square(h.astype(jnp.float32)))


@functools.partial(jax.jit, donate_argnums=0)
def attention_step(params: dict[str, jax.Array], x: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_attention_loss)(params, x)
    new = jax.tree_util.tree_map(lambda p, g: (p - 0.01 * g).astype(p.dtype), params, grads)
    return loss, new


@jax.jit
def embedding_step(table: jax.Array, ids: jax.Array, upstream: jax.Array) -> Any:
    rows = table[ids]  # gather
    loss = jnp.sum(rows * upstream)
    grad = jnp.zeros_like(table).at[ids].add(upstream)  # scatter-add
    return loss, table - 0.01 * grad


@jax.jit
def rnn_scan(w: jax.Array, u: jax.Array, xs: jax.Array, h0: jax.Array) -> Any:
    def cell(h: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(h @ w + x @ u)
        return h, h

    return jax.lax.scan(cell, h0, xs)


@jax.jit
def topk_router(x: jax.Array, router: jax.Array) -> Any:
    logits = (x @ router).astype(jnp.float32)
    top_values, top_experts = jax.lax.top_k(logits, 2)
    gates = jax.nn.softmax(top_values, axis=-1)
    dispatch = jax.nn.one_hot(top_experts, router.shape[1], dtype=x.dtype)  # [tokens, 2, E]
    combine = jnp.einsum("tk,tke->te", gates.astype(x.dtype), dispatch)
    load = jnp.mean(dispatch.sum(axis=1).astype(jnp.float32), axis=0)
    return combine, load


@jax.jit
def matmul(a: jax.Array, b: jax.Array) -> jax.Array:
    return a @ b


@jax.jit
def elementwise(x: jax.Array) -> jax.Array:
    return x * 2.0 + 1.0


@jax.jit
def softmax_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


def _softmax_attention_args() -> tuple[Any, ...]:
    key = jax.random.key(4)
    shape = (8, 16, 2048, 64)
    return tuple(
        jax.random.normal(jax.random.fold_in(key, n), shape, jnp.float32).astype(BF16)
        for n in range(3)
    )


def _attention_args() -> tuple[Any, ...]:
    key = jax.random.key(0)
    shape = (ATTENTION["batch"], ATTENTION["seq"], ATTENTION["width"])
    x = jax.random.normal(jax.random.fold_in(key, 1), shape, jnp.float32).astype(BF16)
    return _attention_params(key, **ATTENTION), x


def _embedding_args() -> tuple[Any, ...]:
    key = jax.random.key(1)
    table = jax.random.normal(key, (65536, 1024), jnp.float32)
    ids = jax.random.randint(jax.random.fold_in(key, 1), (32768,), 0, 65536)
    upstream = jax.random.normal(jax.random.fold_in(key, 2), (32768, 1024), jnp.float32)
    return table, ids, upstream


def _rnn_args() -> tuple[Any, ...]:
    key = jax.random.key(2)
    hidden, batch, steps = 1024, 256, 256
    w = jax.random.normal(key, (hidden, hidden), jnp.float32) * hidden**-0.5
    u = jax.random.normal(jax.random.fold_in(key, 1), (hidden, hidden), jnp.float32) * 0.03
    xs = jax.random.normal(jax.random.fold_in(key, 2), (steps, batch, hidden), jnp.float32)
    return w, u, xs, jnp.zeros((batch, hidden), jnp.float32)


def _router_args() -> tuple[Any, ...]:
    key = jax.random.key(3)
    x = jax.random.normal(key, (16384, 1024), jnp.float32).astype(BF16)
    router = (jax.random.normal(jax.random.fold_in(key, 1), (1024, 64)) * 0.03).astype(BF16)
    return x, router


def example_args() -> dict[str, Any]:
    """Makers of every function's example arguments (called on demand)."""
    return {
        "attention_step": _attention_args,
        "embedding_step": _embedding_args,
        "rnn_scan": _rnn_args,
        "topk_router": _router_args,
        "matmul": lambda: (jnp.ones((8192, 8192), BF16), jnp.ones((8192, 8192), BF16)),
        "elementwise": lambda: (jnp.ones((256 * 1024 * 1024,), jnp.float32),),
        "softmax_attention": _softmax_attention_args,
    }
