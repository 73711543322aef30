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

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        "._api": ("fleet", "fleet_rows", "fleet_tasks", "to_frame"),
        "._analyse": ("COLUMNS", "FUSION_KINDS", "METRIC_COLUMNS", "analyse"),
        "._discovery": ("FoundDump", "discover"),
        "._tasks": ("ModuleTask", "tasks_of"),
        "._dask": ("run_tasks", "scheduler_address", "SYNC"),
        "._regressions": ("read_fleet", "Metric", "PairDelta", "Regressions", "regressions"),
        ".errors": ("FleetError", "FleetUsageError"),
    },
)
