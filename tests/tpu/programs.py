"""Small programs compiled with XLA:TPU by the tests (``tests/test_xla_tpu.py``).

Each function is a ``SCRIPT.py:FUNCTION`` target (``example_args()`` gives its arguments, made
on this machine's CPU devices; the SPMD ones need 8 or 64 of them, which the TPU backend's child
process has). ``tpu_arguments(name, devices)`` places the same arguments on a TPU topology's
devices the plain JAX way, for the oracle (``tests/tpu/oracle.py``), independently of how
hloscope places them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

BF16 = jnp.bfloat16
#: 128 tokens a sequence: at 32, XLA:TPU keeps no f32 buffer of a MiB or more in VMEM at the
#: peak, which tests/test_memory_fill.py's on-chip advice test needs (it compiles 3x faster).
LM = dict(vocab=1024, width=256, heads=4, layers=2, seq=128, batch=8)


def _dense(key: jax.Array, n_in: int, n_out: int) -> jax.Array:
    return (jax.random.normal(key, (n_in, n_out)) * n_in**-0.5).astype(BF16)


def _lm_params() -> dict[str, Any]:
    keys = iter(jax.random.split(jax.random.key(0), 2 + 4 * LM["layers"]))
    w = LM["width"]
    blocks = [
        {
            "wqkv": _dense(next(keys), w, 3 * w),
            "wo": _dense(next(keys), w, w),
            "w1": _dense(next(keys), w, 4 * w),
            "w2": _dense(next(keys), 4 * w, w),
        }
        for _ in range(LM["layers"])
    ]
    return {
        "embed": _dense(next(keys), LM["vocab"], w),
        "blocks": blocks,
        "out": _dense(next(keys), w, LM["vocab"]),
    }


def _block(x: jax.Array, p: dict[str, jax.Array]) -> jax.Array:
    batch, seq, width = x.shape
    heads = LM["heads"]
    q, k, v = jnp.split(x @ p["wqkv"], 3, axis=-1)
    q, k, v = (t.reshape(batch, seq, heads, width // heads) for t in (q, k, v))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), -1).astype(x.dtype)
    x = x + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, seq, width) @ p["wo"]
    return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def _loss(params: dict[str, Any], tokens: jax.Array, remat: bool) -> jax.Array:
    x = params["embed"][tokens[:, :-1]]
    block = jax.checkpoint(_block) if remat else _block
    for p in params["blocks"]:
        x = block(x, p)
    logp = jax.nn.log_softmax((x @ params["out"]).astype(jnp.float32))
    return -jnp.take_along_axis(logp, tokens[:, 1:, None], -1).mean()


def _update(params: Any, grads: Any) -> Any:
    return jax.tree_util.tree_map(lambda p, g: p - (1e-3 * g).astype(p.dtype), params, grads)


@jax.jit
def lm_step(params: dict[str, Any], tokens: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_loss)(params, tokens, False)
    return loss, _update(params, grads)


@jax.jit
def lm_step_remat(params: dict[str, Any], tokens: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_loss)(params, tokens, True)
    return loss, _update(params, grads)


def _conv_loss(params: list[jax.Array], images: jax.Array) -> jax.Array:
    x = images
    for w in params:
        x = jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        x = jax.nn.relu(x)
    return jnp.mean(x.astype(jnp.float32) ** 2)


@jax.jit
def conv_step(params: list[jax.Array], images: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_conv_loss)(params, images)
    return loss, _update(params, grads)


@jax.jit
def narrow(points: jax.Array, cells: jax.Array) -> Any:
    return points * 2.0 + jnp.sin(points), cells + jnp.roll(cells, 1, axis=0)


def _pallas_matmul(x: jax.Array, y: jax.Array, estimate: bool) -> jax.Array:
    """A blocked matmul as a Pallas (Mosaic) kernel; ``estimate``: with its exact FLOPs as
    ``cost_estimate``, which XLA:TPU then counts."""
    from jax.experimental import pallas as pl

    (m, k), n = x.shape, y.shape[1]

    def kernel(x_ref: Any, y_ref: Any, o_ref: Any) -> None:
        product = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
        o_ref[...] = product.astype(o_ref.dtype)

    cost = pl.CostEstimate(flops=2 * m * n * k, transcendentals=0, bytes_accessed=0)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // 256, n // 256),
        in_specs=[
            pl.BlockSpec((256, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, 256), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((256, 256), lambda i, j: (i, j)),
        cost_estimate=cost if estimate else None,
    )(x, y)


def _pallas_mlp(x: jax.Array, w1: jax.Array, w2: jax.Array, estimate: bool) -> jax.Array:
    hidden = jax.nn.gelu(_pallas_matmul(x, w1, estimate))
    return _pallas_matmul(hidden, w2, estimate).astype(jnp.float32).sum()


@jax.jit
def dropout(x: jax.Array, key: jax.Array) -> jax.Array:
    """Dropout from a random key: XLA:TPU numbers its optimized module anew (its dump has
    ``module_0000...before_optimizations`` and ``module_0003...after_optimizations``)."""
    kept = jax.random.bernoulli(key, 0.9, x.shape)
    return jnp.where(kept, x / 0.9, 0).sum()


@jax.jit
def pallas_mlp(x: jax.Array, w1: jax.Array, w2: jax.Array) -> jax.Array:
    """Two Pallas matmul kernels given no cost_estimate (XLA:TPU counts none of their FLOPs)."""
    return _pallas_mlp(x, w1, w2, estimate=False)


@jax.jit
def pallas_mlp_estimated(x: jax.Array, w1: jax.Array, w2: jax.Array) -> jax.Array:
    """The same kernels with their exact FLOPs as cost_estimate: XLA:TPU's count of both."""
    return _pallas_mlp(x, w1, w2, estimate=True)


