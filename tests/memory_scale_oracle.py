"""XLA:TPU's own peak of a script's function at several sizes of one argument: the oracle of
``memory --scale --device tpu-v5e``.

``python tests/memory_scale_oracle.py SCRIPT.py FUNCTION POSITION DIM SIZE...`` loads the
script, takes its function's example arguments (``FUNCTION.example_args()``), gives argument
``POSITION`` each ``SIZE`` along ``DIM``, compiles it for one TPU v5e chip with plain JAX
(``jax.experimental.topologies``, no hloscope) and prints one JSON object: per size,
``memory_analysis()``'s ``peak_memory_in_bytes``, or the ``error`` XLA:TPU refused it with.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

os.environ.update(
    TPU_ACCELERATOR_TYPE="v5litepod-4",
    TPU_WORKER_HOSTNAMES="localhost",
    TPU_SKIP_MDS_QUERY="1",
    ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    JAX_PLATFORMS="cpu",
)


def _peak(fn: object, args: list, device: object) -> dict:
    import jax

    try:
        compiled = jax.jit(fn).lower(*args).compile()
    except Exception as error:  # noqa: BLE001 - XLA:TPU's refusal is the answer
        return {"error": str(error)}
    return {"peak_memory_in_bytes": int(compiled.memory_analysis().peak_memory_in_bytes)}


def main(script: str, function: str, position: str, dim: str, *sizes: str) -> None:
    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    (device,) = topologies.get_topology_desc(
        platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
    ).devices
    spec = importlib.util.spec_from_file_location("oracle_script", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, function)
    sharding = SingleDeviceSharding(device)

    def on_chip(value: object, shape: tuple[int, ...] | None = None) -> object:
        return jax.ShapeDtypeStruct(shape or value.shape, value.dtype, sharding=sharding)

    found = {}
    for size in map(int, sizes):
        args = [jax.tree.map(on_chip, a) for a in fn.example_args()]
        base = fn.example_args()[int(position)]
        shape = list(base.shape)
        shape[int(dim)] = size
        args[int(position)] = on_chip(base, tuple(shape))
        found[size] = _peak(fn, args, device)
    print(json.dumps(found))


if __name__ == "__main__":
    main(*sys.argv[1:])
