"""A compile cache that the slow XLA:TPU tests' module fixtures share between xdist workers.

``-n 2`` splits a module's tests over two workers, and each would otherwise compile the module
fixtures' programs again (minutes each). Under xdist the cache is one folder for the whole run,
beside the workers' own temporary folders; :func:`once` lets one worker make a fixture while
the other waits, idle, and then reads every compile from the cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def shared_cache(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """The cache folder ``name``: one for the run under xdist, else this session's own."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / name
        shared.mkdir(exist_ok=True)
        return shared
    return tmp_path_factory.mktemp(name)


@contextlib.contextmanager
def once(cache: Path, name: str) -> Iterator[None]:
    """Hold ``cache``'s lock for ``name``: one worker at a time makes what ``name`` is."""
    with open(cache / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