def _mlp_loss(params: tuple[jax.Array, jax.Array], x: jax.Array) -> jax.Array:
    w1, w2 = params
    y = jax.nn.relu(x @ w1) @ w2
    return jnp.mean((y.astype(jnp.float32) - x.astype(jnp.float32)) ** 2)


@jax.jit
def spmd_step(params: tuple[jax.Array, jax.Array], x: jax.Array) -> Any:
    loss, grads = jax.value_and_grad(_mlp_loss)(params, x)
    return loss, _update(params, grads)


spmd_step_64 = jax.jit(spmd_step.__wrapped__)

#: Each SPMD function's mesh shape (axes data, model) and its sizes (width, hidden, batch).
SPMD = {"spmd_step": ((4, 2), (256, 1024, 64)), "spmd_step_64": ((16, 4), (256, 1024, 256))}


def _spmd(name: str, devices: list[Any], shaped: bool) -> tuple[Any, ...]:
    shape, (width, hidden, batch) = SPMD[name]
    mesh = Mesh(np.array(devices[: shape[0] * shape[1]]).reshape(shape), ("data", "model"))
    specs = (P(None, "model"), P("model", None), P("data", None))
    arrays = ((width, hidden), (hidden, width), (batch, width))
    placed = []
    for dims, spec in zip(arrays, specs):
        sharding = NamedSharding(mesh, spec)
        if shaped:
            placed.append(jax.ShapeDtypeStruct(dims, BF16, sharding=sharding))
        else:
            placed.append(jax.device_put(jnp.zeros(dims, BF16), sharding))
    return (placed[0], placed[1]), placed[2]


def _single() -> dict[str, Any]:
    keys = jax.random.split(jax.random.key(1), 3)
    return {
        "lm_step": lambda: (_lm_params(), jnp.zeros((LM["batch"], LM["seq"] + 1), jnp.int32)),
        "lm_step_remat": lambda: (
            _lm_params(),
            jnp.zeros((LM["batch"], LM["seq"] + 1), jnp.int32),
        ),
        "conv_step": lambda: (
            [
                (jax.random.normal(keys[0], (3, 3, 3, 32)) * 0.1).astype(BF16),
                (jax.random.normal(keys[1], (3, 3, 32, 64)) * 0.1).astype(BF16),
            ],
            # 16x16 images: compiled by XLA:TPU four times faster than 32x32, the same test.
            jnp.zeros((8, 16, 16, 3), BF16),
        ),
        "narrow": lambda: (jnp.ones((65536, 6), jnp.float32), jnp.ones((65536, 3), jnp.int32)),
        "dropout": lambda: (jnp.ones((128, 128)), jax.random.key(0)),
        "pallas_mlp": _pallas_args,
        "pallas_mlp_estimated": _pallas_args,
    }


def _pallas_args() -> tuple[jax.Array, ...]:
    return (jnp.ones((1024, 512), BF16), jnp.ones((512, 2048), BF16), jnp.ones((2048, 512), BF16))


def example_args() -> dict[str, Any]:
    table = _single()
    for name in SPMD:
        table[name] = lambda name=name: _spmd(name, jax.devices(), shaped=False)
    return table


def tpu_arguments(name: str, devices: list[Any]) -> tuple[Any, ...]:
    """The example arguments of ``name`` as ShapeDtypeStructs on a TPU topology's devices."""
    if name in SPMD:
        return _spmd(name, devices, shaped=True)
    sharding = jax.sharding.SingleDeviceSharding(devices[0])
    return jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding), _single()[name]()
    )
