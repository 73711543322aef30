"""Reading a ``*.trace.json.gz`` (the Chrome trace format) with nothing but gzip and json.

``jax.profiler.trace`` writes this file beside the ``*.xplane.pb``; it holds the same events
(what the trace viewer draws), so the core install reads a profile without jax. The format:
``{"traceEvents": [...]}``; ``ph: "M"`` metadata events name each ``pid`` (``process_name``)
and each ``(pid, tid)`` (``thread_name``); ``ph: "X"`` complete events carry ``name``, ``ts``
and ``dur`` in microseconds, and ``args`` (the XPlane stats: ``hlo_op``, ``hlo_module``,
``run_id``...). Other phases (counters, flows) hold no op and are skipped.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .build import build_trace
from .errors import TraceError
from .model import RawEvent, Trace

__all__ = ["read_chrome_trace", "chrome_events", "FORMAT"]

FORMAT = "trace.json.gz"
_EMPTY: Mapping[str, Any] = {}


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        data = json.loads(text)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise TraceError(f"{path}: cannot read the trace ({error})") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise TraceError(f"{path}: not a JSON trace ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise TraceError(f"{path}: not a Chrome trace (no traceEvents list)")
    return data


def chrome_events(data: Mapping[str, Any]) -> Iterator[RawEvent]:
    """The complete events of a loaded Chrome trace, with their process and thread names."""
    processes: dict[Any, str] = {}
    threads: dict[tuple[Any, Any], str] = {}
    events = data["traceEvents"]
    for event in events:
        if isinstance(event, dict) and event.get("ph") == "M":
            args = event.get("args") or _EMPTY
            if event.get("name") == "process_name":
                processes[event.get("pid")] = str(args.get("name", ""))
            elif event.get("name") == "thread_name":
                threads[event.get("pid"), event.get("tid")] = str(args.get("name", ""))
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        pid, tid = event.get("pid"), event.get("tid")
        try:
            start = float(event["ts"]) * 1e3
            duration = float(event.get("dur", 0.0)) * 1e3
        except (KeyError, TypeError, ValueError):
            continue
        yield RawEvent(
            processes.get(pid, str(pid)),
            threads.get((pid, tid), str(tid)),
            str(event.get("name", "")),
            start,
            duration,
            event.get("args") or _EMPTY,
        )


def read_chrome_trace(path: str | Path, *, trace_device: int | None = None) -> Trace:
    """The :class:`~hloscope.profile.model.Trace` of a ``*.trace.json.gz`` (or plain
    ``*.trace.json``) file: the device of ordinal ``trace_device`` when given (see
    :func:`~hloscope.profile.build.build_trace`)."""
    path = Path(path)
    events = chrome_events(_load(path))
    return build_trace(events, str(path), FORMAT, trace_device=trace_device)
