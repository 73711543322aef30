"""``hloscope diff A B``: the kernels XLA made of two programs and their peak memory, compared;
``--fail-on`` for CI."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.diff import KernelDiff
    from ..analysis.diff.environment import EnvironmentDiff
    from ..analysis.memory_diff import MemoryDiff
    from ..capture.target import Target
    from ..devices import DeviceSpec
    from ..hlo.model import Module

from ..errors import ExitStatus, HloscopeError
from ._app import CliError, cli
from ._count import count_option
from ._device import device_option
from ._fail_on import fail_on_options
from ._output import Format, json_option, output_format, per_module, show
from ._target import (
    all_modules_option,
    compile_fields,
    module_option,
    open_module,
    open_target,
    refresh_option,
)

__all__ = ["diff_command", "parse_metrics"]


def parse_metrics(text: str | None) -> list[str]:
    """``"kernels,bytes"`` -> ``["kernels", "bytes"]``; ``click.BadParameter`` on a bad one.
    Besides the kernel metrics, ``peak`` compares the peak memory."""
    from ..analysis.diff import METRICS
    from ..analysis.memory_diff import PEAK_METRIC

    if not text:
        return []
    known = (*METRICS, PEAK_METRIC)
    names = [part.strip().lower() for part in text.split(",") if part.strip()]
    bad = [n for n in names if n not in known]
    if bad:
        raise click.BadParameter(
            f"unknown metric {bad[0]!r} (choose from {', '.join(known)})", param_hint="--fail-on"
        )
    return list(dict.fromkeys(names))


@cli.command("diff")
@click.argument("a")
@click.argument("b")
@json_option(
    "Print JSON (schema hloscope.diff/1): module, a and b (their totals), delta, "
    "no_change, counts, changes, lines, replaced_lines (where code was replaced: old lines "
    "-> new lines), memory (the peaks, the buffers that left and joined "
    "the peak, bytes at the peak by source line and scope); communication (the collectives "
    "per kind, when either side has some or --device is given); environment (the versions, "
    "the compile time per stage and the passes of each side, when the versions differ or "
    "--python-a/--python-b is given)."
)
@fail_on_options(
    "Comma-separated kernels,bytes,flops,transcendentals,peak: exit 3 when B has more "
    "than A (peak: B's peak memory).",
    "With --fail-on: tolerate growth up to PCT percent.",
)
@count_option(
    "--limit",
    "List at most N changes and N source lines (0: all).",
    default=30,
)
@device_option(
    "Compile SCRIPT.py:FUNCTION sides for this device and price both sides' collectives on "
    "it: exposed communication and the step, A against B.",
    needs="interconnect",
)
@device_option(
    "Compile a SCRIPT.py:FUNCTION A for this device (and price A's collectives on it): one "
    "function on two chips or slices, with --device-b.",
    flag="--device-a",
    dest="device_a",
)
@device_option(
    "Compile a SCRIPT.py:FUNCTION B for this device (and price B's collectives on it).",
    flag="--device-b",
    dest="device_b",
)
@click.option(
    "--python-a",
    metavar="PYTHON",
    help="Capture A, a SCRIPT.py:FUNCTION, with this interpreter's own hloscope, jax, jaxlib "
    "and libtpu (another virtual environment's bin/python, which needs hloscope installed), "
    "and put the two environments side by side first: the versions, the compile time per "
    "stage and the passes whose time changed most.",
)
@click.option(
    "--python-b",
    metavar="PYTHON",
    help="The same for B.",
)
@module_option
@all_modules_option
@refresh_option
def diff_command(
    a: str,
    b: str,
    as_json: bool,
    fail_on: str | None,
    threshold: float,
    limit: int,
    device: DeviceSpec | None,
    device_a: DeviceSpec | None,
    device_b: DeviceSpec | None,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    python_a: str | None,
    python_b: str | None,
) -> None:
    """Compare the kernels XLA made of A (before) and B (after): which kernels split, merged,
    changed, appeared or went away, from which source lines, and the change in kernels, bytes
    through memory and FLOPs (kernels paired by where they came from and what they compute:
    an attention kernel is not paired with a layer-norm kernel), and which old lines code
    replaced became which new ones; then the peak memory of each, and the buffers that left or
    joined the peak (XLA's buffer assignment when a dump has it, else hloscope's simulation,
    as ``hloscope memory``); then, when either side has collectives, how many of each kind
    and their bytes (two shardings of one model), with --device their exposed time and the
    step. A and B are TARGETs; of several modules, each side stands for its
    main module (--module picks the same-named one on both sides; --all-modules compares
    every module of A with the module of the same name in B, in order).

    When A and B were compiled under other versions of jax, jaxlib or libtpu (two capture
    folders, each made by `hloscope capture SCRIPT.py:FUNCTION -o DIR` in its environment, or
    a side captured here by another interpreter with --python-a/--python-b), an environment
    part comes first: the versions that changed, the compile time per stage (trace, lower,
    HLO passes, backend) A against B with the ratio, and the passes whose time changed most.

    Exit status: 0 compared (even if different), 1 error, 2 unreadable HLO, 3 B is worse than
    A on a --fail-on metric (beyond --threshold); use it in CI."""
    chosen = output_format(as_json)
    metrics = parse_metrics(fail_on)
    devices = (device_a or device, device_b or device)
    opened = partial(_open_side, module=module, all_modules=all_modules, refresh=refresh)
    targets, (modules_a, modules_b) = _open_sides((a, b), (python_a, python_b), devices, opened)
    pairs, unpaired = _pair(modules_a, modules_b, all_modules)
    labels = None if all_modules else (a, b)  # one pair: the sides are the TARGETs given
    compared = [_compare(side_a, side_b, targets, devices, labels) for side_a, side_b in pairs]
    for each in compared:
        each.regressions = _regressions(each, metrics, threshold)
        each.environment = _environment(each, *targets, bool(python_a or python_b))
    _show(chosen, compared, unpaired, targets, (metrics, threshold), all_modules, limit)
    _exit_on_regressions(compared, all_modules)


def _open_sides(
    specs: tuple[str, str],
    pythons: tuple[str | None, str | None],
    devices: tuple[DeviceSpec | None, DeviceSpec | None],
    opened: Callable[..., tuple[Target, list[Module]]],
) -> tuple[tuple[Target, Target], tuple[list[Module], list[Module]]]:
    """A's and B's targets, and their modules: both checked to be there before either is captured,
    a side with --python-a/--python-b captured first by that interpreter."""
    from ..capture.target import check_target_exists

    for spec in specs:
        check_target_exists(spec)
    side_a = _in_python(specs[0], pythons[0], devices[0], "--python-a")
    side_b = _in_python(specs[1], pythons[1], devices[1], "--python-b")
    target_a, modules_a = opened(side_a, device=devices[0])
    target_b, modules_b = opened(side_b, device=devices[1])
    return (target_a, target_b), (modules_a, modules_b)


def _show(
    chosen: Format,
    compared: list[_Compared],
    unpaired: list[dict[str, Any]],
    targets: tuple[Target, Target],
    fail_on: tuple[list[str], float],
    all_modules: bool,
    limit: int,
) -> None:
    """The pairs compared as JSON (one object, or one per module with --all-modules, with
    what compiled each side and the --fail-on metrics) or text."""
    compiled = {"a": compile_fields(targets[0]), "b": compile_fields(targets[1])}
    metrics, threshold = fail_on
    payloads = partial(_payload, compiled=compiled, metrics=metrics, threshold=threshold)
    show(
        chosen,
        json=lambda: per_module(
            [payloads(each) for each in compared], all_modules, unpaired=unpaired
        ),
        text=lambda: _print_text(compared, unpaired, all_modules, limit),
    )


def _exit_on_regressions(compared: list[_Compared], all_modules: bool) -> None:
    """Each --fail-on line B is worse on, on stderr, and exit status 3 when there is one."""
    regressions = [(each.a.name, line) for each in compared for line in each.regressions]
    if regressions:
        for name, line in regressions:
            where = f" (module {name})" if all_modules else ""
            click.echo(f"hloscope diff: B is worse than A{where}: {line}", err=True)
        sys.exit(int(ExitStatus.CHECK_FAILED))


@dataclass
class _Compared:
    """One pair of modules compared: the kernel diff, the peak memory (or why it could not be
    compared), the collectives, and the --fail-on lines B is worse on."""

    a: Module
    b: Module
    kernels: KernelDiff
    memory: MemoryDiff | None
    why: str
    communication: dict[str, Any] | None
    regressions: list[str] = field(default_factory=list)
    environment: EnvironmentDiff | None = None


def _compare(
    side_a: Module,
    side_b: Module,
    targets: tuple[Target, Target],
    devices: tuple[DeviceSpec | None, DeviceSpec | None],
    labels: tuple[str, str] | None,
) -> _Compared:
    from ..analysis.diff import diff

    kernels = diff(side_a, side_b, labels=labels)
    memory, why = _memory(side_a, targets[0], side_b, targets[1], _memory_lines(kernels))
    communication = _communication(side_a, side_b, *devices)
    return _Compared(side_a, side_b, kernels, memory, why, communication)


def _regressions(each: _Compared, metrics: list[str], threshold: float) -> list[str]:
    """What B is worse on than A, of ``metrics``, beyond ``threshold``."""
    from ..analysis.memory_diff import PEAK_METRIC
    from ..render.diff_text import regression_lines, regression_text

    kernel_metrics = [m for m in metrics if m != PEAK_METRIC]
    lines = regression_lines(each.kernels, kernel_metrics, threshold) if kernel_metrics else []
    if PEAK_METRIC in metrics:
        if each.memory is None:
            raise CliError(f"--fail-on peak: the peak memory cannot be compared: {each.why}")
        grew = each.memory.regression(threshold)
        lines += [regression_text(grew)] if grew is not None else []
    return lines


def _payload(
    each: _Compared, compiled: dict[str, dict[str, Any]], metrics: list[str], threshold: float
) -> dict[str, Any]:
    from ..render.diff_text import diff_to_dict

    payload = {"module": {"a": each.a.name, "b": each.b.name}, **diff_to_dict(each.kernels)}
    if each.environment is not None:
        payload["environment"] = each.environment.to_dict()
    if compiled["a"] or compiled["b"]:
        payload["compiled_for"] = {
            side: fields.get("compiled_for") for side, fields in compiled.items()
        }
    payload["memory"] = each.memory.to_dict() if each.memory is not None else {"error": each.why}
    if each.communication is not None:
        payload["communication"] = each.communication
    if metrics:
        payload["fail_on"] = {
            "metrics": metrics,
            "threshold": threshold,
            "regressions": each.regressions,
        }
    return payload


def _print_text(
    compared: list[_Compared], unpaired: list[dict[str, Any]], all_modules: bool, limit: int
) -> None:
    from rich.console import Console

    from ..render.diff_text import communication_lines
    from ..render.diff_view import render_diff, render_memory_diff

    console = Console()
    for i, each in enumerate(compared):
        if all_modules:
            if i:
                console.print()
            console.print(f"module {each.a.name}", style="bold", markup=False)
        if each.environment is not None:
            _print_environment(each.environment, console)
        render_diff(each.kernels, console, limit=limit)
        render_memory_diff(each.memory, console, limit=limit, note=each.why)
        if each.communication is not None:
            steps = each.communication.get("step")
            pair = (steps["a"], steps["b"]) if steps else None
            for line in communication_lines(each.communication, pair):
                console.print(line, markup=False, highlight=False)
    for only in unpaired:
        console.print(f"only in {only['side']}: module {only['module']}", markup=False)


def _open_side(
    spec: str,
    *,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    device: DeviceSpec | None = None,
) -> tuple[Target, list[Module]]:
    """The target ``spec`` names (a function compiled for ``device``) and its modules to
    compare (every one with ``all_modules``, else the main one): the target is kept to read
    each module's memory from its dump."""
    if all_modules and module is not None:
        raise CliError("--module and --all-modules exclude each other")
    target = open_target(spec, refresh=refresh, device=device)
    if all_modules:
        return target, target.modules("after")
    return target, [open_module(target, module=module).module]


