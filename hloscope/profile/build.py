"""From a trace file's events to a :class:`~hloscope.profile.model.Trace`: which events are
device ops, module runs and steps, and each op's time of its own.

Where the runtimes put things (read from real traces: XLA:TPU and XLA:CPU, jax 0.10):

* **TPU and GPU**: each device is a process ``/device:TPU:0`` (``/device:GPU:0``). Its
  ``XLA Ops`` thread holds one event per executed HLO instruction, its ``XLA Modules`` thread
  one per execution of a module (``jit_step(6)``: name and program id), and, when the profiler
  found them, its ``Steps`` thread the steps.
* **CPU**: XLA:CPU has no device process. Each kernel (thunk) it runs is an event on a host
  thread of the ``/host:CPU`` process, with ``hlo_op``, ``hlo_module`` and ``run_id`` (one id
  per execution of the module) in its arguments; an ``end: NAME`` event closes each, and is
  not an op.
* **Steps**: XLA:TPU's device has a ``Steps`` line (events named ``0``, ``1``...). Steps
  the program marked with ``jax.profiler.StepTraceAnnotation(name, step_num=i)`` are
  host events carrying a ``step_num`` argument.

An op's *self time* is its duration less the ops nested inside it on the same thread (a
device line may draw a loop or an async pair around its body's ops), so the self times of a
thread's ops add up to the time that thread was busy, counting no instant twice.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from .errors import TraceDeviceError
from .model import ModuleRun, OpEvent, RawEvent, StepMark, Trace

__all__ = ["build_trace", "self_times", "op_name_of", "device_ordinal", "HOST_CPU"]

HOST_CPU = "/host:CPU"
OPS_LINE = "XLA Ops"
MODULES_LINE = "XLA Modules"
STEPS_LINE = "Steps"
_END_MARK = "end: "  # XLA:CPU's closing events ("end: fusion.3")
_DEVICE = re.compile(r"/device:(?:TPU|GPU):(\d+)")  # match(): a prefix; fullmatch(): a chip
_MODULE_RUN = re.compile(r"^(.*)\((\d+)\)$")


def op_name_of(event_name: str, args: dict | None = None) -> str:
    """The HLO instruction an op event is for: its ``hlo_op`` argument, else the name of the
    HLO text it is named by (``%fusion.244 = bf16[...] fusion(...)`` -> ``fusion.244``), else
    its name."""
    if args:
        named = args.get("hlo_op")
        if isinstance(named, str) and named:
            return named
    if " = " in event_name:
        return event_name.split(" = ", 1)[0].strip().lstrip("%")
    return event_name.lstrip("%")


def device_ordinal(process: str) -> int:
    """N of a device process ``/device:TPU:N`` (``/device:GPU:N``); -1 of any other process."""
    found = _DEVICE.match(process)
    return int(found.group(1)) if found else -1


def build_trace(
    events: Iterable[RawEvent],
    path: str,
    fmt: str,
    device_kinds: Mapping[str, str] | None = None,
    *,
    trace_device: int | None = None,
) -> Trace:
    """Sort ``events`` into the ops of one device, its module runs and the steps (see the
    module docstring), and time every device's ops (:attr:`Trace.busy_ns`). The device read is
    the one of ordinal ``trace_device`` (``/device:TPU:N``'s N) when given, else the first that
    ran any op. ``device_kinds`` maps a process to the chip it is (``TPU v5 Lite``), where the
    file says (an XPlane's ``device_type_string``).

    Raises :class:`~hloscope.profile.errors.TraceDeviceError` when the trace has no device
    process of ordinal ``trace_device``.
    """
    by_process, steps, host_ops = _sorted_by_process(events)
    devices = sorted(
        (p for p, evs in by_process.items() if _DEVICE.match(p) and any(map(_is_op, evs))),
        key=device_ordinal,
    )
    if trace_device is not None:
        device = _device_of(devices, trace_device, path, bool(host_ops))
    else:
        device = devices[0] if devices else ""
    if device:
        mine = by_process[device]
        runs = [_module_run(e) for e in mine if e.thread == MODULES_LINE]
        runs.sort(key=lambda r: r.start_ns)
        # The device's Steps line names each step by its number ("0", "1"...).
        device_steps = [
            StepMark(STEPS_LINE, e.name, *_device_times(e)) for e in mine if e.thread == STEPS_LINE
        ]
        ops = _ops(_device_ops(mine), runs)
        steps = device_steps or steps
    else:
        device = HOST_CPU if host_ops else ""
        runs = []
        ops = _ops(host_ops, runs)
    steps.sort(key=lambda s: s.start_ns)
    kind = (device_kinds or {}).get(device, "")
    busy = {d: _busy_ns(by_process[d]) for d in devices}
    listed = devices or ([device] if device else [])
    return Trace(path, fmt, device, ops, runs, steps, listed, kind, busy)


def _sorted_by_process(
    events: Iterable[RawEvent],
) -> tuple[dict[str, list[RawEvent]], list[StepMark], list[RawEvent]]:
    """The events by process, the host's step marks, and the host's HLO ops (XLA:CPU's)."""
    by_process: dict[str, list[RawEvent]] = defaultdict(list)
    steps: list[StepMark] = []
    host_ops: list[RawEvent] = []
    for event in events:
        by_process[event.process].append(event)
        args = event.args
        if "step_num" in args and not _DEVICE.match(event.process):
            steps.append(
                StepMark(event.name, str(args["step_num"]), event.start_ns, event.duration_ns)
            )
        elif "hlo_op" in args and not event.name.startswith(_END_MARK):
            host_ops.append(event)
    return by_process, steps, host_ops


def _device_ops(events: Sequence[RawEvent]) -> list[RawEvent]:
    """The op events of one device process.

    The XLA Ops line holds every op once. XLA:TPU's "Async XLA Ops" line draws each async
    pair in flight (start to done, named by its done op): time the device was not busy with
    it, so not an op. A device without that line (a GPU's streams) has its ops wherever an
    event names an HLO op.
    """
    if any(e.thread == OPS_LINE for e in events):
        return [e for e in events if e.thread == OPS_LINE]
    return [e for e in events if _is_op(e)]


def _busy_ns(events: Sequence[RawEvent]) -> float:
    """The op time of one device process: the self times of its ops (the rule the device read
    follows, see :func:`_device_ops`), summed, so nested ops count once."""
    ops = []
    for event in _device_ops(events):
        start, duration = _device_times(event)
        ops.append(OpEvent(event.name, "", start, duration, line=event.thread))
    return sum(self_times(ops))


def _device_of(devices: Sequence[str], ordinal: int, path: str, host_ops: bool) -> str:
    """The device process of ``ordinal``: ``/device:TPU:N`` itself when the trace has it,
    else the first process of that ordinal (a chip's other planes share its number)."""
    mine = [d for d in devices if device_ordinal(d) == ordinal]
    exact = [d for d in mine if _DEVICE.fullmatch(d)]
    if mine:
        return (exact or mine)[0]
    if devices:
        has = f"it has {_names(devices)}"
    else:
        has = f"its ops ran on {HOST_CPU}, no device" if host_ops else "it holds no device op"
    raise TraceDeviceError(f"{path}: the trace has no device {ordinal} ({has})")


def _names(devices: Sequence[str], most: int = 8) -> str:
    """``/device:TPU:0, /device:TPU:1``; a long list shortened to its ends and its length."""
    if len(devices) <= most:
        return ", ".join(devices)
    return f"{devices[0]}, {devices[1]} ... {devices[-1]} ({len(devices)} devices)"


def _is_op(event: RawEvent) -> bool:
    if event.thread == OPS_LINE:
        return True
    return "hlo_op" in event.args and not event.name.startswith(_END_MARK)


def _module_run(event: RawEvent) -> ModuleRun:
    found = _MODULE_RUN.match(event.name)
    name, program = (found.group(1), found.group(2)) if found else (event.name, "")
    run = str(event.args.get("run_id", ""))
    return ModuleRun(name, program, *_device_times(event), run)


def _ops(events: Sequence[RawEvent], runs: Sequence[ModuleRun]) -> list[OpEvent]:
    """Each op event as an :class:`OpEvent`, its module and run taken from its arguments or,
    when it has none, from the module run it falls in."""
    starts = [r.start_ns for r in runs]
    out = []
    for event in events:
        args = event.args
        module = str(args.get("hlo_module", ""))
        run = str(args["run_id"]) if "run_id" in args else ""
        if runs and (not module or not run):
            index = bisect.bisect_right(starts, event.start_ns) - 1
            if index >= 0 and event.start_ns < runs[index].start_ns + runs[index].duration_ns:
                module = module or runs[index].module
                run = run or runs[index].run or str(index)
        name = event.name
        text = str(args.get("long_name") or (name if " = " in name else ""))
        # XLA:TPU's op name (``tf_op``) ends in a colon: ``jit(f)/jvp()/dot_general:``.
        op_name = str(args.get("tf_op", "")).rstrip(":")
        start, duration = _device_times(event)
        out.append(
            OpEvent(
                name=op_name_of(name, dict(args)),
                module=module,
                start_ns=start,
                duration_ns=duration,
                run=run,
                line=f"{event.process}/{event.thread}",
                text=text,
                category=str(args.get("hlo_category", "")),
                source=str(args.get("source", "") or args.get("source_info", "")),
                op_name=op_name,
                flops=_number(args.get("flops", args.get("model_flops"))),
                bytes_accessed=_number(args.get("bytes_accessed")),
            )
        )
    out.sort(key=lambda op: op.start_ns)
    return out


def _device_times(event: RawEvent) -> tuple[float, float]:
    """An op's start and duration in ns: XLA:TPU's exact picosecond figures when the event
    carries them (the Chrome file's microseconds are rounded, the XPlane's are not), so both
    files of a run give the same times."""
    args = event.args
    offset, duration = args.get("device_offset_ps"), args.get("device_duration_ps")
    if offset is None or duration is None:
        return event.start_ns, event.duration_ns
    try:
        return int(offset) / 1000, int(duration) / 1000
    except (TypeError, ValueError):
        return event.start_ns, event.duration_ns


def _number(value: object) -> float | None:
    if value is None:
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def self_times(ops: Sequence[OpEvent]) -> list[float]:
    """Each op's duration (ns) less the time of the ops nested in it on the same line.

    Ops of one line are walked in start order with the stack of those still open: an op that
    starts inside the top one is its child, and the part of it that overlaps its parent is
    taken from the parent's self time.
    """
    result = [op.duration_ns for op in ops]
    by_line: dict[str, list[int]] = defaultdict(list)
    for index, op in enumerate(ops):
        by_line[op.line].append(index)
    for indexes in by_line.values():
        indexes.sort(key=lambda i: (ops[i].start_ns, -ops[i].duration_ns))
        open_: list[int] = []
        for i in indexes:
            op = ops[i]
            while open_ and ops[open_[-1]].end_ns <= op.start_ns:
                open_.pop()
            if open_:
                parent = ops[open_[-1]]
                result[open_[-1]] -= min(op.end_ns, parent.end_ns) - op.start_ns
            open_.append(i)
    return result
