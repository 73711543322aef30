"""``hloscope profile`` on a trace of several devices: picking one, and every one's busy time.

The trace is made here from the real TPU v5e trace of ``conv_step`` (tests/data/profiles/tpu,
one device): its ``/device:TPU:0`` process is copied to ``/device:TPU:1`` and
``/device:TPU:2`` with every time (start and duration, in microseconds and in XLA:TPU's exact
picoseconds) scaled by :data:`FACTORS`, so each copy's ops take that factor of the original's
time. The oracles are the trace's raw events read with gzip + json: each device's ``XLA Ops``
line's busy time (the union of its intervals) and its ``Steps`` line's step count.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.analysis.op_profile import op_profile, read_trace
from hloscope.cli import cli
from hloscope.profile import TraceDeviceError

CASE = Path(__file__).resolve().parent / "data" / "profiles" / "tpu" / "conv_step"
ORIGINAL = next((CASE / "trace").rglob("*.trace.json.gz"))
#: The ordinal of each device of the made trace -> its times as a factor of device 0's.
FACTORS = {0: 1.0, 1: 1.05, 2: 0.97}
OLD_KEYS = ["device", "steps", "device_time_s", "kernels", "by_source", "async", "step_times"]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"})


def _scaled(event: dict[str, Any], pid: int, factor: float) -> dict[str, Any]:
    """A copy of one event of device 0 on process ``pid``, its times scaled by ``factor``."""
    out = copy.deepcopy(event)
    out["pid"] = pid
    if out.get("ph") == "X":
        out["ts"] = event["ts"] * factor
        out["dur"] = event.get("dur", 0) * factor
        args = out.get("args", {})
        for key in ("device_offset_ps", "device_duration_ps"):
            if key in args:
                args[key] = str(round(int(args[key]) * factor))
    elif out.get("name") == "process_name":
        out["args"] = {"name": f"/device:TPU:{pid - 1000}"}
    return out


def _device_zero_pid(events: list[dict[str, Any]]) -> int:
    return next(
        e["pid"]
        for e in events
        if e.get("name") == "process_name" and e["args"]["name"] == "/device:TPU:0"
    )


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three-device trace, in the folder layout jax.profiler.trace writes."""
    data = json.loads(gzip.decompress(ORIGINAL.read_bytes()))
    events = data["traceEvents"]
    pid = _device_zero_pid(events)
    mine = [e for e in events if e.get("pid") == pid]
    for ordinal, factor in FACTORS.items():
        if ordinal:
            events.extend(_scaled(e, 1000 + ordinal, factor) for e in mine)
    run = tmp_path_factory.mktemp("multi") / "trace" / "plugins" / "profile" / "run"
    run.mkdir(parents=True)
    path = run / "host.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    return path


def _raw(path: Path) -> list[dict[str, Any]]:
    return json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]


def busy_ns(path: Path) -> dict[str, float]:
    """Each device process's XLA Ops line busy time in ns (the union of its ops' intervals,
    in XLA:TPU's picoseconds), read without hloscope."""
    events = _raw(path)
    names = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
    ops_lines = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"]["name"] == "XLA Ops"
    }
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and (e["pid"], e.get("tid")) in ops_lines:
            start = int(e["args"]["device_offset_ps"])
            spans[names[e["pid"]]].append((start, start + int(e["args"]["device_duration_ps"])))
    out = {}
    for name, intervals in spans.items():
        busy, end = 0, -1
        for start, stop in sorted(intervals):
            if stop > end:
                busy += stop - max(start, end)
                end = stop
        out[name] = busy / 1000
    return out


def steps_of(path: Path) -> int:
    """The steps on device 0's Steps line, read without hloscope."""
    events = _raw(path)
    pid = _device_zero_pid(events)
    tids = {
        e["tid"]
        for e in events
        if e.get("pid") == pid and e.get("name") == "thread_name" and e["args"]["name"] == "Steps"
    }
    return sum(1 for e in events if e.get("ph") == "X" and e["pid"] == pid and e["tid"] in tids)


# ---- the Python API --------------------------------------------------------------------


