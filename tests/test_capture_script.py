"""`hloscope capture SCRIPT.py`: a child process with XLA_FLAGS, a manifest, and clean failures.

The CLI runs through click's CliRunner (the child process is real); XLA's own dump file names
are the oracle for what was captured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli
from hloscope.dump import load_dump

ROOT = Path(__file__).resolve().parent.parent

JAX_SCRIPT = """
import sys
import jax, jax.numpy as jnp
print("args", sys.argv[1:])
@jax.jit
def {name}(x):
    return jnp.sin(x) * 2 + 1
print({name}(jnp.ones(3)))
"""


def write(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def run_cli(*args: str):
    return CliRunner().invoke(cli, ["capture", *args], catch_exceptions=False)


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def ok_capture(tmp_path_factory):
    """One successful capture with script arguments, user XLA_FLAGS and --passes."""
    folder = tmp_path_factory.mktemp("ok")
    script = write(folder, "alpha.py", JAX_SCRIPT.format(name="alpha"))
    out = folder / "out"
    old = os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = "--xla_cpu_enable_fast_math=false"
    try:
        result = run_cli(str(script), "one", "--two", "-o", str(out), "--passes", "fusion")
    finally:
        if old is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = old
    return script, out, result, json.loads((out / "manifest.json").read_text())


def test_success_writes_dump_output_and_summary(ok_capture):
    script, out, result, _ = ok_capture
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"captured {script}: ")
    assert (out / "stdout.txt").read_text().startswith("args ['one', '--two']")
    index = load_dump(out / "dump")
    alpha = [m for m in index.modules if m.name == "jit_alpha"]
    assert len(alpha) == 1 and alpha[0].after() is not None


def test_passes_flag_dumps_per_pass_snapshots(ok_capture):
    _, out, _, manifest = ok_capture
    (alpha,) = [m for m in load_dump(out / "dump").modules if m.name == "jit_alpha"]
    assert alpha.passes and all("fusion" in p.pass_name + (p.next_pass or "") for p in alpha.passes)
    assert manifest["passes"] == "fusion"


def test_manifest_records_the_run(ok_capture):
    script, out, _, m = ok_capture
    assert m["script"] == str(script.resolve()) and m["args"] == ["one", "--two"]
    assert m["command"][:3] == [sys.executable, "-m", "hloscope.capture._runner"]
    assert m["cwd"] == os.getcwd()
    assert m["python"]["executable"] == sys.executable
    import importlib.metadata as md

    assert m["versions"]["jax"] == md.version("jax") and m["versions"]["jaxlib"] == md.version(
        "jaxlib"
    )
    assert m["devices"]["jax"][0]["platform"] == "cpu"
    # The user's flags come first, ours after them (XLA keeps the last value of a flag).
    assert m["user_xla_flags"] == "--xla_cpu_enable_fast_math=false"
    assert m["xla_flags"] == (
        f"--xla_cpu_enable_fast_math=false --xla_dump_to={out / 'dump'} --xla_dump_hlo_as_text "
        "--xla_dump_module_metadata=true --xla_dump_hlo_pass_re=fusion"
    )
    assert m["exit_status"] == 0 and m["timed_out"] is False and m["error"] is None
    assert m["start_time"] < m["end_time"] and m["duration_s"] > 0
    assert m["dump_files"] == len(os.listdir(out / "dump"))


def test_devices_recorded_only_if_the_script_imported_jax(tmp_path):
    script = write(tmp_path, "plain.py", "print('no jax here')\n")
    result = run_cli(str(script), "-o", str(tmp_path / "out"), "--json")
    assert result.exit_code == 0
    manifest = json.loads(result.stdout)
    assert manifest["devices"] == {}


def test_script_that_raises(tmp_path):
    script = write(
        tmp_path,
        "boom.py",
        """
        import jax.numpy as jnp
        y = jnp.ones(3) + 1
        def fail():
            raise ValueError("boom\\nmore detail")
        fail()
        """,
    )
    out = tmp_path / "out"
    result = run_cli(str(script), "-o", str(out))
    assert result.exit_code == 1
    (line,) = error_lines(result)
    assert line.startswith(f"hloscope: error: {script}:5: ValueError: boom (partial dump: ")
    assert "Traceback" not in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["error"] == "ValueError: boom" and manifest["exit_status"] == 1
    assert "Traceback" in (out / "stderr.txt").read_text()  # the full story is kept
    assert load_dump(out / "dump").modules  # what compiled before the error is kept


def test_script_that_hangs_is_stopped_with_its_children(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = write(
        tmp_path,
        "hang.py",
        f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        print("started", flush=True)
        while True:
            time.sleep(0.05)
        """,
    )
    out = tmp_path / "out"
    start = time.monotonic()
    result = run_cli(str(script), "-o", str(out), "--timeout", "3")
    elapsed = time.monotonic() - start
    assert result.exit_code == 124
    (line,) = error_lines(result)  # and no spinner: stderr is not a terminal
    assert line.startswith(f"hloscope: error: {script} timed out after 3 s at {script}:7; stopped")
    assert 3 <= elapsed < 3 + 10
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["timed_out"] is True and manifest["terminated_at"].endswith("hang.py:7")
    assert (out / "stdout.txt").read_text() == "started\n"
    child = int(pid_file.read_text())
    for _ in range(50):  # the grandchild got the group's signal
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_script_killed_by_a_signal(tmp_path):
    script = write(tmp_path, "die.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = run_cli(str(script), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    (line,) = error_lines(result)
    assert "killed by signal SIGKILL" in line


def test_missing_script(tmp_path):
    result = run_cli(str(tmp_path / "nope.py"), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert error_lines(result) == [f"hloscope: error: {tmp_path / 'nope.py'}: no such file"]
    assert not (tmp_path / "out").exists()


def test_non_empty_output_folder_needs_force(tmp_path):
    script = write(tmp_path, "plain.py", "print('hi')\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale").write_text("x")
    result = run_cli(str(script), "-o", str(out))
    assert result.exit_code == 2
    assert "not empty" in error_lines(result)[0] and "--force" in error_lines(result)[0]
    result = run_cli(str(script), "-o", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert (out / "stdout.txt").read_text() == "hi\n"


def test_two_captures_at_once_do_not_mix(tmp_path):
    procs = []
    for name in ("first", "second"):
        script = write(tmp_path, f"{name}.py", JAX_SCRIPT.format(name=name))
        command = [
            sys.executable,
            "-m",
            "hloscope.cli",
            "capture",
            str(script),
            "-o",
            str(tmp_path / name),
        ]
        procs.append(
            subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        )
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    for name, other in (("first", "second"), ("second", "first")):
        names = {m.name for m in load_dump(tmp_path / name / "dump").modules}
        assert f"jit_{name}" in names and f"jit_{other}" not in names


def test_script_options_after_double_dash_and_bad_pass_pattern(tmp_path):
    script = write(tmp_path, "argv.py", "import sys\nprint(sys.argv[1:])\n")
    result = run_cli(str(script), "-o", str(tmp_path / "out"), "--", "-o", "x", "--passes")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "stdout.txt").read_text() == "['-o', 'x', '--passes']\n"
    result = run_cli(str(script), "-o", str(tmp_path / "bad"), "--passes", "(")
    assert result.exit_code == 2
    (line,) = error_lines(result)
    assert line.startswith("hloscope: error: pass pattern '(' is not a regular expression")


def test_progress_spinner_shows_elapsed_time_and_dump_files(tmp_path):
    import io

    from rich.console import Console

    from hloscope.capture.runner_child import _Progress

    (tmp_path / "module_0001.jit_f.before_optimizations.txt").write_text("")
    out = io.StringIO()
    ticker = _Progress("train.py", tmp_path, None, Console(file=out, force_terminal=True, width=80))
    ticker.tick()  # under 2 s: nothing yet
    assert ticker._status is None
    ticker.start -= 3
    ticker.tick()
    ticker.close()
    assert "capturing train.py: 3 s, 1 dump files" in out.getvalue()
    quiet = _Progress("train.py", tmp_path, None, Console(file=io.StringIO(), force_terminal=False))
    quiet.start -= 3
    quiet.tick()
    assert quiet._status is None and quiet.enabled is False


TF_SCRIPT = """
import tensorflow as tf

@tf.function(jit_compile=True)
def train_step(x, w):
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w)))
    return loss, tape.gradient(loss, w)

x, w = tf.ones((4, 8)), tf.ones((8, 2))
loss, grad = train_step(x, w)
ir = train_step.experimental_get_compiler_ir(x, w)(stage="optimized_hlo")
open("tf_optimized.txt", "w").write(ir)
"""


@pytest.mark.slow
def test_tensorflow_script_dump(tmp_path, monkeypatch):
    """A tf.function's full XLA dump (stages, buffer assignment) comes from a script capture:
    TensorFlow reads XLA_FLAGS once per process, so this is the way TF users get one."""
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path, "tf_step.py", TF_SCRIPT)
    out = tmp_path / "out"
    result = run_cli(str(script), "-o", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert any(name.startswith("tensorflow") for name in manifest["versions"]), manifest["versions"]
    index = load_dump(out / "dump")
    steps = [m for m in index.modules if m.function == "train_step"]
    assert steps, [m.name for m in index.modules]
    step = steps[-1]
    assert step.before() is not None and step.buffer_assignment() is not None
    # The dump's optimized module is the one TF itself reports for the function.
    import hloscope

    theirs = hloscope.parse(tmp_path / "tf_optimized.txt")
    ours = step.after()
    assert sorted(i.opcode for i in ours.instructions()) == sorted(
        i.opcode for i in theirs.instructions()
    )


def test_the_exit_watch_wakes_when_the_child_ends():
    import subprocess
    import sys

    from hloscope.capture.runner_child import _ExitWatch

    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    watch = _ExitWatch(child)
    try:
        if sys.platform.startswith("linux"):
            assert watch.fd is not None  # a pidfd: woken by the exit, not by a polling step
        watch.wait(0.05)
        assert child.poll() is None  # still running: the wait ran out
        child.stdin.close()  # the child reads EOF and ends
        start = time.monotonic()
        watch.wait(60)
        assert time.monotonic() - start < 30  # woke on the exit, long before the limit
        assert child.wait(timeout=5) == 0
    finally:
        watch.close()
        if child.poll() is None:
            child.kill()


def test_capture_script_takes_its_settings_as_one_object(tmp_path):
    """A :class:`ScriptSettings` says how the script runs; a field given by name wins over
    the object's, and a name that is no field is refused before anything runs."""
    from hloscope.capture.script import ScriptSettings, capture_script

    script = write(tmp_path, "plain.py", "import sys\nprint('args', sys.argv[1:])\n")
    settings = ScriptSettings(timeout=60, versions=False)
    out = tmp_path / "out"
    (out / "stdout.txt").parent.mkdir()
    (out / "stdout.txt").write_text("left by an earlier run\n")
    with pytest.raises(Exception, match="not empty|--force|force"):
        capture_script(script, ("a",), out, settings)
    result = capture_script(script, ("a",), out, settings, force=True)
    assert result.manifest["exit_status"] == 0 and result.manifest["timeout_s"] == 60
    assert result.manifest["versions"] is None  # versions=False, from the object
    assert "args ['a']" in (out / "stdout.txt").read_text()
    with pytest.raises(TypeError, match="colour"):
        capture_script(script, (), tmp_path / "other", settings, colour="red")
    assert not (tmp_path / "other").exists()
