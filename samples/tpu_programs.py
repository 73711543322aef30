"""Programs for TPU questions: will it fit, what did XLA:TPU fuse, how fast does it run.

Each function is a ``SCRIPT.py:FUNCTION`` target with example arguments (``example_args()``),
so ``hloscope memory samples/tpu_programs.py:lm_step --device tpu-v5e`` compiles it with
XLA:TPU on any machine (``pip install 'hloscope[tpu]'``), and the same function runs on a chip:

* ``lm_step``: a bf16 decoder-only language model's training step (embedding, causal attention,
  MLP, cross-entropy, SGD); ``lm_step_remat`` the same with every block rematerialised
  (``jax.checkpoint``), which lowers the peak and adds FLOPs;
* ``conv_step``: a bf16 convolutional net's training step;
* ``narrow``: arrays whose minor dimension is small (``f32[1048576,6]``, ``s32[1048576,3]``),
  which a row-major guess pads 6 -> 128 and XLA:TPU lays out without padding;
* ``matmul``: one large bf16 matrix product (compute-bound);
* ``elementwise``: one large f32 elementwise op (memory-bound);
* ``spmd_step``: a data- and model-parallel MLP step written in the common style: a ``Mesh``
  over ``jax.devices()`` (8 of them: 4 x 2, axes ``data`` and ``model``), arguments carrying
  ``NamedSharding``s, plain ``jax.jit``; ``spmd_step_64`` the same over 64 devices (16 x 4).
  Compiled for a slice (``--device tpu-v5e:2x4``), the mesh is rebuilt on the slice's chips.

Run it as a script to time each program on the default device:
``python samples/tpu_programs.py``.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

BF16 = jnp.bfloat16
LM = dict(vocab=16384, width=768, heads=12, layers=4, seq=512, batch=16)


# ---- a language model ----------------------------------------------------------------------


def _lm_params(key: jax.Array, vocab: int, width: int, layers: int, **_: Any) -> dict[str, Any]:
    keys = iter(jax.random.split(key, 2 + 6 * layers))

    def dense(n_in: int, n_out: int) -> jax.Array:
        return (jax.random.normal(next(keys), (n_in, n_out)) * n_in**-0.5).astype(BF16)

    blocks = [
        {
            "wqkv": dense(width, 3 * width),
            "wo": dense(width, width),
            "w1": dense(width, 4 * width),
            "w2": dense(4 * width, width),
            "ln1": jnp.ones((width,), BF16),
            "ln2": jnp.ones((width,), BF16),
        }
        for _ in range(layers)
    ]
    return {"embed": dense(vocab, width), "blocks": blocks, "out": dense(width, vocab)}


def _norm(x: jax.Array, scale: jax.Array) -> jax.Array:
    x32 = x.astype(jnp.float32)
    x32 = x32 * jax.lax.rsqrt((x32 * x32).mean(-1, keepdims=True) + 1e-6)
    return (x32 * scale).astype(x.dtype)


def _block(x: jax.Array, p: dict[str, jax.Array], heads: int) -> jax.Array:
    batch, seq, width = x.shape
    q, k, v = jnp.split(_norm(x, p["ln1"]) @ p["wqkv"], 3, axis=-1)
    q, k, v = (t.reshape(batch, seq, heads, width // heads) for t in (q, k, v))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) * (width // heads) ** -0.5
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    weights = jax.nn.softmax(jnp.where(mask, scores.astype(jnp.float32), -1e9), -1)
    mixed = jnp.einsum("bhqk,bkhd->bqhd", weights.astype(x.dtype), v)
    x = x + mixed.reshape(batch, seq, width) @ p["wo"]
    return x + jax.nn.gelu(_norm(x, p["ln2"]) @ p["w1"]) @ p["w2"]


def _lm_loss(params: dict[str, Any], tokens: jax.Array, heads: int, remat: bool) -> jax.Array:
    x = params["embed"][tokens[:, :-1]]
    block = jax.checkpoint(_block, static_argnums=2) if remat else _block
    for p in params["blocks"]:
        x = block(x, p, heads)
    logits = (x @ params["out"]).astype(jnp.float32)
    labels = tokens[:, 1:]
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[..., None], -1).mean()


def _sgd(params: Any, grads: Any) -> Any:
    return jax.tree_util.tree_map(lambda p, g: p - (1e-3 * g).astype(p.dtype), params, grads)


@functools.partial(jax.jit, donate_argnums=0)
def lm_step(params: dict[str, Any], tokens: jax.Array) -> tuple[jax.Array, dict[str, Any]]:
    loss, grads = jax.value_and_grad(_lm_loss)(params, tokens, LM["heads"], False)
    return loss, _sgd(params, grads)


@functools.partial(jax.jit, donate_argnums=0)
def lm_step_remat(params: dict[str, Any], tokens: jax.Array) -> tuple[jax.Array, dict[str, Any]]:
    loss, grads = jax.value_and_grad(_lm_loss)(params, tokens, LM["heads"], True)
    return loss, _sgd(params, grads)


def _lm_args() -> tuple[Any, ...]:
    params = _lm_params(jax.random.key(0), **LM)
    tokens = jax.random.randint(jax.random.key(1), (LM["batch"], LM["seq"] + 1), 0, LM["vocab"])
    return params, tokens


# ---- a convolutional net -------------------------------------------------------------------


def _conv_loss(params: list[jax.Array], images: jax.Array, labels: jax.Array) -> jax.Array:
    x = images
    for w in params[:-1]:
        x = jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        x = jax.nn.relu(x)
        x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    logits = x.mean((1, 2)) @ params[-1]
    logp = jax.nn.log_softmax(logits.astype(jnp.float32))
    return -jnp.take_along_axis(logp, labels[:, None], -1).mean()


@jax.jit
def conv_step(params: list[jax.Array], images: jax.Array, labels: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_conv_loss)(params, images, labels)
    return loss, _sgd(params, grads)


def _conv_args() -> tuple[Any, ...]:
    keys = jax.random.split(jax.random.key(2), 5)
    channels = [3, 64, 128, 256, 256]
    params = [
        (jax.random.normal(keys[i], (3, 3, channels[i], channels[i + 1])) * 0.05).astype(BF16)
        for i in range(4)
    ]
    params.append((jax.random.normal(keys[4], (256, 1000)) * 0.05).astype(BF16))
    images = jax.random.normal(keys[0], (64, 128, 128, 3)).astype(BF16)
    labels = jax.random.randint(keys[1], (64,), 0, 1000)
    return params, images, labels


# ---- narrow arrays, one product, one stream -------------------------------------------------


@jax.jit
def narrow(points: jax.Array, cells: jax.Array) -> tuple[jax.Array, jax.Array]:
    moved = points * 2.0 + jnp.sin(points)
    return moved, cells + jnp.roll(cells, 1, axis=0)


@jax.jit
def matmul(a: jax.Array, b: jax.Array) -> jax.Array:
    return a @ b


@jax.jit
def elementwise(x: jax.Array) -> jax.Array:
    return x * 1.5 + 2.0


# ---- SPMD, the common style ----------------------------------------------------------------


def _spmd_args(data: int, model: int, width: int, hidden: int, batch: int) -> tuple[Any, ...]:
    devices = np.array(jax.devices()[: data * model]).reshape(data, model)
    mesh = Mesh(devices, ("data", "model"))
    w1 = jax.device_put(jnp.zeros((width, hidden), BF16), NamedSharding(mesh, P(None, "model")))
    w2 = jax.device_put(jnp.zeros((hidden, width), BF16), NamedSharding(mesh, P("model", None)))
    x = jax.device_put(jnp.zeros((batch, width), BF16), NamedSharding(mesh, P("data", None)))
    return (w1, w2), x


def _mlp_loss(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    w1, w2 = params
    y = jax.nn.relu(x @ w1) @ w2
    return jnp.mean((y.astype(jnp.float32) - x.astype(jnp.float32)) ** 2)


@jax.jit
def spmd_step(params: tuple[jax.Array, jax.Array], x: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_mlp_loss)(params, x)
    return loss, _sgd(params, grads)


spmd_step_64 = jax.jit(spmd_step.__wrapped__)


def example_args() -> dict[str, tuple[Any, ...]]:
    """Example arguments of every function (made on demand: importing does no JAX work)."""
    # Each value is made when its function is asked for: importing builds nothing.
    table: dict[str, Any] = {
        "lm_step": _lm_args,
        "lm_step_remat": _lm_args,
        "conv_step": _conv_args,
        "narrow": lambda: (
            jnp.ones((1048576, 6), jnp.float32),
            jnp.ones((1048576, 3), jnp.int32),
        ),
        "matmul": lambda: (jnp.ones((8192, 8192), BF16), jnp.ones((8192, 8192), BF16)),
        "elementwise": lambda: (jnp.ones((64 * 1024 * 1024,), jnp.float32),),
        "spmd_step": lambda: _spmd_args(4, 2, 1024, 4096, 256),
        "spmd_step_64": lambda: _spmd_args(16, 4, 2048, 8192, 1024),
    }
    return table


def _time(fn: Any, args: tuple[Any, ...], runs: int = 20) -> float:
    out = fn(*args)
    jax.block_until_ready(out)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


if __name__ == "__main__":
    for name, make in example_args().items():
        if name.startswith("spmd") or name.startswith("lm"):
            continue  # donated or sharded arguments: time them through hloscope bench
        print(f"{name}: {_time(globals()[name], make()) * 1e3:.3f} ms")
