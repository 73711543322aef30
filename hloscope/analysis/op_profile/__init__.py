"""XProf's op profile of a user's own trace, read offline and joined to the module that ran.

* :func:`read_trace` -- a TRACE argument (folder or file) read into a
  :class:`~hloscope.profile.model.Trace` (:func:`hloscope.profile.read_trace`, the one reader
  of traces, named here too for the op profile's callers);
* :func:`op_profile` -- kernels by time per step, by kind, source line and scope, with the
  module's FLOPs, bytes, roofline position and source lines joined in (:mod:`.table`,
  :mod:`.join`, :mod:`.roof`);
* :class:`AsyncOverlap` -- an async pair's span from start to done, how much of it other ops
  hid and how much was exposed (:mod:`.overlap`; :attr:`OpProfile.overlaps`);
* :class:`StepTime` -- each step's wall time against the device's busy time (:mod:`.steps`;
  :attr:`OpProfile.step_times`);
* :class:`DeviceSpread` -- in a trace of several devices, each one's busy time and the
  slowest (:mod:`.devices`; :attr:`OpProfile.devices`);
* :func:`compare_profiles` -- two profiles side by side, per kernel and per source line
  (:mod:`.compare`).
"""

from ...profile import read_trace
from .compare import ProfileComparison, compare_profiles
from .devices import DeviceBusy, DeviceSpread
from .join import hbm_bytes_of
from .overlap import AsyncOverlap
from .steps import StepTime
from .table import GroupTime, KernelTime, OpProfile, op_profile

__all__ = [
    "AsyncOverlap",
    "DeviceBusy",
    "DeviceSpread",
    "GroupTime",
    "KernelTime",
    "OpProfile",
    "ProfileComparison",
    "StepTime",
    "compare_profiles",
    "hbm_bytes_of",
    "op_profile",
    "read_trace",
]
