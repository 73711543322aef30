"""Traces made from the real XLA:TPU traces of tests/data/profiles/tpu (TPU v5e, jax 0.10.2):
the same device events, moved in time. Read and written with gzip + json alone.

* :func:`interleaved`: two modules run in turn (A's step 0, B's step 0, A's step 1, B's step
  1), one trace with both modules' events and a Steps line of four steps, as a program that
  alternates a train step and an eval step records (a program traced without a Steps line
  gives its module runs as its steps);
* :func:`host_bound`: one module's steps pulled apart by idle gaps the device waits through
  (a host that feeds the chip slower than it computes), each gap inside its step.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

TPU = Path(__file__).resolve().parent / "data" / "profiles" / "tpu"
DEVICE = "/device:TPU:0"
LINES = ("Steps", "XLA Modules", "XLA Ops")


def chrome(case: str) -> dict[str, Any]:
    path = next((TPU / case / "trace").rglob("*.trace.json.gz"))
    return json.loads(gzip.decompress(path.read_bytes()))


def _names(data: dict[str, Any]) -> tuple[dict[Any, str], dict[tuple[Any, Any], str]]:
    events = data["traceEvents"]
    pids = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    tids = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"
    }
    return pids, tids


def device_events(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The device's complete events by line (Steps, XLA Modules, XLA Ops)."""
    pids, tids = _names(data)
    out: dict[str, list[dict[str, Any]]] = {line: [] for line in LINES}
    for e in data["traceEvents"]:
        if e.get("ph") != "X" or pids.get(e["pid"]) != DEVICE:
            continue
        line = tids.get((e["pid"], e.get("tid")))
        if line in out:
            out[line].append(e)
    return out


def _shifted(event: dict[str, Any], by_us: float, **changes: Any) -> dict[str, Any]:
    moved = {**event, "ts": event["ts"] + by_us, "args": dict(event.get("args") or {})}
    args = moved["args"]
    if "device_offset_ps" in args:
        args["device_offset_ps"] = str(int(args["device_offset_ps"]) + round(by_us * 1e6))
    for key, value in changes.items():
        if key == "dur_us":
            moved["dur"] = value
            if "device_duration_ps" in args:
                args["device_duration_ps"] = str(round(value * 1e6))
        else:
            moved[key] = value
    return moved


def _document(events_by_line: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    meta = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": DEVICE}}]
    meta += [
        {"ph": "M", "pid": 1, "tid": tid, "name": "thread_name", "args": {"name": line}}
        for tid, line in enumerate(LINES, 1)
    ]
    events = [
        {**e, "pid": 1, "tid": tid}
        for tid, line in enumerate(LINES, 1)
        for e in events_by_line[line]
    ]
    return {"traceEvents": meta + events}


def write(data: dict[str, Any], folder: Path) -> Path:
    path = folder / "plugins" / "profile" / "2026_12_06_00_00_00" / "host.trace.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    return path


def _step_events(lines: dict[str, list[dict[str, Any]]], step: dict[str, Any]):
    """The events of ``step`` (a Steps event, or a module run where the trace has no Steps
    line) on the other lines."""
    start, end = step["ts"], step["ts"] + step["dur"]
    return {
        line: [e for e in lines[line] if start <= e["ts"] < end]
        for line in LINES
        if line != "Steps"
    }


def _frames(lines: dict[str, list[dict[str, Any]]]) -> tuple[str, list[dict[str, Any]]]:
    """The steps: the Steps line's, else the module runs (the programs without a Steps line
    marked their steps on the host)."""
    line = "Steps" if lines["Steps"] else "XLA Modules"
    return line, sorted(lines[line], key=lambda e: e["ts"])


def interleaved(case_a: str, case_b: str, steps: int = 2) -> dict[str, Any]:
    """A's and B's first ``steps`` steps in turn: A0, B0, A1, B1 (see the module docstring)."""
    a, b = device_events(chrome(case_a)), device_events(chrome(case_b))
    order = [(lines, i) for i in range(steps) for lines in (a, b)]
    out: dict[str, list[dict[str, Any]]] = {line: [] for line in LINES}
    clock = 1000.0
    for number, (lines, index) in enumerate(order):
        step = _frames(lines)[1][index]  # a program without a Steps line: its module run
        by = clock - step["ts"]
        out["Steps"].append(_shifted(step, by, name=str(number)))
        for line, events in _step_events(lines, step).items():
            out[line] += [_shifted(e, by) for e in events]
        clock += step["dur"] + 50.0
    return _document(out)


def host_bound(case: str, gap_us: float) -> dict[str, Any]:
    """``case``'s steps, each made ``gap_us`` longer by an idle gap at its end (the device
    events of later steps moved on by the gaps before them)."""
    lines = device_events(chrome(case))
    marked, steps = _frames(lines)
    out: dict[str, list[dict[str, Any]]] = {line: [] for line in LINES}
    for index, step in enumerate(steps):
        by = index * gap_us
        if marked == "Steps":
            out["Steps"].append(_shifted(step, by, dur_us=step["dur"] + gap_us))
        for line, events in _step_events(lines, step).items():
            out[line] += [_shifted(e, by) for e in events]
    return _document(out)
