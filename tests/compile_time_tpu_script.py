"""A script that compiles for a TPU v5e chip itself (``jax.experimental.topologies``), for
``hloscope capture`` and ``hloscope compile-time`` on a script run (test_compile_time_tpu.py)."""

import os

os.environ.update(
    TPU_ACCELERATOR_TYPE="v5litepod-4",
    TPU_WORKER_HOSTNAMES="localhost",
    TPU_SKIP_MDS_QUERY="1",
    ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    JAX_PLATFORMS="cpu",
)

import jax  # noqa: E402 - libtpu reads the variables above when it loads
import jax.numpy as jnp  # noqa: E402
from jax.experimental import topologies  # noqa: E402

topology = topologies.get_topology_desc(
    platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
)
sharding = jax.sharding.SingleDeviceSharding(topology.devices[0])


def step(x, w):
    for _ in range(3):
        x = jax.nn.relu(x @ w)
    return x.sum()


if __name__ == "__main__":
    spec = jax.ShapeDtypeStruct((128, 128), jnp.float32, sharding=sharding)
    jax.jit(step).lower(spec, spec).compile()