def _memory_lines(result: KernelDiff) -> dict[str, str]:
    """Each source line of A -> the line of B its buffers are compared under: the line it
    became (one to one), and for code replaced by one line of B (a hand-written attention
    by its library call), that line."""
    lines = dict(result.line_pairs)
    for old, new in result.replaced_lines:
        if len(new) == 1:
            for where in old:
                lines.setdefault(where, new[0])
    return lines


def _memory(
    side_a: Module,
    target_a: Target,
    side_b: Module,
    target_b: Target,
    lines: dict[str, str],
) -> tuple[MemoryDiff | None, str]:
    """The peak memory of the two modules compared (A's source lines through ``lines``, the
    kernel diff's line pairs), or ``None`` and why it could not be: the kernel diff stands
    without it."""
    from ..analysis.memory_diff import memory_diff
    from ..drivers.memory import memory_of_side

    try:
        memory_a, memory_b = memory_of_side(side_a, target_a), memory_of_side(side_b, target_b)
        return memory_diff(memory_a, memory_b, lines), ""
    except HloscopeError as error:
        return None, error.one_line()


def _communication(
    side_a: Module, side_b: Module, device_a: DeviceSpec | None, device_b: DeviceSpec | None
) -> dict[str, Any] | None:
    """The collectives of the two modules compared (each priced on its side's device, with
    the step of each), or ``None`` when neither has one and no device is given."""
    from ..analysis.diff import communication_diff
    from ..analysis.step_estimate import communication_of, has_collectives

    priced = device_a is not None or device_b is not None
    if not priced and not (has_collectives(side_a) or has_collectives(side_b)):
        return None
    a, b = communication_of(side_a, device_a), communication_of(side_b, device_b)
    out = communication_diff(a.result, b.result).to_dict()
    if priced:
        out["step"] = {
            "a": a.step.to_dict() if a.step is not None else None,
            "b": b.step.to_dict() if b.step is not None else None,
        }
    return out


