"""Memory: the peak of a module, what is live there, the timeline and what would free it.

:func:`memory_of` picks the best source for a module (XLA's buffer assignment and live range
from a dump, else :func:`simulate`, hloscope's live-range simulation that agrees with XLA's);
the :class:`MemoryResult` says which (``source``).
"""

from ._build import memory_from_assignment, memory_from_simulation, memory_of, usable_assignment
from ._function import memory_of_capture, memory_of_compiled, memory_of_function
from ._result import BufferKind, LiveBuffer, MemoryResult, MemorySource, Saving
from ._savings import savings_of
from ._simulation import SimulatedValue, Simulation, shape_bytes, simulate
from ._target import dumped_assignment, memory, memory_results

__all__ = [
    "dumped_assignment",
    "BufferKind",
    "LiveBuffer",
    "MemoryResult",
    "MemorySource",
    "Saving",
    "SimulatedValue",
    "Simulation",
    "memory",
    "memory_from_assignment",
    "memory_results",
    "memory_from_simulation",
    "memory_of",
    "memory_of_capture",
    "memory_of_compiled",
    "memory_of_function",
    "savings_of",
    "shape_bytes",
    "simulate",
    "usable_assignment",
]
