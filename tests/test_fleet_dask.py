"""``hloscope fleet`` on a real Dask cluster: a ``distributed.LocalCluster`` of 2 worker
processes started by the fixture. The rows equal the in-process run's, whether the cluster is
given (``--scheduler``, ``DASK_SCHEDULER_ADDRESS``) or started by the command itself; a corrupt
module is an error row; a worker killed in the middle of a task does not lose the run.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DATA

from hloscope.cli import cli

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

GENERATED = DATA / "generated"
# A cluster of worker processes, and subprocesses that start their own.
pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes, as the issue asks; closed after the module."""
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as c,
        distributed.Client(c) as client,
    ):
        yield c.scheduler_address, client


@pytest.fixture(scope="module")
def fleet_root(tmp_path_factory) -> Path:
    """A run of three dumps, one with a module that does not parse."""
    root = tmp_path_factory.mktemp("fleet") / "run"
    for name, where in (
        ("jax_recompiles", "host-0"),
        ("jax_mlp_train", "host-1"),
        ("jax_collectives", "host-2"),
    ):
        shutil.copytree(GENERATED / name, root / where)
    broken = next((root / "host-0").glob("module_0008.*after_optimizations.txt"))
    broken.write_text("HloModule broken\n\nENTRY main {\n  p = f32[2] parameter(0\n}\n")
    return root


def fleet(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["fleet", *args, "--json"], env=env, catch_exceptions=False)


@pytest.fixture(scope="module")
def sync_rows(fleet_root) -> list[dict]:
    result = fleet(str(fleet_root), "--scheduler", "sync")
    assert result.exit_code == 1  # the broken module
    return json.loads(result.stdout)["rows"]


def test_scheduler_rows_equal_the_in_process_rows(cluster, fleet_root, sync_rows):
    address, _ = cluster
    result = fleet(str(fleet_root), "--scheduler", address)
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["rows"] == sync_rows
    assert len({r["dump"] for r in sync_rows}) == 3 and len(sync_rows) > 20


def test_corrupt_module_is_an_error_row_on_the_cluster(cluster, fleet_root):
    address, _ = cluster
    result = fleet(str(fleet_root), "--scheduler", address)
    rows = json.loads(result.stdout)["rows"]
    errors = [r for r in rows if r["error"] is not None]
    assert [(r["label"], r["id"]) for r in errors] == [("host-0", 8)]
    assert "module_0008" in errors[0]["error"] and ":5:1: error: unbalanced" in errors[0]["error"]
    assert errors[0]["kernels"] is None
    assert result.stderr.strip() == errors[0]["error"]


def test_environment_variable_names_the_scheduler(cluster, fleet_root, sync_rows):
    address, _ = cluster
    result = fleet(str(fleet_root), env={"DASK_SCHEDULER_ADDRESS": address})
    assert json.loads(result.stdout)["rows"] == sync_rows


def test_the_default_local_cluster_gives_the_same_rows(fleet_root, sync_rows):
    # As a user runs it: its own process, which starts (and stops) its own LocalCluster.
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "fleet", str(fleet_root), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["rows"] == sync_rows
    assert done.stderr.strip() == next(r["error"] for r in sync_rows if r["error"])


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker process the first time any worker starts one of the fleet's tasks
    (a marker file says it happened, for every worker and the restarted one)."""

    name = "hloscope-test-kill-once"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):  # noqa: ANN001, ANN003 - Dask's hook
        name = key[0] if isinstance(key, tuple) else key
        if finish != "executing" or not str(name).startswith("analyse"):
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os._exit(1)  # as the OOM killer would: no clean-up, the task half done


def test_a_worker_killed_mid_task_does_not_lose_the_run(cluster, fleet_root, sync_rows, tmp_path):
    address, client = cluster
    marker = tmp_path / "killed"
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    client.register_plugin(KillOnce(str(marker)))
    before = set(client.run(os.getpid).values())
    try:
        outcome: dict = {}
        thread = threading.Thread(
            target=lambda: outcome.update(result=fleet(str(fleet_root), "--scheduler", address))
        )
        thread.start()
        thread.join(timeout=300)
        assert not thread.is_alive(), "the fleet did not finish after a worker was killed"
    finally:
        client.unregister_worker_plugin(KillOnce.name)
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists(), "no worker was killed"
    killed = int(marker.read_text())
    assert killed in before
    result = outcome["result"]
    assert json.loads(result.stdout)["rows"] == sync_rows
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it for the next tests
    assert killed not in set(client.run(os.getpid).values())


def test_progress_bar_on_a_terminal_stderr_only(cluster, fleet_root, sync_rows):
    # Dask's own text progress bar, on stderr when that is a terminal; stdout stays JSON.
    import pty

    address, _ = cluster
    leader, follower = pty.openpty()
    drawn = bytearray()

    def read_terminal() -> None:  # as it is drawn: a full terminal would block the command
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed: everything is read
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "hloscope", "fleet", str(fleet_root), "--json"]
            + ["--scheduler", address],
            stdout=subprocess.PIPE,
            stderr=follower,
            cwd=ROOT,
            timeout=300,
        )
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    assert done.returncode == 1
    assert json.loads(done.stdout)["rows"] == sync_rows
    assert b"100% Completed" in drawn and b"[####" in drawn
    assert b"unbalanced brackets" in drawn  # the error line after the bar
