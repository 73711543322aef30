"""A capture leaves no process behind and no unbounded output on disk."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hloscope.capture.family import FAMILY_ENV, members
from hloscope.capture.script import capture_script

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

# The script starts a helper that sleeps, records its pid, and returns (or sleeps itself).
SCRIPT = textwrap.dedent(
    """
    import os, subprocess, sys, time
    helper = [sys.executable, "-c", "import time; time.sleep(120)"]
    child = subprocess.Popen(helper, start_new_session={setsid})
    open({pid_file!r}, "w").write(str(child.pid))
    print("started", child.pid, flush=True)
    {tail}
    """
)


def _stays_alive(pid: int, seconds: float = 5.0) -> bool:
    """Whether ``pid`` is still running after ``seconds`` (a killed process may take a moment
    to go on a loaded machine; one nobody killed stays)."""
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)
    return False


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")


def _run(tmp_path: Path, *, setsid: bool, tail: str, timeout: float | None = None):
    pid_file = tmp_path / "helper.pid"
    script = tmp_path / "leaves_a_child.py"
    script.write_text(SCRIPT.format(setsid=setsid, pid_file=str(pid_file), tail=tail))
    run = capture_script(script, out_dir=tmp_path / "out", timeout=timeout, progress=False)
    return run, int(pid_file.read_text())


@pytest.mark.parametrize("setsid", [False, True], ids=["same-group", "setsid"])
def test_a_child_left_behind_at_exit_is_stopped(tmp_path, setsid):
    run, helper = _run(tmp_path, setsid=setsid, tail="")
    assert run.ok
    assert not _stays_alive(helper), f"helper {helper} still running"
    assert (tmp_path / "out" / "stdout.txt").read_text().startswith("started")


@pytest.mark.parametrize("setsid", [False, True], ids=["same-group", "setsid"])
def test_a_child_is_stopped_at_timeout(tmp_path, setsid):
    started = time.monotonic()
    run, helper = _run(tmp_path, setsid=setsid, tail="time.sleep(120)", timeout=3)
    assert run.timed_out and time.monotonic() - started < 30
    assert not _stays_alive(helper)


def test_members_finds_processes_by_their_token(tmp_path):
    import subprocess

    env = {**os.environ, FAMILY_ENV: "token-for-this-test"}
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        deadline = time.monotonic() + 5
        while sleeper.pid not in members("token-for-this-test") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sleeper.pid in members("token-for-this-test")
        assert members("another-token") == []
    finally:
        sleeper.kill()
        sleeper.wait()


def test_output_keeps_head_and_tail(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text(
        "import sys\n"
        "sys.stdout.write('HEAD\\n')\n"
        "for i in range(20000):\n"
        "    sys.stdout.write(f'line {i:06d} ' + 'x' * 80 + '\\n')\n"
        "sys.stdout.write('TAIL\\n')\n"
    )
    run = capture_script(
        script, out_dir=tmp_path / "out", progress=False, output_limit=(4096, 8192)
    )
    assert run.ok
    text = (tmp_path / "out" / "stdout.txt").read_text()
    written = 5 + 20000 * 93 + 5
    assert text.startswith("HEAD\n") and text.endswith("TAIL\n")
    assert "bytes of output left out here]" in text
    assert len(text) < 4096 + 8192 + (1 << 16) + 200 < written
