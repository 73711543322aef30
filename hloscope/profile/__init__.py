"""Profiler traces read offline: what ran on the device, when, for how long.

``jax.profiler.trace(DIR)`` (and TensorBoard's profile plugin) write a run folder holding a
``*.xplane.pb`` and a ``*.trace.json.gz``. This package reads every trace through one entry,
:func:`read_trace`: it finds the file a TRACE argument means (:func:`trace_file`), reads a
``*.trace.json.gz`` with gzip and json alone (:func:`read_chrome_trace`) and a ``*.xplane.pb``
with jax's own reader (:mod:`.xplane`, which imports jax inside its functions only), and sorts
either's events into device ops, module runs and steps
(:func:`~hloscope.profile.build.build_trace`): data, no HLO. Joining a trace to the module
that ran is analysis (:mod:`hloscope.analysis.op_profile`).
"""

from .build import build_trace, device_ordinal, op_name_of, self_times
from .chrome import read_chrome_trace
from .errors import TraceDeviceError, TraceError, TracePathError
from .files import TraceFormat, trace_file, trace_format
from .model import ModuleRun, OpEvent, RawEvent, StepMark, Trace
from .reading import read_trace

__all__ = [
    "ModuleRun",
    "OpEvent",
    "RawEvent",
    "StepMark",
    "Trace",
    "TraceDeviceError",
    "TraceError",
    "TraceFormat",
    "TracePathError",
    "build_trace",
    "device_ordinal",
    "op_name_of",
    "read_chrome_trace",
    "read_trace",
    "self_times",
    "trace_file",
    "trace_format",
]
