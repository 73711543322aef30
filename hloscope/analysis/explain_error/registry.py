"""The table of recognisers: one row per kind of log.

A new kind of log is one module under :mod:`.kinds` (its :class:`~.record.Family` value, a
regex for the message's opening words, a handler that reads it) and one row here. The order is
the order the families are tried in; each scans the whole text once.
"""

from __future__ import annotations

from .kinds import (
    backend_startup,
    device_allocation,
    jax_call,
    jax_export,
    jax_shape,
    jax_tracing,
    missing_lowering,
    mlir_bridge,
    out_of_memory,
    pallas,
    recompile,
    sharding,
    tf1_list,
    tf2xla,
    tf_known_issue,
    xla_status,
)
from .recogniser import Recogniser

__all__ = ["RECOGNISERS"]

#: Every family :func:`~.driver.explain_error` knows, tried in this order on the whole text.
RECOGNISERS: tuple[Recogniser, ...] = (
    tf2xla.RECOGNISER,
    tf1_list.RECOGNISER,
    mlir_bridge.RECOGNISER,
    tf_known_issue.RECOGNISER,
    jax_tracing.RECOGNISER,
    missing_lowering.RECOGNISER,
    xla_status.RECOGNISER,
    jax_export.RECOGNISER,
    pallas.RECOGNISER,
    out_of_memory.RECOGNISER,
    device_allocation.RECOGNISER,
    backend_startup.RECOGNISER,
    recompile.RECOGNISER,
    jax_shape.RECOGNISER,
    sharding.RECOGNISER,
    jax_call.RECOGNISER,
)
