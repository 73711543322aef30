"""Regenerate tests/data/profiles: real profiler traces of small programs, and their modules.

    python tests/data/profiles/regenerate.py [--platform cpu|tpu] [CASE ...]
    python tests/data/profiles/regenerate.py --import-tpu DIR

Each case of ``programs.py`` runs in a fresh interpreter on this machine's JAX device (XLA:CPU
here; on a TPU machine, ``--platform tpu``) and writes ``<platform>/<case>/``:

* ``trace/plugins/profile/run/host.trace.json.gz`` and ``host.xplane.pb``, what
  ``jax.profiler.trace`` wrote (the run folder and host file renamed from the date and the
  machine's name, so the paths do not change from one recording to the next);
* ``<name>.hlo``: the text of each executable that ran (paths in its metadata rewritten to
  ``/home/user/profiles``);
* ``facts.json``: what the recording knows (steps marked, executions per module, XLA's
  ``cost_analysis()`` of each module, the device kind), the tests' oracle.

TPU traces come from a TPU host: ``benchmarks/tpu_chip_facts.py OUT`` (run there, see
``../shared/docs/tpu.md``) records ``jax.profiler.trace`` of five steps of each program of
``samples/tpu_programs.py`` with the XLA dump of its module, and ``chip_facts.json`` (XLA:TPU's
``cost_analysis()``, the traced step count). Unpacked here, ``regenerate.py --import-tpu OUT``
copies into ``tpu/<program>/`` the trace files, the module's ``after_optimizations.txt`` (the
rest of the dump is left out) and the facts.

What XLA:CPU's trace holds (jax 0.10): no device process; each kernel (thunk) is an event on
a ``/host:CPU`` thread named after its HLO instruction, with ``hlo_op``, ``hlo_module`` and
``run_id`` arguments, and an ``end: NAME`` event after it. Steps marked with
``StepTraceAnnotation`` are host events with a ``step_num`` argument.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEUTRAL = "/home/user/profiles"


def _normalise(case_dir: Path) -> None:
    """Fixed names for the run folder and the host's files; neutral paths in the HLO."""
    runs = sorted((case_dir / "trace" / "plugins" / "profile").iterdir())
    run = runs[-1]
    for extra in runs[:-1]:
        shutil.rmtree(extra)
    for path in run.iterdir():
        for suffix in (".trace.json.gz", ".xplane.pb"):
            if path.name.endswith(suffix):
                path.rename(run / f"host{suffix}")
    run.rename(run.parent / "run")
    for hlo in case_dir.glob("*.hlo"):
        hlo.write_text(hlo.read_text().replace(str(HERE), NEUTRAL))


def record(case: str, platform: str) -> Path:
    target = HERE / platform / case
    with tempfile.TemporaryDirectory(prefix=f"profile-{case}-") as scratch:
        out = Path(scratch) / case
        out.mkdir()
        env = dict(os.environ)
        if platform == "cpu":
            env["JAX_PLATFORMS"] = "cpu"
        subprocess.run(
            [sys.executable, str(HERE / "programs.py"), case, str(out)],
            check=True,
            env=env,
            cwd=HERE,
        )
        _normalise(out)
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(out, target)
    return target


TPU_PROGRAMS = ("conv_step", "matmul", "elementwise", "lm_step")


def import_tpu(source: Path) -> None:
    """Copy the small part of a ``tpu_chip_facts.py`` output folder that the tests read."""
    facts = json.loads((source / "chip_facts.json").read_text())
    for name in TPU_PROGRAMS:
        origin = source / "traces" / name
        target = HERE / "tpu" / name
        if target.exists():
            shutil.rmtree(target)
        (target / "dump").mkdir(parents=True)
        for path in (origin / "plugins").rglob("*"):
            if path.is_file():
                copy = target / "trace" / path.relative_to(origin)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, copy)
        for path in (origin / "dump").glob("*.after_optimizations.txt"):
            shutil.copy2(path, target / "dump" / path.name)
        row = {"device_kind": facts["device_kind"], "jax": facts["jax"], **facts[name]}
        (target / "facts.json").write_text(json.dumps(row, indent=1) + "\n")
        print(target)


def main() -> None:
    sys.path.insert(0, str(HERE))
    from programs import CASES

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--platform", default="cpu", choices=("cpu", "tpu", "gpu"))
    parser.add_argument("--import-tpu", metavar="DIR", type=Path)
    parser.add_argument("cases", nargs="*", default=list(CASES))
    args = parser.parse_args()
    if args.import_tpu:
        import_tpu(args.import_tpu)
        return
    for case in args.cases:
        print(record(case, args.platform))


if __name__ == "__main__":
    main()
