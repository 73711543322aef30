"""``hloscope profile TRACE [TARGET]``: a profiler trace read offline as XProf's op profile."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ._app import CliError, cli
from ._count import count_option
from ._device import device_option
from ._output import Format, json_option, output_format, show
from ._target import open_target, say_note

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import DeviceSpec

__all__ = ["profile_command"]


def _profile(
    trace_spec: str,
    target: str | None,
    module: str | None,
    device,
    xplane: bool,
    trace_device: int | None,
):
    """Read one TRACE (its device ``trace_device``, and its TARGET) into an
    :class:`OpProfile`."""
    from ..analysis.op_profile import op_profile, read_trace
    from ..profile import TraceFormat

    prefer = TraceFormat.XPLANE if xplane else TraceFormat.CHROME
    trace = read_trace(trace_spec, prefer, trace_device=trace_device)
    if target is None:
        return op_profile(trace, module_name=module, device=device)
    # A SCRIPT.py:FUNCTION is compiled for the chip the trace ran on (--device, else the one
    # the trace names): this machine's own compile names its instructions otherwise, and no
    # op of the trace would be found in it.
    opened = open_target(target, device=device or _trace_chip(trace))
    names = [m.name for m in opened.modules("after")] if module is None else []
    ran = [m for m in trace.modules() if m]
    # The module the trace ran, when TARGET holds it; else TARGET's main module, and the
    # join says clearly that the two do not belong together.
    wanted = module or next((m for m in ran if m in names), None)
    choice = opened.choose_module("after", wanted)
    if choice.note and wanted is None:
        say_note(choice.note)
    return op_profile(trace, choice.module, device=device)


def _trace_chip(trace: Any) -> Any:
    """The registry's row for the chip the trace names (``TPU v5 Lite``), else ``None``."""
    from ..devices import parse_device
    from ..errors import HloscopeError

    kind = getattr(trace, "device_kind", "") or ""
    if not kind:
        return None
    try:
        return parse_device(kind)
    except HloscopeError:  # a chip the registry does not know: this machine's compile
        return None


@cli.command("profile")
@click.argument("trace")
@click.argument("target", required=False)
@count_option(
    "--top",
    "Show the N slowest kernels (and N rows of each group); --json and --csv give every kernel.",
    least=1,
)
@click.option(
    "--module",
    metavar="NAME",
    help="The module to profile when the trace holds several (default: TARGET's, else the "
    "one with the most device time); with TARGET, also the module of TARGET to join.",
)
@device_option(
    "The chip for the roofline (default: the one the trace names).",
    needs="memory_bytes_per_s",
)
@count_option(
    "--trace-device",
    "Of a trace of several devices, show the kernels of /device:TPU:N (/device:GPU:N); "
    "default the first (with --vs, of both traces). Every device's busy time is shown anyway.",
)
@click.option(
    "--vs",
    metavar="TRACE_B",
    help="Compare with a second trace (after a refactor): time per step per kernel and per "
    "source line.",
)
@click.option("--vs-target", metavar="TARGET_B", help="The module of TRACE_B to join.")
@click.option(
    "--xplane",
    is_flag=True,
    help="Of a folder holding both, read the *.xplane.pb (needs jax) instead of the "
    "*.trace.json.gz.",
)
@json_option(
    "Print JSON: {device, steps, device_time_s (per step), kernels: [{name, kind, time_s, "
    "share, occurrences, flops, hbm_bytes, bound, source, async}], by_source, async: [{start, "
    "done, opcode, pairs, span_s, hidden_s, exposed_s, hidden_share, bytes}], step_times: "
    "[{step, wall_s, busy_s, idle_share}]}; of a trace of several devices, also devices: "
    "[{name, ordinal, busy_ns, busy_per_step_ns, shown}]."
)
@click.option("--csv", "as_csv", is_flag=True, help="Print the kernel rows as CSV.")
@click.option("--wide", is_flag=True, help="Show every column at full width.")
def profile_command(
    trace: str,
    target: str | None,
    top: int | None,
    module: str | None,
    device: DeviceSpec | None,
    trace_device: int | None,
    vs: str | None,
    vs_target: str | None,
    xplane: bool,
    as_json: bool,
    as_csv: bool,
    wide: bool,
) -> None:
    """Read TRACE, a jax.profiler.trace folder, TensorBoard's plugins/profile/<run>/ folder or
    one *.trace.json.gz (read without jax) or *.xplane.pb (needs jax), as XProf's op profile:
    each kernel's device time per step, share and occurrences, then the time by kind, source
    line and op_name scope; first, each step's wall time against the device's busy time (a
    chip idle most of each step: the question is the host, not a kernel). Steps are the
    trace's step markers (jax.profiler.StepTraceAnnotation) that hold the module's ops, else
    the module's executions. Async pairs (copy-start/-done, slice-start/-done, collectives'
    -start/-done) get no bound: their transfer is shown as overlap, the span from start to
    done, how much other kernels hid and how much was exposed. With TARGET (the dump or
    HLO file of the module that ran), each op is joined to its instruction by name: fusion
    kind, FLOPs and HBM bytes, bound and roofline position, source line. A TARGET whose module
    is not the trace's is refused (exit 2), never joined. A trace of several devices (an SPMD
    program's chips) shows the first one's kernels (--trace-device N for another) and every
    device's busy time per step, with the slowest."""
    chosen_format = output_format(as_json, as_csv)
    if vs_target is not None and vs is None:
        raise CliError("--vs-target needs --vs TRACE_B")
    if vs is not None and as_csv:
        raise CliError("--csv shows one profile; with --vs use --json")
    chip = device.device if device is not None else None
    profile = _profile(trace, target, module, chip, xplane, trace_device)
    if vs is not None:
        other = _profile(vs, vs_target, module if vs_target else None, chip, xplane, trace_device)
        _show_comparison(profile, other, chosen_format, wide, top)
        return
    _show_profile(profile, chosen_format, wide, top)


def _show_profile(profile: Any, chosen_format: Format, wide: bool, top: int | None) -> None:
    """One profile as JSON, CSV (its kernel rows) or text."""
    from rich.console import Console

    from ..render.profile_text import profile_csv_rows, render_profile

    show(
        chosen_format,
        json=profile.to_dict,
        csv=lambda: profile_csv_rows(profile),
        text=lambda: render_profile(profile, Console(), wide=wide, top=top),
    )


def _show_comparison(
    profile: Any, other: Any, chosen_format: Format, wide: bool, top: int | None
) -> None:
    """Two profiles of one program (TRACE against --vs TRACE_B) joined, as JSON or text."""
    from rich.console import Console

    from ..analysis.op_profile import compare_profiles
    from ..render.profile_text import render_profile_comparison

    comparison = compare_profiles(profile, other)
    show(
        chosen_format,
        json=comparison.to_dict,
        text=lambda: render_profile_comparison(comparison, Console(), wide=wide, top=top),
    )
