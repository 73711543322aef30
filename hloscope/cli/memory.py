"""``hloscope memory TARGET``: the peak, what fills it, the timeline and what would free it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from ._app import CliError, cli
from ._device import device_option
from ._output import Format, json_option, output_format, per_module, show
from ._target import all_modules_option, module_option, open_target, refresh_option

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.memory.scale_fit import ScaleSpec
    from ..devices import DeviceSpec

__all__ = ["memory_command"]


@cli.command("memory")
@click.argument("target")
@json_option(
    "Print JSON: {module, source, peak_bytes, breakdown, peak_at, live_at_peak, timeline, "
    "savings, device, notes, fills}; device.verdict is fits, fits_above_limit or does_not_fit."
)
@module_option
@all_modules_option
@refresh_option
@click.option(
    "-o",
    "--output",
    "picture",
    type=click.Path(dir_okay=False),
    help="Also write the timeline picture (live bytes over the schedule, peak marked) to this "
    ".svg file.",
)
@device_option(
    "Judge the peak against this device's memory (per chip; a wrong name lists them). On a "
    "TPU the peak is also padded to TPU tiles (each buffer live at the peak at its padded "
    "size) and that padded peak is judged, with the arrays padding grows by over 25%.",
    needs="memory_bytes",
)
@click.option(
    "--limit",
    default="80%",
    show_default=True,
    help="The share of --device's memory the peak may use (the runtime and fragmentation take "
    "the rest).",
)
@click.option(
    "--fail-over-limit",
    is_flag=True,
    help="Exit with status 3 when the peak is above --limit: fits above the limit, or does not "
    "fit (default: 0 either way; the verdict is in the text and in --json's device.verdict).",
)
@click.option(
    "--scale",
    "scale_spec",
    metavar="ARG:DIM[:S1,S2,S3]",
    help="For SCRIPT.py:FUNCTION: compile the function for --device (required) at two sizes "
    "of dimension DIM of argument ARG (name or position; default the example's size n and 2n), "
    "fit peak = a + b*size, check it at a third (3n), and print the largest size that fits "
    "under --limit. Each size compiles as the target does, by the backend the device's row "
    "picks (XLA:TPU for a TPU), and its peak is judged as the target's is.",
)
def memory_command(
    target: str,
    as_json: bool,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    picture: str | None,
    device: DeviceSpec | None,
    limit: str,
    fail_over_limit: bool,
    scale_spec: str | None,
) -> None:
    """Show TARGET's peak memory: what fills it (arguments, outputs, temporaries, XLA:TPU's
    reservation, each named), the buffers live at the peak by source line and scope, a
    timeline, and what would free memory, as actions with totals. The source is said: XLA's
    buffer assignment when the dump has it, else hloscope's simulation of the module. With
    --device, whether the peak fits: "fits", "fits, above your 80% limit" (a warning), or
    "does NOT fit" (XLA:TPU refused the compile, or the peak is above the whole memory); and,
    with --scale, how large an argument can grow."""
    from ..drivers.memory import memory_results

    chosen = output_format(as_json)
    _refuse_mixed(module, all_modules, picture, scale_spec, device, fail_over_limit)
    parsed = _parse_scale(scale_spec)  # a bad --scale is said before anything compiles
    opened = open_target(
        target,
        refresh=refresh,
        device=device,
        warm=("hloscope.analysis.memory", "hloscope.render.memory_text", "hloscope.dump.buffers"),
    )
    if scale_spec is not None and opened.function is None:
        raise CliError("--scale compiles a function: give a SCRIPT.py:FUNCTION target")
    results = memory_results(opened, module=module, all_modules=all_modules)
    if device is not None:
        _fit_device(results, device, limit)
    scale = _scale(target, parsed, device, limit, refresh) if parsed is not None else None
    _echo_warnings(results)
    if picture is not None:
        _write_picture(results, picture)
    _show(chosen, results, scale, all_modules, device)
    if fail_over_limit and not all(r.device and r.device["within_limit"] for r in results):
        from ..errors import ExitStatus

        sys.exit(int(ExitStatus.CHECK_FAILED))


def _echo_warnings(results: list[Any]) -> None:
    """Each result's warning notes on stderr, whatever the output format."""
    for r in results:
        for note in r.notes:
            if note.startswith("warning: "):
                click.echo(f"hloscope: {note}", err=True)


def _write_picture(results: list[Any], picture: str) -> None:
    """The memory picture as SVG at ``picture``; with several modules, the first one's (the
    main module's)."""
    from pathlib import Path

    from ..render.memory_svg import render_memory_svg

    Path(picture).write_text(render_memory_svg(results[0]))


def _refuse_mixed(
    module: str | None,
    all_modules: bool,
    picture: str | None,
    scale_spec: str | None,
    device: DeviceSpec | None,
    fail_over_limit: bool,
) -> None:
    """A usage error for options that do not go together."""
    if module is not None and all_modules:
        raise CliError("--module and --all-modules exclude each other")
    if picture is not None and not picture.endswith(".svg"):
        raise CliError(f"-o {picture}: the timeline picture is SVG; name a .svg file")
    if scale_spec is not None and device is None:
        raise CliError("--scale needs --device: the largest size is the one under its limit")
    if fail_over_limit and device is None:
        raise CliError("--fail-over-limit needs --device")


def _fit_device(results: list[Any], device: DeviceSpec, limit: str) -> None:
    """Each result's verdict on ``device`` under ``limit``."""
    from ..analysis.memory.device_report import device_report
    from ..analysis.memory.fit import memory_device, parse_limit

    entry, fraction = memory_device(device), parse_limit(limit)
    for r in results:
        r.device = device_report(r, entry, fraction)


def _show(
    chosen: Format,
    results: list[Any],
    scale: dict[str, Any] | None,
    all_modules: bool,
    device: DeviceSpec | None,
) -> None:
    def payload() -> Any:
        payloads = [r.to_dict() for r in results]
        if scale is not None:
            payloads[0]["scale"] = scale
        return per_module(payloads, all_modules)

    def text() -> None:
        import shutil

        from ..render.memory_text import render_memory

        # COLUMNS first, then the terminal's width; 80 when piped (as the tables do).
        width = shutil.get_terminal_size((80, 24)).columns
        sys.stdout.write("\n".join(render_memory(r, width) for r in results))
        if scale is not None:
            from ..render.memory_scale_text import render_scale

            sys.stdout.write("\n" + render_scale(scale, str(device)))

    show(chosen, json=payload, text=text)


def _parse_scale(text: str | None) -> ScaleSpec | None:
    from ..analysis.memory.scale_fit import parse_scale

    return parse_scale(text) if text is not None else None


def _scale(
    target: str, spec: ScaleSpec, device: DeviceSpec | None, limit: str, refresh: bool
) -> dict[str, Any]:
    """``--scale``'s JSON object: the target's function compiled for ``device`` at three
    sizes, each as the target itself was (the registry's backend, in a capture child)."""
    from ..drivers.memory_scale import scale_memory

    assert device is not None  # _refuse_mixed said so otherwise
    return scale_memory(target, spec, device, limit, refresh=refresh).to_dict()
