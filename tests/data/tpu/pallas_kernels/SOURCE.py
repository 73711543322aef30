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

# Two Pallas (Mosaic) kernels: XLA:TPU knows the cost of the one given a cost_estimate and
# of no other; the elementwise ops between them are XLA's own.
from jax.experimental import pallas as pl


def matmul_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32).astype(
        o_ref.dtype
    )


def matmul(x, y, estimate):
    (m, k), n = x.shape, y.shape[1]
    cost = pl.CostEstimate(flops=2 * m * n * k, transcendentals=0,
                           bytes_accessed=2 * (m * k + k * n + m * n))
    return pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // 256, n // 256),
        in_specs=[pl.BlockSpec((256, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, 256), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j: (i, j)),
        cost_estimate=cost if estimate else None,
    )(x, y)


def FUNCTION(x, w1, w2):
    hidden = jnp.tanh(matmul(x, w1, estimate=True))
    return matmul(hidden, w2, estimate=False).astype(jnp.float32).sum()


ARGS = (
    spec((1024, 512), jnp.bfloat16),
    spec((512, 1024), jnp.bfloat16),
    spec((1024, 512), jnp.bfloat16),
)

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
