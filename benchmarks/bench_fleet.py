"""``hloscope fleet`` over 200 dumps on a local Dask cluster, against a serial loop of
``hloscope summary`` (issue 23, Performance).

    python benchmarks/bench_fleet.py [--dumps 200] [--folder DIR]

The fleet is the project's sample dumps (``tests/data/generated``) and, where it exists, the
shared corpus (``../shared/corpus/generated``), replicated under different labels
(``model-000/jax_mlp_train``, ``model-001/flax_cnn_train``...) into a temporary folder until
there are ``--dumps`` of them (files hard-linked where the file system allows, else copied).

Three timings, each a fresh process as a user would run it (start-up included):

* ``serial summary``: ``hloscope summary DUMP`` once per dump, one after another, the loop a
  user would script without ``fleet`` (each prints the dump's main module);
* ``fleet (sync)``: ``hloscope fleet ROOT --scheduler sync --json``: every module of every
  dump, in one process;
* ``fleet (local cluster)``: ``hloscope fleet ROOT --json``, the command's own
  ``distributed.LocalCluster``: one single-threaded worker process per core (2 on 2 cores).

The fleet does more work than the loop (every module of each dump, not just the largest, and
the fusion, memory and collectives analyses on each); the target is the local cluster at least
1.6x faster than the serial loop on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "tests" / "data" / "generated", ROOT.parent / "shared" / "corpus" / "generated")
TARGET = 1.6


def source_dumps() -> list[Path]:
    found = []
    for base in SOURCES:
        if base.is_dir():
            found.extend(sorted(p for p in base.iterdir() if p.is_dir()))
    if not found:
        raise SystemExit("no sample dumps found (tests/data/generated)")
    return found


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def build_fleet(folder: Path, count: int) -> list[Path]:
    """``count`` dumps under ``folder``: the sources in turn, each under a new label."""
    sources = source_dumps()
    dumps = []
    for i in range(count):
        src = sources[i % len(sources)]
        dst = folder / f"model-{i:03d}" / src.name
        for f in src.rglob("*"):
            target = dst / f.relative_to(src)
            if f.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            elif f.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(f, target)
        dumps.append(dst)
    return dumps


def hloscope_command() -> list[str]:
    return [sys.executable, "-m", "hloscope"]


def timed(args: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        args, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dumps", type=int, default=200)
    parser.add_argument("--folder", type=Path, help="build the fleet here (default: a temp dir)")
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="hloscope-fleet-"))
    dumps = build_fleet(folder, args.dumps)
    cmd = hloscope_command()

    check = subprocess.run(
        [*cmd, "fleet", str(folder), "--scheduler", "sync", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    rows = json.loads(check.stdout)["rows"]
    modules = len(rows)
    failed = sum(1 for r in rows if r["error"] is not None)
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    print(
        f"{len(dumps)} dumps ({len(source_dumps())} sources), {modules} modules, "
        f"{size / 2**20:.0f} MiB, {failed} failed; {os.cpu_count()} cores"
    )

    serial = 0.0
    for dump in dumps:
        serial += timed([*cmd, "summary", str(dump)])
    sync = timed([*cmd, "fleet", str(folder), "--scheduler", "sync", "--json"])
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    local = timed([*cmd, "fleet", str(folder), "--json"], env=env)

    print(f"{'serial summary (one process per dump)':42s} {serial:8.1f} s")
    print(f"{'fleet --scheduler sync (one process)':42s} {sync:8.1f} s  {serial / sync:5.2f}x")
    print(f"{'fleet, local cluster':42s} {local:8.1f} s  {serial / local:5.2f}x")
    verdict = "meets" if serial / local >= TARGET else "MISSES"
    print(f"target: local cluster >= {TARGET}x the serial loop: {verdict}")
    if args.folder is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
