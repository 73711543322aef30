"""Memory of a compiled function: a ``SCRIPT.py:FUNCTION`` capture or a jax function.

The source is ``memory_analysis``: the breakdown is what ``Compiled.memory_analysis()`` says
(argument, output, alias and temp sizes), because that is what JAX itself reports for the
function. The peak is XLA's live-range peak: from the compile's own ``-live-range.txt`` when it
was dumped, else hloscope's simulation of the optimized module, which reproduces XLA's
``HloLiveRange``. ``memory_analysis()``'s own ``peak_memory_in_bytes`` is not used as the
peak: on CPU it is arguments plus outputs, whatever the temporaries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ._build import memory_from_assignment, memory_from_simulation, usable_assignment
from ._result import MemoryResult, MemorySource

if TYPE_CHECKING:  # pragma: no cover
    from ...capture.inprocess import Capture
    from ...dump.buffers import BufferAssignment
    from ...hlo.model import Module

__all__ = ["memory_of_capture", "memory_of_compiled", "memory_of_function"]

#: ``memory_analysis()`` fields behind each breakdown entry.
_BREAKDOWN_FIELDS = {
    "parameters": "argument_size_in_bytes",
    "outputs": "output_size_in_bytes",
    "temporaries": "temp_size_in_bytes",
    "aliased": "alias_size_in_bytes",
}


def _assignment(reports: Mapping[str, str]) -> BufferAssignment | None:
    """XLA's buffer assignment joined with its values and live-range reports, when any."""
    from ...dump.buffers import parse_buffer_assignment

    found = None
    for kind in ("buffer-assignment", "buffer-assignment-values", "live-range"):
        text = reports.get(kind)
        if not text:
            continue
        part = parse_buffer_assignment(text, path=kind)
        found = part if found is None else found.merge(part)
    return found


def memory_of_compiled(
    module: Module, reports: Mapping[str, str], stats: Mapping[str, int] | None
) -> MemoryResult:
    """The result of a compiled module from its reports (by dump-file kind) and its
    ``memory_analysis()`` fields (``{field: bytes}``; ``None`` when the frontend has none)."""
    assignment = _assignment(reports)
    problem = usable_assignment(module, assignment)
    if problem is None and assignment is not None:
        result = memory_from_assignment(module, assignment, MemorySource.MEMORY_ANALYSIS)
    else:
        result = memory_from_simulation(module)
        result.source = MemorySource.MEMORY_ANALYSIS.value
        result.notes.append(
            "peak: hloscope's simulation of XLA's live range (the compile dumped no live range)"
        )
    if stats:
        for key, name in _BREAKDOWN_FIELDS.items():
            if name in stats:
                result.breakdown[key] = int(stats[name])
        reported = stats.get("peak_memory_in_bytes")
        if reported is not None and reported != result.peak_bytes:
            result.notes.append(
                f"memory_analysis() says peak_memory_in_bytes={reported}; the live-range peak "
                "above counts every buffer live at once"
            )
    return result


def memory_of_capture(capture: Capture) -> MemoryResult:
    """The result of a saved capture: its buffer-assignment reports and its memory fields."""
    reports = {kind.replace("_", "-"): text for kind, text in capture.reports.items()}
    return memory_of_compiled(capture.module("after"), reports, capture.memory)


def memory_of_function(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> MemoryResult:
    """Compile ``fn(*args, **kwargs)`` with jax and return its memory result (exact: XLA's own
    live range of this compile, with ``memory_analysis()``'s breakdown)."""
    from ...capture import jaxlib_adapter
    from ...hlo.parser import parse

    text, reports, stats = jaxlib_adapter.compile_with_memory_reports(fn, *args, **kwargs)
    return memory_of_compiled(parse(text, path="<memory>"), reports, stats)
