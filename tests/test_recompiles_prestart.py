"""The watched child started early and read early (issue 18.12).

``hloscope recompiles SCRIPT.py`` starts the child while click still loads
(:mod:`hloscope.capture.prestart`, adopted by ``capture_script``), and builds and renders the
ledger while the child's interpreter shuts down (``--ready-fd``, ``when_ready``). Each test
checks one of those promises on a real child process; none needs jax.
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
from child_processes import alive, waiting_children_in

from hloscope.capture import prestart
from hloscope.capture.script import capture_script
from hloscope.cli._early import names_a_script

ROOT = Path(__file__).resolve().parent.parent

PRINTS_PID = "import os\nprint(os.getpid())\n"


@pytest.fixture(autouse=True)
def _no_child_left():
    yield
    prestart.discard()


def _script(tmp_path: Path, text: str, name: str = "script.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# ---- which command lines start a child early --------------------------------------------------


def test_only_a_recompiles_command_naming_an_existing_script_starts_early(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _script(tmp_path, "pass\n", "train.py")
    (tmp_path / "dump").mkdir()
    assert names_a_script(["recompiles", "train.py"])
    assert names_a_script(["recompiles", "--json", "train.py", "--lr", "0.1"])
    assert names_a_script(["recompiles", "train.py:step"])
    assert names_a_script(["recompiles", str(tmp_path / "train.py")])
    assert not names_a_script(["recompiles", "missing.py"])
    assert not names_a_script(["recompiles", "dump"])
    assert not names_a_script(["recompiles", "--", "train.py"])
    assert not names_a_script(["capture", "train.py"])
    assert not names_a_script(["fusions", "train.py"])
    assert not names_a_script([])


# ---- adoption -----------------------------------------------------------------------------------


def test_capture_script_adopts_the_prestarted_child(tmp_path):
    script = _script(tmp_path, PRINTS_PID)
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None and waiting.process.poll() is None
    run = capture_script(script, (), tmp_path / "out", watch_compiles=True)
    assert run.ok, run.error_line()
    assert run.manifest["prestarted"] is True
    assert int((tmp_path / "out" / "stdout.txt").read_text()) == waiting.process.pid
    assert prestart._waiting is None  # adopted once


def test_a_child_prestarted_in_another_environment_is_not_adopted(tmp_path, monkeypatch):
    script = _script(tmp_path, "import os\nprint(os.getpid(), os.environ.get('LATE_FLAG'))\n")
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None
    monkeypatch.setenv("LATE_FLAG", "set after the child started")
    run = capture_script(script, (), tmp_path / "out", watch_compiles=True)
    pid, flag = (tmp_path / "out" / "stdout.txt").read_text().split(maxsplit=1)
    assert run.manifest["prestarted"] is False
    assert int(pid) != waiting.process.pid
    assert flag.strip() == "set after the child started"
    assert waiting.process.poll() == 0  # ended, having run nothing


def test_a_capture_that_dumps_never_adopts_the_watched_child(tmp_path):
    script = _script(tmp_path, PRINTS_PID)
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None
    capture_script(script, (), tmp_path / "out")  # dumping: another environment and runner
    assert int((tmp_path / "out" / "stdout.txt").read_text()) != waiting.process.pid
    prestart.discard()
    assert waiting.process.poll() == 0


def test_a_prestarted_child_that_died_is_replaced_by_a_new_one(tmp_path):
    script = _script(tmp_path, PRINTS_PID)
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None
    waiting.process.kill()
    waiting.process.wait()
    run = capture_script(script, (), tmp_path / "out", watch_compiles=True)
    assert run.ok, run.error_line()
    assert run.manifest["prestarted"] is False
    assert int((tmp_path / "out" / "stdout.txt").read_text()) != waiting.process.pid


def test_a_discarded_child_ends_without_running_anything(tmp_path):
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None
    prestart.discard()
    assert waiting.process.returncode == 0
    assert prestart._waiting is None


def test_a_prestarted_child_ends_when_its_parent_dies(tmp_path):
    """A parent killed before it gave orders (SIGKILL: no atexit) leaves no child waiting."""
    probe = textwrap.dedent(
        """
        import os, sys
        from hloscope.capture import prestart
        prestart.prestart()
        print(prestart._waiting.process.pid, flush=True)
        os.kill(os.getpid(), 9)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    child = int(result.stdout.split()[0])
    deadline = time.monotonic() + 20
    while alive(child):
        assert time.monotonic() < deadline, "the prestarted child outlived its parent"
        time.sleep(0.05)


