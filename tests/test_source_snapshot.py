"""A capture keeps the user's source files as they ran, and readers of the capture use them.

The refactor flow: capture a script, edit the same file, diff the old capture against the
new code. XLA's metadata names file and line only; read from the edited file, the old
capture's line numbers point at other code. Here two lines are swapped in place: line 7 of
A is ``a = jnp.sin(x)``, which is line 8 of B. With the snapshot the diff pairs them by their
code; from the edited file, A's line 7 would read as B's line 7 and pair with it.
"""

from __future__ import annotations

import json

from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.diff import parse_where
from hloscope.analysis.diff._line_pairing import source_lines
from hloscope.analysis.source_code import code_line
from hloscope.capture.cache import hash_files
from hloscope.capture.source_snapshot import SOURCES_FILE, read_snapshot, write_snapshot
from hloscope.cli import cli

BEFORE = """import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    a = jnp.sin(x)
    b = jnp.exp(x + 1.0)
    return (a @ b.T).sum()


step(jnp.ones((64, 64)))
"""
# The two lines swapped in place (and a comment at the end, so the files differ in size).
AFTER = BEFORE.replace(
    "    a = jnp.sin(x)\n    b = jnp.exp(x + 1.0)\n",
    "    b = jnp.exp(x + 1.0)\n    a = jnp.sin(x)\n",
).replace("step(jnp.ones((64, 64)))\n", "step(jnp.ones((64, 64)))  # swapped\n")


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_capture_keeps_the_code_it_ran_and_diff_and_explain_read_it(tmp_path, monkeypatch):
    needs_framework("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "model.py"
    script.write_text(BEFORE)
    _run("capture", str(script), "-o", str(tmp_path / "before"))
    kept = read_snapshot(tmp_path / "before")
    assert kept == {str(script.resolve()): BEFORE}
    script.write_text(AFTER)  # the refactor edits the same file

    # explain of the old capture shows the code that ran, not the edited file's line.
    explained = json.loads(_run("explain", str(tmp_path / "before"), "--json"))
    codes = {(line["line"], line["code"]) for line in explained["lines"] if line["line"]}
    assert (7, "a = jnp.sin(x)") in codes and (8, "b = jnp.exp(x + 1.0)") in codes

    # diff pairs A's line 7 (a = sin) with B's line 8, where the same code now is (the
    # memory part lists the lines at the peak under the kernel diff's pairing).
    diff = json.loads(_run("diff", str(tmp_path / "before"), str(script), "--json"))
    pairs = {
        parse_where(row["source_a"])[1]: parse_where(row["source"])[1]
        for row in diff["memory"]["by_source"]
        if row.get("source_a")
    }
    assert pairs == {7: 8, 8: 7}


def test_only_files_unchanged_since_they_ran_are_kept(tmp_path):
    kept, edited = tmp_path / "kept.py", tmp_path / "edited.py"
    kept.write_text("x = 1\n")
    edited.write_text("y = 2\n")
    recorded = hash_files([str(kept), str(edited), str(tmp_path / "gone.py")])
    edited.write_text("y = 3\n")  # changed after the run: its text is not what ran
    assert write_snapshot(tmp_path, recorded) == 1
    assert read_snapshot(tmp_path) == {str(kept): "x = 1\n"}
    (tmp_path / SOURCES_FILE).write_text("not json")
    assert read_snapshot(tmp_path) == {}
    # A folder it cannot write to: nothing kept, no error (the capture stands without it).
    assert write_snapshot(tmp_path / "no such folder", recorded) == 0


def test_a_line_comes_from_the_snapshot_before_the_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("now = 1\nnow = 2\n")
    snapshot = {str(path): "then = 1\nthen = 2\n"}
    assert code_line(str(path), 2, snapshot) == "then = 2"
    assert code_line(str(path), 2) == "now = 2"
    assert code_line(str(path), 9, snapshot) == ""
    (line,) = source_lines({f"{path}:1 (f)": {"sin"}}, snapshot)
    assert line.code == "then = 1"
