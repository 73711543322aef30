"""cli/_output.py: the one writer of every command's JSON and CSV.

The bytes each command prints are checked by the golden records (tests/golden) and the CLI
tests; here, the writer itself: JSON as ``json.dump(indent=2)`` plus a newline, CSV as
``rows_to_csv``, only the chosen form made, and ``--json`` with ``--csv`` refused the same way
by every command that has both.
"""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hloscope.cli import cli
from hloscope.cli._app import CliError
from hloscope.cli._output import Format, json_text, output_format, per_module, show
from hloscope.render.rows import rows_to_csv

FUSED = SAMPLES / "hlo" / "fusion_refactor_fused.after_optimizations.txt"


def test_json_is_what_json_dump_writes_with_a_newline():
    data = {"module": "m", "rows": [{"a": 1, "b": None}], "text": "caf\u00e9 \u2192 x", "n": 1.5}
    expected = io.StringIO()
    json.dump(data, expected, indent=2)
    assert json_text(data) == expected.getvalue() + "\n"


def test_only_the_chosen_form_is_made(capsys):
    made: list[str] = []

    def maker(name, value):
        def make():
            made.append(name)
            return value

        return make

    rows = [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}]
    show(
        Format.CSV,
        text=maker("text", None),
        json=maker("json", {}),
        csv=maker("csv", (rows, ["y", "x"])),
    )
    assert made == ["csv"]
    assert capsys.readouterr().out == rows_to_csv(rows, ["y", "x"]) == "y,x\na,1\nb,2\n"
    made.clear()
    show(
        Format.JSON, text=maker("text", None), json=maker("json", [1]), csv=maker("csv", ([], None))
    )
    assert made == ["json"] and capsys.readouterr().out == "[\n  1\n]\n"
    made.clear()
    show(Format.TEXT, text=maker("text", None), json=maker("json", [1]))
    assert made == ["text"] and capsys.readouterr().out == ""


def test_one_module_or_every_module():
    assert per_module([{"m": 1}], False) == {"m": 1}
    assert per_module([{"m": 1}, {"m": 2}], True, unpaired=[]) == {
        "modules": [{"m": 1}, {"m": 2}],
        "unpaired": [],
    }


def test_json_and_csv_together_are_refused_in_one_place():
    assert output_format(False) is Format.TEXT
    assert output_format(True) is Format.JSON
    assert output_format(False, True) is Format.CSV
    with pytest.raises(CliError, match="--json and --csv exclude each other"):
        output_format(True, True)


@pytest.mark.parametrize("command", ["fusions", "profile"])
def test_every_command_with_both_says_it_the_same_way(command, tmp_path):
    target = str(FUSED) if command == "fusions" else str(tmp_path / "t.trace.json.gz")
    result = CliRunner().invoke(cli, [command, target, "--json", "--csv"])
    assert result.exit_code == 2
    assert "--json and --csv exclude each other" in result.output
