"""One exit-status rule for every command (hloscope/errors.py says it; the CLI help repeats it).

2: the command line cannot be used as given (a usage error, a bad option value, a path that
does not exist or is of the wrong kind, a name that matches nothing); 1: the work failed (a
folder with no dump, a script that crashed); 0: done. Each command is tried here, so a new
command or a new error class cannot drift from the rule unnoticed.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.capture.errors import CaptureUsageError
from hloscope.capture.script_source import check_script_source, module_level_names
from hloscope.cli import cli
from hloscope.errors import ExitStatus

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "samples" / "hlo" / "fusion_refactor_fused.after_optimizations.txt")
CNN = str(ROOT / "samples" / "hlo" / "keras_cnn.after_optimizations.txt")

#: Every command that takes a TARGET (or a file) as its first argument, with the options it
#: needs besides (an output file).
TARGET_COMMANDS = {
    "summary": [],
    "fusions": [],
    "diff": [SAMPLE],
    "graph": ["-o", "{tmp}/g.svg"],
    "check": [],
    "recompiles": [],
    "explain": [],
    "passes": [],
    "bench": [],
    "report": ["-o", "{tmp}/r.html"],
    "extract": ["fusion"],
    "ls": [],
    "capture": ["-o", "{tmp}/out"],
    "explain-error": [],
    "memory": [],
    "collectives": [],
    "fleet": [],
    "profile": [],
    "compile-time": [],
    "try": ["--device", "tpu-v5e:2x2", "--shard", "dp"],
}


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def _fill(args: list[str], tmp: Path) -> list[str]:
    return [a.format(tmp=tmp) for a in args]


def test_every_command_is_in_the_table():
    assert set(TARGET_COMMANDS) | {"cache"} == set(cli.commands)


@pytest.mark.parametrize("command", sorted(TARGET_COMMANDS))
def test_a_path_that_does_not_exist_is_a_usage_error(command, tmp_path):
    missing = tmp_path / ("nope.py" if command == "capture" else "nope")
    result = invoke(command, str(missing), *_fill(TARGET_COMMANDS[command], tmp_path))
    assert result.exit_code == ExitStatus.USAGE, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "nope" in line and "error" in line


BAD_VALUES = [
    ("fusions", [SAMPLE, "--sort", "nosuch"], "cannot sort by"),
    ("fusions", [SAMPLE, "--top", "-1"], "--top"),
    ("fusions", [SAMPLE, "--filter", "colour=red"], "unknown column"),
    ("fusions", [SAMPLE, "--module", "nosuch"], "no module named"),
    ("fusions", [SAMPLE, "--module", "x", "--all-modules"], "exclude each other"),
    ("summary", [SAMPLE, "--module", "nosuch"], "no module named"),
    ("graph", [SAMPLE, "-o", "{tmp}/g.jpeg"], "cannot tell the format"),
    ("graph", [SAMPLE, "-o", "{tmp}/g.svg", "--format", "jpeg"], "--format"),
    ("graph", [SAMPLE, "-o", "{tmp}/g.dot", "--around", "nosuch"], "no instruction named"),
    ("graph", [SAMPLE, "-o", "{tmp}/g.dot", "--fusion", "nosuch"], "no fusion named"),
    ("check", [SAMPLE, "--platform", "xpu"], "--platform"),
    ("extract", [SAMPLE, "nosuch"], "no kernel named"),
    ("diff", [SAMPLE, SAMPLE, "--fail-on", "nosuch"], "--fail-on"),
    ("report", [SAMPLE, "-o", "{tmp}/r.html", "--graphs", "-2"], "--graphs"),
    ("capture", [SAMPLE, "-o", "{tmp}/out"], "not a Python script"),
    # A source line or kernel that matches nothing, in two programs' HLO.
    ("explain", [SAMPLE, "--line", "fusion_refactor.py:999"], "came from 'fusion_refactor.py:999'"),
    ("explain", [CNN, "--line", "train.py:999"], "came from 'train.py:999'"),
    ("explain", [CNN, "--kernel", "nosuch"], "no kernel 'nosuch'"),
    ("explain", [SAMPLE, "--line", "a.py:1", "--kernel", "fusion"], "exclude each other"),
]


@pytest.mark.parametrize(("command", "args", "said"), BAD_VALUES, ids=lambda v: str(v)[:40])
def test_a_value_the_command_cannot_use_is_a_usage_error(command, args, said, tmp_path):
    result = invoke(command, *_fill(args, tmp_path))
    assert result.exit_code == ExitStatus.USAGE, result.output
    (line,) = result.stderr.strip().splitlines()
    assert said in line


@pytest.mark.parametrize(
    ("command", "option"),
    [("fusions", "--sort"), ("graph", "--around"), ("summary", "--module"), ("diff", "--fail-on")],
)
def test_an_option_without_its_value_points_to_the_commands_own_help(command, option):
    result = invoke(command, SAMPLE, option)
    assert result.exit_code == ExitStatus.USAGE
    assert f"{command} --help'" in result.stderr and "requires an argument" in result.stderr


def test_a_folder_without_a_dump_is_a_failed_run_not_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing compiled here\n")
    for command in ("ls", "summary", "fusions"):
        result = invoke(command, str(tmp_path))
        assert result.exit_code == ExitStatus.ERROR, (command, result.output)
        assert len(result.stderr.strip().splitlines()) == 1


def test_text_that_does_not_parse_is_status_2(tmp_path):
    broken = tmp_path / "broken.hlo"
    broken.write_text("HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0\n}\n")
    for command in ("summary", "fusions"):
        result = invoke(command, str(broken))
        assert result.exit_code == ExitStatus.BAD_INPUT
        assert result.stderr.startswith(f"{broken}:5:1: error: unbalanced brackets")


# ---- the script checks made before a capture process starts ----------------------------------


@pytest.fixture
def no_child_process(monkeypatch):
    """Fail the test if anything tries to start the capture process."""

    def refuse(*args, **kwargs):
        raise AssertionError("a capture process was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)


def _script(tmp_path: Path, text: str, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_syntax_error_is_said_with_its_position_before_capturing(tmp_path, no_child_process):
    script = _script(tmp_path, "import jax\n\ndef step(x):\n    return x +* 2\n")
    with pytest.raises(SyntaxError) as python_says:  # Python's own compiler is the oracle
        compile(script.read_text(), str(script), "exec")
    where = f"{python_says.value.lineno}:{python_says.value.offset}"
    for args in (
        ["fusions", f"{script}:step"],
        ["capture", str(script), "-o", str(tmp_path / "o")],
    ):
        result = invoke(*args)
        assert result.exit_code == ExitStatus.USAGE
        assert result.stderr.strip() == f"{script}:{where}: error: SyntaxError: invalid syntax"


@pytest.mark.parametrize("missing_side", ["a", "b"])
def test_diff_says_a_missing_target_before_capturing_the_other(
    tmp_path, no_child_process, missing_side
):
    """``diff crash.py:f missing.txt``: B's absence is said at once, not after A's capture;
    and the other way round, with a script of another shape on the present side."""
    if missing_side == "b":
        script = _script(tmp_path, "import jax\n\ndef f(x):\n    return x / 0\n", "crash.py")
        args = [f"{script}:f", str(tmp_path / "missing.txt")]
        said = "missing.txt: no such file or folder"
    else:
        script = _script(tmp_path, "import jax.numpy as jnp\n\ndef g(x):\n    return jnp.sin(x)\n")
        args = [str(tmp_path / "gone.py") + ":g", f"{script}:g"]
        said = "gone.py: no such file"
    result = invoke("diff", *args)
    assert result.exit_code == ExitStatus.USAGE, result.output
    (line,) = result.stderr.strip().splitlines()
    assert said in line


def test_a_missing_function_is_said_before_capturing(tmp_path, no_child_process):
    script = _script(
        tmp_path,
        """
        import jax

        def train_step(x):
            return x * 2

        class Model:
            pass
        """,
    )
    result = invoke("summary", f"{script}:train_stp")
    assert result.exit_code == ExitStatus.USAGE
    (line,) = result.stderr.strip().splitlines()
    assert "has no function 'train_stp' (functions: Model, train_step)" in line
    assert "did you mean 'train_step'" in line
    result = invoke("recompiles", f"{script}:nothing_like_it")
    assert result.exit_code == ExitStatus.USAGE and "has no function" in result.stderr


def test_a_missing_function_the_child_finds_is_the_same_usage_error(tmp_path, monkeypatch):
    """A star import hides what the module binds, so the capture's child is the one to find
    that the function is not there: still exit 2, one line, as when the source says it."""
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = _script(
        tmp_path,
        """
        from os.path import *
        import jax

        def train_step(x):
            return x * 2
        """,
    )
    for command in ("summary", "memory"):
        result = invoke(command, f"{script}:train_stp")
        assert result.exit_code == ExitStatus.USAGE, result.output
        (line,) = result.stderr.strip().splitlines()
        assert "has no function 'train_stp'" in line and "Traceback" not in result.stderr


def test_a_function_without_example_arguments_is_a_usage_error_in_every_command(
    tmp_path, monkeypatch
):
    """bench loads the function in its own process, summary in a capture's child: the same
    mistake, the same exit status (2) and words."""
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = _script(tmp_path, "import jax\n\n@jax.jit\ndef step(x):\n    return x + 1\n")
    lines = set()
    for command in ("bench", "summary"):
        result = invoke(command, f"{script}:step")
        assert result.exit_code == ExitStatus.USAGE, (command, result.output)
        (line,) = result.stderr.strip().splitlines()
        lines.add(line)
        assert "needs example arguments" in line
    assert len(lines) == 1


def test_a_script_that_fails_as_it_imports_is_a_failure_not_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = _script(tmp_path, "from os.path import *\nraise RuntimeError('no data here')\n")
    result = invoke("summary", f"{script}:step")
    assert result.exit_code == ExitStatus.ERROR, result.output
    assert "no data here" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "source",
    [
        "import jax\nstep = jax.jit(lambda x: x + 1)\n",
        "from functools import partial as step\n",
        "import jax\nif True:\n    def step(x):\n        return x\n",
        "try:\n    import nothing\nexcept ImportError:\n    def step(x):\n        return x\n",
        "for step in [abs]:\n    pass\n",
        "def make():\n    global step\n    step = abs\nmake()\n",
        "from somewhere import *\n",
        "globals()['st' + 'ep'] = abs\n",
        "def __getattr__(name):\n    return abs\n",
        "with open(__file__) as step:\n    pass\n",
        "(step := abs)\n",
    ],
)
def test_every_way_a_module_can_bind_a_name_is_accepted(source, tmp_path):
    check_script_source(_script(tmp_path, source), "step")


def test_names_bound_inside_functions_and_classes_are_not_module_level():
    import ast

    tree = ast.parse("def f():\n    step = 1\nclass C:\n    def step(self): ...\nx = 1\n")
    assert module_level_names(tree) == {"f", "C", "x"}


def test_a_python_program_without_the_suffix_is_still_a_script(tmp_path):
    program = _script(tmp_path, "#!/usr/bin/env python3\nprint('hi')\n", name="tool")
    check_script_source(program)
    with pytest.raises(CaptureUsageError, match="not a Python script"):
        check_script_source(_script(tmp_path, "HloModule m\n", name="m.hlo"))
