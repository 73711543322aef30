"""`passes` at 80 columns and piped: no line over 80, pass names wrap (a name cut to
`copy-inse…` says nothing) and --wide prints each on one line.

The snapshots are XLA's own (a capture of a small function with every pass dumped); the
timeline's rows are the oracle for what each row must show whole.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.cli import cli
from hloscope.drivers.passes import pass_timeline

ELLIPSIS = "\u2026"


def wobble(x):
    import jax.numpy as jnp

    y = jnp.exp(x) * 2.0
    return (y - jnp.max(y)).sum()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    needs_framework("jax")
    import jax.numpy as jnp

    import hloscope

    folder = tmp_path_factory.mktemp("passes-width") / "cap"
    hloscope.capture(wobble, jnp.ones((16, 16)), passes=".*").save(folder)
    return folder


def run(*args, columns: int = 80):
    result = CliRunner().invoke(cli, [*map(str, args)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _what(row) -> str:
    return row.ran if row.next_pass is not None and row.ran else row.label


def _pass_cells(out: str) -> list[str]:
    """The pass column of each table row, its folded lines joined back."""
    cells: list[str] = []
    for line in out.splitlines():
        parts = line.split("\u2502")
        if len(parts) < 3:
            continue
        step, name = parts[0].strip(), parts[1].strip()
        if step:
            cells.append(name)
        elif cells:
            cells[-1] += name
    return cells


def test_no_line_is_wider_than_80_columns_and_names_wrap(saved):
    out = run("passes", saved)
    assert max(map(len, out.splitlines())) <= 80
    assert ELLIPSIS not in out
    timeline = pass_timeline(saved)
    expected = ["".join(_what(row).split()) for row in timeline.rows]
    assert ["".join(cell.split()) for cell in _pass_cells(out)] == expected
    assert any(len(name) > 26 for name in expected), "some names need wrapping at 80"


def test_wide_prints_every_pass_name_on_its_line(saved):
    out = run("passes", saved, "--wide")
    timeline = pass_timeline(saved)
    assert _pass_cells(out) == [_what(row) for row in timeline.rows]
    assert max(map(len, out.splitlines())) > 80  # the pipeline and note columns too
    header = next(line for line in out.splitlines() if line.startswith("step"))
    assert "pipeline" in header and "note" in header


def test_follow_wraps_pass_names_too(saved):
    timeline = pass_timeline(saved)
    first = timeline.module_at(0)
    name = next(i.name for i in first.entry.instructions if i.opcode == "exponential")
    out = run("passes", saved, "--follow", name)
    assert max(map(len, out.splitlines())) <= 80
    assert _pass_cells(out)  # one row per event, names whole once joined
    assert all(ELLIPSIS not in cell for cell in _pass_cells(out))


def test_passes_help_fits_80_columns():
    out = run("passes", "--help")
    assert max(map(len, out.splitlines())) <= 80 and "--wide" in out
