"""Every command that reads one module of a multi-module TARGET reads the one
:meth:`Target.choose_module` picks, and says so with the same note, once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.capture.target import Target
from hloscope.cli import cli


@pytest.fixture(scope="module")
def dump(corpus: Path) -> str:
    # A JAX program's dump: its own module beside the eager helpers JAX compiled on the way.
    return str(corpus / "generated" / "jax_control_flow")


@pytest.fixture(scope="module")
def expected_note(dump: str) -> str:
    choice = Target.resolve(dump).choose_module("after", None)
    assert choice.note, "the dump must hold several modules for this test to mean anything"
    return f"hloscope: note: {choice.note}"


def _notes(stderr: str) -> list[str]:
    """The notes about the module, each unfolded (a note wraps to the terminal's width)."""
    notes: list[str] = []
    in_note = False
    for line in stderr.splitlines():
        if line.startswith("  ") and in_note:
            assert len(line) <= 80, line
            notes[-1] += " " + line.strip()
            continue
        in_note = line.startswith("hloscope: note: ")
        if in_note:
            assert len(line) <= 80, line
            notes.append(line)
    return [note for note in notes if note.startswith("hloscope: note: module ")]


@pytest.mark.parametrize(
    "args",
    [
        ["summary"],
        ["fusions"],
        ["graph", "-o", "{tmp}/g.dot"],
        ["explain"],
        ["check"],
        ["report", "-o", "{tmp}/r.html", "--graphs", "0"],
        ["diff", "{dump}"],
    ],
    ids=lambda a: a[0],
)
def test_each_command_reads_the_main_module_and_says_so_once(args, dump, expected_note, tmp_path):
    command, *rest = args
    filled = [a.format(tmp=tmp_path, dump=dump) for a in rest]
    result = CliRunner().invoke(cli, [command, dump, *filled])
    assert result.exit_code in (0, 3), result.output  # check: 3 when it finds something
    assert _notes(result.stderr) == [expected_note]


def test_json_names_the_module_the_note_names(dump, expected_note):
    chosen = Target.resolve(dump).choose_module("after", None).module.name
    assert f"module {chosen}:" in expected_note
    for command in ("summary", "fusions"):
        payload = json.loads(CliRunner().invoke(cli, [command, dump, "--json"]).stdout)
        (described,) = payload if isinstance(payload, list) else [payload]  # summary: a list
        assert described["module"] == chosen
