"""How fast does ``load_dump`` index a big dump folder?

Makes a folder of empty files named like a real dump (1,000 modules x 10 files: both stages,
the four buffer/memory reports and four per-pass dumps; 50 functions compiled 20 times each) and
times :func:`hloscope.load_dump` on it. Indexing reads no file, only the folder listing and one
``stat`` per file, so the target is well under a second for 10,000 files.

    python benchmarks/bench_dump_index.py [N_FILES]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

_PER_MODULE = (
    "before_optimizations.txt",
    "cpu_after_optimizations.txt",
    "cpu_after_optimizations-buffer-assignment.txt",
    "cpu_after_optimizations-buffer-assignment-values.txt",
    "cpu_after_optimizations-live-range.txt",
    "cpu_after_optimizations-memory-usage-report.txt",
    "0000.simplification.after_pipeline-start.before_algsimp.txt",
    "0001.simplification.after_algsimp.before_dce.txt",
    "0002.copy-insertion.after_removing_unnecessary_copies.txt",
    "0003.HLO_passes_after_scheduling.after_pipeline-start.before_pipeline-end.txt",
)


def make_dump_folder(folder: Path, n_files: int = 10_000) -> int:
    """Fill ``folder`` with ``n_files`` empty dump files; returns how many it made."""
    made = 0
    module = 0
    while made < n_files:
        name = f"module_{module:04d}.jit_step_{module % 50}"
        for suffix in _PER_MODULE:
            if made == n_files:
                break
            (folder / f"{name}.{suffix}").touch()
            made += 1
        module += 1
    return made


def main(argv: list[str]) -> None:
    from hloscope.dump import load_dump

    n_files = int(argv[1]) if len(argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_dump_folder(folder, n_files)
        load_dump(folder)  # warm the OS directory cache and the regex compiles
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            index = load_dump(folder)
            best = min(best, time.perf_counter() - start)
    print(
        f"load_dump: {n_files} files, {len(index.modules)} modules, "
        f"{len(index.functions)} functions "
        f"in {best * 1000:.1f} ms (best of 5), {n_files / best:,.0f} files/s"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main(sys.argv)
