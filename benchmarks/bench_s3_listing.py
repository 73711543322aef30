"""How fast is a dump listed where it lives? 10,000 files under one S3 prefix (issue 23).

Starts moto's S3 server (a real S3 HTTP API, in its own process, so the client and the server
do not share one interpreter), uploads a dump of N empty files named like a real one (the
names of ``bench_dump_index.py``: 1,000 modules x 10 files), and times, each in the same run:

* the peer: boto3's ``list_objects_v2`` paginator over the prefix (what any S3 tool does;
  1,000 keys a page);
* :func:`hloscope.dump.storage.walk_files` (fsspec/s3fs, a fresh filesystem each round so
  nothing is answered from s3fs's listing cache);
* :func:`hloscope.dump.load_dump` on the URL (the listing plus the index);
* ``python -m hloscope ls --no-parse s3://...`` in a fresh process (start-up, import, listing,
  index and the 1,000-row table), the command a user types.

Target (issue 23): under 5 s for 10,000 files. ::

    python benchmarks/bench_s3_listing.py [N_FILES] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_dump_index import _PER_MODULE  # noqa: E402

BUCKET = "bench-listing"
PREFIX = "nightly/run-17/dump"
TARGET_S = 5.0

_SERVER = """
import sys, time
from moto.server import ThreadedMotoServer
server = ThreadedMotoServer(ip_address="127.0.0.1", port=int(sys.argv[1]), verbose=False)
server.start()
print("ready", flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
server.stop()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # the server logs every request
        text=True,
    )
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit("moto server did not start")
    return proc, f"http://127.0.0.1:{port}"


def environment(endpoint: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "FSSPEC_S3_ENDPOINT_URL": endpoint,
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def dump_keys(n_files: int) -> list[str]:
    keys: list[str] = []
    module = 0
    while len(keys) < n_files:
        name = f"module_{module:04d}.jit_step_{module % 50}"
        keys.extend(f"{PREFIX}/{name}.{suffix}" for suffix in _PER_MODULE)
        module += 1
    return keys[:n_files]


def upload(client, keys: list[str]) -> float:
    client.create_bucket(Bucket=BUCKET)
    start = time.perf_counter()
    with ThreadPoolExecutor(32) as pool:
        list(pool.map(lambda k: client.put_object(Bucket=BUCKET, Key=k, Body=b""), keys))
    return time.perf_counter() - start


def timed(fn, rounds: int) -> tuple[float, float, object]:
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_files", nargs="?", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    proc, endpoint = start_server()
    try:
        os.environ.update(environment(endpoint))
        import boto3
        import s3fs

        from hloscope.dump import load_dump, storage

        client = boto3.client("s3", endpoint_url=endpoint)
        keys = dump_keys(args.n_files)
        took = upload(client, keys)
        print(f"uploaded {len(keys):,} objects to s3://{BUCKET}/{PREFIX} in {took:.1f} s")
        url = f"s3://{BUCKET}/{PREFIX}"

        def peer() -> int:
            pages = client.get_paginator("list_objects_v2").paginate(
                Bucket=BUCKET, Prefix=PREFIX + "/"
            )
            return sum(len(page.get("Contents", [])) for page in pages)

        def walk() -> int:
            s3fs.S3FileSystem.clear_instance_cache()  # no listing from s3fs's cache
            return len(storage.walk_files(url))

        def index() -> int:
            s3fs.S3FileSystem.clear_instance_cache()
            return len(load_dump(url).modules)

        command = [sys.executable, "-m", "hloscope", "ls", "--no-parse", url]

        def cli() -> int:
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
            if done.returncode != 0:
                raise SystemExit(f"hloscope ls failed: {done.stderr.strip()}")
            return done.stdout.count("\n")

        rows = []
        for label, fn in (
            ("boto3 list_objects_v2 paginator (peer)", peer),
            ("storage.walk_files (fsspec/s3fs)", walk),
            ("load_dump(url): listing + index", index),
            ("hloscope ls --no-parse s3://... (fresh process)", cli),
        ):
            best, median, result = timed(fn, args.rounds)
            rows.append((label, best, median, result))
        assert rows[0][3] == rows[1][3] == len(keys), (rows[0][3], rows[1][3])
        print(f"{len(keys):,} files, best / median of {args.rounds} rounds:")
        for label, best, median, result in rows:
            print(f"  {label:<50} {best:6.2f} s / {median:6.2f} s  ({result})")
        worst = max(rows[1][2], rows[3][2])
        verdict = "under" if worst < TARGET_S else "OVER"
        print(f"target: hloscope's listing under {TARGET_S:.0f} s: {verdict} ({worst:.2f} s)")
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
