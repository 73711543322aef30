"""A script that calls hloscope on itself without an ``if __name__ == "__main__":`` guard.

hloscope imports a script to find a function (its own ``SCRIPT.py:FUNCTION``, the script of a
function object it hands to XLA:TPU's child); a script whose top level is the calling line ran
that line again on every import, without end (110 times in 300 s). Each script here is run as a
user runs it (``python script.py``, under a timeout) and writes its process id on every start:
it must end quickly, started once, with the answer or one line that names the guard. The
answer of the unguarded script is held to the same program checked through its guarded twin
(hloscope's script route), so XLA:TPU is the oracle of both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.capture.errors import ScriptImportError
from hloscope.capture.script_reentry import ScriptReentryError, import_would_rerun

ROOT = Path(__file__).resolve().parent.parent
# A script that recursed was killed at this bound; a right one ends in a few seconds.
TIMEOUT = 180

PROGRAMS = {
    # A clean program: tanh of a matmul.
    "matmul": (
        "jnp.ones((128, 256), jnp.float32)",
        "def step(x):\n    return jnp.tanh(x @ x.T).sum()\n",
    ),
    # A program XLA:TPU refuses: a complex128 FFT.
    "fft": (
        "jnp.zeros((256,), jnp.complex128)",
        "def step(z):\n    return jnp.fft.fft(z)\n",
    ),
}

HEADER = """\
import json, os, sys
import jax, jax.numpy as jnp
import hloscope
jax.config.update("jax_enable_x64", True)
with open(os.environ["STARTS"], "a") as log:
    log.write(f"{os.getpid()}\\n")
