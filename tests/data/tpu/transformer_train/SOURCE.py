import json, sys
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import topologies

TOPOLOGY = sys.argv[1]
bounds = {"chips_per_host_bounds": (1, 1, 1)} if TOPOLOGY == "v5e:1x1" else {}
topo = topologies.get_topology_desc(platform="tpu", topology_name=TOPOLOGY, **bounds)
ONE = jax.sharding.SingleDeviceSharding(topo.devices[0])


def spec(shape, dtype=jnp.float32, sharding=ONE):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)

# A language model's train step: embedding lookup, fused q/k/v projection split in three
# (XLA:TPU turns the split into asynchronous slices and its gradient's concatenation into
# ConcatBitcast), attention, MLP, logits through the tied embedding, gradients and SGD.
WIDTH, HEADS, SEQ, BATCH, VOCAB = 256, 8, 128, 4, 4096


def block(p, x):
    q, k, v = jnp.split(jax.nn.standardize(x, axis=-1) @ p["qkv"], 3, axis=-1)
    q, k, v = (t.reshape(BATCH, SEQ, HEADS, WIDTH // HEADS) for t in (q, k, v))
    weights = jax.nn.softmax(jnp.einsum("bshk,bthk->bhst", q, k) / 8.0, axis=-1)
    x = x + jnp.einsum("bhst,bthk->bshk", weights, v).reshape(BATCH, SEQ, WIDTH) @ p["o"]
    hidden = jax.nn.gelu(jax.nn.standardize(x, axis=-1) @ p["up"])
    return x + hidden @ p["down"]


def loss(params, embedding, ids):
    x = embedding[ids]
    for p in params:
        x = block(p, x)
    logits = (x @ embedding.T).astype(jnp.float32)
    return (jax.nn.logsumexp(logits, axis=-1) - logits[..., 0]).mean()


def FUNCTION(params, embedding, ids):
    grads = jax.grad(loss, argnums=(0, 1))(params, embedding, ids)
    update = lambda w, g: w - (0.01 * g).astype(w.dtype)
    return jax.tree.map(update, (params, embedding), grads)


layer = {
    "qkv": spec((WIDTH, 3 * WIDTH), jnp.bfloat16),
    "o": spec((WIDTH, WIDTH), jnp.bfloat16),
    "up": spec((WIDTH, 4 * WIDTH), jnp.bfloat16),
    "down": spec((4 * WIDTH, WIDTH), jnp.bfloat16),
}
ARGS = ([layer, layer], spec((VOCAB, WIDTH), jnp.bfloat16), spec((BATCH, SEQ), jnp.int32))

compiled = jax.jit(FUNCTION).lower(*ARGS).compile()
cost = compiled.cost_analysis()
cost = cost[0] if isinstance(cost, list) else cost
memory = compiled.memory_analysis()
fields = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
          "temp_size_in_bytes", "generated_code_size_in_bytes", "peak_memory_in_bytes")
print(json.dumps({
    "topology": TOPOLOGY,
    "cost_analysis": {key: float(value) for key, value in sorted(cost.items())},
    "memory_analysis": {key: int(getattr(memory, key)) for key in fields},
}))
