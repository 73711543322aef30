"""A real S3 API for the object-storage tests: moto's server mode, on a free local port.

This is not mocked calls: moto's server answers S3's HTTP API (ListObjectsV2, GetObject...)
on ``http://127.0.0.1:<port>``, and hloscope reaches it the way it reaches AWS, through fsspec
and s3fs, with the endpoint taken from the environment. So the same code path runs as against
a real bucket, only the endpoint differs. Subprocesses (``python -m hloscope ls s3://...``)
inherit the environment and reach the same server.

Use it from a test module::

    from s3_server import s3_server, upload_tree, s3_url  # noqa: F401  (s3_server: a fixture)

    def test_ls(s3_server, tmp_path):
        url = upload_tree(dump_folder, s3_url("bucket-a", "run-17", "dump"))
        ...

One server runs per test process (started by the first test that asks for ``s3_server``);
every test that asks for it gets the server's environment (endpoint, fake credentials) and
s3fs's cached filesystems (and their cached listings) cleared first, so a listing never
answers from a previous test's cache. Importing the one fixture is enough. Buckets are
created on demand by :func:`upload_tree`; give each test its own bucket or prefix
(:func:`fresh_bucket`) so tests stay independent.
"""

from __future__ import annotations

import atexit
import itertools
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

__all__ = ["S3Server", "s3_server", "s3_url", "upload_tree", "fresh_bucket", "s3_client"]

# moto accepts any credentials; boto3/s3fs refuse to sign without some.
FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
}

_buckets = itertools.count()


@dataclass(frozen=True)
class S3Server:
    """The running server: its endpoint and the environment that points clients at it."""

    endpoint: str
    env: dict[str, str]

    def client(self) -> Any:
        return s3_client(self.endpoint)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(endpoint: str) -> dict[str, str]:
    """The variables that send boto3 (``AWS_ENDPOINT_URL``) and fsspec's s3fs
    (``FSSPEC_S3_ENDPOINT_URL``) to ``endpoint`` with fake credentials."""
    return {
        **FAKE_ENV,
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ENDPOINT_URL_S3": endpoint,
        "FSSPEC_S3_ENDPOINT_URL": endpoint,
        # No instance-metadata probing for credentials (it waits on a network timeout).
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def clear_s3fs_cache() -> None:
    """Forget s3fs's cached filesystem instances (and with them their cached listings)."""
    try:
        import s3fs
    except ImportError:  # pragma: no cover - the test extra installs it
        return
    s3fs.S3FileSystem.clear_instance_cache()


_running: S3Server | None = None


def start_server() -> S3Server:
    """Start the process's moto server on first call (later calls return the same one); it
    stops when the process exits (a daemon thread)."""
    global _running
    if _running is None:
        from moto.server import ThreadedMotoServer

        port = _free_port()
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        server.start()
        atexit.register(server.stop)
        endpoint = f"http://127.0.0.1:{port}"
        _running = S3Server(endpoint, server_env(endpoint))
    return _running


@pytest.fixture
def s3_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Server]:
    """The run's moto S3 server (started once, on first use), its endpoint and fake
    credentials in the environment for this test, and s3fs's caches cleared before and
    after it."""
    server = start_server()
    for k, v in server.env.items():
        monkeypatch.setenv(k, v)
    clear_s3fs_cache()
    yield server
    clear_s3fs_cache()


def s3_client(endpoint: str | None = None) -> Any:
    """A boto3 S3 client for the server (``AWS_ENDPOINT_URL`` unless ``endpoint`` is given)."""
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint or os.environ["AWS_ENDPOINT_URL"],
        region_name=FAKE_ENV["AWS_DEFAULT_REGION"],
        aws_access_key_id=FAKE_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_ENV["AWS_SECRET_ACCESS_KEY"],
    )


def fresh_bucket(stem: str = "hloscope-test") -> str:
    """A bucket name no other test of this run uses (the bucket is made on first upload)."""
    return f"{stem}-{os.getpid()}-{next(_buckets)}"


def s3_url(bucket: str, *parts: str) -> str:
    """``s3://bucket/part/part``."""
    tail = "/".join(p.strip("/") for p in parts if p)
    return f"s3://{bucket}/{tail}" if tail else f"s3://{bucket}"


def _split(url: str) -> tuple[str, str]:
    if not url.startswith("s3://"):
        raise ValueError(f"not an s3:// URL: {url}")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    return bucket, prefix.strip("/")


def ensure_bucket(client: Any, bucket: str) -> None:
    try:
        client.head_bucket(Bucket=bucket)
    except client.exceptions.ClientError:
        client.create_bucket(Bucket=bucket)


def upload_tree(local_folder: str | os.PathLike[str], url: str, *, workers: int = 16) -> str:
    """Copy every file under ``local_folder`` to ``url`` (``s3://bucket/prefix``), keeping
    relative paths; the bucket is created if missing. Returns ``url`` without a trailing
    slash, ready to hand to hloscope."""
    bucket, prefix = _split(url)
    client = s3_client()
    ensure_bucket(client, bucket)
    root = Path(local_folder)
    files = sorted(p for p in root.rglob("*") if p.is_file())

    def put(p: Path) -> None:
        rel = p.relative_to(root).as_posix()
        key = f"{prefix}/{rel}" if prefix else rel
        client.put_object(Bucket=bucket, Key=key, Body=p.read_bytes())

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(put, files))
    clear_s3fs_cache()  # listings cached before the upload would miss the new keys
    return url.rstrip("/")


def upload_bytes(url: str, data: bytes) -> str:
    """Put one object at ``url`` (``s3://bucket/key``); the bucket is created if missing."""
    bucket, key = _split(url)
    client = s3_client()
    ensure_bucket(client, bucket)
    client.put_object(Bucket=bucket, Key=key, Body=data)
    clear_s3fs_cache()
    return url
