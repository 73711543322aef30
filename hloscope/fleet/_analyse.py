"""One module file to one row: what a Dask worker runs for each :class:`ModuleTask`.

The numbers are the ones the single-module commands print, computed by the same analyses, so
a fleet row can be checked against them:

==============================  ===============================================================
column                          what it is, and the command that says the same
==============================  ===============================================================
``instructions``                every instruction, fused computations included
                                (``hloscope summary --json``: ``instructions``)
``kernels``, ``fusions``        kernels, and those that are fusions (``hloscope fusions
                                --json``: ``summary.kernel_count``, ``fusion_count``)
``fusions_kLoop`` ...           fusions of each kind: ``kLoop``, ``kInput``, ``kOutput``,
                                ``kCustom`` (``fusions_by_kind``, backend kinds added up)
``bytes``, ``flops``            bytes read and written at kernel boundaries and FLOPs, under
                                XLA's cost-analysis rules: loop bodies once, the costliest
                                branch (``summary.bytes``, ``summary.flops``)
``peak_bytes``                  peak memory: XLA's own live range when the dump has the buffer
                                assignment, else hloscope's simulation (``hloscope memory
                                --json``: ``peak_bytes``); ``memory_source`` says which
``collectives``                 collective ops (``hloscope collectives --json``:
                                ``totals.count``)
``collective_bytes``            bytes each device sends per collective, added up once per
                                op (``totals.bytes``)
``collective_executed_bytes``   the same, times each op's executions in loops with known
                                trip counts: what one call moves (``totals.executed_bytes``)
``warnings``                    warnings of the parse and of the side files
``error``                       ``None``, or the one line saying why this module has no
                                numbers (unreadable file, text that does not parse)
==============================  ===============================================================

Everything is caught here, in the worker: a module that fails becomes a row with its error,
so a fleet of hundreds is never lost to one bad file, and what comes back through Dask is a
plain ``dict`` (no exception to unpickle on the client).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import HloscopeError
from ._tasks import ModuleTask

if TYPE_CHECKING:  # pragma: no cover
    from ..dump.buffers import BufferAssignment
    from ..hlo.model import Module

__all__ = ["COLUMNS", "FUSION_KINDS", "METRIC_COLUMNS", "analyse"]

#: XLA's fusion kinds (``HloInstruction::FusionKind``), one column each.
FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom")

#: The numbers of a row, ``None`` when the module failed.
METRIC_COLUMNS: tuple[str, ...] = (
    "instructions",
    "kernels",
    "fusions",
    *(f"fusions_{kind}" for kind in FUSION_KINDS),
    "bytes",
    "flops",
    "peak_bytes",
    "memory_source",
    "collectives",
    "collective_bytes",
    "collective_executed_bytes",
)

#: Every column of a fleet row, in order.
COLUMNS: tuple[str, ...] = (
    "label",
    "dump",
    "module",
    "id",
    "function",
    "compile",
    "compiles",
    "stage",
    *METRIC_COLUMNS,
    "warnings",
    "error",
)


def analyse(task: ModuleTask) -> dict[str, Any]:
    """The row of ``task``'s module (see the module docstring); never raises."""
    row: dict[str, Any] = {**task.identity(), **dict.fromkeys(METRIC_COLUMNS), "warnings": 0}
    row["error"] = None
    try:
        module = _parse(task.hlo)
        warnings = len(module.warnings)
        row.update(_counts(module))
        peak, source, side_warnings = _peak(module, task.assignment)
        row.update(peak_bytes=peak, memory_source=source)
        row.update(_collectives(module))
        row["warnings"] = warnings + side_warnings
    except HloscopeError as e:  # unreadable, not text, not HLO: the error says where
        _failed(row, e.one_line())
    except RecursionError:
        _failed(row, f"{task.hlo}: error: nested too deeply to read")
    except Exception as e:  # noqa: BLE001 - one module must never lose the fleet
        text = str(e).splitlines()[0] if str(e) else ""
        _failed(row, f"{task.hlo}: error: {type(e).__name__}: {text}".rstrip(": "))
    return row


def _failed(row: dict[str, Any], message: str) -> None:
    row.update(dict.fromkeys(METRIC_COLUMNS))
    row["error"] = message


def _parse(location: str) -> Module:
    from ..dump.report_text import read_dump_text
    from ..hlo.parser import parse

    # Read here (not by the parser from a path) so that a URL is read through its store; the
    # location still names the file in a parse error (URL:line:column).
    return parse(read_dump_text(location), path=location)


def _counts(module: Module) -> dict[str, Any]:
    from ..analysis.fusions import fusion_report
    from ..analysis.summary import summarize

    summary = fusion_report(module).summary
    by_kind = dict.fromkeys(FUSION_KINDS, 0)
    for key, count in summary.fusions_by_kind.items():
        kind = key.split("/", 1)[0]  # "kCustom/__ynn_fusion": the kind, then the backend's
        if kind in by_kind:
            by_kind[kind] += count
    return {
        "instructions": summarize(module).instructions,
        "kernels": summary.kernel_count,
        "fusions": summary.fusion_count,
        **{f"fusions_{kind}": n for kind, n in by_kind.items()},
        "bytes": summary.bytes,
        "flops": summary.flops,
    }


def _peak(module: Module, assignment: tuple[str, ...]) -> tuple[int, str, int]:
    """(peak bytes, where it comes from, warnings) as ``hloscope memory`` decides: XLA's live
    range when the side files are there and belong to this module, else the simulation."""
    from ..analysis.memory import MemorySource, simulate, usable_assignment

    dumped, warnings = _assignment(assignment)
    if dumped is not None and usable_assignment(module, dumped) is None:
        live = dumped.live_range
        assert live is not None and live.peak_bytes is not None  # usable_assignment checked
        return live.peak_bytes, str(MemorySource.BUFFER_ASSIGNMENT), warnings
    return simulate(module).peak_bytes, str(MemorySource.SIMULATED), warnings


def _assignment(locations: tuple[str, ...]) -> tuple[BufferAssignment | None, int]:
    """XLA's buffer assignment merged with its live range (as
    :func:`~hloscope.analysis.memory.dumped_assignment` reads them), and how many warnings
    reading them gave; a side file that cannot be read is one warning, and the simulation."""
    from ..dump.buffers import load_buffer_assignment

    found = None
    for location in locations:
        try:
            part = load_buffer_assignment(location)
        except HloscopeError:
            return None, 1
        found = part if found is None else found.merge(part)
    return found, len(found.warnings) if found is not None else 0


def _collectives(module: Module) -> dict[str, Any]:
    from ..analysis.collectives import find_collectives

    found, _, _ = find_collectives(module)
    return {
        "collectives": len(found),
        "collective_bytes": sum(c.bytes for c in found),
        "collective_executed_bytes": sum(c.executed_bytes for c in found),
    }
