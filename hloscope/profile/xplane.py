"""Reading a ``*.xplane.pb`` profile with jax's own reader.

An XSpace (the profiler's native file) is a protocol buffer; jax ships its reader,
``jax.profiler.ProfileData.from_file``, which exposes planes (``/device:TPU:0``,
``/host:CPU``), their lines (``XLA Ops``, ``XLA Modules``, host threads) and each line's
events with ``name``, ``start_ns``, ``duration_ns`` and ``stats`` (``hlo_op``, ``hlo_module``,
``run_id``...). :func:`xplane_events` turns them into the
:class:`~hloscope.profile.model.RawEvent` objects the Chrome reader makes too, so one builder
(:func:`~hloscope.profile.build.build_trace`) sorts both. This is the only place that imports
``jax.profiler`` to read a file (inside the functions, so reading a ``*.trace.json.gz`` never
loads jax); every reader goes through :func:`~hloscope.profile.reading.read_trace`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .build import build_trace
from .errors import TraceError
from .model import RawEvent, Trace

__all__ = ["xplane_events", "read_xplane", "device_kinds", "FORMAT"]

FORMAT = "xplane.pb"
#: The extra that brings jax (the reader of an ``*.xplane.pb``).
JAX_EXTRA = "hloscope[jax]"


def _profile_data(path: Path):  # -> jax.profiler.ProfileData
    try:
        import jax  # noqa: F401 - the reader is jax's own
    except ImportError:  # the words capture's missing jax says, in the trace's error class
        raise TraceError(f"jax is not installed: pip install '{JAX_EXTRA}'") from None
    try:
        from jax.profiler import ProfileData
    except ImportError as error:  # an older jax: say so in one line
        raise TraceError(f"{path}: this jax has no profile reader ({error})") from error
    try:
        return ProfileData.from_file(str(path))
    except Exception as error:  # noqa: BLE001 - the reader raises plain RuntimeErrors
        raise TraceError(f"{path}: cannot read the XSpace ({error})") from error


def xplane_events(path: str | Path, data: Any = None) -> Iterator[RawEvent]:
    """Every event of an ``*.xplane.pb`` file (or of its ``ProfileData``, read already), with
    its plane and line names and its stats."""
    data = data if data is not None else _profile_data(Path(path))
    for plane in data.planes:
        plane_name = plane.name
        for line in plane.lines:
            line_name = line.name
            for event in line.events:
                yield RawEvent(
                    plane_name,
                    line_name,
                    str(event.name),
                    float(event.start_ns),
                    float(event.duration_ns),
                    dict(event.stats),
                )


def device_kinds(path: str | Path, data: Any = None) -> dict[str, str]:
    """Each plane's chip, from its ``device_type_string`` stat (``TPU v5 Lite``)."""
    kinds = {}
    data = data if data is not None else _profile_data(Path(path))
    for plane in data.planes:
        kind = dict(plane.stats).get("device_type_string")
        if isinstance(kind, str) and kind:
            kinds[plane.name] = kind
    return kinds


def read_xplane(path: str | Path, *, trace_device: int | None = None) -> Trace:
    """The :class:`~hloscope.profile.model.Trace` of an ``*.xplane.pb`` file (needs jax): the
    device of ordinal ``trace_device`` when given (see
    :func:`~hloscope.profile.build.build_trace`)."""
    data = _profile_data(Path(path))
    kinds = device_kinds(path, data)
    events = xplane_events(path, data)
    return build_trace(events, str(path), FORMAT, kinds, trace_device=trace_device)
