"""Memory: the peak of a module, what is live there, the timeline and what would free it.

:func:`memory_of` picks the best source for a module (XLA's buffer assignment and live range
from a dump, else :func:`simulate`, hloscope's live-range simulation that agrees with XLA's);
the :class:`MemoryResult` says which (``source``). Everything here takes data (modules, dumped
side files, a capture's reports); opening a TARGET or compiling a function for its memory is
:mod:`hloscope.drivers.memory` (``hloscope.memory``).
"""

from ._build import memory_from_assignment, memory_from_simulation, memory_of, usable_assignment
from ._dumped import dumped_assignment, memory_of_dump_module, tpu_allocation
from ._function import memory_of_capture, memory_of_compiled
from ._result import BufferKind, LiveBuffer, MemoryResult, MemorySource, Saving
from ._savings import savings_of
from ._simulation import SimulatedValue, Simulation, shape_bytes, simulate

__all__ = [
    "dumped_assignment",
    "BufferKind",
    "LiveBuffer",
    "MemoryResult",
    "MemorySource",
    "Saving",
    "SimulatedValue",
    "Simulation",
    "memory_from_assignment",
    "memory_from_simulation",
    "memory_of",
    "memory_of_capture",
    "memory_of_compiled",
    "memory_of_dump_module",
    "savings_of",
    "shape_bytes",
    "simulate",
    "tpu_allocation",
    "usable_assignment",
]