def test_the_console_script_adopts_its_early_child(tmp_path):
    """Through the real entry point: the manifest of a kept run says the child was early."""
    script = _script(tmp_path, PRINTS_PID)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("HLOSCOPE_PRESTART", None)  # the default
    result = subprocess.run(
        [sys.executable, "-m", "hloscope", "recompiles", str(script), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["prestarted"] is True
    assert manifest["exit_status"] == 0


def test_a_dump_target_leaves_no_early_child(tmp_path):
    """A folder that is no script: the early child (if the guess started one) ends unused."""
    (tmp_path / "x.py").write_text("pass\n")
    (tmp_path / "dump").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "hloscope", "recompiles", "dump", "x.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert result.returncode != 0
    assert "hloscope: error:" in result.stderr
    assert "Traceback" not in result.stderr
    deadline = time.monotonic() + 20
    while waiting_children_in(tmp_path):
        assert time.monotonic() < deadline, "an early child is still waiting"
        time.sleep(0.05)


def test_a_recompiles_run_of_a_dump_ends_its_early_child_before_reading_the_dump(tmp_path):
    """The guess was wrong (`recompiles DUMP x.py`): the waiting child is ended at once, not
    left waiting while the command works."""
    from hloscope.cli._app import cli

    (tmp_path / "x.py").write_text("pass\n")
    prestart.prestart()
    waiting = prestart._waiting
    assert waiting is not None
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["recompiles", str(tmp_path), "x.py"])
    assert result.exit_code != 0
    assert waiting.process.returncode == 0


# ---- reading the results while the child shuts down ------------------------------------------

SLOW_EXIT = """
import atexit, os, sys, time
def slow_clean_up():
    time.sleep(1.5)
    open({done!r}, "w").write("done")
atexit.register(slow_clean_up)
print("ran")
"""


def test_when_ready_runs_while_the_child_still_shuts_down(tmp_path):
    done = tmp_path / "clean-up-done"
    script = _script(tmp_path, SLOW_EXIT.format(done=str(done)))
    seen = []

    def when_ready() -> None:
        seen.append(done.exists())
        assert (tmp_path / "out" / "recompiles.json").is_file()  # the records are written

    run = capture_script(script, (), tmp_path / "out", watch_compiles=True, when_ready=when_ready)
    assert run.ok, run.error_line()
    assert seen == [False]  # called once, before the script's own clean-up had finished
    assert done.read_text() == "done"  # and the run still waited for it


def test_when_ready_is_not_called_for_a_child_that_died_first(tmp_path):
    script = _script(tmp_path, "import os\nos._exit(3)\n")
    calls = []
    run = capture_script(
        script, (), tmp_path / "out", watch_compiles=True, when_ready=lambda: calls.append(1)
    )
    assert run.manifest["exit_status"] == 3
    assert calls == []


def test_the_early_ledger_is_the_one_returned(tmp_path):
    from hloscope.drivers.script_recompiles import recompiles_of_script

    script = _script(tmp_path, SLOW_EXIT.format(done=str(tmp_path / "done")))
    early = []
    run = recompiles_of_script(script, when_ready=early.append)
    assert len(early) == 1
    assert run.ledger is early[0]


#: A TensorFlow XLA compile, as TF's C++ log writes it, printed after the watcher's records.
LATE_XLA_LOG = """
import atexit, os, sys, time
def late_compile():
    time.sleep(0.5)
    os.write(2, (
        "I1202 10:00:01.000000   123 device_compiler.h:186] Instantly compiling for "
        "signature: __inference_late_fn_42[_XlaMustCompile=true]\\n"
        "I1202 10:00:01.500000   123 device_compiler.h:210] Compiled __inference_late_fn_42 "
        "1 times, compile time: 2000 us\\n"
    ).encode())
atexit.register(late_compile)
"""


def test_an_xla_log_that_grows_after_the_records_rebuilds_the_ledger(tmp_path):
    from hloscope.drivers.script_recompiles import recompiles_of_script

    script = _script(tmp_path, LATE_XLA_LOG)
    early = []
    run = recompiles_of_script(script, when_ready=early.append)
    assert len(early) == 1
    assert run.ledger is not early[0]
    assert [f.name for f in run.ledger.functions] == ["late_fn"]
    assert early[0].functions == []


def test_the_printed_ledger_is_the_same_with_or_without_the_early_render(tmp_path):
    """The text made while the child shuts down equals the text rendered after it ended."""
    from hloscope.drivers.script_recompiles import recompiles_of_script
    from hloscope.render.recompiles_text import render_ledger, rendered_ledger

    script = _script(tmp_path, LATE_XLA_LOG)
    run = recompiles_of_script(script)
    import io

    printed = io.StringIO()
    render_ledger(run.ledger, printed)
    assert rendered_ledger(run.ledger, io.StringIO()) == printed.getvalue()
    assert "late_fn" in printed.getvalue()


def test_hloscope_prestart_off_starts_the_child_late(tmp_path):
    script = _script(tmp_path, PRINTS_PID)
    result = subprocess.run(
        [sys.executable, "-m", "hloscope", "recompiles", str(script), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HLOSCOPE_PRESTART": "off"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["prestarted"] is False
