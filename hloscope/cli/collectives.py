"""``hloscope collectives TARGET``: every collective, its bytes and groups, and its time."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from ._app import cli
from ._device import device_option
from ._output import json_option, output_format, per_module, show
from ._target import (
    all_modules_option,
    compile_fields,
    mesh_option,
    module_option,
    open_target,
    refresh_option,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.step_estimate import StepEstimate
    from ..devices import DeviceSpec

__all__ = ["collectives_command"]


@cli.command("collectives")
@click.argument("target")
@json_option(
    "Print JSON: {module, devices, mesh, collectives: [{name, kind, async, shapes, bytes, "
    "group_size, groups, num_groups, channel_id, executions, where, mesh_axes, op_name, "
    "source, done, estimate_s, exposed_s, resharding, producer, consumers}], totals: {count, "
    "bytes, executed_bytes, estimate_s, exposed_s}, parameters, outputs, replicated_large, "
    "device, notes, step: {compute_s, exposed_s, hidden_s, total_s, split} with --device, "
    "else null}."
)
@module_option
@all_modules_option
@refresh_option
@device_option(
    "Price each collective on this device's interconnect and estimate the step (a wrong name "
    "lists them).",
    needs="interconnect",
)
@mesh_option
def collectives_command(
    target: str,
    as_json: bool,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    device: DeviceSpec | None,
    mesh: str | None,
) -> None:
    """List TARGET's collectives (all-reduce, all-gather, reduce-scatter, all-to-all,
    collective-permute, send/recv; sync and async, in loops times their trip count): the bytes
    each device moves, the device groups and mesh axes, and the user's source line. With
    --device, the estimated seconds of each, the communication no compute hides, and the
    step: compute on the device's roofline plus exposed communication, with the split.

    A SCRIPT.py:FUNCTION with --device tpu-v5e:2x4 (any TPU slice) is compiled by XLA:TPU for
    that slice: the example arguments' mesh is rebuilt on the slice's chips (same axis names
    and shape, or --mesh), and the collectives, per-device memory and step are XLA:TPU's."""
    from ..analysis.collectives import collectives_results
    from ._app import CliError

    if module is not None and all_modules:
        raise CliError("--module and --all-modules exclude each other")
    opened = open_target(target, refresh=refresh, device=device, mesh=mesh)
    # Chosen once and handed on: a target may parse its text again at every choice, and the
    # step estimate reads the same modules.
    modules = (
        opened.modules("after") if all_modules else [opened.choose_module("after", module).module]
    )
    results = collectives_results(opened, modules=modules)
    steps = _priced(modules, results, device)
    show(
        output_format(as_json),
        json=lambda: _payload(opened, results, steps, all_modules),
        text=lambda: _print_text(opened, results, steps),
    )


def _priced(modules: list[Any], results: list[Any], device: Any) -> list[StepEstimate | None]:
    """Each collective priced on ``device`` and each module's step there (none without one:
    the results say so)."""
    if device is None:
        for r in results:
            r.notes.append("no --device: estimate_s and exposed_s are null")
        return [None] * len(results)
    from ..analysis.collectives import price
    from ..analysis.step_estimate import step_estimate

    for r in results:
        price(r, device)
    return [step_estimate(m, r, device) for m, r in zip(modules, results)]


def _payload(
    opened: Any, results: list[Any], steps: list[StepEstimate | None], all_modules: bool
) -> Any:
    compiled = {**compile_fields(opened), **_device_memory(opened)}
    return per_module(
        [
            {**r.to_dict(), **compiled, "step": step.to_dict() if step else None}
            for r, step in zip(results, steps)
        ],
        all_modules,
    )


def _print_text(opened: Any, results: list[Any], steps: list[StepEstimate | None]) -> None:
    from ..render.collectives_text import render_collectives
    from ..render.step_text import render_step

    texts = []
    memory = _device_memory(opened).get("per_device_peak_bytes")
    for r, step in zip(results, steps):
        texts.append(
            render_collectives(r)
            + (render_step(step.to_dict(), r.devices) if step else "")
            + (_memory_line(memory) if memory is not None else "")
        )
    sys.stdout.write("\n".join(texts))


def _device_memory(opened: Any) -> dict[str, Any]:
    """XLA:TPU's peak per device of a function compiled for a TPU slice (``{}`` otherwise)."""
    from ..capture.target import TargetKind

    if opened.kind is not TargetKind.FUNCTION or opened.device is None:
        return {}
    from ..backends.record import Capture

    memory = Capture.read_index(opened.path).get("memory") or {}
    peak = memory.get("peak_memory_in_bytes")
    return {"per_device_peak_bytes": peak} if peak is not None else {}


def _memory_line(peak: int) -> str:
    from ..units import format_bytes

    return f"peak memory per device: {format_bytes(peak)} (XLA:TPU's peak_memory_in_bytes)\n"
