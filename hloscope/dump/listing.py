"""``hloscope ls DUMP``: one row per compiled module, grouped by function.

:func:`build_listing` turns a :class:`~hloscope.dump.index.DumpIndex` into :class:`ListingRow`
objects, reading what each row needs (the HLO text of the before/after stages for instruction
and fusion counts, the buffer assignment for memory). Every file that cannot be read becomes one
line in :attr:`Listing.errors` and a blank cell in its row; nothing stops the listing.

``hloscope ls`` (:mod:`hloscope.cli.ls`) prints it with :mod:`hloscope.render.dump_listing`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import storage
from .buffers import MemorySummary
from .errors import DumpFormatError
from .index import DumpFile, DumpIndex, DumpModule

__all__ = ["ListingRow", "Listing", "build_listing", "listing_json"]


@dataclass(slots=True)
class ListingRow:
    """What ``hloscope ls`` shows for one module.

    ``instructions``/``fusions`` count every instruction (fused computations included) and the
    ``fusion`` instructions of the after-optimization module, or of the before-optimization one
    when no after file was dumped (``counted_stage`` says which); ``None`` when that file could
    not be read.
    """

    module: DumpModule
    function: str
    compiles: int
    compile_number: int
    instructions: int | None = None
    fusions: int | None = None
    counted_stage: str | None = None
    memory: MemorySummary = field(default_factory=MemorySummary)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)


@dataclass(slots=True)
class Listing:
    index: DumpIndex
    rows: list[ListingRow] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return [e for r in self.rows for e in r.errors]

    @property
    def warnings(self) -> list[str]:
        return list(self.index.warnings) + [w for r in self.rows for w in r.warnings]


def build_listing(
    index: DumpIndex,
    *,
    parse: bool = True,
    progress: Callable[[DumpModule], None] | None = None,
) -> Listing:
    """Build the rows of ``hloscope ls`` (``parse=False`` skips reading any file).

    For a remote dump the files of each batch of modules are fetched together
    (:func:`~hloscope.dump.storage.prefetch`): one round of concurrent requests per batch
    instead of a round trip per file."""
    listing = Listing(index)
    rows = [
        ListingRow(module, group.name, group.compiles, number)
        for group in index.functions.values()
        for number, module in enumerate(group.modules, 1)
    ]
    remote = parse and index.is_remote
    batch = _REMOTE_BATCH if remote else max(len(rows), 1)
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        wanted = [f.location for r in chunk for f in _files_read(r.module)] if remote else []
        with storage.prefetch(wanted):
            for row in chunk:
                if parse:
                    _fill(row)
                listing.rows.append(row)
                if progress is not None:
                    progress(row.module)
    return listing


# Modules whose files are fetched together from a remote dump (4-6 files each; a batch of big
# modules is the most held in memory at once).
_REMOTE_BATCH = 32


def _files_read(m: DumpModule) -> list[DumpFile]:
    """The files :func:`_fill` reads for a module (the memory report only where no buffer
    assignment was dumped: otherwise it is read only if the assignment turns out empty)."""
    stages = [f for f in (m.before_file, m.after_file) if f is not None]
    buffers = m.buffer_assignment_files()
    report = m.memory_report_file
    return stages + buffers + ([report] if report is not None and not buffers else [])


def _fill(row: ListingRow) -> None:
    m = row.module
    # Both stages are read (so a damaged file is always reported); the counts come from the
    # after-optimization module, or from the before one only when no after file was dumped.
    for stage, file, get in (("before", m.before_file, m.before), ("after", m.after_file, m.after)):
        if file is None:
            continue
        module = _guard(row, file, get)
        if stage == "after" or m.after_file is None:
            row.instructions = row.fusions = row.counted_stage = None
            if module is not None:
                instrs = fusions = 0
                for instr in module.instructions():
                    instrs += 1
                    fusions += instr.opcode == "fusion"
                row.instructions, row.fusions, row.counted_stage = instrs, fusions, stage
    ba = _guard(
        row,
        _first(m, "buffer-assignment", "buffer-assignment-values", "live-range"),
        m.buffer_assignment,
    )
    report = None
    if ba is None or not ba.allocations:
        report = _guard(row, _first(m, "memory-usage-report"), m.memory_report)
    for part in (ba, report):
        if part is not None:
            row.warnings.extend(part.warnings)
    row.memory = MemorySummary.of(ba, report)


def _first(module: DumpModule, *kinds: str) -> DumpFile | None:
    for kind in kinds:
        files = module.companions(kind)
        if files:
            return files[0]
    return None


def _guard(row: ListingRow, file: DumpFile | None, get):
    """Call ``get()``; turn any failure into one error line about ``file``."""
    if file is None:
        return None
    from ..hlo.errors import HloParseError

    try:
        return get()
    except (HloParseError, DumpFormatError) as e:
        row.errors.append(e.one_line())
    except RecursionError:
        row.errors.append(f"{file.location}: error: nested too deeply to read")
    except Exception as e:  # noqa: BLE001 - one bad file must not stop the listing
        message = str(e).splitlines()[0] if str(e) else ""
        row.errors.append(f"{file.location}: error: {type(e).__name__}: {message}".rstrip(": "))
    return None


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def listing_json(listing: Listing) -> dict:
    """The listing as plain JSON-ready data."""
    index = listing.index
    modules = [_row_json(row) for row in listing.rows]
    return {
        "root": str(index.root),
        "modules": modules,
        "functions": [
            {
                "name": f.name,
                "folder": f.folder,
                "compiles": f.compiles,
                "ids": f.ids,
                "module_names": f.module_names,
            }
            for f in index.functions.values()
        ],
        "unknown_files": [str(p) for p in index.unknown_files],
        "errors": listing.errors,
        "warnings": listing.warnings,
    }


def _row_json(row: ListingRow) -> dict:
    """One module of the listing as JSON-ready data."""
    m = row.module
    return {
        "id": m.id,
        "name": m.name,
        "function": row.function,
        "compile": row.compile_number,
        "folder": m.folder,
        "timestamp": m.timestamp,
        "stages": [
            {"stage": s.name, "backend": s.backend, "files": [f.location for f in s.files]}
            for s in m.stages
        ],
        "passes": [
            {
                "step": p.step,
                "pipeline": p.pipeline,
                "pass_name": p.pass_name,
                "next_pass": p.next_pass,
                "label": p.label,
                "files": [f.location for f in p.files],
            }
            for p in m.passes
        ],
        "other_files": [f.location for f in m.other_files],
        "instructions": row.instructions,
        "fusions": row.fusions,
        "counted_stage": row.counted_stage,
        "size_on_disk": m.size_on_disk,
        **row.memory.as_dict(),
        "errors": row.errors,
        "warnings": row.warnings,
    }
