"""What every command that reads a TARGET shares: its options and the one way to open it.

``--module NAME|ID`` picks a module of a multi-module target, ``--stage`` the stage of dump
folders and scripts, ``--refresh`` forces a fresh capture of a script. :func:`open_module`
resolves the TARGET with :class:`~hloscope.capture.target.Target` and prints, on stderr, the
one-line note that says which module was chosen when the user did not name one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ._app import OPENED, CliError
from ._device import COMPILE_LEAD, device_option

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import ModuleChoice, Target
    from ..hlo.model import Module

__all__ = [
    "TargetOptions",
    "target_options",
    "module_option",
    "all_modules_option",
    "refresh_option",
    "stage_option",
    "open_target",
    "compile_fields",
    "opened_fields",
    "mesh_option",
    "open_module",
    "open_modules",
    "say_note",
    "wrapped_note",
]

STAGE_CHOICES = ("after", "before")
#: Where it keeps the notes already printed.
NOTES_SAID = "hloscope.notes_said"


# One decorator per shared option, made once and applied by every command that takes it.
#: ``--module NAME|ID``: which module of a target with several.
module_option = click.option(
    "--module",
    metavar="NAME|ID",
    help="Which module of a multi-module TARGET: a module name, a dump module id, or part "
    "of a name (default: the function's own module, else the largest).",
)
#: ``--all-modules``: one report per module instead of the main module's.
all_modules_option = click.option(
    "--all-modules",
    is_flag=True,
    help="Report every module of the TARGET, each under its own name.",
)
#: ``--refresh``: capture a script target again instead of using the cache.
refresh_option = click.option(
    "--refresh", is_flag=True, help="Capture a SCRIPT.py target again, ignoring the cache."
)
#: ``--stage after|before``.
stage_option = click.option(
    "--stage",
    type=click.Choice(STAGE_CHOICES),
    default="after",
    show_default=True,
    help="For dump folders and scripts: the optimized modules or what XLA was given.",
)
#: ``--mesh AXIS=SIZE,...``: the arguments' mesh reshaped for a TPU slice.
mesh_option = click.option(
    "--mesh",
    metavar="AXIS=N,...",
    help="With --device on a TPU slice: rebuild the example arguments' mesh with these "
    "axis sizes (data=8,model=4; default: the shape the script made).",
)


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What ``--module``, ``--refresh`` and ``--device`` said to a command that reads one
    TARGET: opened, and its module chosen, the one way every such command does."""

    module: str | None = None
    refresh: bool = False
    device: Any = None

    def open(self, spec: str) -> Target:
        """:func:`open_target` with these options."""
        return open_target(spec, refresh=self.refresh, device=self.device)

    def main_module(self, spec: str | Target) -> Module:
        """The module ``--module`` names, else the main one (:func:`open_module`, its note)."""
        return open_module(
            spec, module=self.module, refresh=self.refresh, device=self.device
        ).module