def _pair(modules_a: list, modules_b: list, by_name: bool) -> tuple[list, list[dict]]:
    """Pairs of modules to compare, and the modules left without a partner.

    Without ``by_name`` each side is one module. With it, the k-th module called X in A is
    compared with the k-th module called X in B (a function compiled three times in both).
    """
    if not by_name:
        return [(modules_a[0], modules_b[0])], []
    pending: dict[str, list] = {}
    for m in modules_b:
        pending.setdefault(m.name, []).append(m)
    pairs, unpaired = [], []
    for m in modules_a:
        partners = pending.get(m.name)
        if partners:
            pairs.append((m, partners.pop(0)))
        else:
            unpaired.append({"side": "A", "module": m.name})
    unpaired += [{"side": "B", "module": m.name} for ms in pending.values() for m in ms]
    return pairs, unpaired


# ---- two environments (--python-a/--python-b, or capture folders of two versions) ---------------


def _in_python(spec: str, python: str | None, device: DeviceSpec | None, flag: str) -> str:
    """``spec`` itself, or with ``python`` the folder that interpreter's hloscope captured the
    ``SCRIPT.py:FUNCTION`` into (removed when the command ends)."""
    if python is None:
        return spec
    import tempfile
    from pathlib import Path

    from ..capture.target import is_function_spec
    from ..drivers.environment import capture_in_python

    if not is_function_spec(spec):
        raise CliError(f"{flag} compiles a SCRIPT.py:FUNCTION in another environment: {spec}")
    folder = tempfile.TemporaryDirectory(prefix="hloscope-environment-")
    click.get_current_context().call_on_close(folder.cleanup)
    where = str(device) if device is not None else None
    if sys.stderr.isatty():  # its compile may take minutes, and that interpreter shows nothing
        from ._target import say_note

        say_note(f"compiling {spec} with {python}")
    return str(capture_in_python(python, spec, Path(folder.name) / "side", device=where))


def _environment(
    each: _Compared, target_a: Target, target_b: Target, asked: bool
) -> EnvironmentDiff | None:
    """The two sides' environments compared, when asked (another interpreter) or when the
    versions they recorded differ; ``None`` otherwise."""
    from ..analysis.diff.environment import versions_differ
    from ..drivers.environment import compare_environments, environment_of, target_versions

    if not asked and not versions_differ(target_versions(target_a), target_versions(target_b)):
        return None  # the compile times are read only for the section
    side_a, side_b = environment_of(target_a, each.a.name), environment_of(target_b, each.b.name)
    return compare_environments(side_a, side_b)


def _print_environment(result: EnvironmentDiff, console: Any) -> None:
    from ..render.environment_text import environment_lines

    for line in [*environment_lines(result, width=console.width), ""]:
        console.print(line, markup=False, highlight=False)
