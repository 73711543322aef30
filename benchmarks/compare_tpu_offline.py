"""The offline XLA:TPU compile against the chip: peak, FLOPs and bytes of the same programs.

``benchmarks/tpu_chip_facts.py`` ran on a TPU v5e writes ``chip_facts.json`` (XLA:TPU's
``memory_analysis()`` and ``cost_analysis()`` of each program of ``samples/tpu_programs.py``
compiled on the chip). This script compiles the same programs here, on a machine without a TPU,
the way every hloscope command does (``SCRIPT.py:FUNCTION --device tpu-v5e``), and prints one
row per program with both figures and whether they are equal; with ``--json`` the rows as JSON.

    python benchmarks/compare_tpu_offline.py CHIP_FACTS.json [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = (
    ("peak_memory_in_bytes", "memory", "peak_memory_in_bytes"),
    ("temp_size_in_bytes", "memory", "temp_size_in_bytes"),
    ("flops", "cost", "flops"),
    ("bytes_accessed", "cost", "bytes accessed"),
)


def offline(name: str) -> dict[str, float]:
    from hloscope.backends.record import Capture
    from hloscope.capture.target import Target

    target = Target.resolve(f"{ROOT / 'samples' / 'tpu_programs.py'}:{name}", device="tpu-v5e")
    index = Capture.read_index(target.path)
    return {mine: index[where][key] for mine, where, key in FIGURES} | {
        "compiled_for": index["compiled_for"]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chip_facts")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    chip = json.loads(Path(options.chip_facts).read_text())
    rows = []
    for name, facts in chip.items():
        if not isinstance(facts, dict):
            continue
        here = offline(name)
        row = {"program": name, "compiled_for": here["compiled_for"]}
        for figure, _, _ in FIGURES:
            row[figure] = {"chip": facts[figure], "offline": here[figure]}
        row["equal"] = all(facts[f] == here[f] for f, _, _ in FIGURES)
        rows.append(row)
    if options.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"chip: {chip.get('device_kind')} (jax {chip.get('jax')}); offline: this machine")
    print(f"{'program':<14} {'peak (chip = offline)':>24} {'flops':>18} {'bytes':>16}  equal")
    for row in rows:
        peak, flops, moved = (row[f] for f in ("peak_memory_in_bytes", "flops", "bytes_accessed"))
        print(
            f"{row['program']:<14} {peak['chip']:>24,} {flops['chip']:>18,.0f} "
            f"{moved['chip']:>16,.0f}  {'yes' if row['equal'] else 'NO: ' + json.dumps(row)}"
        )


if __name__ == "__main__":
    main()
