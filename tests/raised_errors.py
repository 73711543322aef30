"""Errors JAX itself raises, as text for explain-error: the tests' oracle.

A test writes a program of cases (each a function that fails, its line to fix marked
``# fails here: NAME``, printed by a loop as ``@@@ NAME`` and its traceback), runs it in a
child process and hands each traceback to explain-error.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The loop a program of cases ends with: each case's name, then its traceback (or nothing).
EVERY_CASE = """
for name, case in list(globals().items()):
    if callable(case) and getattr(case, "__module__", "") == "__main__":
        print("@@@", name)
        try:
            case()
        except Exception:
            traceback.print_exc(file=sys.stdout)
"""


def cases_of(program: Path, source: str, **env: str) -> tuple[Path, dict[str, str]]:
    """Write ``source`` (the cases, without the loop) and :data:`EVERY_CASE` to ``program``,
    run it, and return the program with each case's traceback by name."""
    program.write_text(source + EVERY_CASE)
    return program, run_cases(program, **env)


def run_cases(program: Path, **env: str) -> dict[str, str]:
    """Each case's printed traceback, by name, from running ``program`` with ``env`` added."""
    done = _run(program, env)
    assert done.returncode == 0, done.stderr[-2000:]
    cases = {}
    for block in done.stdout.split("@@@ ")[1:]:
        name, _, text = block.partition("\n")
        cases[name.strip()] = text
    return cases


def marked_line(program: Path, case: str) -> int:
    """The line of ``program`` marked ``# fails here: CASE``."""
    lines = program.read_text().splitlines()
    (line,) = [i for i, text in enumerate(lines, 1) if text.endswith(f"# fails here: {case}")]
    return line


def failing_run(script: Path, **env: str) -> str:
    """What running ``script`` on the CPU (``env`` added) printed on stderr; it must fail."""
    done = _run(script, env)
    assert done.returncode != 0, done.stdout[-2000:]
    return done.stderr


def _run(script: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env={**os.environ, "JAX_PLATFORMS": "cpu", **env},
        timeout=300,
        check=False,
    )
