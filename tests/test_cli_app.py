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


_ENTRY = """
import atexit, sys

class Teardown:
    def __del__(self):
        print("heap torn down", flush=True)

keep = Teardown()  # freed only if the interpreter tears its heap down
atexit.register(lambda: print("atexit ran", flush=True))
sys.argv = ["hloscope", *sys.argv[1:]]
from hloscope.cli import main
main()
"""


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["summary", str(SAMPLE)], 0),
        (["summary", str(SAMPLE), "/no/such/file.txt"], 2),
        (["fusions", "--nope", str(SAMPLE)], 2),
    ],
)
def test_the_entry_point_exits_without_tearing_the_heap_down(args, status):
    # A command's module is millions of objects; freeing them one by one at shutdown took a
    # second after a 54 MB `fusions`. The entry point flushes, runs the atexit handlers and
    # ends the process with the command's status instead.
    done = subprocess.run(
        [sys.executable, "-c", _ENTRY, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == status
    assert "atexit ran" in done.stdout and "heap torn down" not in done.stdout
    if status == 0:
        assert "jit_train_step" in done.stdout  # the output was flushed before the exit


def test_the_version_is_read_only_when_asked():
    # importlib.metadata costs tens of milliseconds: every command and every watched script's
    # child imports hloscope, and none of them needs the version.
    import subprocess
    import sys
    from importlib import metadata

    code = (
        "import sys, hloscope, hloscope.cli, hloscope.capture._runner\n"
        "print('importlib.metadata' in sys.modules)\n"
        "print(hloscope.__version__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, version = done.stdout.split()
    assert loaded == "False"
    assert version == metadata.version("hloscope")
    shown = CliRunner().invoke(cli, ["--version"])
    assert shown.exit_code == 0 and shown.output == f"hloscope, version {version}\n"
