"""Compiling HLO text for a device JAX sees, and running it.

:func:`resolve_device` turns ``--device`` into a ``jax.Device``: nothing is the default device
(a TPU or GPU when there is one), ``cpu``/``gpu``/``tpu`` (also ``cuda``, ``rocm``) the first
device of that platform, ``gpu:1`` or ``1`` a device by index.

:func:`compile_module` takes a parsed module, makes it plain for XLA's importer
(:func:`~hloscope.bench.extract.runnable_text`: fusions inlined, bitcasts rewritten), and
compiles it through the backends' door (:meth:`hloscope.backends.LocalJax.compile_hlo`), with
the entry parameters in the layouts the module declares. XLA optimizes it again for that
device; what it made of it is :meth:`CompiledModule.optimized_module`.
:meth:`CompiledModule.workload` gives what the timing harness runs: a function, its arguments
(random, in the right layouts), and for a module that donates parameters a ``prepare`` that
puts fresh copies of the donated ones on the device before every run, since a donated buffer
is gone after one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import DeviceNotFound
from .inputs import ParameterSpec, device_arrays, parameter_specs, random_inputs

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ..backends.hlo_compile import CompiledHlo
    from ..hlo.model import Module

__all__ = [
    "DeviceNotFound",
    "CompiledModule",
    "Workload",
    "compile_module",
    "compile_text",
    "resolve_device",
    "device_label",
]

_PLATFORM_ALIASES = {"cuda": "gpu", "rocm": "gpu", "nvidia": "gpu", "host": "cpu"}


def resolve_device(spec: str | int | Any | None = None) -> Any:
    """The ``jax.Device`` that ``spec`` names (see the module docstring); a device passes
    through."""
    from ..backends.frameworks import require_jax

    jax = require_jax()
    if spec is None or spec == "":
        return jax.devices()[0]
    if not isinstance(spec, (str, int)):
        return spec
    text = str(spec).strip().lower()
    platform, _, index_text = text.partition(":")
    if platform.isdigit() and not index_text:
        platform, index_text = "", platform
    platform = _PLATFORM_ALIASES.get(platform, platform)
    try:
        devices = jax.devices(platform) if platform else jax.devices()
    except RuntimeError:
        have = sorted({d.platform for d in jax.devices()} | {"cpu"})
        raise DeviceNotFound(f"no {platform} device here (JAX sees: {', '.join(have)})") from None
    index = int(index_text) if index_text.isdigit() else 0
    if index_text and not index_text.isdigit():
        raise DeviceNotFound(f"--device {spec}: the index after ':' must be a number")
    if index >= len(devices):
        raise DeviceNotFound(
            f"--device {spec}: there are {len(devices)} {devices[0].platform} device(s)"
        )
    return devices[index]


def device_label(device: Any) -> str:
    """``cpu:0 (cpu)``, ``gpu:0 (NVIDIA H100 80GB HBM3)``: a device for people."""
    kind = getattr(device, "device_kind", "") or device.platform
    return f"{device.platform}:{device.id} ({kind})"


@dataclass(slots=True)
class Workload:
    """What :func:`~hloscope.bench.timing.measure` runs: ``fn(*args)``, or ``fn(*prepare())``
    when inputs must be fresh for every run."""

    fn: Callable[..., Any]
    args: Sequence[Any]
    prepare: Callable[[], Sequence[Any]] | None = None


@dataclass(slots=True)
class CompiledModule:
    """A module compiled for one device (make one with :func:`compile_module`)."""

    name: str
    device: Any
    executable: CompiledHlo
    parameters: tuple[ParameterSpec, ...]
    text: str  # what XLA was given
    _optimized: Module | None = field(default=None, repr=False)

    def optimized_text(self) -> str:
        """The optimized HLO XLA made of :attr:`text` for this device."""
        return self.executable.as_text()

    def optimized_module(self) -> Module:
        """:meth:`optimized_text`, parsed."""
        if self._optimized is None:
            from ..hlo.parser import parse

            self._optimized = parse(self.optimized_text())
        return self._optimized

    def run(self, arrays: Sequence[Any]) -> list[Any]:
        """Launch one run on device ``arrays``; returns the outputs without waiting."""
        return self.executable(*arrays)

    def arrays(self, values: Sequence[np.ndarray]) -> list[Any]:
        """Host ``values`` on this device, in the parameters' layouts."""
        return device_arrays(values, self.parameters, self.device)

    def workload(self, values: Sequence[np.ndarray] | None = None, seed: int = 0) -> Workload:
        """A :class:`Workload` on ``values`` (default: random inputs from ``seed``)."""
        if values is None:
            values = random_inputs(self.parameters, seed)
        arrays = self.arrays(values)
        donated = [i for i, spec in enumerate(self.parameters) if spec.donated]
        run = self.run
        if not donated:
            return Workload(lambda *a: run(a), arrays)
        kept = [values[i] for i in donated]
        specs = [self.parameters[i] for i in donated]

        def prepare() -> list[Any]:
            fresh = list(arrays)
            for i, array in zip(donated, device_arrays(kept, specs, self.device)):
                fresh[i] = array
            return fresh

        return Workload(lambda *a: run(a), arrays, prepare)


def compile_text(
    text: str, parameters: Sequence[ParameterSpec], device: Any, name: str = ""
) -> CompiledModule:
    """Compile plain HLO ``text`` (already :func:`runnable_text`) with ``parameters``."""
    from ..backends import LocalJax

    layouts = [(spec.dtype, spec.dims, spec.minor_to_major) for spec in parameters]
    executable = LocalJax().compile_hlo(text, device, layouts)
    return CompiledModule(name, device, executable, tuple(parameters), text)


def compile_module(module: Module, device: Any = None) -> CompiledModule:
    """Compile ``module`` (optimized or not) for ``device`` (see the module docstring).

    Raises :class:`~hloscope.bench.inputs.UnfeedableModule` when its parameters cannot be fed,
    and :class:`~hloscope.backends.errors.XlaCompileFailed` with XLA's message when XLA
    refuses it.
    """
    from .extract import runnable_text

    specs = parameter_specs(module)
    return compile_text(runnable_text(module), specs, resolve_device(device), module.name)