def target_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--device`` (compile a ``SCRIPT.py:FUNCTION`` for it), ``--module`` and ``--refresh``,
    handed to ``command`` as one ``options`` (:class:`TargetOptions`) argument."""

    @functools.wraps(command)
    def with_options(
        *args: Any, module: str | None, refresh: bool, device: Any = None, **kwargs: Any
    ) -> Any:
        return command(*args, options=TargetOptions(module, refresh, device), **kwargs)

    return device_option(COMPILE_LEAD)(module_option(refresh_option(with_options)))


#: What every command reads a module with, imported while a capture child compiles.
WARM_IMPORTS = ("hloscope.hlo.parser", "hloscope.analysis.fusions")


def open_target(
    spec: str,
    *,
    refresh: bool = False,
    device: Any = None,
    mesh: str | None = None,
    warm: tuple[str, ...] = (),
) -> Target:
    """Resolve ``spec`` (capturing a script, with a spinner on a terminal); a
    ``SCRIPT.py:FUNCTION`` is compiled for ``device`` when one is given. While a capture child
    runs, the modules the command will read its result with are imported (``warm`` adds to
    :data:`WARM_IMPORTS`): that time overlaps the compile instead of following it.

    The target is remembered for the command group, which reports the module files it had to
    leave out (:attr:`Target.problems`) when the command ends and makes the exit status 1.
    """
    from ..capture.target import Target, TargetKind
    from ..render.compiled_by import compiled_line

    target = Target.resolve(
        spec,
        refresh=refresh,
        device=_function_device(spec, device),
        mesh=mesh,
        while_running=lambda: _import_all((*WARM_IMPORTS, *warm)),
    )
    line = compiled_line(target.compile_info()) if target.kind is TargetKind.FUNCTION else None
    if line is not None:
        say_note(line)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.find_root().meta.setdefault(OPENED, []).append(target)
    return target


def _import_all(names: tuple[str, ...]) -> None:
    import importlib

    for name in names:
        importlib.import_module(name)


def compile_fields(target: Target) -> dict[str, Any]:
    """What ``--json`` says compiled ``target``'s module: ``compiled_for`` (JAX's device kind;
    ``None`` for an estimate) and ``device`` (the ``--device`` asked for), for a function
    target; ``{}`` for a file or dump, read as it was compiled."""
    from ..capture.target import TargetKind

    if target.kind not in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        return {}
    info = target.compile_info()
    fields = {"compiled_for": info.get("compiled_for"), "device": info.get("device")}
    if info.get("estimate_note"):
        fields["estimate"] = info["estimate_note"]
    return fields


def opened_fields() -> dict[str, Any]:
    """:func:`compile_fields` of the target this command opened last (``{}`` when none)."""
    ctx = click.get_current_context(silent=True)
    opened = ctx.find_root().meta.get(OPENED, []) if ctx is not None else []
    return compile_fields(opened[-1]) if opened else {}


def _function_device(spec: str, device: Any) -> Any:
    """The device to compile ``spec`` for: only a ``SCRIPT.py:FUNCTION`` is compiled here;
    other targets are read as they were compiled, and ``--device`` prices or fits them."""
    from ..capture.target import is_function_spec

    return device if device is not None and is_function_spec(spec) else None


def open_module(
    spec: str | Target,
    *,
    stage: str = "after",
    module: str | None = None,
    refresh: bool = False,
    device: Any = None,
) -> ModuleChoice:
    """The main module of ``spec`` (or the one ``module`` names), with a note on stderr when
    it was picked from several."""
    from ..capture.target import Target

    target = spec if isinstance(spec, Target) else open_target(spec, refresh=refresh, device=device)
    choice = target.choose_module(stage, module)
    if choice.note:
        say_note(choice.note)
    return choice


def say_note(note: str) -> None:
    """Print ``hloscope: note: NOTE`` on stderr, once per command (``diff A A`` chooses the
    same module twice and says so once)."""
    ctx = click.get_current_context(silent=True)
    said = ctx.find_root().meta.setdefault(NOTES_SAID, set()) if ctx is not None else set()
    if note in said:
        return
    said.add(note)
    click.echo(wrapped_note(note), err=True)


def wrapped_note(note: str) -> str:
    """``hloscope: note: NOTE`` folded to the terminal's width (``COLUMNS``, else 80 when
    piped), continuation lines indented, so a note fits 80 columns like the tables do."""
    import shutil
    import textwrap

    width = shutil.get_terminal_size().columns
    return textwrap.fill(
        f"hloscope: note: {note}",
        width=max(width, 40),
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def open_modules(
    spec: str,
    *,
    stage: str = "after",
    module: str | None,
    all_modules: bool,
    refresh: bool,
    device: Any = None,
) -> list[Module]:
    """Every module of ``spec`` with ``all_modules``, else the main one (:func:`open_module`)."""
    if all_modules and module is not None:
        raise CliError("--module and --all-modules exclude each other")
    if all_modules:
        return open_target(spec, refresh=refresh, device=device).modules(stage)
    return [open_module(spec, stage=stage, module=module, refresh=refresh, device=device).module]
