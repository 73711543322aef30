"""XLA dump folders (``--xla_dump_to``): the file-name grammar, an index of the modules and
stages in a folder, and the buffer-assignment / memory-usage reports.

Nothing here imports jax or tensorflow, and nothing reads a file until asked for.
"""

from .buffers import (
    Allocation,
    BufferAssignment,
    BufferValue,
    LiveRange,
    MemorySummary,
    load_buffer_assignment,
    parse_buffer_assignment,
)
from .errors import DumpFormatError
from .filenames import DumpFileName, function_name, parse_dump_filename
from .index import (
    DumpFile,
    DumpFunction,
    DumpIndex,
    DumpModule,
    DumpStage,
    PassDump,
    index_entries,
    load_dump,
)
from .memory_report import MemoryUsageReport, load_memory_report, parse_memory_report

__all__ = [
    "DumpFormatError",
    "DumpFileName",
    "parse_dump_filename",
    "function_name",
    "DumpIndex",
    "DumpModule",
    "DumpFunction",
    "DumpStage",
    "DumpFile",
    "PassDump",
    "load_dump",
    "index_entries",
    "BufferAssignment",
    "Allocation",
    "BufferValue",
    "LiveRange",
    "MemoryUsageReport",
    "MemorySummary",
    "parse_buffer_assignment",
    "load_buffer_assignment",
    "parse_memory_report",
    "load_memory_report",
]
