"""`explain` at 80 columns and piped: no line over 80, nothing that says nothing once cut
(ops and kernels wrap, never end in an ellipsis), and --wide prints every cell whole.

CliRunner's output is a pipe, so rich takes the width from COLUMNS (80 here), as a user's
`hloscope explain ... | less` would.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import hloscope
from hloscope.cli import cli
from hloscope.drivers.explain import explain
from hloscope.stages import Stage

ROOT = Path(__file__).resolve().parent.parent
HLO = ROOT / "samples" / "hlo"
AFTER = HLO / "transformer_train.after_optimizations.txt"
BEFORE = HLO / "transformer_train.before_optimizations.txt"
ELLIPSIS = "\u2026"
LINE = "transformer_train.py:51"


def run(*args, columns: int = 80):
    result = CliRunner().invoke(cli, [*map(str, args)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dump")
    shutil.copy(BEFORE, folder / "module_0001.jit_train_step.before_optimizations.txt")
    shutil.copy(AFTER, folder / "module_0001.jit_train_step.cpu_after_optimizations.txt")
    return folder


@pytest.fixture(scope="module")
def focused():
    return explain(hloscope.parse(AFTER), before=hloscope.parse(BEFORE), line=LINE)


def _squeezed(text: str) -> str:
    """The table's text without its rules and spaces: a name folded over lines reads whole."""
    return "".join(ch for ch in text if not ch.isspace() and ch not in "│┃━╇─┼")


def test_no_line_is_wider_than_80_columns(dump):
    for args in ([dump], [dump, "--line", LINE], [dump, "--kernel", "wrapped_reduce-window.1"]):
        out, err = run("explain", *args)
        assert max(map(len, out.splitlines())) <= 80, args
        assert all(len(line) <= 80 for line in err.splitlines())


def test_the_line_detail_wraps_instead_of_cutting(dump, focused):
    out, _ = run("explain", dump, "--line", LINE)
    table = out.split("\n\n", 1)[1]
    assert ELLIPSIS not in table
    (line,) = focused.lines
    squeezed = _squeezed(table)
    for stage in (Stage.HLO, Stage.OPTIMIZED_HLO):
        for op in line.stage_ops(stage)[:4]:
            assert op.name in squeezed, op.name
    for kernel in line.kernels:
        assert kernel in squeezed


def _column(text: str, index: int) -> str:
    """One column of a table's rows, each row's folded lines joined (a name folded over lines
    reads whole; the code column folds too, so the rows are read column by column)."""
    rows: list[str] = []
    for line in text.splitlines():
        if "│" not in line:
            continue
        cells = line.split("│")
        if cells[0].strip() or not rows:
            rows.append("")
        rows[-1] += cells[index]
    return "\n".join(_squeezed(row) for row in rows)


def test_the_overview_kernel_lists_wrap(dump):
    e = explain(hloscope.Target.resolve(str(dump)))
    out, _ = run("explain", dump)
    squeezed = _column(out, -1)
    for line in e.lines:
        for kernel in line.kernels[:3]:
            assert kernel in squeezed, (line.source, kernel)
    kernel_cells = [row.rsplit("│", 1)[-1] for row in out.splitlines() if "│" in row]
    assert not any(cell.rstrip().endswith(ELLIPSIS) for cell in kernel_cells)


def test_wide_prints_every_cell_on_one_line(dump, focused):
    out, _ = run("explain", dump, "--line", LINE, "--wide")
    (line,) = focused.lines
    rows = out.splitlines()
    for op in line.stage_ops(Stage.OPTIMIZED_HLO)[:4]:
        assert any(f"{op.name} \u2192 {op.kernel}" in row for row in rows), op.name
    assert max(map(len, rows)) > 80
    out, _ = run("explain", dump, "--wide")
    e = explain(hloscope.Target.resolve(str(dump)))
    assert any(e.lines[0].code in row for row in out.splitlines())


def test_explain_help_fits_80_columns():
    out, _ = run("explain", "--help")
    assert max(map(len, out.splitlines())) <= 80
    assert "--wide" in out
