"""A tensor- and data-parallel MLP train step whose example arguments carry their own mesh:
``hloscope try --meshes all`` compiles it for every factorisation of a slice over the mesh's
axes (data, model) and ranks them by the step estimate.

    hloscope try samples/try_mesh.py:train_step --device tpu-v5e:2x4 --meshes all --goal step

The arguments are sharded as written for ``jax.make_mesh`` over this machine's devices (the
child hloscope runs the script in has as many as the slice has chips); ``try`` rebuilds that
mesh on the slice's chips in each shape.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

BATCH = 256
D_MODEL = 1024
D_FF = 4096


def loss(params, x):
    h = jax.nn.relu(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - x) ** 2)


def train_step(params, x):
    """One SGD step of a two-layer MLP: hidden units split over `model`, the batch over `data`."""
    grads = jax.grad(loss)(params, x)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def example_args():
    devices = len(jax.devices())
    model = 2 if devices % 2 == 0 else 1
    mesh = jax.make_mesh((devices // model, model), ("data", "model"))

    def array(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(mesh, spec))

    params = {
        "w1": array((D_MODEL, D_FF), P(None, "model")),
        "w2": array((D_FF, D_MODEL), P("model", None)),
    }
    return {"train_step": (params, array((BATCH, D_MODEL), P("data", None)))}
