"""The one entry that reads a TRACE argument: the ``*.trace.json.gz`` with gzip and json, the
``*.xplane.pb`` with jax's reader (:mod:`.xplane`), both into one
:class:`~hloscope.profile.model.Trace` (as XProf reads every trace through one loader)."""

from __future__ import annotations

import os

from .chrome import read_chrome_trace
from .files import TraceFormat, trace_file, trace_format
from .model import Trace

__all__ = ["read_trace"]


def read_trace(
    spec: str | os.PathLike[str],
    prefer: TraceFormat = TraceFormat.CHROME,
    *,
    trace_device: int | None = None,
) -> Trace:
    """The trace ``spec`` names: a ``jax.profiler.trace`` folder, a ``plugins/profile/<run>/``
    folder, or one ``*.trace.json.gz`` / ``*.xplane.pb`` file (see
    :func:`~hloscope.profile.files.trace_file`). An ``*.xplane.pb`` needs jax
    (:mod:`hloscope.profile.xplane`); ``prefer`` picks the file of a folder holding both.

    ``trace_device`` is the ordinal N of the device process to read (``/device:TPU:N``), for a
    trace of several chips; default the first. An ordinal the trace lacks raises
    :class:`~hloscope.profile.errors.TraceDeviceError`, naming the devices it has."""
    path = trace_file(spec, prefer)
    if trace_format(path) is TraceFormat.XPLANE:
        from .xplane import read_xplane  # jax's reader, loaded only for this format

        return read_xplane(path, trace_device=trace_device)
    return read_chrome_trace(path, trace_device=trace_device)
