"""The errors of the trace readers.

- :class:`TraceError`: a trace that cannot be read (not gzip, not JSON, not a Chrome trace; a
  folder that holds no trace file; an ``.xplane.pb`` without jax to read it), exit status 1
  unless a subclass says otherwise.
- :class:`TracePathError`: a TRACE path that does not exist or is no trace (exit status 2).
"""

from __future__ import annotations

__all__ = ["TraceError", "TracePathError"]

from ..errors import HloscopeError, UsageProblem


class TraceError(HloscopeError):
    """A profiler trace that cannot be read as one."""


class TracePathError(TraceError, UsageProblem):
    """A TRACE argument that names no trace: a missing path, a file of another kind."""
