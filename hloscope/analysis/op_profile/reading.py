"""Reading a TRACE argument: the ``*.trace.json.gz`` without jax, the ``*.xplane.pb`` with it."""

from __future__ import annotations

import os

from ...profile import Trace, TraceFormat, read_chrome_trace, trace_file, trace_format

__all__ = ["read_trace"]


def read_trace(
    spec: str | os.PathLike[str],
    prefer: TraceFormat = TraceFormat.CHROME,
    *,
    trace_device: int | None = None,
) -> Trace:
    """The trace ``spec`` names: a ``jax.profiler.trace`` folder, a ``plugins/profile/<run>/``
    folder, or one ``*.trace.json.gz`` / ``*.xplane.pb`` file (see
    :func:`hloscope.profile.trace_file`). An ``*.xplane.pb`` needs jax
    (:mod:`hloscope.capture.xplane`); ``prefer`` picks the file of a folder holding both.

    ``trace_device`` is the ordinal N of the device process to read (``/device:TPU:N``), for a
    trace of several chips; default the first. An ordinal the trace lacks raises
    :class:`~hloscope.profile.TraceDeviceError`, naming the devices it has."""
    path = trace_file(spec, prefer)
    if trace_format(path) is TraceFormat.XPLANE:
        from ...capture.xplane import read_xplane

        return read_xplane(path, trace_device=trace_device)
    return read_chrome_trace(path, trace_device=trace_device)