def test_every_device_busy_time_is_its_ops_line_busy_time(multi: Path) -> None:
    expected = busy_ns(multi)
    assert sorted(expected) == [f"/device:TPU:{n}" for n in FACTORS]
    trace = read_trace(multi)
    assert trace.device == "/device:TPU:0"
    assert trace.busy_ns == pytest.approx(expected, rel=1e-9)
    # The copies are the original's times scaled: the busy times are in those ratios.
    for ordinal, factor in FACTORS.items():
        busy = trace.busy_ns[f"/device:TPU:{ordinal}"]
        assert busy == pytest.approx(factor * trace.busy_ns["/device:TPU:0"], rel=1e-6)


def test_the_profile_lists_each_device_per_step_and_the_slowest(multi: Path) -> None:
    expected = busy_ns(multi)
    steps = steps_of(multi)
    profile = op_profile(read_trace(multi))
    assert profile.steps == steps
    spread = profile.devices
    assert spread is not None
    rows = spread.rows()
    assert [r["name"] for r in rows] == [f"/device:TPU:{n}" for n in FACTORS]
    assert [r["ordinal"] for r in rows] == list(FACTORS)
    assert [r["shown"] for r in rows] == [True, False, False]
    for row in rows:
        assert row["busy_ns"] == pytest.approx(expected[row["name"]], rel=1e-9)
        assert row["busy_per_step_ns"] == pytest.approx(expected[row["name"]] / steps, rel=1e-9)
    slowest = max(expected, key=expected.__getitem__)
    fastest = min(expected, key=expected.__getitem__)
    assert spread.slowest.name == slowest
    assert spread.over_fastest == pytest.approx(expected[slowest] / expected[fastest] - 1)


def test_a_device_is_picked_by_its_ordinal(multi: Path) -> None:
    zero = op_profile(read_trace(multi))
    two = op_profile(read_trace(multi, trace_device=2))
    assert two.device == "/device:TPU:2"
    assert two.devices is not None and two.devices.shown.name == "/device:TPU:2"
    times = {k.name: k.time_s for k in zero.kernels}
    assert {k.name: k.time_s for k in two.kernels} == pytest.approx(
        {name: FACTORS[2] * t for name, t in times.items()}, rel=1e-6
    )


def test_an_ordinal_the_trace_lacks_names_the_ones_it_has(multi: Path) -> None:
    with pytest.raises(TraceDeviceError) as raised:
        read_trace(multi, trace_device=7)
    message = raised.value.one_line()
    assert "\n" not in message and "no device 7" in message
    assert all(f"/device:TPU:{n}" in message for n in FACTORS)
    assert raised.value.exit_code == 2


# ---- the command -----------------------------------------------------------------------


def _devices_line(output: str) -> str:
    lines = [line for line in output.splitlines() if " devices: busy" in line]
    assert len(lines) == 1, output
    return lines[0]


def test_the_text_has_one_devices_line_with_the_spread(multi: Path) -> None:
    expected = busy_ns(multi)
    steps = steps_of(multi)
    done = invoke("profile", str(multi))
    assert done.exit_code == 0, done.output
    line = _devices_line(done.stdout)
    slowest = max(expected, key=expected.__getitem__)
    fastest = min(expected, key=expected.__getitem__)
    over = expected[slowest] / expected[fastest] - 1
    assert line.startswith(f"{len(FACTORS)} devices: busy per step ")
    assert f"{slowest} slowest (+{over:.1%} over the fastest)" in line
    assert "/device:TPU:0 shown (--trace-device N for another)" in line
    found = re.search(r"busy per step ([\d.]+)-([\d.]+) ms", line)
    assert found is not None, line
    assert float(found.group(1)) == pytest.approx(expected[fastest] / steps / 1e6, abs=0.006)
    assert float(found.group(2)) == pytest.approx(expected[slowest] / steps / 1e6, abs=0.006)
    assert "devices in the trace" not in done.stdout  # the old note, which the line replaces


def test_trace_device_shows_that_device_kernels(multi: Path) -> None:
    zero = invoke("profile", str(multi), "--json")
    two = invoke("profile", str(multi), "--trace-device", "2", "--json")
    assert zero.exit_code == 0 and two.exit_code == 0, two.output
    a, b = json.loads(zero.stdout), json.loads(two.stdout)
    assert b["device"] == "/device:TPU:2"
    assert [d["shown"] for d in b["devices"]] == [False, False, True]
    times = {k["name"]: k["time_s"] for k in a["kernels"]}
    assert {k["name"]: k["time_s"] for k in b["kernels"]} == pytest.approx(
        {name: FACTORS[2] * t for name, t in times.items()}, rel=1e-6
    )
    text = invoke("profile", str(multi), "--trace-device", "2")
    assert "/device:TPU:2 shown" in _devices_line(text.stdout)


