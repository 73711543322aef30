"""``hloscope.benchmark(...)``: time a program (and its kernels), place it under the roofline.

::

    result = hloscope.benchmark("samples/hlo/transformer_train.after_optimizations.txt")
    result.median_s, result.roofline.bound
    result = hloscope.benchmark(step, params, batch, per_kernel=True)   # a function and its args
    result.to_dataframe()              # one row per kernel (or one for the program)
    result.to_dict()                   # the JSON of `hloscope bench --json`
    hloscope.compare("a.py:f", "b.py:f").verdict   # "B is 1.31x faster, 95% CI 1.27-1.35"

(``hloscope.benchmark`` is :func:`bench`, ``hloscope.compare`` :func:`compare`; both are also
``hloscope.bench.bench`` and ``hloscope.bench.compare``.)

:func:`bench` loads the program (:mod:`.program`), times it with the harness (:mod:`.timing`),
costs it with hloscope's cost model on the optimized module XLA made of it (FLOPs and bytes per run,
loop bodies times their trip counts), finds the device's peaks (:mod:`.peaks`) and places it under
the roofline (:mod:`hloscope.analysis.roofline`; on a TPU module the bytes are those through HBM,
:mod:`hloscope.analysis.hbm`). ``per_kernel=True`` also gives every kernel its time: by default
from a profiler trace of a few steps of the whole program (:mod:`.profile`, :mod:`.traced`: each
kernel's device time per step as it runs inside the program, joined to the kernel table), where
the trace holds the program's ops (TPU and GPU devices, XLA:CPU's host threads), with the
kernels' sum against the program's wall time and the gap said; ``isolated=True`` instead
extracts every kernel, compiles and times it alone (:mod:`.kernels`). :func:`compare` times two
programs interleaved and compares them (:mod:`.comparison`).

The JSON contract of :meth:`BenchResult.to_dict` (``hloscope bench --json``)::

    {"device", "module", "runs", "median_s", "min_s", "p10_s", "p90_s", "spread",
     "flops_per_s", "bytes_per_s",
     "roofline": {"peak_flops_per_s", "peak_bytes_per_s", "bound", "memory_level", "fraction",
                  "calibration", "recalibrated", "pending"},
     "per_kernel": null | {"timed", "steps", "device_time_s", "wall_s", "gap_s", "reason",
                           "async": [{"start", "done", "opcode", "pairs", "span_s", "hidden_s",
                                      "exposed_s", "hidden_share", "bytes"}]},
     "kernels": [{"name", "median_s", "share", "flops", "bytes", "bound", "source", "time_s",
                  "executions", "flops_per_s", "bytes_per_s", "roofline_fraction", "timed",
                  "below_s", "async"}],
     "skipped": [{"name", "reason"}]}

Times are seconds, rates per second; a value that is not known (no peak for this device, no
kernel timed) is ``null``. ``per_kernel.timed`` is ``"in program"`` (a trace of the whole
program: ``device_time_s`` the kernels' time per step, ``wall_s`` the program's median per
call, ``gap_s`` their difference: host, launch and idle time) or ``"alone"`` (each kernel
extracted and timed alone); ``reason`` says why no kernel has a time, when none has. A kernel's
``time_s`` is its time per program run, ``median_s`` one execution's (launch overhead taken
off when timed alone), ``executions`` how many per run, ``share`` its part of the kernels'
summed time per run, ``flops`` and ``bytes`` per execution (bytes through HBM on a TPU
module). A kernel below the clock's resolution has ``median_s`` and ``time_s`` ``null`` and
``below_s`` the time it is known to be under; no kernel is ever reported at 0 s. An async
op (``async``: a ``copy-start``, a ``slice-done``...) has no bound, rates or position: its event
is the issue of a transfer or the wait for it; ``per_kernel.async`` gives each async pair's
span from start to done per step, the part other kernels hid and the part exposed. A kernel
whose bytes all stay on chip and that does no FLOP is bound ``on-chip``, with no position.

``roofline.fraction`` is the program's position (1.0: at the roof). ``roofline.memory_level``
is the memory roof the program was judged against (``cache`` or
``memory``, see :mod:`hloscope.analysis.roofline`). For a measured CPU peak,
``roofline.calibration`` says how it was measured (per roof: rate, ``best_of`` runs, their
``spread``; ``llc_bytes``, the last-level cache size the arrays were sized by; the raises measured
programs caused), else it is ``null``; ``roofline.recalibrated`` lists the roofs this run raised
because the program (or, with ``--per-kernel``, a kernel) beat them, each ``{"roof", "from", "to",
"by", "at"}``; ``roofline.pending`` the roofs one measurement beat, waiting for a second to
confirm them before they are raised (:func:`hloscope.bench.peaks.raise_cpu_peak`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..analysis.peaks import DevicePeak, MemoryLevel, PeakChoice
from ..analysis.roofline import (
    Bound,
    Roofline,
    dominant_element_type,
    largest_kernel_bytes,
    roofline,
)
from ..units import format_bytes, format_count, format_duration
from .comparison import compare_samples, interleave
from .compile import device_label
from .errors import BenchError
from .kernels import KernelTiming, time_kernels
from .peaks import peak_for, raise_cpu_peak
from .profile import PROFILE_RUNS, ProgramProfile, kernel_times, profile_program
from .program import Program, program_of
from .result import (
    ALONE,
    CONTRACT_KEYS,
    IN_PROGRAM,
    KERNEL_KEYS,
    BenchComparison,
    BenchProgress,
    BenchResult,
)
from .timing import DEFAULT_BUDGET, DEFAULT_PRECISION, Timing, measure

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = [
    "BenchResult",
    "BenchComparison",
    "BenchError",
    "bench",
    "compare",
    "CONTRACT_KEYS",
    "KERNEL_KEYS",
    "BenchProgress",
    "IN_PROGRAM",
    "ALONE",
]

# ---- running ------------------------------------------------------------------------------------


def _peak(
    program: Program, report: Any, progress: BenchProgress | None
) -> tuple[DevicePeak | None, PeakChoice | None]:
    on_cpu = getattr(program.device, "platform", "") == "cpu"
    if progress is not None and on_cpu and peak_for(program.device, calibrate=False) is None:
        progress("calibrate", 0.0, "measuring this CPU's peak (once)")
    peak = peak_for(program.device)
    if peak is None:
        return None, None
    return peak, peak.choose(dominant_element_type(report))


def _unknown_cost_note(flagged: Sequence[str]) -> str | None:
    """What the roofline's work leaves out (ops of unknown cost, 0 FLOPs counted) or holds
    that XLA does not count (hloscope's estimates of Pallas kernels)."""
    from ..analysis.cost import (
        PALLAS_ESTIMATE_HINT,
        estimated_pallas_kernels,
        estimated_xla_kernels,
        unestimated_pallas_kernels,
    )

    estimated = estimated_pallas_kernels(flagged)
    xla_kernels = estimated_xla_kernels(flagged)  # XLA:TPU's own (online-softmax): estimated
    unknown = len(flagged) - estimated - xla_kernels
    parts = []
    if unknown:
        part = (
            f"the roofline counts 0 FLOPs for {unknown} op(s) of unknown cost (custom calls, "
            "unknown opcodes): the work, the bound and the fraction leave theirs out"
        )
        pallas = unestimated_pallas_kernels(flagged)
        if pallas:
            part += f", {pallas} of them Pallas kernel(s) given no cost estimate"
        parts.append(part)
    if estimated:
        parts.append(
            f"the work includes hloscope's estimate of the FLOPs of {estimated} Pallas kernel(s) "
            "given no cost estimate (from each kernel's jaxpr times its grid)"
        )
    if xla_kernels:
        parts.append(
            f"the work includes hloscope's estimate of the FLOPs of {xla_kernels} kernel(s) "
            "XLA:TPU wrote itself (from each kernel's Mosaic body times its grid)"
        )
    if not parts:
        return None
    if unestimated_pallas_kernels(flagged) or estimated:
        parts.append(PALLAS_ESTIMATE_HINT)
    return "; ".join(parts)


def _result(program: Program, timing: Timing, progress: BenchProgress | None) -> BenchResult:
    from ..analysis.fusions import fusion_report
    from ..analysis.hbm import above_memory_roof_note, executed_roof_bytes

    report = fusion_report(program.optimized)
    flops = report.summary.executed_flops
    nbytes = executed_roof_bytes(report.summary)  # on a TPU, the bytes through HBM
    working_set = largest_kernel_bytes(report)
    peak, choice = _peak(program, report, progress)
    line = roofline(flops, nbytes, timing.median_s, choice, working_set)
    raises: list[dict[str, Any]] = []
    if peak is not None and choice is not None and line.beaten and peak.measured:
        peak, raises = _raise_peak(peak, line, program.name)
        choice = peak.choose(choice.element_type)
        line = roofline(flops, nbytes, timing.median_s, choice, working_set)
    notes = list(program.notes) + list(timing.notes)
    if choice is not None and line.note:
        notes.append(line.note)
    if line.memory_level is not None and line.memory_level.value in line.beaten:
        notes.append(above_memory_roof_note(report.summary))
    notes.extend(_raise_note(r, "this program") for r in raises)
    if peak is not None and line.beaten:
        notes.append(_still_above_note(line, peak))
    unknown = _unknown_cost_note(report.summary.flagged)
    if unknown and choice is not None:
        notes.append(unknown)
    fresh_pages = _fresh_pages_note(program, peak, line)
    if fresh_pages:
        notes.append(fresh_pages)
    if peak is None:
        kind = getattr(program.device, "device_kind", "?")
        notes.append(f"no peak figures for {kind}: the roofline is left out")
    return BenchResult(
        device=device_label(program.device),
        module=program.name,
        timing=timing,
        flops=int(flops),
        bytes=int(nbytes),
        roofline=line,
        peak=peak,
        notes=notes,
        recalibrated=raises,
        working_set=working_set,
    )


# glibc's largest mmap threshold: a buffer above it is mapped anew, page by page, on every
# allocation (the CPU client allocates each output afresh on every run).
_FRESH_PAGES_BYTES = 32 << 20
_FAR_BELOW_ROOF = 0.25


def _fresh_pages_note(program: Program, peak: DevicePeak | None, line: Roofline) -> str:
    """Why a memory-bound CPU program with a big output is far below the memory roof: its
    output's pages are faulted in on every run, which costs more than the traffic itself."""
    if peak is None or not peak.measured or line.bound is not Bound.MEMORY:
        return ""
    if line.memory_level is not MemoryLevel.MEMORY or (line.fraction or 1.0) >= _FAR_BELOW_ROOF:
        return ""
    entry = program.optimized.entry
    if entry is None or entry.root is None:
        return ""
    outputs = entry.root.shape.leaves()
    biggest = max((leaf.byte_size or 0 for leaf in outputs), default=0)
    if biggest < _FRESH_PAGES_BYTES:
        return ""
    return (
        f"far below the memory roof: an output of {format_bytes(biggest)} is a fresh buffer "
        "on every run, and paging it in as it is written likely costs more than the memory "
        "traffic; donating an input of its size (jax.jit(..., donate_argnums=...)) lets XLA "
        "write the output into it"
    )


def _raise_peak(
    peak: DevicePeak, line: Roofline, by: str
) -> tuple[DevicePeak, list[dict[str, Any]]]:
    """``peak`` with the roofs ``line`` beat raised to its rates (cached), and the raises."""
    beaten = line.beaten
    return raise_cpu_peak(
        peak,
        flops=(line.element_type or "f32", line.flops_per_s or 0.0)
        if "compute" in beaten
        else None,
        bytes_per_s=line.bytes_per_s if "memory" in beaten else None,
        cache_bytes_per_s=line.bytes_per_s if "cache" in beaten else None,
        by=by,
    )


def _still_above_note(line: Roofline, peak: DevicePeak) -> str:
    """Why a position above 100% of a roof stands: which figure is in doubt."""
    roofs = " and ".join(line.beaten)
    if peak.measured:
        return (
            f"above the calibrated {roofs} roof: this CPU's measured peak is the figure in "
            "doubt (the calibration ran while the machine was busier); one measurement above "
            "a roof is recorded, and a second confirms it and raises the roof"
        )
    if "compute" in line.beaten:
        return (
            f"above the {peak.name} compute roof: the FLOP figure (XLA's cost rules) is in "
            "doubt, or the element type's peak is not the one the device ran at"
        )
    return f"above the {peak.name} {roofs} roof: the byte figure is in doubt"


def _raise_note(entry: dict[str, Any], who: str) -> str:
    unit = "FLOP/s" if entry["roof"].startswith("compute") else "B/s"
    return (
        f"recalibrated: {who} ran at {format_count(entry['to'])} {unit}, above the "
        f"calibrated {entry['roof']} roof of {format_count(entry['from'])} {unit}; the cached "
        "CPU peak is raised to it (the calibration ran while this machine was busier)"
    )


def _recalibrate_from_kernels(result: BenchResult) -> None:
    """Kernels timed alone never raise a measured peak: a net time is the difference of two
    noisy medians (the kernel's and the launch's), and letting one kernel's raise the cached
    peak moved every later program's position (measured: 61%, 36%, 39% across identical
    runs). A kernel above a roof keeps no share of it (:func:`_drop_untrusted_shares`)."""
    _drop_untrusted_shares(result)


def _drop_untrusted_shares(result: BenchResult) -> None:
    """A kernel timed alone above the roofs has a rate that is mostly the launch overhead's
    subtraction, or a peak that underrates the machine: its share of the roof is left out, and
    said so."""
    dropped = []
    for kernel in result.kernels:
        if kernel.roofline.beaten:
            kernel.roofline = dataclasses.replace(kernel.roofline, fraction=None)
            dropped.append(kernel.name)
    if dropped:
        named = ", ".join(dropped[:3]) + (", ..." if len(dropped) > 3 else "")
        result.notes.append(
            f"{len(dropped)} kernel(s) ({named}) timed alone ran above a roof: the net time "
            "(the launch overhead taken off) is the figure in doubt, so their share of the "
            "roof is left out (kernels timed alone never raise the peak)"
        )


def _stage(progress: BenchProgress | None, stage: str) -> Callable[[float, str], None] | None:
    if progress is None:
        return None
    return lambda fraction, note: progress(stage, fraction, note)


def _kernel_budget(budget: float, kernel_budget: float | None) -> float:
    if kernel_budget is not None:
        if kernel_budget <= 0:
            raise BenchError(f"the per-kernel budget must be positive, not {kernel_budget:g} s")
        return kernel_budget
    return min(1.0, max(0.02, budget / 100))


def _add_kernels(
    result: BenchResult,
    program: Program,
    *,
    precision: float,
    budget: float,
    profile: bool,
    seed: int,
    progress: BenchProgress | None,
) -> None:
    def on_kernel(index: int, total: int, name: str) -> None:
        if progress is not None:
            progress("kernels", index / max(1, total), f"{index}/{total} {name}")

    run = time_kernels(
        program.kernels_module,
        program.device,
        budget=budget,
        precision=max(precision, 0.05),
        peak=result.peak,
        seed=seed,
        progress=on_kernel,
    )
    result.per_kernel = True
    result.timed = ALONE
    result.kernels = list(run.kernels)
    result.skipped = run.skipped
    result.launch_s = run.launch_s
    below = [k.name for k in run.kernels if not k.measurable]
    if below:
        result.notes.append(
            f"{len(below)} kernel(s) ({', '.join(below[:3])}{', ...' if len(below) > 3 else ''}) "
            f"ran alone within the launch overhead's noise ({_seconds(run.floor_s)}): "
            "below resolution, so no time is given, only that bound"
        )
    _recalibrate_from_kernels(result)
    if profile:
        _add_kernel_profile(result, program, run.kernels, progress)


def _add_kernel_profile(
    result: BenchResult,
    program: Program,
    kernels: list[KernelTiming],
    progress: BenchProgress | None,
) -> None:
    """Each kernel timed alone also gets its time from a profile of the whole program."""
    if progress is not None:
        progress("profile", 0.0, "tracing the program")
    from .extract import kernel_instructions

    names = [inst.name for inst in kernel_instructions(program.optimized)]
    found = kernel_times(program.work, names, module=program.optimized)
    result.profile = found
    if not found.available:
        return
    for kernel in kernels:
        kernel.profile_s = found.times.get(kernel.name)
    if program.optimized is not program.kernels_module:
        matched = sum(k.profile_s is not None for k in kernels)
        if matched < len(kernels):
            result.notes.append(
                f"profile: {matched} of {len(kernels)} kernels matched by name "
                "(XLA recompiled the program, so some kernels have other names there)"
            )


def _seconds(value: float) -> str:
    """``0.00123`` -> ``1.23 ms`` (the renderers' wording, for notes)."""
    return format_duration(value)


def _add_traced_kernels(
    result: BenchResult, program: Program, *, steps: int, progress: BenchProgress | None
) -> None:
    """Every kernel's time inside the program, from a trace of ``steps`` steps of it
    (:mod:`.profile`, :mod:`.traced`), and what the trace says beside the wall time."""
    from .traced import traced_kernels

    if progress is not None:
        progress("profile", 0.0, "tracing the program")
    found = profile_program(program.work, program.optimized, runs=steps)
    result.per_kernel = True
    result.timed = IN_PROGRAM
    result.traced = found
    if progress is not None:
        progress("profile", 1.0, "")
    if not found.available or found.profile is None:
        result.notes.append(
            f"no kernel times from the trace: {found.reason} (--isolated times each kernel "
            "alone instead)"
        )
        return
    kernels = traced_kernels(found.profile, program.optimized, result.peak)
    result.kernels = list(kernels)
    result.notes.extend(_trace_notes(result, found))
    above = [k for k in kernels if k.roofline.beaten]
    if above:
        result.notes.append(_kernels_above_note(above, result.peak))
    below = [k.name for k in kernels if not k.measurable]
    if below:
        result.notes.append(
            f"{len(below)} op(s) ({', '.join(below[:3])}) took no measurable time in the "
            "trace (below its 1 ns resolution): no time is given for them"
        )


def _trace_notes(result: BenchResult, found: ProgramProfile) -> list[str]:
    """The kernels' sum against the wall time, and what the trace itself notes."""
    assert found.profile is not None
    device = found.device_time_s
    wall = result.timing.median_s
    notes = []
    where = "device" if found.profile.device.startswith("/device:") else "host threads'"
    if wall > 0 and device <= wall:
        notes.append(
            f"kernels: {_seconds(device)} of {where} time per step in a {_seconds(wall)} call "
            f"({device / wall:.0%}); the other {_seconds(wall - device)} is the host "
            "dispatching and launching the call, waiting for its result, and the device idle "
            f"between kernels ({found.steps} steps traced)"
        )
    elif wall > 0:
        traced = f"{_seconds(found.wall_s)} each" if found.wall_s else "longer"
        notes.append(
            f"kernels: {_seconds(device)} of {where} time per step, more than the program's "
            f"{_seconds(wall)} median call: the {found.steps} traced steps took {traced} "
            "(the profiler's own cost), and kernels may run on several threads at once"
        )
    for note in found.profile.notes:
        if "roof" not in note and "--device" not in note:
            notes.append(f"trace: {note}")
    return notes


def _kernels_above_note(above: list[Any], peak: DevicePeak | None) -> str:
    """Kernels above a roof inside the program: which figure is in doubt."""
    names = ", ".join(k.name for k in above[:3]) + (", ..." if len(above) > 3 else "")
    memory = [k for k in above if set(k.roofline.beaten) & {"memory", "cache"}]
    if peak is not None and peak.measured:
        why = (
            "this CPU's measured peak is the figure in doubt (kernels inside a program find "
            "their operands in cache more often than the calibration's streams did)"
        )
    elif memory:
        why = (
            "their byte figure is in doubt (XLA's cost rules at the kernel boundary, on-chip "
            "operands already left out, can count bytes read from on-chip memory or cache)"
        )
    else:
        why = "their FLOP figure (XLA's cost rules) is in doubt"
    return f"{len(above)} kernel(s) ({names}) are above 100% of a roof: {why}"


def _loader(
    device: Any, seed: int, module: str | None, refresh: bool
) -> Callable[[Any, Sequence[Any], dict[str, Any] | None], Program]:
    """How :func:`bench` and :func:`compare` turn what they are given into a :class:`Program`
    (``module`` and ``refresh`` apply to TARGETs only)."""
    options = {"device": device, "seed": seed}
    target_options = {**options, "module": module, "refresh": refresh}

    def load(value: Any, value_args: Sequence[Any], value_kwargs: dict[str, Any] | None) -> Program:
        from ..capture.target import Target
        from ..hlo.model import Module

        if isinstance(value, (str, os.PathLike, Target)):
            return program_of(value, **target_options)
        if isinstance(value, (Program, Module)):
            return program_of(value, **options)
        return program_of(value, value_args, kwargs=value_kwargs, **options)

    return load


def bench(
    target: Any,
    *args: Any,
    device: Any = None,
    precision: float = DEFAULT_PRECISION,
    budget: float = DEFAULT_BUDGET,
    per_kernel: bool = False,
    isolated: bool = False,
    kernel_budget: float | None = None,
    profile: bool = True,
    profile_steps: int = PROFILE_RUNS,
    module: str | None = None,
    refresh: bool = False,
    seed: int = 0,
    kwargs: dict[str, Any] | None = None,
    progress: BenchProgress | None = None,
) -> BenchResult:
    """Time ``target`` on ``device`` (see the module docstring).

    ``target`` is a TARGET string or path, a :class:`~hloscope.capture.target.Target`, a
    parsed :class:`~hloscope.hlo.model.Module`, or a function called with ``*args`` (and
    ``kwargs``). ``precision`` is the relative precision asked of the median (0.02: 2%),
    ``budget`` the seconds of timed runs allowed for it. ``per_kernel`` gives every kernel its
    time inside the program from a trace of ``profile_steps`` steps; with ``isolated`` each
    kernel is extracted and timed alone instead, ``kernel_budget`` seconds each (default
    ``budget / 100``, between 0.02 and 1 s), and ``profile`` adds the trace's times beside
    them. ``module`` and ``refresh`` apply to TARGETs. Two programs against each other:
    :func:`compare`.
    """
    program = _loader(device, seed, module, refresh)(target, args, kwargs)
    result = _result(program, _time_program(program, precision, budget, progress), progress)
    if per_kernel and not isolated:
        _add_traced_kernels(result, program, steps=max(1, profile_steps), progress=progress)
    elif per_kernel:
        _add_kernels(
            result,
            program,
            precision=precision,
            budget=_kernel_budget(budget, kernel_budget),
            profile=profile,
            seed=seed,
            progress=progress,
        )
    return result


def _time_program(
    program: Program, precision: float, budget: float, progress: BenchProgress | None
) -> Timing:
    """The whole program timed by the harness, to ``precision`` within ``budget``."""
    work = program.work
    return measure(
        work.fn,
        work.args,
        prepare=work.prepare,
        precision=precision,
        budget=budget,
        progress=_stage(progress, "program"),
    )


def _split_call(value: Any) -> tuple[Any, tuple[Any, ...]]:
    """``(fn, *args)`` as the function and its arguments; anything else as it is, with none."""
    if isinstance(value, tuple) and value and callable(value[0]):
        return value[0], value[1:]
    return value, ()


def compare(
    a: Any,
    b: Any,
    *,
    device: Any = None,
    precision: float = DEFAULT_PRECISION,
    budget: float = DEFAULT_BUDGET,
    module: str | None = None,
    refresh: bool = False,
    seed: int = 0,
    progress: BenchProgress | None = None,
) -> BenchComparison:
    """Time ``a`` and ``b`` interleaved on ``device`` and say whether B is faster, slower or not
    significantly different (:mod:`.comparison`: bootstrap interval, verdict).

    Each of ``a`` and ``b`` is what :func:`bench` takes, a function with its arguments given
    as a tuple ``(fn, *args)``::

        hloscope.compare("a.py:f", "b.py:f").verdict     # "B is 1.31x faster, 95% CI 1.27-1.35"
        hloscope.compare((f, x), (f, x_large)).ratio     # B's time over A's

    ``precision`` and ``budget`` are those of :func:`bench`, for both programs together.
    """
    load = _loader(device, seed, module, refresh)
    program_a = load(*_split_call(a), None)
    program_b = load(*_split_call(b), None)
    timing_a, timing_b = interleave(
        program_a.work,
        program_b.work,
        precision=precision,
        budget=budget,
        seed=seed,
        progress=_stage(progress, "compare"),
    )
    result_a = _result(program_a, timing_a, progress)
    result_b = _result(program_b, timing_b, progress)
    return BenchComparison(result_a, result_b, compare_samples(timing_a, timing_b))
