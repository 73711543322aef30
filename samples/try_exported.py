"""A program that calls modules exported (``jax.export``) while JAX used GSPMD: the exported
module carries GSPMD's shardings, so XLA turns Shardy off for the whole program and
propagates with GSPMD ("Module has GSPMD attrs or ops, but Shardy is enabled"), and ``hloscope
try`` says so, with what avoids it: export the module again with Shardy on.

    hloscope try samples/try_exported.py:scaled --device tpu-v5e:2x2 --shard dp
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import export
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

ROWS = 1024


def _mesh():
    return jax.make_mesh((len(jax.devices()),), ("data",))


@functools.cache
def _exported(name):
    """``name``'s function exported for TPU as a script written before Shardy did."""
    rows = NamedSharding(_mesh(), P("data"))
    functions = {
        "sine": (lambda a: jnp.sin(a) * 2, [jax.ShapeDtypeStruct((ROWS, 16), jnp.float32)]),
        "project": (
            lambda a, w: jnp.tanh(a @ w),
            [
                jax.ShapeDtypeStruct((ROWS, 256), jnp.float32),
                jax.ShapeDtypeStruct((256, 256), jnp.float32),
            ],
        ),
    }
    fn, shapes = functions[name]
    shardings = (rows, NamedSharding(_mesh(), P()))[: len(shapes)]
    was = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", False)
    try:
        jitted = jax.jit(fn, in_shardings=shardings, out_shardings=rows)
        return export.export(jitted, platforms=["tpu"])(*shapes)
    finally:
        jax.config.update("jax_use_shardy_partitioner", was)


def scaled(x):
    """The exported sine, then a scale of this program's own."""
    return _exported("sine").call(x) + 1


def projected(x, w):
    """The exported projection, then a sum of this program's own."""
    return _exported("project").call(x, w).sum(axis=-1)


def example_args():
    mesh = _mesh()

    def array(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(mesh, spec))

    return {
        "scaled": (array((ROWS, 16), P("data")),),
        "projected": (array((ROWS, 256), P("data")), array((256, 256), P())),
    }
