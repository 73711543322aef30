"""Fleets of dumps: every module of hundreds of XLA dumps, one row each, analysed on Dask.

A platform team tracks many dumps at once: every host of a pod, every model of a nightly run,
every jax/XLA version bump. :func:`fleet` finds every dump folder under the given folders or
object-storage prefixes (:mod:`._discovery`), makes one task per module file (:mod:`._tasks`),
runs the tasks on Dask (:mod:`._dask`) and gathers one row per module (:mod:`._analyse`: the
numbers of ``summary``, ``fusions``, ``memory`` and ``collectives``). :func:`regressions`
pairs a fleet with a baseline by label and function and says what grew (:mod:`._regressions`).

This package imports nothing heavy until a name is used (``hloscope`` imports it at start-up,
so that ``hloscope.fleet`` can be the function).
"""

from ..lazy_exports import lazy_exports

_LAZY = {
    "COLUMNS": "._analyse",
    "FUSION_KINDS": "._analyse",
    "METRIC_COLUMNS": "._analyse",
    "analyse": "._analyse",
    "FoundDump": "._discovery",
    "discover": "._discovery",
    "ModuleTask": "._tasks",
    "tasks_of": "._tasks",
    "run_tasks": "._dask",
    "scheduler_address": "._dask",
    "SYNC": "._dask",
    "fleet": "._api",
    "fleet_rows": "._api",
    "fleet_tasks": "._api",
    "to_frame": "._api",
    "read_fleet": "._regressions",
    "Metric": "._regressions",
    "PairDelta": "._regressions",
    "Regressions": "._regressions",
    "regressions": "._regressions",
    "FleetError": ".errors",
    "FleetUsageError": ".errors",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)

__all__ = sorted(_LAZY)
