"""The errors of the trace readers.

- :class:`TraceError`: a trace that cannot be read (not gzip, not JSON, not a Chrome trace; a
  folder that holds no trace file; an ``.xplane.pb`` without jax to read it), exit status 1
  unless a subclass says otherwise.
- :class:`TracePathError`: a TRACE path that does not exist or is no trace (exit status 2).
- :class:`TraceDeviceError`: a device ordinal the trace has no device process for (exit
  status 2: the command line asked for something the trace does not hold).
"""

from __future__ import annotations

__all__ = ["TraceError", "TracePathError", "TraceDeviceError"]

from ..errors import HloscopeError, UsageProblem


class TraceError(HloscopeError):
    """A profiler trace that cannot be read as one."""


class TracePathError(TraceError, UsageProblem):
    """A TRACE argument that names no trace: a missing path, a file of another kind."""


class TraceDeviceError(TraceError, UsageProblem):
    """A device ordinal (``/device:TPU:N``'s N) that no device process of the trace has."""
