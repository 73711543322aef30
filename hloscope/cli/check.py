"""``hloscope check TARGET --device cpu|gpu|tpu|NAME``: will it compile there? Find every problem.

Two kinds of TARGET, two ways of checking:

* an HLO text file, a dump folder, a capture folder or ``SCRIPT.py`` (captured first): the
  offline rules of :mod:`hloscope.analysis.unsupported.hlo_check` on the main module (or
  ``--module``, ``--all-modules``) of ``--stage`` (default ``before``: what the program asks
  for, before a backend rewrote it). An HLO file of the other stage is read from the file of
  that stage beside it (``X.before_optimizations.txt`` for ``X.after_optimizations.txt``), as
  the report does; with no such file the default checks the file as it is (the notes say
  which stage that is), and an explicit ``--stage`` is an error. Reading HLO never imports jax
  or TensorFlow;
* ``SCRIPT.py:FUNCTION``: the script is imported in this process (its ``__main__`` block does
  not run), FUNCTION is found with its example arguments (the convention of ``hloscope
  capture``) and checked by its framework: a ``tf.function`` or Keras model by the TF graph
  walk (:func:`~hloscope.drivers.tf_check.check_tf`), anything else by lowering
  it with JAX for the platform (:func:`~hloscope.drivers.jax_check.check_jax`).

``--device`` names the platform (``cpu``, the default, ``gpu``, ``tpu``) or a device of the
registry, which checks for its platform; a TPU chip or slice also has XLA:TPU confirm the
findings. ``--platform`` and ``--tpu`` are its older spellings: hidden, still taken, with one
note on stderr naming the new one.

For a TPU both kinds also list the dots and convolutions whose sizes are not multiples of
the MXU (:mod:`hloscope.analysis.mxu`): the named chip's, from its device row (256 x 256 for
``--device tpu-v6e``), else the default TPU's (:data:`hloscope.devices.DEFAULT_MXU`), with
the share of the array they use and the padded shape that fills it. They cost speed, not
correctness: the verdict and the exit status leave them out.

The exit status is for CI: 3 when anything stops the program compiling for the platform, 0
when nothing does (warnings alone, such as host callbacks or export blockers, are 0), 1 for an
error (a script that fails to import, a missing function), 2 for unreadable HLO.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..devices import DEFAULT_MXU, DEFAULT_TPU, DeviceSpec, Platform
from ..dump.storage import is_url
from ..errors import ExitStatus
from ._app import cli
from ._device import device_option
from ._output import json_option, output_format, show
from ._target import all_modules_option, module_option

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.unsupported.findings import CheckReport

__all__ = ["check", "function_checks"]

_FUNCTION_SPEC = re.compile(r"^(?P<script>.+\.py):(?P<function>[A-Za-z_][A-Za-z0-9_]*)$")
_PLATFORMS = tuple(p.value for p in Platform)


@cli.command()
@click.argument("target")
@device_option(
    "What to check for: a platform (cpu, the default; gpu; tpu), no device of it needed, or a "
    "device of the registry, which checks for its platform. A TPU chip or slice: with libtpu "
    "installed (pip install 'hloscope[tpu]') every finding is confirmed by XLA:TPU compiling "
    "the op alone for it, or dropped, and the whole program is compiled too; without, the "
    "static scan, labelled so. For a TPU, the alignment warnings measure against the chip's "
    f"matrix unit (MXU): 128x128 on v2-v5 and for tpu alone (the default TPU, {DEFAULT_TPU}), "
    "256x256 on v6e and v7.",
    platforms=True,
)
# The older spellings, hidden: --platform P is --device P, --tpu NAME is --device NAME.
@click.option(
    "--platform", type=click.Choice(_PLATFORMS, case_sensitive=False), default=None, hidden=True
)
@device_option("", needs="mxu", platform="tpu", flag="--tpu", dest="old_tpu", hidden=True)
@json_option(
    'Print JSON: {"platform", "proxy", "program", "clean", "notes", "findings": [{"op", '
    '"node", "function", "reason", "dtype", "source", "suggestion", "detail"}], "mxu": [{"op", '
    '"node", "kernel", "source", "m", "n", "k", "padded_shape", "use", "wasted_flops", ...}]}.'
)
@click.option(
    "--stage",
    type=click.Choice(("before", "after")),
    default=None,
    help="The module XLA was given (before, the default) or the optimized one (after, already "
    "rewritten for the backend that compiled it). For an HLO file, the file of that stage "
    "beside it (X.before_optimizations.txt) is read when the file is of the other one.",
)
@click.option(
    "--wide", is_flag=True, help="One line per finding with every field in full, whatever fits."
)
@module_option
@all_modules_option
def check(
    target: str,
    device: Platform | DeviceSpec | None,
    platform: str | None,
    old_tpu: DeviceSpec | None,
    as_json: bool,
    stage: str | None,
    wide: bool,
    module: str | None,
    all_modules: bool,
) -> None:
    """Find every op that keeps TARGET from compiling for --device, before compiling.

    TARGET is an HLO text file or dump folder (checked offline: custom calls of another
    platform such as lapack_* on TPU, host callbacks and send/recv to the host, 64-bit types on
    TPU, dynamic shapes), or SCRIPT.py:FUNCTION (imported here and checked by its framework:
    TensorFlow ops without an XLA kernel for the device, or JAX lowered for the platform
    without its device: custom calls, primitives with no lowering such as eig on TPU, host
    callbacks, float64 on TPU, tracing errors such as ConcretizationTypeError, what
    jax.export refuses). Each finding names the op, its function, the line of your code and
    a fix. For a TPU, dots and convolutions not aligned to its MXU (128x128 on TPU v2-v5 and
    for tpu alone, 256x256 on v6e) are listed too, with the padded shape that fills it (speed
    warnings: the exit status ignores them).

    With --device tpu-v5e (any TPU chip or slice) and libtpu installed, XLA:TPU itself compiles
    each finding's op alone for that chip: what it refuses is kept with its own message, what it
    compiles is dropped (a float64 matmul compiles on a v5e), and the whole program is compiled
    to find what the static scan missed.

    Exit status: 3 when anything unsupported is found, 0 when nothing is (warnings alone --
    host callbacks, export blockers -- still exit 0), 1 for an error, 2 for unreadable HLO.
    """
    chosen, chip = _target_device(device, platform, old_tpu)
    mxu = chip.device.mxu if chip is not None and chip.device.mxu else DEFAULT_MXU
    # Any chip named goes to the compiler the registry picks for it (XLA:TPU confirms a
    # TPU's findings; a registered backend compiles the whole program for its devices).
    report = _report(target, chosen.value, stage, module, all_modules, mxu, chip)
    show(output_format(as_json), json=report.to_dict, text=lambda: _print_text(report, wide))
    sys.exit(int(ExitStatus.OK if report.clean else ExitStatus.CHECK_FAILED))


def _target_device(
    device: Platform | DeviceSpec | None, platform: str | None, old_tpu: DeviceSpec | None
) -> tuple[Platform, DeviceSpec | None]:
    """The platform to check for and the device named, if one was: from ``--device``, or the
    older ``--platform`` and ``--tpu``, which still work with one note naming the new
    spelling. A TPU row without an MXU size cannot be measured against: a usage error."""
    from ._app import CliError
    from ._target import say_note

    if device is not None and old_tpu is not None:
        raise CliError("--tpu is the older spelling of --device: give --device alone")
    chosen = device if device is not None else old_tpu
    if chosen is None:
        chosen = Platform((platform or Platform.CPU.value).lower())
    named = chosen if isinstance(chosen, Platform) else chosen.device.platform
    if platform is not None and platform.lower() != named.value:
        raise CliError(
            f"--device {chosen} checks for {named.value}, --platform says {platform.lower()}: "
            "give --device alone"
        )
    old = [flag for flag, value in (("--platform", platform), ("--tpu", old_tpu)) if value]
    if old:
        said = " and ".join(old)
        say_note(f"{said} {'is' if len(old) == 1 else 'are'} deprecated: use --device {chosen}")
    if isinstance(chosen, Platform):
        return chosen, None
    if chosen.device.is_tpu and chosen.device.mxu is None:
        raise click.BadParameter(
            f"hloscope has no MXU size for {chosen.device.name}", param_hint="'--device'"
        )
    return named, chosen


def _print_text(report: Any, wide: bool) -> None:
    from ..render.check_text import check_lines

    width = shutil.get_terminal_size((80, 24)).columns
    for line in check_lines(report, width=width, wide=wide):
        click.echo(line)


def _report(
    target: str,
    platform: str,
    stage: str | None,
    module: str | None,
    all_modules: bool,
    mxu: int = DEFAULT_MXU,
    device: DeviceSpec | None = None,
) -> CheckReport:
    """The report of the framework check (``SCRIPT.py:FUNCTION``) or the offline one; with a
    TPU ``device``, confirmed by XLA:TPU (:mod:`hloscope.analysis.unsupported.confirm`)."""
    from ..drivers.device_check import confirm_for_device
    from ..drivers.tpu_confirm import WholeProgram

    found = _FUNCTION_SPEC.match(target)
    # A URL is never a script (Target says so in one line); a local folder may end in .py:NAME.
    if found is not None and not os.path.isdir(target) and not is_url(target):
        if module is not None or all_modules:
            from ._app import CliError

            raise CliError(
                "--module and --all-modules apply to HLO targets, not SCRIPT.py:FUNCTION"
            )
        report = _function_check(target, platform, mxu)
        if device is None:
            return report
        return confirm_for_device(report, device, WholeProgram(found["script"], found["function"]))
    from ..analysis.unsupported.hlo_check import check_modules
    from ._target import open_modules

    modules = open_modules(
        target, stage=stage or "before", module=module, all_modules=all_modules, refresh=False
    )
    if _has_stages(target):
        staged = list(modules)
        report = check_modules(staged, platform, stage=stage or "before", program=target, mxu=mxu)
    else:
        from ..analysis.unsupported.hlo_check import file_modules_at_stage

        staged, notes = file_modules_at_stage(
            target if is_url(target) else Path(target), modules, stage
        )
        report = check_modules(staged, platform, program=target, mxu=mxu)
        report.notes[:0] = notes
    if device is None:
        return report
    # One module is compiled whole too; of several, each finding's op alone.
    whole = staged[0].to_text() if len(staged) == 1 else None
    return confirm_for_device(report, device, WholeProgram(module_text=whole))


def _function_check(target: str, platform: str, mxu: int) -> CheckReport:
    """The framework check of ``SCRIPT.py:FUNCTION``, the script imported in this process."""
    return function_checks(target, (platform,), mxu)[platform]


def function_checks(
    target: str, platforms: Sequence[str], mxu: int = DEFAULT_MXU
) -> dict[str, CheckReport]:
    """The framework check of ``SCRIPT.py:FUNCTION`` for each of ``platforms``, each the report
    ``check TARGET --device PLATFORM`` gives: the script imported once, in this process, and
    its function checked for one platform after the other (a TensorFlow function traced once,
    its graph named as for one platform alone)."""
    from .._api import check as check_value
    from ..capture.script_loader import load_function
    from ._startup_chatter import startup_chatter_filtered

    # The script is imported here: keep TensorFlow's C++ start-up chatter (oneDNN, CPU
    # features, absl's line before its logging starts, which no log level silences) off
    # the report unless the user asked for its logs.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # The static scan lowers for the platform without its device (and XLA:TPU compiles in
    # a child): this process runs nothing on a device, and probing for a TPU would load
    # libtpu here, with its start-up errors on a machine without one.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    script, _, function = target.rpartition(":")
    with startup_chatter_filtered():
        fn, args, kwargs = load_function(script, function)
        return {p: check_value(fn, *args, platform=p, mxu=mxu, **kwargs) for p in platforms}


def _has_stages(target: str) -> bool:
    """Whether ``--stage`` chose the stage (a dump or capture folder, a script); a text file is
    whatever it is, and the file of the other stage may lie beside it."""
    if is_url(target):  # a remote dump folder has stages too; a remote file is as it is
        from ..capture.target import Target, TargetKind

        return Target.resolve(target).kind is not TargetKind.HLO_FILE
    return os.path.isdir(target) or target.endswith(".py")
