"""One compile with a capture's dump options, listed: ``python dump_options_child.py cpu|tpu``.

Compiles ``table_step`` of ``dump_options_programs.py`` (a constant table of 4096 values) with
:func:`hloscope.backends.dump_options.compile_dumping` into a fresh folder, for this machine's
CPU or offline for a TPU v5e chip, under whatever ``XLA_FLAGS`` the caller set (read once per
process: hence a process of its own), and prints JSON: each file written, by its name without
the module's prefix (``module_0004.jit_table_step.[cl_N.]``; PJRT's input folder as ``pjrt/``),
and the texts hloscope reads from it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile

PLATFORM = sys.argv[1]
if PLATFORM == "tpu":
    os.environ.update(
        TPU_ACCELERATOR_TYPE="v5litepod-4",
        TPU_WORKER_HOSTNAMES="localhost",
        TPU_SKIP_MDS_QUERY="1",
        ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    )
os.environ["JAX_PLATFORMS"] = "cpu"
# This tree's hloscope, not an installed copy.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_PREFIX = re.compile(r"^module_\d+\.(jit_table_step\.)?(cl_\d+\.)?")


def main() -> None:
    import jax
    import jax.numpy as jnp
    from dump_options_programs import table_step

    from hloscope.backends import _jaxlib
    from hloscope.backends.dump_options import compile_dumping
    from hloscope.dump.index import load_dump

    spec = jax.ShapeDtypeStruct((256, 4096), jnp.float32)
    if PLATFORM == "tpu":
        from jax.experimental import topologies

        devices = topologies.get_topology_desc(
            platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1)
        ).devices
        sharding = jax.sharding.SingleDeviceSharding(devices[0])
        spec = jax.ShapeDtypeStruct(spec.shape, spec.dtype, sharding=sharding)
    lowered = jax.jit(table_step).lower(spec)
    with tempfile.TemporaryDirectory() as folder:
        with _jaxlib.private_compile_dumps(folder):
            compile_dumping(lowered, folder, None)
        files = []
        for root, _, names in os.walk(folder):
            inside = os.path.relpath(root, folder)
            for name in names:
                files.append(_PREFIX.sub("", name) if inside == "." else f"pjrt/{name}")
        module = next(m for m in load_dump(folder).modules if m.after_file is not None)
        read = {
            kind: files_[0].path.read_text()
            for kind in ("buffer-assignment", "live-range", "memory-usage-report")
            if (files_ := module.companions(kind))
        }
        before = next(m for m in load_dump(folder).modules if m.before_file is not None)
        assert module.after_file is not None and before.before_file is not None
        read["before_optimizations"] = before.before_file.path.read_text()
        read["after_optimizations"] = module.after_file.path.read_text()
    print(json.dumps({"files": sorted(files), "read": read}))


if __name__ == "__main__":
    main()
