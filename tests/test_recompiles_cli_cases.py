"""``hloscope recompiles`` on what users hit (issue 18.11, issue 19.3/8/10): folders without a
dump, ``-o DIR``, ``SCRIPT.py:FUNCTION`` example arguments, temporary folders, 80 columns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent
TEMP_PREFIX = "hloscope-recompiles-"


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["recompiles", *args], catch_exceptions=False, env=env)


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def test_a_folder_without_a_dump_is_an_error_like_ls(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("not a dump")
    for folder in (empty, other):
        result = run(str(folder))
        assert result.exit_code == 1
        assert result.stdout == ""
        [line] = result.stderr.strip().splitlines()
        assert line.startswith("hloscope: error: ") and "no XLA dump files found" in line
    assert "(1 other file)" in run(str(other)).stderr


def test_offline_eager_and_staging_modules_are_jax_own(corpus):
    """JAX's eager ops and staging helpers are grouped apart, as live mode does."""
    needs_framework("jax")
    dump = corpus / "generated" / "jax_mlp_train"
    data = json.loads(run(str(dump), "--json").stdout)
    from hloscope.analysis.recompiles import ledger_of_dump
    from hloscope.dump.index import load_dump

    ledger = ledger_of_dump(load_dump(dump))
    internal = {f.name for f in ledger.functions if f.internal}
    assert {"broadcast_in_dim", "stage"} <= internal
    assert {f.name for f in ledger.functions if not f.internal} == {"step"}
    assert all(
        not f.advice or f.advice[0].kind == "eager_ops" for f in ledger.functions if f.internal
    )
    assert ledger.user_compiles == sum(
        f["compiles"] for f in data["functions"] if f["name"] == "step"
    )
    text = run(str(dump)).stdout
    assert text.splitlines()[0].startswith(f"{ledger.user_compiles} compile")
    assert "of JAX's own ops outside jit" in text


EXAMPLE_SCRIPT = """
import json, os
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return jnp.tanh(x).sum()

def loop(x):
    counted = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: counted.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for n in (2, 3, 4):
        step(x[:n])
    with open(os.environ["ORACLE"], "w") as out:
        json.dump(counted, out)

def example_args():
    helper = jax.jit(lambda x: x * 2 + 1)   # its compiles are not loop's
    return {"loop": (helper(jnp.arange(24.0).reshape(6, 4)) + jnp.ones((6, 4)),)}
"""


@pytest.mark.slow
def test_script_function_leaves_out_the_compiles_of_its_example_arguments(tmp_path):
    needs_framework("jax")
    script = write(tmp_path, "examples.py", EXAMPLE_SCRIPT)
    oracle = tmp_path / "oracle.json"
    out = tmp_path / "kept"
    result = run(f"{script}:loop", "--json", "-o", str(out), env={"ORACLE": str(oracle)})
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    jax_compiles = json.loads(oracle.read_text())  # what JAX compiled inside loop()
    assert sum(f["compiles"] for f in data["functions"]) == len(jax_compiles)
    [step] = [f for f in data["functions"] if f["name"] == "step"]
    assert step["compiles"] == jax_compiles.count("jit(step)") == 3
    assert "<lambda>" not in {f["name"] for f in data["functions"]}  # the example's helper
    # -o DIR keeps the same ledger --json printed.
    assert json.loads((out / "ledger.json").read_text()) == data


def temp_folders(root: Path) -> list[Path]:
    return sorted(root.glob(f"{TEMP_PREFIX}*"))


@pytest.mark.slow
def test_no_temporary_folder_is_left_behind(tmp_path, monkeypatch):
    needs_framework("jax")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    good = write(tmp_path, "good.py", "import jax.numpy as jnp\njnp.ones(2) + 1\n")
    crash = write(
        tmp_path, "crash.py", "import jax.numpy as jnp\njnp.ones(2)\nraise SystemExit(3)\n"
    )
    assert temp_folders(temp) == []
    assert run(str(good)).exit_code == 0
    failed = run(str(crash))
    assert failed.exit_code == 1
    assert "-o DIR keeps the script's output" in failed.stderr
    assert TEMP_PREFIX not in failed.stderr  # it points to no folder that is gone
    assert temp_folders(temp) == []


@pytest.mark.slow
def test_ctrl_c_leaves_no_temporary_folder(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    sleeper = write(
        tmp_path, "sleeper.py", "import time\nprint('up', flush=True)\ntime.sleep(60)\n"
    )
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, "-m", "hloscope", "recompiles", str(sleeper)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the child is running the script
            folders = temp_folders(temp)
            if folders and "up" in _read(folders[0] / "stdout.txt"):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the script never started")
        parent.send_signal(signal.SIGINT)
        # Seconds on a quiet machine; a full test run at a load of 7 on 2 cores once took
        # over 30 s to reap the script's group and close its files.
        parent.wait(timeout=120)
    finally:
        parent.kill()
        parent.wait()
    assert temp_folders(temp) == []


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


BATCH_SCRIPT = """
import jax, jax.numpy as jnp

@jax.jit
def train_step(params, tokens, targets, mask):
    logits = tokens @ params["w"]
    return (((logits - targets) ** 2).sum(-1) * mask).sum()

params = {"w": jnp.ones((8, 8))}
for length in (3, 5, 6, 9, 11, 13, 20, 33, 40):
    train_step(params, jnp.ones((4, length, 8)), jnp.ones((4, length, 8)), jnp.ones((4, length)))
"""


@pytest.mark.slow
def test_fixes_wrap_at_80_columns_piped_and_with_columns(tmp_path):
    needs_framework("jax")
    script = write(tmp_path, "batch.py", BATCH_SCRIPT)
    for env in ({"COLUMNS": "80"}, {"COLUMNS": None}):
        result = run(str(script), env=env)
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert max(len(line) for line in lines) <= 80, result.stdout
        fixes = [line for line in lines if line.startswith("  fix ")]
        assert fixes, result.stdout
        # The shared sequence length is one fix, for tokens, targets and mask together.
        assert sum("tokens, targets, mask" in line for line in lines) == 1
