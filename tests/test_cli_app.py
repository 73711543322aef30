"""The command group: one error prefix, usage errors, plain `hloscope`, a closed pipe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["fusions", "--nope", str(SAMPLE)], "No such option '--nope'"),
        (["fusions"], "Missing argument 'TARGET'"),
        (["nope"], "No such command 'nope'"),
        (["diff", "--fail-on", "speed", str(SAMPLE), str(SAMPLE)], "unknown metric 'speed'"),
    ],
)
def test_usage_errors_have_the_one_prefix_and_exit_2(args, words):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("hloscope: error: ") and words in line and "--help" in line


def test_plain_hloscope_prints_the_help():
    result = CliRunner().invoke(cli, [])
    assert result.exit_code == 0 and "Commands:" in result.stdout and "fusions" in result.stdout


def test_a_closed_pipe_ends_quietly():
    command = f"{sys.executable} -m hloscope fusions --wide {SAMPLE} | head -1"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.startswith("kernels ")
    assert done.stderr == ""
