"""A program compiled with JAX's older sharding propagation, GSPMD, instead of Shardy (JAX's
default): XLA's sharding propagation warns that GSPMD is to be deprecated, and ``hloscope
try`` places the warning with the setting that avoids it.

    hloscope try samples/try_gspmd.py:mlp --device tpu-v5e:2x2 --shard fsdp
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

# What a script written before Shardy became JAX's default still says.
jax.config.update("jax_use_shardy_partitioner", False)


def mlp(params, x):
    """Two dense layers."""
    return jnp.tanh(x @ params["w1"]) @ params["w2"]


def norms(x):
    """Each row's length."""
    return jnp.sqrt(jnp.sum(x * x, axis=-1))


def example_args():
    mesh = jax.make_mesh((len(jax.devices()),), ("data",))

    def array(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(mesh, spec))

    return {
        "mlp": (
            {"w1": array((512, 1024), P()), "w2": array((1024, 512), P())},
            array((128, 512), P("data", None)),
        ),
        "norms": (array((256, 4096), P(None, "data")),),
    }