def test_json_adds_devices_and_keeps_every_old_key(multi: Path) -> None:
    done = invoke("profile", str(multi), "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert list(data) == [*OLD_KEYS, "devices"]
    assert data["device"] == "/device:TPU:0"
    expected = busy_ns(multi)
    for row in data["devices"]:
        assert list(row) == ["name", "ordinal", "busy_ns", "busy_per_step_ns", "shown"]
        assert row["busy_ns"] == pytest.approx(expected[row["name"]], rel=1e-9)


@pytest.mark.parametrize("ordinal", ["7", "x", "-1"])
def test_a_bad_ordinal_is_a_one_line_usage_error(multi: Path, ordinal: str) -> None:
    done = invoke("profile", str(multi), "--trace-device", ordinal)
    assert done.exit_code == 2, done.output
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.output
    if ordinal == "7":
        assert "no device 7" in done.stderr and "/device:TPU:2" in done.stderr
    else:  # refused by the option itself, as a value that is no ordinal
        assert "Invalid value for '--trace-device'" in done.stderr


def test_a_trace_whose_devices_ran_no_op_is_refused_in_one_line(tmp_path: Path) -> None:
    """A device process with a Steps line and no op: nothing to profile, nothing to pick."""
    events = [
        {"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "/device:TPU:0"}},
        {"ph": "M", "pid": 3, "tid": 1, "name": "thread_name", "args": {"name": "Steps"}},
        {"ph": "X", "pid": 3, "tid": 1, "ts": 0, "dur": 100, "name": "0"},
    ]
    path = tmp_path / "t.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    for extra in ([], ["--trace-device", "0"]):
        done = invoke("profile", str(path), *extra)
        assert done.exit_code == 2, done.output
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "holds no device op" in done.stderr


def test_one_device_of_three_reads_as_the_single_device_trace_plus_one_line(
    multi: Path,
) -> None:
    """The original one-device trace keeps its output: no devices line, no devices key; the
    three-device trace's output is the same plus the devices line (and the devices key)."""
    single = invoke("profile", str(ORIGINAL))
    three = invoke("profile", str(multi), "--trace-device", "0")
    assert single.exit_code == 0 and three.exit_code == 0, three.output
    assert " devices: " not in single.stdout
    line = _devices_line(three.stdout)

    def body(text: str) -> list[str]:
        return [s for s in text.splitlines() if not s.startswith("trace ")]

    assert [s for s in body(three.stdout) if s != line] == body(single.stdout)
    single_json = json.loads(invoke("profile", str(ORIGINAL), "--json").stdout)
    three_json = json.loads(invoke("profile", str(multi), "--json").stdout)
    assert list(single_json) == OLD_KEYS
    assert {k: v for k, v in three_json.items() if k != "devices"} == single_json


# ---- the same from an XSpace (*.xplane.pb) -----------------------------------------------------
#
# The made XSpace: the real v5e trace's XSpace with its /device:TPU:0 plane copied, each copy
# renamed and every event's offset and duration (picoseconds, in the event and in its
# device_offset_ps / device_duration_ps stats) scaled by FACTORS, written with
# protobuf's wire format by hand (XSpace.planes = 1; XPlane.id = 1, .name = 2, .lines = 3;
# XLine.events = 4; XEvent.offset_ps = 2, .duration_ps = 3). The oracle reads it back with
# jax.profiler.ProfileData, XLA's own reader.

_XSPACE = next((CASE / "trace").rglob("*.xplane.pb"))


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _fields(data: bytes):
    """(number, wire type, value) of each field of a message, in order."""
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _read_varint(data, at)
        elif wire == 2:
            size, at = _read_varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        else:
            value, at = data[at : at + 4], at + 4
        yield number, wire, value


def _encode(number: int, wire: int, value: int | bytes) -> bytes:
    head = _varint(number << 3 | wire)
    if wire == 0:
        return head + _varint(int(value))  # type: ignore[arg-type]
    if wire == 2:
        return head + _varint(len(value)) + bytes(value)  # type: ignore[arg-type]
    return head + bytes(value)  # type: ignore[arg-type]


def _rewrite(data: bytes, edits: dict[int, Any]) -> bytes:
    """The message with each field whose number ``edits`` names replaced by what its function
    returns for the old value."""
    return b"".join(
        _encode(number, wire, edits[number](value) if number in edits else value)
        for number, wire, value in _fields(data)
    )


# XLA:TPU's exact times are event stats too (XStat.metadata_id = 1, .uint64_value = 3,
# .int64_value = 4), named in the plane's stat metadata (XPlane.stat_metadata = 5: map entries
# key = 1, value = 2; XStatMetadata.name = 2).
_TIMED_STATS = (b"device_offset_ps", b"device_duration_ps")


def _timed_stat_ids(plane: bytes) -> set[int]:
    ids = set()
    for number, _, entry in _fields(plane):
        if number != 5:
            continue
        key = next(v for n, _, v in _fields(entry) if n == 1)
        metadata = next(v for n, _, v in _fields(entry) if n == 2)
        if any(n == 2 and v in _TIMED_STATS for n, _, v in _fields(metadata)):
            ids.add(key)
    return ids


def _scaled_plane(plane: bytes, ordinal: int, factor: float) -> bytes:
    def scaled(value: int) -> int:
        return round(value * factor)

    timed = _timed_stat_ids(plane)

    def stat(data: bytes) -> bytes:
        ident = next((v for n, _, v in _fields(data) if n == 1), None)
        return _rewrite(data, {3: scaled, 4: scaled}) if ident in timed else data

    event = {2: scaled, 3: scaled, 4: stat}
    line = {4: lambda e: _rewrite(e, event)}
    return _rewrite(
        plane,
        {
            1: lambda old: old + 1000 + ordinal,
            2: lambda old: f"/device:TPU:{ordinal}".encode(),
            3: lambda found: _rewrite(found, line),
        },
    )


@pytest.fixture(scope="module")
def multi_xspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = _XSPACE.read_bytes()
    (device,) = [
        value
        for number, _, value in _fields(data)
        if number == 1 and any(n == 2 and v == b"/device:TPU:0" for n, _, v in _fields(value))
    ]
    copies = b"".join(
        _encode(1, 2, _scaled_plane(device, ordinal, factor))
        for ordinal, factor in FACTORS.items()
        if ordinal
    )
    run = tmp_path_factory.mktemp("multi-xspace") / "trace" / "plugins" / "profile" / "run"
    run.mkdir(parents=True)
    path = run / "host.xplane.pb"
    path.write_bytes(data + copies)
    return path


def _xspace_busy_ns(path: Path) -> dict[str, float]:
    """Each device plane's XLA Ops busy time in ns (the union of its ops' intervals, in
    XLA:TPU's picoseconds), read with XLA's own ProfileData."""
    needs_framework("jax")
    from jax.profiler import ProfileData

    out = {}
    for plane in ProfileData.from_file(str(path)).planes:
        if not plane.name.startswith("/device:TPU:"):
            continue
        for line in plane.lines:
            if line.name != "XLA Ops":
                continue
            busy, end = 0, -1
            spans = []
            for e in line.events:
                stats = dict(e.stats)
                start = int(stats["device_offset_ps"])
                spans.append((start, start + int(stats["device_duration_ps"])))
            for start, stop in sorted(spans):
                if stop > end:
                    busy += stop - max(start, end)
                    end = stop
            out[plane.name] = busy / 1000
    return out


def test_an_xspace_of_several_devices_reads_like_its_json(multi_xspace: Path) -> None:
    expected = _xspace_busy_ns(multi_xspace)
    assert sorted(expected) == [f"/device:TPU:{n}" for n in FACTORS]
    for ordinal, factor in FACTORS.items():
        assert expected[f"/device:TPU:{ordinal}"] == pytest.approx(
            factor * expected["/device:TPU:0"], rel=1e-6
        )
    trace = read_trace(multi_xspace)
    assert trace.busy_ns == pytest.approx(expected, rel=1e-6)
    two = op_profile(read_trace(multi_xspace, trace_device=2))
    assert two.device == "/device:TPU:2"
    zero = op_profile(read_trace(multi_xspace))
    times = {k.name: k.time_s for k in zero.kernels}
    assert {k.name: k.time_s for k in two.kernels} == pytest.approx(
        {name: FACTORS[2] * t for name, t in times.items()}, rel=1e-5
    )
    done = invoke("profile", str(multi_xspace), "--trace-device", "1", "--json")
    assert done.exit_code == 0, done.output
    payload = json.loads(done.stdout)
    assert [d["name"] for d in payload["devices"]] == [f"/device:TPU:{n}" for n in FACTORS]
