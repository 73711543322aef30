"""The fleet as one call: find the dumps, make the tasks, run them, return the rows.

:func:`fleet_rows` gives plain dicts (what ``--json`` prints); :func:`fleet` a pandas
DataFrame with one column per :data:`~hloscope.fleet._analyse.COLUMNS` entry, in that order,
whose dtypes do not depend on which modules failed (a failed module's numbers are missing
values, not a column turned to floats or objects), so that a fleet written to parquet and read
back compares equal to a fresh one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ._analyse import COLUMNS
from ._dask import run_tasks
from ._discovery import discover
from ._tasks import ModuleTask, tasks_of

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["fleet", "fleet_rows", "fleet_tasks", "to_frame", "DTYPES"]

#: The pandas dtype of each column (nullable integers: a failed module's counts are ``<NA>``).
DTYPES: dict[str, str] = {
    **dict.fromkeys(COLUMNS, "Int64"),
    **dict.fromkeys(
        ("label", "dump", "module", "function", "stage", "memory_source", "error"), "string"
    ),
}


def fleet_tasks(
    paths: list[str] | tuple[str, ...] | str, *, label: str | re.Pattern[str] | None = None
) -> list[ModuleTask]:
    """One task per module file of every dump under ``paths`` (see :func:`fleet`)."""
    roots = [paths] if isinstance(paths, str) else [str(p) for p in paths]
    return [task for found in discover(roots, label) for task in tasks_of(found)]


def fleet_rows(
    paths: list[str] | tuple[str, ...] | str,
    *,
    label: str | re.Pattern[str] | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """The rows of :func:`fleet`, as dicts (``None`` for a failed module's numbers)."""
    return run_tasks(fleet_tasks(paths, label=label), scheduler=scheduler, progress=progress)


def fleet(
    paths: list[str] | tuple[str, ...] | str,
    *,
    label: str | None = None,
    scheduler: str | None = None,
) -> pandas.DataFrame:
    """One row per module of every XLA dump under ``paths`` (folders or prefixes: local
    paths, ``s3://``, ``gs://``, ``memory://``...), analysed as Dask tasks.

    ``label`` is a regex whose first group (or group ``label``) names each dump from its
    location (default: its path below the root); ``scheduler`` is a Dask scheduler address
    (default ``DASK_SCHEDULER_ADDRESS``, else a local cluster; ``"sync"`` runs in this
    process). The columns are described in :mod:`hloscope.fleet._analyse`.

    >>> rows = fleet("tests/data/generated/jax_recompiles", scheduler="sync")
    >>> rows.groupby("function")["compiles"].first().to_dict()
    {'broadcast_in_dim': 4, 'norm': 4}
    """
    return to_frame(fleet_rows(paths, label=label, scheduler=scheduler))


def to_frame(rows: list[dict[str, Any]]) -> pandas.DataFrame:
    """``rows`` as a DataFrame with the fleet's columns and dtypes (:data:`DTYPES`)."""
    from ..dataframes import require_pandas

    pd = require_pandas()
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype(DTYPES)
