"""XLA:TPU's own memory figures for programs of ``tests/memory_tpu_programs.py``: the oracle.

``python tests/memory_tpu_oracle.py NAME[+donate] ...`` compiles each function for one TPU v5e
chip with plain JAX (``jax.experimental.topologies``, no hloscope) and prints one JSON object:
per name, ``memory_analysis()``'s sizes, or the ``error`` XLA:TPU refused the compile with.
``NAME+donate`` compiles it with its list arguments (``params``, ``m``, ``v``) donated.
"""

from __future__ import annotations

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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FIELDS = (
    "peak_memory_in_bytes",
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
)


def _figures(spec: str, device: object) -> dict:
    import jax
    import memory_tpu_programs as programs
    from jax.sharding import SingleDeviceSharding

    name, _, option = spec.partition("+")
    fn = getattr(programs, name)
    sharding = SingleDeviceSharding(device)
    args = jax.tree.map(
        lambda s: jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sharding), fn.example_args
    )
    donate = ("params", "m", "v") if option == "donate" else ()
    try:
        compiled = jax.jit(fn, donate_argnames=donate).lower(*args).compile()
    except Exception as error:  # noqa: BLE001 - XLA:TPU's refusal is the answer
        return {"error": str(error)}
    stats = compiled.memory_analysis()
    return {field: int(getattr(stats, field)) for field in FIELDS}


def main(specs: list[str]) -> None:
    from jax.experimental import topologies

    (device,) = topologies.get_topology_desc(
        platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
    ).devices
    print(json.dumps({spec: _figures(spec, device) for spec in specs}))


if __name__ == "__main__":
    main(sys.argv[1:])
