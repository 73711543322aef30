"""``hloscope capture``: one flow for a script's run and a function's capture (what each
says it kept), and the one rule of a run that failed on how it was asked for."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.capture.script import ScriptCapture
from hloscope.cli import cli
from hloscope.errors import ExitStatus


@pytest.mark.parametrize(
    ("manifest", "usage"),
    [
        ({"usage_error": True}, True),
        ({"usage_error": True, "missing_framework": True}, False),  # this machine's, not asked
        ({"usage_error": False}, False),
        ({}, False),  # killed before the runner could report
    ],
)
def test_a_usage_error_is_how_the_run_was_asked_for(manifest: dict, usage: bool) -> None:
    assert ScriptCapture(out_dir=Path("."), manifest=manifest).usage_error is usage


def test_a_script_and_a_function_each_say_what_was_kept(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text(
        textwrap.dedent(
            """
            import jax, jax.numpy as jnp

            def step(x):
                return jnp.cos(x) + 1

            EXAMPLE_ARGS = {"step": (jnp.ones(3),)}
            if __name__ == "__main__":
                jax.jit(step)(jnp.ones(3))
            """
        )
    )
    runner = CliRunner()
    script = runner.invoke(cli, ["capture", str(program), "-o", str(tmp_path / "a")])
    assert script.exit_code == 0, script.output
    line = script.stdout.strip()
    assert (
        line.startswith(f"captured {program}: ") and f"files in {tmp_path / 'a' / 'dump'}" in line
    )
    function = runner.invoke(cli, ["capture", f"{program}:step", "-o", str(tmp_path / "b")])
    assert function.exit_code == 0, function.output
    assert function.stdout.startswith(f"captured {program}:step: {tmp_path / 'b' / 'capture'} (")
    missing = runner.invoke(cli, ["capture", f"{program}:nope", "-o", str(tmp_path / "c")])
    assert missing.exit_code == ExitStatus.USAGE and "has no function 'nope'" in missing.stderr
