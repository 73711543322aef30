"""XLA:TPU's own answer for a program of ``tests/tpu/programs.py``: the oracle of the tests.

``python tests/tpu/oracle.py FUNCTION TOPOLOGY [HOST_BOUNDS]`` compiles the function for a TPU
topology with plain JAX (``jax.experimental.topologies``, no hloscope) and prints JSON: XLA's
``memory_analysis()`` peak, ``cost_analysis()`` FLOPs and bytes, and the collectives XLA's own
parser finds in the compiled module (opcode counts over every computation).

``python tests/tpu/oracle.py --each FUNCTION/TOPOLOGY[/HOST_BOUNDS] ...`` answers for several in
one process (one JAX start-up, not one per answer) and prints one JSON object on its last line:
each spec, as written, to that JSON.
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys

os.environ.update(
    TPU_ACCELERATOR_TYPE="v5litepod-4",
    TPU_WORKER_HOSTNAMES="localhost",
    TPU_SKIP_MDS_QUERY="1",
    ALLOW_MULTIPLE_LIBTPU_LOAD="1",
    JAX_PLATFORMS="cpu",
)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

COLLECTIVES = (
    "all-reduce",
    "all-reduce-start",
    "all-gather",
    "all-gather-start",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
    "collective-permute-start",
)


def figures(name: str, topology: str, bounds: str | None = None) -> dict:
    """XLA:TPU's figures for the function ``name`` of ``programs.py`` compiled for ``topology``."""
    import programs
    from jax.experimental import topologies

    options = {}
    if bounds:
        options["chips_per_host_bounds"] = tuple(int(b) for b in bounds.split(","))
    devices = topologies.get_topology_desc(
        platform="tpu", topology_name=topology, **options
    ).devices
    compiled = getattr(programs, name).lower(*programs.tpu_arguments(name, devices)).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    import jaxlib._hlo as xla_hlo

    # XLA's parser reads the module and XLA's printer writes it back: each instruction on its
    # own line as `name = shape opcode(operands)`, which the counts read.
    printed = xla_hlo.hlo_module_from_text(compiled.as_text()).to_string()
    opcodes = collections.Counter(
        re.findall(r"^\s*(?:ROOT )?\S+ = .*? ([a-z][a-z0-9-]*)\(", printed, re.M)
    )
    return {
        "device_kind": devices[0].device_kind,
        "peak": compiled.memory_analysis().peak_memory_in_bytes,
        "flops": cost["flops"],
        "bytes": cost["bytes accessed"],
        "collectives": {op: opcodes[op] for op in COLLECTIVES if opcodes[op]},
    }


def spec(name: str, topology: str, bounds: str | None = None) -> str:
    """The ``--each`` spelling of one answer: ``FUNCTION/TOPOLOGY[/HOST_BOUNDS]``."""
    return "/".join([name, topology, *([bounds] if bounds else [])])


def main(argv: list[str]) -> None:
    if argv[0] == "--each":
        each = {one: figures(*one.split("/")) for one in argv[1:]}
        print(json.dumps(each))
    else:
        print(json.dumps(figures(argv[0], argv[1], argv[2] if len(argv) > 2 else None)))


if __name__ == "__main__":
    main(sys.argv[1:])
