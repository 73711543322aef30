"""A deep MLP whose layer names its activations with ``checkpoint_name``: ``hloscope try``
compares remat policies around the layer, those that take names included.

Each layer computes ``up`` (the widened activation) and ``mid`` (a second one), then adds its
output to the residual stream; a ``lax.scan`` runs the layers. ``train_step`` differentiates
the loss, so a policy decides which activations the backward pass finds saved and which it
computes again; ``predict`` only runs the layers forward, where no policy has anything to
decide. The example arguments are ``jax.ShapeDtypeStruct``: nothing is allocated here.

    hloscope try samples/try_remat.py:train_step --device tpu-v5e \\
        --remat 'nothing_saveable@layer,save_only_these_names(up)@layer,everything_saveable@layer'
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

BATCH = 512
D_MODEL = 256
D_FF = 1024
LAYERS = 4


def layer(weights, h):
    """One residual layer; its two activations carry names a policy can save by."""
    up = checkpoint_name(jnp.tanh(h @ weights["w_up"]), "up")
    mid = checkpoint_name(jnp.tanh(up @ weights["w_mid"]), "mid")
    return h + mid @ weights["w_down"]


def _layers(params, x):
    def step(h, weights):
        return layer(weights, h), None

    h, _ = jax.lax.scan(step, x, params)
    return h


def loss(params, x):
    return jnp.mean((_layers(params, x) - x) ** 2)


def train_step(params, x):
    """One SGD step."""
    grads = jax.grad(loss)(params, x)
    return jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def predict(params, x):
    """The layers forward only: nothing is differentiated."""
    return _layers(params, x)


def example_args():
    f32 = jnp.float32
    params = {
        "w_up": jax.ShapeDtypeStruct((LAYERS, D_MODEL, D_FF), f32),
        "w_mid": jax.ShapeDtypeStruct((LAYERS, D_FF, D_FF), f32),
        "w_down": jax.ShapeDtypeStruct((LAYERS, D_FF, D_MODEL), f32),
    }
    x = jax.ShapeDtypeStruct((BATCH, D_MODEL), f32)
    return {"train_step": (params, x), "predict": (params, x)}
