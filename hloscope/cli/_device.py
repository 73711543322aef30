"""``--device NAME[:SLICE]``, the same in every command that prices or judges on a chip.

:class:`DeviceParam` reads the option with :func:`hloscope.devices.parse_device` into a
:class:`~hloscope.devices.DeviceSpec` (``tpu-v5e``, ``tpu-v5e:2x4``, ``h100``, JAX's
``TPU v5 lite``); a name no row holds, a slice the chip cannot take, or a chip without the
figures the command needs (``needs``: its interconnect, its memory) is a one-line usage
error (exit status 2) that lists the names that would do. :func:`device_option` adds the
option with a help text whose list of names is read from the registry when the help is
shown, so rows added with :func:`hloscope.devices.register` are listed (and taken) too.

``hloscope check --device`` also takes a platform name (``cpu``, ``gpu``, ``tpu``: any
device of it, ``platforms=True``), where the command asks of a platform what it asks of a chip.

``hloscope bench --device`` is another thing, the local JAX device to run on
(``cpu|gpu|tpu|N``), and does not use this.

What compiles for the device is the backends' registry's choice
(:func:`hloscope.backends.backend_row`), whatever the command: a ``SCRIPT.py:FUNCTION`` target
is captured for it through :func:`hloscope.backends.capture_for` (memory, fusions, summary,
graph, extract, capture, passes, explain, compile-time, report, collectives, diff, profile),
and ``check`` asks the registry which compiler confirms its findings
(:mod:`hloscope.drivers.device_check`). A file or dump is read as it was compiled: there the
device only prices and judges, from its row. Two exceptions: ``memory --scale`` compiles its
three sizes with the JAX of this process, and ``try`` compiles its variants with XLA:TPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import Device

__all__ = ["DeviceParam", "device_option", "device_names_help", "COMPILE_LEAD"]

#: The help of ``--device`` on commands that only compile for it.
COMPILE_LEAD = (
    "Compile a SCRIPT.py:FUNCTION target for this device: XLA:TPU's own compile for a TPU "
    "chip or slice when the tpu extra is installed, else this machine's, labelled an estimate."
)

#: What each figure a command may need is called in an error.
_FIGURES = {
    "interconnect": "interconnect figures",
    "memory_bytes": "memory size",
    "mxu": "MXU size",
    "memory_bytes_per_s": "memory bandwidth",
}


def _usable(needs: str | None, platform: str | None) -> list[Device]:
    from ..devices import devices

    return [
        row for row in devices(platform) if needs is None or getattr(row, needs, None) is not None
    ]


def device_names_help(
    needs: str | None = None, platform: str | None = None, platforms: bool = False
) -> str:
    """The sentence every ``--device`` help ends with: the registry's names (those with the
    figure ``needs``), and the ``NAME:SLICE`` form of a TPU slice; first the platform names
    when the option takes them (``platforms``)."""
    from ..devices import Platform

    names = ", ".join(row.name for row in _usable(needs, platform))
    lead = f"Platforms: {', '.join(p.value for p in Platform)}. " if platforms else ""
    return (
        f"{lead}Known devices: {names} (aliases and JAX's device_kind work too); a TPU slice "
        "is NAME:SLICE, e.g. tpu-v5e:2x4."
    )


class DeviceParam(click.ParamType):
    """A device of the registry, as a :class:`~hloscope.devices.DeviceSpec`; ``needs`` names
    the :class:`~hloscope.devices.Device` field the command cannot do without, ``platform``
    the platform the chip must be of; with ``platforms``, a platform name (``tpu``) too, as a
    :class:`~hloscope.devices.Platform`."""

    name = "device"

    def __init__(
        self, needs: str | None = None, platform: str | None = None, platforms: bool = False
    ) -> None:
        self.needs = needs
        self.platform = platform
        self.platforms = platforms

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from ..devices import DeviceSpec, Platform, UnknownDeviceError, parse_device

        if isinstance(value, (DeviceSpec, Platform)):
            return value
        if self.platforms and str(value).strip().lower() in tuple(Platform):
            return Platform(str(value).strip().lower())
        try:
            spec = parse_device(str(value))
        except UnknownDeviceError as error:
            also = f"; or a platform: {', '.join(p.value for p in Platform)}" * self.platforms
            self.fail(error.one_line() + also, param, ctx)
        row = spec.device
        if self.platform is not None and str(row.platform) != self.platform:
            known = ", ".join(r.name for r in _usable(self.needs, self.platform))
            self.fail(f"{row.name} is not a {self.platform.upper()}: choose {known}", param, ctx)
        if self.needs is not None and getattr(row, self.needs, None) is None:
            known = ", ".join(r.name for r in _usable(self.needs, self.platform))
            what = _FIGURES.get(self.needs, self.needs)
            self.fail(f"hloscope has no {what} for {row.name} (known for {known})", param, ctx)
        return spec

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "PLATFORM|NAME[:SLICE]" if self.platforms else "NAME[:SLICE]"


class _DeviceOption(click.Option):
    """An option whose help ends with the registry's names as they are when it is shown."""

    def __init__(self, *args: Any, lead: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lead = lead

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        kind = self.type if isinstance(self.type, DeviceParam) else DeviceParam()
        self.help = f"{self.lead} {device_names_help(kind.needs, kind.platform, kind.platforms)}"
        return super().get_help_record(ctx)


def device_option(
    lead: str,
    *,
    needs: str | None = None,
    platform: str | None = None,
    flag: str = "--device",
    dest: str | None = None,
    aliases: tuple[str, ...] = (),
    platforms: bool = False,
    hidden: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--device NAME[:SLICE]`` (or ``flag``, also spelled ``aliases``) as a
    :class:`DeviceParam`: the command gets a :class:`~hloscope.devices.DeviceSpec` or ``None``
    (or a :class:`~hloscope.devices.Platform`, with ``platforms``). ``lead`` is what the option
    does; the help goes on with the names it takes. ``hidden``: an old spelling kept working
    and left out of the help."""
    decls = (flag, *aliases, dest) if dest else (flag, *aliases)
    return click.option(
        *decls,
        cls=_DeviceOption,
        type=DeviceParam(needs, platform, platforms),
        default=None,
        lead=lead,
        help=lead,
        hidden=hidden,
    )
