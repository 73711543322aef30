"""The errors of benchmarking: a kernel, device or setting that cannot be timed as asked.

- :class:`BenchError`: benchmark options that do not go together, raised by
  :mod:`hloscope.bench.api` (exit status 1).
- :class:`DeviceNotFound`: ``--device`` names a platform or index JAX does not have here,
  raised by :mod:`hloscope.bench.compile` (exit status 1).
- :class:`TimingError`: a harness setting that cannot work (a budget of zero, a precision of
  200%), raised by :func:`hloscope.bench.timing.measure` (exit status 1).
- :class:`KernelNotFound`: no kernel of that name in the module, raised by
  :mod:`hloscope.bench.extract` (exit status 2).
- :class:`KernelNotRunnable`: a kernel that cannot run on its own (a collective, a kernel
  inside a loop body...: :class:`~hloscope.bench.extract.SkipReason`), raised by
  :mod:`hloscope.bench.extract` with the kernel's ``name`` and the ``reason`` (exit status 1).
- :class:`HostCallbackInProgram`: a module whose results depend on a host callback, which only
  the process that registered it can run, raised by :mod:`hloscope.bench.extract` (exit
  status 1).
- :class:`UnfeedableModule`: a module whose entry takes something a list of arrays cannot give
  (a tuple, a token, a dynamic shape, an element type numpy has no dtype for), raised by
  :mod:`hloscope.bench.inputs` (exit status 1).

A device name no row of the device registry holds is
:class:`hloscope.devices.UnknownDeviceError` (exit status 2).
"""

from __future__ import annotations

__all__ = [
    "BenchError",
    "DeviceNotFound",
    "TimingError",
    "KernelNotFound",
    "KernelNotRunnable",
    "HostCallbackInProgram",
    "UnfeedableModule",
]

from ..errors import HloscopeError, UsageProblem


class BenchError(HloscopeError):
    """Benchmark options that do not go together."""


class DeviceNotFound(HloscopeError):
    """``--device`` names a platform or index JAX does not have here."""


class TimingError(HloscopeError):
    """A harness setting that cannot work (a budget of zero, a precision of 200%...)."""


class KernelNotFound(UsageProblem):
    """No kernel of that name in the module."""


class KernelNotRunnable(HloscopeError):
    """A kernel that cannot run on its own (see :class:`~hloscope.bench.extract.SkipReason`)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"kernel {name} cannot run alone: {reason}")


class HostCallbackInProgram(HloscopeError):
    """A module whose results depend on a host callback: it can only run in the process
    that registered the callback."""


class UnfeedableModule(HloscopeError):
    """A module whose entry takes something a list of arrays cannot give (a tuple, a token, a
    dynamic shape, an element type numpy has no dtype for)."""
