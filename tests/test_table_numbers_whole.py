"""At 80 columns a table leaves a column out rather than cut a number.

A loop's kernels add a ``where`` column; with a sorted column beside the essential ones the
table was wider than 80 columns and the terminal cropped the byte counts (``384.0 `` for
``384.0 MiB``), a number that says something false. Each byte cell shown must be whole.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

DATA = Path(__file__).resolve().parent / "data" / "generated"
LOOPS = [
    DATA / "jax_control_flow" / "module_0004.jit_loops.cpu_after_optimizations.txt",
    DATA / "flax_cnn_train" / "module_0010.jit__threefry_fold_in.cpu_after_optimizations.txt",
]
BYTES = re.compile(r"^\d+(\.\d+)? (B|KiB|MiB|GiB|TiB)$")


@pytest.mark.parametrize("path", LOOPS, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("sort", ["bytes", "flops"])
def test_sorted_loop_tables_fit_80_columns_with_whole_numbers(path, sort, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["fusions", str(path), "--sort", sort, "--top", "8"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    header = next(line for line in lines if "┃" in line)
    names = [cell.strip() for cell in header.split("┃")]
    assert "where" in names and sort in names  # the loop's column and the sorted one stay
    rows = [line for line in lines if "│" in line]
    assert rows
    for column in ("bytes", "out"):
        if column in names:
            at = names.index(column)
            cells = [row.split("│")[at].strip() for row in rows]
            assert all(BYTES.match(cell) for cell in cells), cells
