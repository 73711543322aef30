"""Memory of a compiled function, from what its compile left: a capture's reports and
``memory_analysis()`` fields (compiling a jax function is :mod:`hloscope.drivers.memory`'s).

The source is ``memory_analysis``: the breakdown is what ``Compiled.memory_analysis()`` says
(argument, output, alias and temp sizes), because that is what JAX itself reports for the
function. The peak is XLA's live-range peak: from the compile's own ``-live-range.txt`` when it
was dumped, else hloscope's simulation of the optimized module, which reproduces XLA's
``HloLiveRange``. On CPU ``memory_analysis()``'s own ``peak_memory_in_bytes`` is not the peak:
it is arguments plus outputs, whatever the temporaries.

**A TPU compile is the exception** (source ``xla_tpu``): there ``peak_memory_in_bytes`` is what
the chip reserves for the program, padding, fragmentation and reserved regions included, and
it is the peak (measured equal, to the byte, on a TPU v5e). The live range's peak (every value
live at once, on-chip ones included: below the fit figure on most programs, above it on some)
and the memory-usage report's allocation are kept beside it in
``figures``, each named, and the buffers listed are those live at the live range's peak.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...devices import is_tpu_kind
from ._build import memory_from_assignment, memory_from_simulation, usable_assignment
from ._result import MemoryResult, MemorySource
from .fill import fill_of

# How a result built by simulation says so (``_tpu_peak`` rewords it).
_SIMULATED = "peak: hloscope's simulation"

if TYPE_CHECKING:  # pragma: no cover
    from ...backends.record import Capture
    from ...dump.buffers import BufferAssignment
    from ...hlo.model import Module

__all__ = [
    "memory_of_capture",
    "memory_of_compiled",
    "refused_for_memory",
]

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
    module: Module,
    reports: Mapping[str, str],
    stats: Mapping[str, int] | None,
    compiled_for: str | None = None,
) -> MemoryResult:
    """The result of a compiled module from its reports (by dump-file kind) and its
    ``memory_analysis()`` fields (``{field: bytes}``; ``None`` when the frontend has none);
    ``compiled_for`` is JAX's device kind of the compile (a TPU's makes XLA:TPU's peak the
    peak)."""
    assignment = _assignment(reports)
    problem = usable_assignment(module, assignment)
    if problem is None and assignment is not None:
        result = memory_from_assignment(module, assignment, MemorySource.MEMORY_ANALYSIS)
    else:
        result = memory_from_simulation(module)
        result.source = MemorySource.MEMORY_ANALYSIS.value
        result.notes.append(f"{_SIMULATED} of XLA's live range (the compile dumped no live range)")
    result.compiled_for = compiled_for
    if stats:
        for key, name in _BREAKDOWN_FIELDS.items():
            if name in stats:
                result.breakdown[key] = int(stats[name])
        reported = stats.get("peak_memory_in_bytes")
        if reported is not None and is_tpu_kind(compiled_for):
            _tpu_peak(result, int(reported), reports.get("memory-usage-report"))
        elif reported is not None and reported != result.peak_bytes:
            result.notes.append(
                f"the peak is XLA's live range of this compile (every buffer live at once); "
                f"memory_analysis()'s peak_memory_in_bytes ({reported}) counts only arguments "
                "and outputs on this backend: trust the peak"
            )
    result.fills = fill_of(result, module)
    return result


def allocation_bytes(memory_usage_report: str | None) -> int | None:
    """The ``Total bytes: N`` of a memory-usage report's default memory space (HBM)."""
    from ...dump.memory_report import parse_memory_report

    if not memory_usage_report:
        return None
    report = parse_memory_report(memory_usage_report)
    default = next((s for s in report.spaces if s.color == 0), None)
    return default.total_bytes if default is not None else report.total_bytes


