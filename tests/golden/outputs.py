"""The commands whose ``--json`` output must not change when the inside is restructured.

``python tests/golden/outputs.py record`` runs every case and writes what it printed:

* ``tests/golden/data/<case>.txt.gz`` for inputs the project holds (``samples/`` and
  ``tests/data/``): the whole output (gzipped), so a failing test shows what moved;
* ``tests/golden/shared.json`` for ``../shared/corpus`` (not in the repo): one SHA-256 per
  case, so the record stays small.

``tests/test_golden_outputs.py`` runs the same cases and compares. Paths are written relative
to the project (``<ROOT>``) or the shared corpus (``<SHARED>``), so a clone elsewhere matches.
Record again only for a change that means to alter an output, and say so in the commit.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "corpus"
GOLDEN = Path(__file__).resolve().parent
DATA_RECORD = GOLDEN / "data"
SHARED_RECORD = GOLDEN / "shared.json"

SAMPLE_HLO = ROOT / "samples" / "hlo"
PROJECT_DUMPS = ROOT / "tests" / "data" / "generated"
# Offline commands only: nothing here runs a script or needs jax.
DUMP_COMMANDS = {
    "summary": ["summary", "--all-modules", "--json"],
    "fusions": ["fusions", "--all-modules", "--json"],
    "check": ["check", "--all-modules", "--device", "tpu", "--json"],
    "graph": ["graph", "-o", "{out}.json"],
    "recompiles": ["recompiles", "--json"],
    "explain": ["explain", "--json"],
}
FILE_COMMANDS = {
    "summary": ["summary", "--json"],
    "fusions": ["fusions", "--json"],
    "check": ["check", "--device", "tpu", "--json"],
    "graph": ["graph", "-o", "{out}.json"],
    "explain": ["explain", "--json"],
}


@dataclass(frozen=True)
class Case:
    """One command line on one input; ``name`` is its record's file name."""

    name: str
    args: tuple[str, ...]
    shared: bool


def _dump_cases(root: Path, prefix: str, shared: bool) -> Iterator[Case]:
    for dump in sorted(p for p in root.iterdir() if p.is_dir()):
        for command, args in DUMP_COMMANDS.items():
            yield Case(f"{prefix}{dump.name}.{command}", (*args, str(dump)), shared)
        if any(dump.glob("*/*.txt")) or any("pass" in p.name for p in dump.glob("*.txt")):
            yield Case(f"{prefix}{dump.name}.passes", ("passes", "--json", str(dump)), shared)


def cases(include_shared: bool = True) -> Iterator[Case]:
    """Every case, in a stable order; the shared corpus's only where it exists."""
    for text in sorted(SAMPLE_HLO.glob("*.after_optimizations.txt")):
        stem = text.name.removesuffix(".after_optimizations.txt")
        for command, args in FILE_COMMANDS.items():
            yield Case(f"sample.{stem}.{command}", (*args, str(text)), False)
    fused, split = (
        SAMPLE_HLO / f"fusion_refactor_{kind}.after_optimizations.txt"
        for kind in ("fused", "split")
    )
    yield Case("sample.fusion_refactor.diff", ("diff", "--json", str(fused), str(split)), False)
    yield from _dump_cases(PROJECT_DUMPS, "data.", False)
    if include_shared and SHARED.is_dir():
        yield from _dump_cases(SHARED / "generated", "shared.", True)
        xla_tests = sorted(p for p in (SHARED / "xla-tests").iterdir() if p.is_file())
        for text in xla_tests:
            for command in ("summary", "fusions"):
                args = (*FILE_COMMANDS[command], str(text))
                yield Case(f"shared.xla-tests.{text.name}.{command}", args, True)


def run(case: Case) -> str:
    """What the command printed and its exit code, with machine paths made relative."""
    from click.testing import CliRunner

    from hloscope.cli import cli

    with tempfile.TemporaryDirectory() as scratch:
        # A command that writes a file (graph -o) gets one in a scratch folder; its bytes are
        # part of the output.
        out = str(Path(scratch) / "out")
        args = [arg.replace("{out}", out) for arg in case.args]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        text = f"exit {result.exit_code}\n{result.stdout}"
        for written in sorted(Path(scratch).iterdir()):
            text += f"\n--- {written.name}\n{written.read_text()}"
        text = text.replace(out, "<OUT>")
    # Longest first: the shared corpus lies beside the project, so ROOT.parent is a prefix.
    for path, mark in ((SHARED, "<SHARED>"), (ROOT, "<ROOT>")):
        text = text.replace(str(path), mark)
    return text


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def record_path(case: Case) -> Path:
    return DATA_RECORD / f"{case.name}.txt.gz"


def write_record(case: Case, text: str) -> None:
    # mtime=0: the same output gives the same bytes, so git sees no change.
    record_path(case).write_bytes(gzip.compress(text.encode(), mtime=0))


def read_record(case: Case) -> str:
    return gzip.decompress(record_path(case).read_bytes()).decode()


def record() -> None:
    DATA_RECORD.mkdir(exist_ok=True)
    for old in DATA_RECORD.glob("*.txt.gz"):
        old.unlink()
    shared: dict[str, str] = {}
    for case in cases():
        text = run(case)
        if case.shared:
            shared[case.name] = digest(text)
        else:
            write_record(case, text)
    if shared:
        SHARED_RECORD.write_text(json.dumps(shared, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python tests/golden/outputs.py record")
    record()