"""


def _run(script: Path, starts: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), STARTS=str(starts), JAX_PLATFORMS="cpu")
    env["HLOSCOPE_CACHE"] = str(script.parent / "cache")
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=script.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _write(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def _answer(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    lines = [line for line in done.stdout.splitlines() if line.startswith("ANSWER ")]
    assert lines, done.stdout + done.stderr[-3000:]
    answer: dict[str, object] = json.loads(lines[-1][len("ANSWER ") :])
    return answer


def _verdicts(report: dict[str, object]) -> list[tuple[object, ...]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    keys = ("op", "reason", "confirmed_by", "compiler_message")
    return sorted(tuple(f[key] for key in keys) for f in findings)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_unguarded_check_of_a_function_object_ends_with_xla_tpus_answer(
    tmp_path: Path, program: str
) -> None:
    needs_libtpu()
    example, definition = PROGRAMS[program]
    unguarded = _write(
        tmp_path,
        "unguarded.py",
        f"{definition}\nx = {example}\n"
        'report = hloscope.check(step, x, device="tpu-v5e")\n'
        'print("ANSWER", json.dumps(report.to_dict()))\n',
    )
    starts = tmp_path / "starts.log"
    done = _run(unguarded, starts)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(starts.read_text().split()) == 1  # started once: no import ran it again
    got = _answer(done)
    # The oracle: the same function as a guarded script's SCRIPT.py:FUNCTION, which
    # hloscope hands to XLA:TPU's child by its script (the road the unguarded one must not take).
    guarded = _write(
        tmp_path,
        "guarded.py",
        f"{definition}\nstep.example_args = ({example},)\n"
        'if __name__ == "__main__":\n'
        '    report = hloscope.check("guarded.py:step", device="tpu-v5e")\n'
        '    print("ANSWER", json.dumps(report.to_dict()))\n',
    )
    oracle = _answer(_run(guarded, tmp_path / "oracle.log"))
    assert got["compiled_for"] == oracle["compiled_for"] == "TPU v5 lite"
    assert got["clean"] == oracle["clean"]
    assert _verdicts(got) == _verdicts(oracle)
    if program == "fft":  # the refusal is XLA:TPU's own words, not a static guess
        assert not got["clean"] and any(v[3] for v in _verdicts(got))


def test_unguarded_script_naming_itself_stops_at_once_with_one_line(tmp_path: Path) -> None:
    """``hloscope.fusions("me.py:step")`` from me.py's own unguarded top level: the capture's
    child would import me.py, which captures me.py again, one child after another."""
    needs_framework("jax")
    script = _write(
        tmp_path,
        "me.py",
        "def step(x):\n    return jnp.sin(x) * 2\n\n"
        "step.example_args = (jnp.ones((8, 8)),)\n"
        "try:\n"
        '    hloscope.fusions("me.py:step")\n'
        "except hloscope.HloscopeError as error:\n"
        '    print("REFUSED", error)\n',
    )
    starts = tmp_path / "starts.log"
    done = _run(script, starts)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(starts.read_text().split()) == 1
    (refused,) = [line for line in done.stdout.splitlines() if line.startswith("REFUSED")]
    assert "me.py line 12" in refused and 'if __name__ == "__main__":' in refused
    assert not (tmp_path / "cache").exists()  # refused before any capture started


def test_unguarded_script_capturing_its_whole_self_is_refused(tmp_path: Path) -> None:
    """A whole-``SCRIPT.py`` capture runs the script as ``__main__``, guard and all: a script
    capturing itself is refused even from under its guard."""
    needs_framework("jax")
    script = _write(
        tmp_path,
        "whole.py",
        'if __name__ == "__main__":\n'
        "    try:\n"
        '        hloscope.fusions("whole.py")\n'
        "    except hloscope.HloscopeError as error:\n"
        '        print("REFUSED", error)\n',
    )
    starts = tmp_path / "starts.log"
    done = _run(script, starts)
    assert len(starts.read_text().split()) == 1
    assert "REFUSED whole.py line 9 captures whole.py itself" in done.stdout, done.stderr[-2000:]


def test_function_of_an_imported_module_keeps_its_script_road(tmp_path: Path) -> None:
    """The second shape: the function lives in a module the unguarded script imports; the
    module's top level does not call hloscope, so XLA:TPU's child imports the module (the
    script road, which rebuilds each primitive) and the answer holds."""
    needs_libtpu()
    (tmp_path / "model.py").write_text(
        "import jax, jax.numpy as jnp\n"
        "def step(m):\n    return jnp.linalg.eig(m)[0]\n"
        "step.example_args = (jax.ShapeDtypeStruct((8, 8), jnp.float32),)\n"
    )
    script = _write(
        tmp_path,
        "train.py",
        "import model\n"
        "report = hloscope.check(model.step, jnp.ones((8, 8), jnp.float32), device='tpu-v5e')\n"
        'print("ANSWER", json.dumps(report.to_dict()))\n',
    )
    starts = tmp_path / "starts.log"
    done = _run(script, starts)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(starts.read_text().split()) == 1
    got = _answer(done)
    assert got["compiled_for"] == "TPU v5 lite"
    (eig,) = [f for f in got["findings"] if f["op"] == "eig"]  # type: ignore[union-attr]
    # Compiled alone as a jaxpr equation: only the script road can, so it was taken.
    assert eig["confirmed_by"] and "eig" in str(eig["compiler_message"])


def test_reentry_reads_the_callers_own_stack(tmp_path: Path) -> None:
    """In this process: a script's top level calling, guarded or not, as the rule reads it."""
    caught: dict[str, object] = {}

    def probe(path: str) -> None:
        caught["line"] = import_would_rerun(path)
        try:
            from hloscope.capture.script_reentry import refuse_reimport

            refuse_reimport(path, "f")
        except ScriptReentryError as error:
            caught["error"] = error

    for name, body, expect in [
        ("bare.py", "probe(__file__)\n", 1),
        ("nested.py", "def main():\n    probe(__file__)\nmain()\n", 3),
        ("guarded.py", "if __name__ == '__main__':\n    probe(__file__)\n", None),
        ("reversed.py", "if '__main__' != __name__:\n    pass\nelse:\n    probe(__file__)\n", None),
    ]:
        path = tmp_path / name
        path.write_text(body)
        caught.clear()
        code = compile(path.read_text(), str(path), "exec")
        exec(code, {"__name__": "__main__", "__file__": str(path), "probe": probe})
        assert caught["line"] == expect, name
        if expect is None:
            assert "error" not in caught
        else:
            error = caught["error"]
            assert isinstance(error, ScriptImportError) and "\n" not in str(error)
            assert f"{name} line {expect}" in str(error)
