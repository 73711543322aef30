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

def FUNCTION(q, k, v):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


ARGS = (spec((4, 8, 1024, 64), jnp.bfloat16),) * 3

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
