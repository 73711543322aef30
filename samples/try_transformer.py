"""A transformer language model's train step too big for one TPU v5e chip: ``hloscope try``
finds the variants that fit.

Token embeddings tied to the output projection (a vocabulary of 2^20 tokens, d_model 1024),
two pre-norm layers (causal multi-head attention and an MLP) run by one ``lax.scan``, and an
Adam update written out, in float32: the embedding alone is 4.3 GB, with its gradient and
Adam's two moments 17 GB: more than a v5e's 15.75 GiB of HBM, replicated or data parallel.
Large by its shapes, small in its ops: XLA:TPU compiles it in seconds. The example arguments
are ``jax.ShapeDtypeStruct``: nothing is allocated here.

    hloscope try samples/try_transformer.py:train_step --device tpu-v5e:2x2 \\
        --shard dp --shard fsdp --remat nothing_saveable@block
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

VOCAB = 1 << 20
D_MODEL = 1024
D_FF = 4096
HEADS = 8
LAYERS = 2
BATCH = 4
SEQ = 128
LEARNING_RATE = 1e-4


def block(layer, h):
    """One pre-norm layer: causal multi-head attention, then the MLP."""
    b, s, d = h.shape
    x = _norm(h)
    q = (x @ layer["wq"]).reshape(b, s, HEADS, d // HEADS)
    k = (x @ layer["wk"]).reshape(b, s, HEADS, d // HEADS)
    v = (x @ layer["wv"]).reshape(b, s, HEADS, d // HEADS)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // HEADS)
    causal = jnp.tril(jnp.ones((s, s), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
    h = h + jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(b, s, d) @ layer["wo"]
    return h + jax.nn.gelu(_norm(h) @ layer["w1"]) @ layer["w2"]


def _norm(x):
    return (x - x.mean(-1, keepdims=True)) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)


def loss(params, batch):
    """Next-token cross-entropy."""
    h = params["embed"][batch["tokens"]]

    def layer_step(h, layer):
        return block(layer, h), None

    h, _ = jax.lax.scan(layer_step, h, params["layers"])
    logits = _norm(h) @ params["embed"].T
    log_p = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(log_p, batch["targets"][..., None], -1))


def train_step(params, opt_state, batch):
    """One Adam step: the loss, its gradients, the moments and the parameters updated."""
    value, grads = jax.value_and_grad(loss)(params, batch)
    m, v = opt_state
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    params = jax.tree.map(
        lambda p, m, v: p - LEARNING_RATE * m / (jnp.sqrt(v) + 1e-8), params, m, v
    )
    return params, (m, v), value


def _params():
    """The embedding and each layer's weights, stacked over the layers (what the scan walks)."""
    f32 = jnp.float32
    square = jax.ShapeDtypeStruct((LAYERS, D_MODEL, D_MODEL), f32)
    return {
        "embed": jax.ShapeDtypeStruct((VOCAB, D_MODEL), f32),
        "layers": {
            "wq": square,
            "wk": square,
            "wv": square,
            "wo": square,
            "w1": jax.ShapeDtypeStruct((LAYERS, D_MODEL, D_FF), f32),
            "w2": jax.ShapeDtypeStruct((LAYERS, D_FF, D_MODEL), f32),
        },
    }


def example_args():
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32)
    return {
        "train_step": (_params(), (_params(), _params()), {"tokens": tokens, "targets": tokens})
    }
