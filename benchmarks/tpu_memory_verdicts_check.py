"""``memory``'s three verdicts on a TPU chip, against what the chip does (issue 35).

Run on a TPU host from the work tree (``../shared/docs/tpu.md`` section 7)::

    PYTHONPATH=.:$PYTHONPATH python3 benchmarks/tpu_memory_verdicts_check.py [OUT]

For the six programs of ``tests/memory_tpu_programs.py`` (an Adam step and a bf16 MLP holding
its activations, each sized to fit under the 80% limit, to compile above it, and to be
refused), in one process: ``hloscope memory SCRIPT.py:FUNCTION --json`` on the chip (the local
backend, XLA:TPU on the chip itself), then the program itself, run on zeros: a program
``memory`` says fits (under the limit or above it) must run, one it says does NOT fit must be
refused by the chip. Writes ``OUT/tpu_memory_verdicts.json``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "memory_tpu_programs.py"


def _out_dir() -> Path:
    given = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "tpu_memory_verdicts")
    out = Path(given)
    out.mkdir(parents=True, exist_ok=True)
    return out


def hloscope_verdict(name: str) -> dict[str, Any]:
    from click.testing import CliRunner

    from hloscope.cli import cli

    args = ["memory", f"{PROGRAMS}:{name}", "--device", "tpu-v5e", "--json"]
    result = CliRunner().invoke(cli, args)
    if result.exit_code not in (0, 3):
        return {"error": result.output[-800:], "exit": result.exit_code}
    data = json.loads(result.stdout)
    device = data.get("device") or {}
    return {
        "exit": result.exit_code,
        "verdict": device.get("verdict"),
        "peak_bytes": data.get("peak_bytes"),
        "available_bytes": device.get("available_bytes"),
        "compiled_for": data.get("compiled_for"),
        "fills_sum": sum(f.get("bytes", 0) for f in data.get("fills") or []),
        "source": data.get("source"),
    }


def run_on_chip(programs: Any, name: str) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    fn = getattr(programs, name)
    specs = fn.example_args  # jax.ShapeDtypeStructs
    started = time.perf_counter()
    try:
        args = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), specs)
        out = jax.jit(fn)(*args)
        jax.block_until_ready(out)
        peak = jax.devices()[0].memory_stats().get("peak_bytes_in_use")
        del out, args
        return {"ran": True, "peak_bytes_in_use": peak, "seconds": time.perf_counter() - started}
    except Exception as error:  # noqa: BLE001 - the chip's refusal is the answer
        return {"ran": False, "error": f"{type(error).__name__}: {error}"[:600]}


def main() -> None:
    out = _out_dir()
    sys.path.insert(0, str(PROGRAMS.parent))
    import jax
    import memory_tpu_programs as programs  # noqa: E402

    print(f"devices: {jax.devices()}", flush=True)
    rows = []
    for name in programs.VERDICTS:
        row: dict[str, Any] = {"program": name, "expected": programs.VERDICTS[name]}
        try:
            row["hloscope"] = hloscope_verdict(name)
            row["chip"] = run_on_chip(programs, name)
        except Exception as error:  # noqa: BLE001
            traceback.print_exc()
            row["error"] = f"{type(error).__name__}: {error}"[:500]
        verdict = (row.get("hloscope") or {}).get("verdict")
        ran = (row.get("chip") or {}).get("ran")
        row["agrees"] = verdict is not None and (verdict != "does_not_fit") == bool(ran)
        rows.append(row)
        print(f"{name:26} hloscope={verdict} chip_ran={ran} agrees={row['agrees']}", flush=True)
    (out / "tpu_memory_verdicts.json").write_text(json.dumps(rows, indent=2, default=str))


if __name__ == "__main__":
    main()
