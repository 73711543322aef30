"""``hloscope fleet s3://...`` against a real S3 API (moto's server mode, tests/s3_server.py):
the rows equal those of the local copies, in this process and on the command's own Dask
cluster (whose workers read the objects themselves), and a baseline can live in the bucket.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DATA
from s3_server import (
    fresh_bucket,
    s3_server,  # noqa: F401 - the fixture, used by name below
    s3_url,
    upload_bytes,
    upload_tree,
)

from hloscope.cli import cli

pytest.importorskip("s3fs")
pytest.importorskip("moto")

ROOT = Path(__file__).resolve().parent.parent
GENERATED = DATA / "generated"


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """A run of two hosts' dumps (one corrupt module) and a model's."""
    run = tmp_path_factory.mktemp("fleet-s3") / "run-17"
    shutil.copytree(GENERATED / "jax_recompiles", run / "pod" / "host-0")
    shutil.copytree(GENERATED / "jax_collectives", run / "pod" / "host-1")
    shutil.copytree(GENERATED / "jax_mlp_train", run / "models" / "mlp")
    broken = next((run / "pod" / "host-0").glob("module_0008.*after_optimizations.txt"))
    broken.write_text("HloModule broken\n\nENTRY main {\n  p = f32[2] parameter(0\n}\n")
    return run


def fleet(*args: str):
    return CliRunner().invoke(cli, ["fleet", *args, "--json"], catch_exceptions=False)


def comparable(rows: list[dict]) -> list[dict]:
    # An error names the file where it is (a path or an s3:// URL); the rest is the same.
    return [{**r, "error": r["error"] and r["error"].split(": error: ", 1)[1]} for r in rows]


@pytest.fixture(scope="module")
def local_rows(local_run) -> list[dict]:
    result = fleet(str(local_run), "--scheduler", "sync")
    assert result.exit_code == 1  # the corrupt module
    return json.loads(result.stdout)["rows"]


@pytest.mark.usefixtures("s3_server")
def test_s3_rows_equal_local_rows(local_run, local_rows):
    url = upload_tree(local_run, s3_url(fresh_bucket(), "nightly", "run-17"))
    result = fleet(url, "--scheduler", "sync")
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)["rows"]
    assert comparable(rows) == comparable(local_rows)
    errors = [r["error"] for r in rows if r["error"]]
    assert len(errors) == 1 and errors[0].startswith(url + "/pod/host-0/module_0008.")
    assert ":5:1: error:" in errors[0]
    labelled = fleet(url + "/", "--scheduler", "sync", "--label", r"host-(\d)|models/(\w+)")
    labels = {r["label"] for r in json.loads(labelled.stdout)["rows"]}
    assert labels == {"0", "1", "mlp"}


@pytest.mark.slow  # a subprocess and its cluster
@pytest.mark.usefixtures("s3_server")
def test_s3_rows_on_the_local_cluster_equal_local_rows(local_run, local_rows):
    url = upload_tree(local_run, s3_url(fresh_bucket(), "run-17"))
    # The command's own cluster, in its own process: its workers read the bucket with the
    # endpoint and credentials of the environment they inherit.
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER_ADDRESS"}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "fleet", url, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert comparable(json.loads(done.stdout)["rows"]) == comparable(local_rows)


@pytest.mark.usefixtures("s3_server")
def test_baseline_in_the_bucket(local_run, tmp_path):
    base = tmp_path / "base.parquet"
    made = CliRunner().invoke(
        cli, ["fleet", str(local_run), "--scheduler", "sync", "-o", str(base)]
    )
    assert made.exit_code == 1 and base.is_file()
    url = upload_bytes(s3_url(fresh_bucket(), "baselines", "run-16.parquet"), base.read_bytes())
    result = fleet(str(local_run), "--scheduler", "sync", "--vs", url, "--fail-on", "bytes")
    assert result.exit_code == 1, result.output  # the corrupt module; no regression
    pairs = json.loads(result.stdout)["regressions"]
    assert pairs and {p["status"] for p in pairs} == {"same"}
