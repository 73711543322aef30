"""Running a fleet's tasks on Dask: a cluster someone already runs, or one on this machine.

One Dask task per module file (:func:`~hloscope.fleet._analyse.analyse`), submitted with
``Client.map`` and gathered back as rows in submission order. Dask does the scheduling, the
retries and the progress bar; hloscope keeps no process pool of its own.

Where the tasks run (``scheduler``):

* ``tcp://host:8786`` (or ``DASK_SCHEDULER_ADDRESS`` in the environment, Dask's own variable):
  the workers of that cluster, which need hloscope installed (and the ``cloud`` extra for
  object-storage paths; credentials come from *their* environment);
* nothing: a ``distributed.LocalCluster`` on this machine, one single-threaded worker process
  per core (parsing is Python, which one process runs on one core at a time);
* ``sync``: no cluster, each task in this process one after another, which is quickest for a
  handful of modules (a local cluster takes seconds to start) and needs no Dask at all.

A task never raises (a failing module is a row with its ``error``); a worker that dies mid-task
(killed, out of memory) has its tasks run again elsewhere by the scheduler, and ``retries``
lets Dask run a task again should it fail for a reason outside hloscope.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

from ..errors import MissingExtra
from ._analyse import analyse
from ._tasks import ModuleTask

__all__ = ["DASK_EXTRA", "SCHEDULER_ENV", "SYNC", "RETRIES", "run_tasks", "scheduler_address"]

#: The extra that brings dask and distributed (pyproject.toml).
DASK_EXTRA = "dask"
#: Dask's own environment variable for the scheduler a client connects to.
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"
#: ``--scheduler sync``: run in this process, without Dask.
SYNC = "sync"
#: How many more times Dask runs a task that raised (a task of hloscope's does not: this is
#: for a worker's own trouble, such as a module it could not unpickle).
RETRIES = 2


def scheduler_address(scheduler: str | None) -> str | None:
    """The scheduler to use: ``scheduler``, else ``DASK_SCHEDULER_ADDRESS``, else ``None`` (a
    local cluster)."""
    return scheduler or os.environ.get(SCHEDULER_ENV) or None


def run_tasks(
    tasks: list[ModuleTask], *, scheduler: str | None = None, progress: bool = False
) -> list[dict[str, Any]]:
    """The row of each task, in order (see the module docstring for ``scheduler``);
    ``progress`` draws Dask's progress bar on stderr."""
    address = scheduler_address(scheduler)
    if address == SYNC or not tasks:
        return [analyse(task) for task in tasks]
    distributed = _distributed(address)
    # Largest module first: Dask starts tasks in the order they were submitted, and a large
    # module started last would leave every other worker idle while it runs.
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].size)
    with _client(distributed, address) as client:
        futures = client.map(analyse, [tasks[i] for i in order], retries=RETRIES, pure=False)
        if progress:
            # Dask's text bar writes to stdout, which may be the JSON or CSV being printed.
            with contextlib.redirect_stdout(sys.stderr):
                distributed.progress(futures, multi=False, scheduler=client.scheduler.address)
        gathered = client.gather(futures)
    rows: list[dict[str, Any]] = [{}] * len(tasks)
    for i, row in zip(order, gathered, strict=True):
        rows[i] = row
    return rows


def _distributed(address: str | None) -> Any:
    try:
        import distributed
    except ImportError:
        what = f"--scheduler {address}" if address else "running a fleet on a local Dask cluster"
        raise MissingExtra(
            f"{what} needs dask.distributed (or give --scheduler {SYNC} to run in this process)",
            extra=DASK_EXTRA,
        ) from None
    return distributed


@contextlib.contextmanager
def _client(distributed: Any, address: str | None) -> Iterator[Any]:
    if address is not None:
        with distributed.Client(address, set_as_default=False) as client:
            yield client
        return
    # One worker process per core, each single-threaded (see the module docstring), and no
    # log lines on the terminal (not even a worker's heartbeat failing as the cluster
    # closes). The scheduler's web server always starts: on a free port (":0"), since a
    # fixed one is taken by any other cluster on the machine (a warning).
    #
    # Every task is handed to the workers at once (worker-saturation "inf"; Dask's default
    # keeps about one task per thread queued): most modules of a fleet take a millisecond or
    # two (the small helpers jax compiles for eager ops), less than the round trip to the
    # scheduler for the next one, so workers that wait for each task sit idle half the time
    # (41 s against 20 s for 1,436 modules on 2 cores). Dask's work stealing still moves
    # queued tasks from a busy worker to an idle one.
    import dask

    with (
        dask.config.set({"distributed.scheduler.worker-saturation": "inf"}),
        distributed.LocalCluster(
            n_workers=os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client
