"""What a TPU chip says about samples/tpu_programs.py: compiled peak, FLOPs, bytes, time, traces.

Run on a TPU host (``../shared/docs/tpu.md`` section 7: the work tree, ``PYTHONPATH=.``)::

    python benchmarks/tpu_chip_facts.py OUT_DIR

It writes ``OUT_DIR/chip_facts.json``: per program, XLA:TPU's ``memory_analysis()`` and
``cost_analysis()`` of the compile on the chip, and the median of a plain
``block_until_ready`` loop; and ``OUT_DIR/traces.tar.gz``: a ``jax.profiler.trace`` of a few
steps of each traced program with the XLA dump of its module (``<name>/dump``,
``<name>/plugins/profile/<run>/``). ``benchmarks/compare_tpu_offline.py`` compares the JSON
with the same programs compiled offline for ``tpu-v5e``.
"""

from __future__ import annotations

import json
import os
import sys
import tarfile
import time
from pathlib import Path

TRACED = ("lm_step", "conv_step", "matmul", "elementwise")
SINGLE_CHIP = ("lm_step", "lm_step_remat", "conv_step", "narrow", "matmul", "elementwise")


def _stats(compiled) -> dict:
    memory = compiled.memory_analysis()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    fields = ("peak_memory_in_bytes", "temp_size_in_bytes", "argument_size_in_bytes")
    fields += ("output_size_in_bytes", "alias_size_in_bytes", "generated_code_size_in_bytes")
    return {
        **{f: int(getattr(memory, f)) for f in fields},
        "flops": float(cost.get("flops", 0.0)),
        "bytes_accessed": float(cost.get("bytes accessed", 0.0)),
    }


def _runner(fn, args, donated: bool):
    """A zero-argument step: a donating function gets its own last output back each time."""
    import jax

    state = {"args": args}

    def step():
        out = fn(*state["args"])
        if donated:
            state["args"] = (out[1], *state["args"][1:])
        return out

    # Donated inputs are consumed: start from a copy so the caller's arrays stay.
    if donated:
        state["args"] = (jax.tree_util.tree_map(lambda a: a.copy(), args[0]), *args[1:])
    return step


def _median_s(step, runs: int = 30) -> float:
    import jax
    import numpy as np

    for _ in range(3):
        jax.block_until_ready(step())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(step())
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(out: str) -> None:
    out_dir = Path(out)
    traces = out_dir / "traces"
    traces.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
    import jax
    import tpu_programs as programs

    facts: dict = {"device_kind": jax.devices()[0].device_kind, "jax": jax.__version__}
    stats = jax.devices()[0].memory_stats() or {}
    facts["bytes_limit"] = stats.get("bytes_limit")
    table = programs.example_args()
    for name in SINGLE_CHIP:
        fn = getattr(programs, name)
        args = table[name]()
        donated = name.startswith("lm_step")
        dump = traces / name / "dump"
        start = time.perf_counter()
        options = {"xla_dump_to": str(dump), "xla_dump_hlo_as_text": True}
        compiled = fn.lower(*args).compile(compiler_options=options)
        row = {"compile_s": time.perf_counter() - start, **_stats(compiled)}
        step = _runner(compiled, args, donated)
        row["median_s"] = _median_s(step)
        if name in TRACED:
            with jax.profiler.trace(str(traces / name)):
                for _ in range(5):
                    jax.block_until_ready(step())
            row["traced_steps"] = 5
        facts[name] = row
        print(name, json.dumps(row), flush=True)
    (out_dir / "chip_facts.json").write_text(json.dumps(facts, indent=2))
    with tarfile.open(out_dir / "traces.tar.gz", "w:gz") as tar:
        tar.add(traces, arcname="traces")
    import shutil

    shutil.rmtree(traces)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "chip_out"))
