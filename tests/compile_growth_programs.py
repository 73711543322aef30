"""Two programs whose compile grows differently with their layer count (compile-time --scale).

``loop_model`` unrolls a Python loop: one copy of the layer per layer in the program, so the
compile grows with the count. ``scan_model`` runs the same layer under ``lax.scan``: one body
whatever the count, so its compile is flat in it. ``example_args(layers=4)`` builds both
functions' arguments at any count (``--scale layers``); ``scan_model``'s also grows as
``--scale ws:0``.
"""

import jax
import jax.numpy as jnp

WIDTH = 32


def _layer(w, x):
    return jnp.tanh(x @ w) * 0.5 + x


def loop_model(ws, x):
    for w in ws:
        x = _layer(w, x)
    return x


def scan_model(ws, x):
    def body(carry, w):
        return _layer(w, carry), None

    out, _ = jax.lax.scan(body, x, ws)
    return out


def example_args(layers=4):
    w = jax.ShapeDtypeStruct((WIDTH, WIDTH), jnp.float32)
    x = jax.ShapeDtypeStruct((8, WIDTH), jnp.float32)
    stacked = jax.ShapeDtypeStruct((layers, WIDTH, WIDTH), jnp.float32)
    return {"loop_model": ([w] * layers, x), "scan_model": (stacked, x)}


def _wide_layer(w, x):
    return jax.nn.gelu(x @ w)


def wide_loop_model(ws, x):
    # each layer's own scale makes its kernels differ: XLA cannot compile one and reuse it
    for i, w in enumerate(ws):
        x = _wide_layer(w, x) * (1.0 + i / 1024)
    return x


def wide_scan_model(ws, x):
    def body(carry, w):
        return _wide_layer(w, carry), None

    out, _ = jax.lax.scan(body, x, ws)
    return out


def _wide_args(layers=4):
    w = jax.ShapeDtypeStruct((256, 256), jnp.bfloat16)
    x = jax.ShapeDtypeStruct((128, 256), jnp.bfloat16)
    stacked = jax.ShapeDtypeStruct((layers, 256, 256), jnp.bfloat16)
    return ([w] * layers, x), (stacked, x)


wide_loop_model.example_args = lambda layers=4: _wide_args(layers)[0]
wide_scan_model.example_args = lambda layers=4: _wide_args(layers)[1]


def _loss(ws, x):
    for w in ws:
        x = _wide_layer(w, x)
    return jnp.mean(x.astype(jnp.float32) ** 2)


@jax.jit
def sharded_step(ws, x):
    """A data-parallel training step over every device: its all-reduces span the slice."""
    loss, grads = jax.value_and_grad(_loss)(ws, x)
    return loss, [w - 0.1 * g for w, g in zip(ws, grads, strict=True)]


def _sharded_args():
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()), ("data",))
    w = jax.ShapeDtypeStruct((256, 256), jnp.bfloat16, sharding=NamedSharding(mesh, P()))
    x = jax.ShapeDtypeStruct((256, 256), jnp.bfloat16, sharding=NamedSharding(mesh, P("data")))
    return [w] * 4, x


sharded_step.example_args = _sharded_args
