"""A new user's third hour at 80 columns: ``fusions --top`` ranks, and nothing is cut.

* ``fusions --top N`` without ``--sort`` shows the N heaviest rows (by bytes; per source line,
  by FLOPs), never the first N of the schedule, and says what it ranked by. The oracle is the
  command's own ``--json`` rows, every one, ranked here.
* At 80 columns in a pipe (``COLUMNS=80``): every line of ``recompiles``, ``explain --line`` and
  ``report``'s printed summary fits, and the content (the seconds, the jaxpr text, the summary
  figures) is all there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = [
    str(ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"),
    str(ROOT / "tests" / "data" / "tpu" / "conv_net"),
]


def invoke(*args: str, columns: int = 80) -> tuple[int, str]:
    # CliRunner's output is not a terminal: the piped case, COLUMNS set as a pipe has it.
    done = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})
    return done.exit_code, done.output


def _all_rows(*args: str) -> list[dict]:
    code, out = invoke("fusions", *args, "--json")
    assert code == 0, out
    return json.loads(out)["rows"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_top_without_sort_shows_the_heaviest_kernels(program: str) -> None:
    every = _all_rows(program)
    heaviest = sorted(every, key=lambda r: r["bytes"], reverse=True)[:5]
    assert [r["name"] for r in every[:5]] != [r["name"] for r in heaviest]  # not schedule order
    top = _all_rows(program, "--top", "5")
    assert [r["bytes"] for r in top] == [r["bytes"] for r in heaviest]
    assert {r["name"] for r in top} <= {r["name"] for r in every if r["bytes"] >= top[-1]["bytes"]}
    code, out = invoke("fusions", program, "--top", "5")
    assert code == 0, out
    assert "(--top 5 ranked by bytes, heaviest first" in out
    assert "bytes" in out.split("━")[0].splitlines()[-1]  # the ranked column is shown
    assert max(len(line) for line in out.splitlines()) <= 80


def test_top_by_source_ranks_lines_by_flops() -> None:
    program = PROGRAMS[0]
    every = _all_rows(program, "--by-source")
    top = _all_rows(program, "--by-source", "--top", "3")
    assert [r["flops"] for r in top] == sorted((r["flops"] for r in every), reverse=True)[:3]
    code, out = invoke("fusions", program, "--by-source", "--top", "3")
    assert code == 0 and "(--top 3 ranked by flops" in out


def test_an_explicit_sort_is_kept_and_not_announced() -> None:
    program = PROGRAMS[0]
    top = _all_rows(program, "--sort", "-bytes", "--top", "3")
    assert [r["bytes"] for r in top] == sorted(r["bytes"] for r in _all_rows(program))[:3]
    code, out = invoke("fusions", program, "--sort", "flops", "--top", "3")
    assert code == 0 and "ranked by" not in out