def _tpu_peak(result: MemoryResult, reported: int, usage_report: str | None) -> None:
    """Make XLA:TPU's ``peak_memory_in_bytes`` the peak, the live range's peak a figure."""
    live_peak = result.peak_bytes
    simulated = any(n.startswith(_SIMULATED) for n in result.notes)
    live_key = "simulated_peak_bytes" if simulated else "live_range_peak_bytes"
    result.figures["peak_memory_in_bytes"] = reported
    result.figures[live_key] = live_peak
    allocation = allocation_bytes(usage_report)
    if allocation is not None:
        result.figures["allocation_bytes"] = allocation
    result.peak_bytes = reported
    result.source = MemorySource.XLA_TPU.value
    result.live_at = live_key
    result.notes = [n for n in result.notes if not n.startswith(_SIMULATED)]
    if simulated:
        # No usable live range of XLA's: hloscope's own schedule walk, which knows neither
        # XLA:TPU's aliasing nor its memory spaces, may land above or below the real one.
        live = (
            f"the live range's peak ({live_peak} bytes) is hloscope's simulation (the compile's "
            "own live range was missing or named other instructions), an estimate"
        )
    else:
        live = (
            f"the live range's peak ({live_peak} bytes, the values live at once, on-chip ones "
            "included) is not the fit figure (below it on most programs, above it on some)"
        )
    result.notes.append(
        f"the peak is XLA:TPU's peak_memory_in_bytes, what the chip reserves for this program "
        f"(its fit figure); {live}, and the buffers below are those live there"
    )


def memory_of_capture(capture: Capture) -> MemoryResult:
    """The result of a saved capture: its buffer-assignment reports and its memory fields."""
    reports = {kind.replace("_", "-"): text for kind, text in capture.reports.items()}
    module = capture.module("after")
    result = memory_of_compiled(module, reports, capture.memory, capture.compiled_for)
    if capture.compile_error:
        refused_for_memory(result, capture.compile_error)
        result.fills = fill_of(result, module)
    return result


# XLA:TPU's words: "... required for HLO temporaries (54.77G) exceeds available HBM (15.75G).",
# and in other libtpu versions "Ran out of memory in memory space hbm. Used 17.13G of 15.48G hbm."
_EXCEEDS = (
    re.compile(
        r"\((?P<need>[\d.]+)(?P<nu>[KMGT]?)i?B?\)\s+exceeds\s+available\s+\w+\s+"
        r"\((?P<have>[\d.]+)(?P<hu>[KMGT]?)i?B?\)"
    ),
    re.compile(
        r"\bUsed\s+(?P<need>[\d.]+)(?P<nu>[KMGT]?)i?B?\s+of\s+(?P<have>[\d.]+)(?P<hu>[KMGT]?)i?B?"
        r"\s+hbm\b",
        re.IGNORECASE,
    ),
)
_BINARY = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def refused_for_memory(result: MemoryResult, message: str) -> None:
    """A program the compiler refused for want of memory: the result says so, with what it
    needed and had, and its buffers are what the dump shows filling the memory. What it
    needed is the one figure: the peak becomes the compiler's own (its words give it to two
    decimals), and the dump's peak of the values live at once is kept, named, in ``figures``."""
    result.refused = message
    if is_tpu_kind(result.compiled_for):
        result.source = MemorySource.XLA_TPU.value
    found = next((m for m in (p.search(message) for p in _EXCEEDS) if m is not None), None)
    if found is not None:
        need = round(float(found.group("need")) * _BINARY[found.group("nu")])
        have = round(float(found.group("have")) * _BINARY[found.group("hu")])
        result.figures["required_bytes"] = need
        result.figures["available_bytes"] = have
        if result.live_at is None:
            simulated = any(n.startswith(_SIMULATED) for n in result.notes)
            result.live_at = "simulated_peak_bytes" if simulated else "live_range_peak_bytes"
            result.figures[result.live_at] = result.peak_bytes
        result.peak_bytes = need
    result.notes.insert(0, f"the compiler's words: {message}")
