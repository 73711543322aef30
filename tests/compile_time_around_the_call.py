"""One XLA:TPU compile timed from outside: ``python tests/compile_time_around_the_call.py``.

Compiles ``layers_loop`` of ``compile_time_programs.py`` for a TPU v5e chip with plain JAX
(``jax.experimental.topologies``), with the wall-clock time measured around the trace, lower and
compile calls, and prints JSON: that time, and the stages hloscope makes of JAX's durations and
XLA's pass timestamps of the same compile (``stage_times``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.update(
    TPU_ACCELERATOR_TYPE="v5litepod-4",
    TPU_WORKER_HOSTNAMES="localhost",
    TPU_SKIP_MDS_QUERY="1",
    ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    JAX_PLATFORMS="cpu",
)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    import compile_time_programs as programs
    import jax
    from jax.experimental import topologies

    from hloscope.analysis.compile_time import stage_times
    from hloscope.backends.compile_timing import CompileClock
    from hloscope.dump.metadata import parse_module_metadata

    topology = topologies.get_topology_desc(
        platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
    )
    sharding = jax.sharding.SingleDeviceSharding(topology.devices[0])
    args = jax.tree_util.tree_map(
        lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding),
        programs.EXAMPLE_ARGS["layers_loop"],
    )
    with tempfile.TemporaryDirectory() as folder:
        options = {"xla_dump_to": folder, "xla_dump_module_metadata": True}
        with CompileClock() as clock:
            started = time.perf_counter()
            jax.jit(programs.layers_loop).trace(*args).lower().compile(compiler_options=options)
            wall = time.perf_counter() - started
        metadata = [
            parse_module_metadata(path.read_text(), str(path))
            for path in Path(folder).glob("*.metadata.textproto")
        ]
    stages, total, _ = stage_times(clock.to_dict(), metadata)
    print(json.dumps({"wall_s": wall, "total_s": total, "stages": stages.to_dict()}))


if __name__ == "__main__":
    main()
