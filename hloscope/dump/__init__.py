"""XLA dump folders (``--xla_dump_to``): the file-name grammar, an index of the modules and
stages in a folder, and the buffer-assignment / memory-usage reports.

Nothing here imports jax or tensorflow, and nothing reads a file until asked for.
"""

from ..lazy_exports import lazy_exports

# Each name loads its module on first use (PEP 562): a command that reads one HLO text file
# (``hloscope summary FILE``) resolves its target through :mod:`hloscope.capture.target`, which
# needs only ``storage`` and ``errors`` of this package; the buffer and memory-report readers
# and the folder index cost it ~20 ms of imports it never used.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        ".errors": ("DumpFormatError",),
        ".filenames": ("DumpFileName", "parse_dump_filename", "function_name"),
        ".index": (
            "DumpIndex",
            "DumpModule",
            "DumpFunction",
            "DumpStage",
            "DumpFile",
            "PassDump",
            "load_dump",
            "index_entries",
        ),
        ".buffers": (
            "BufferAssignment",
            "Allocation",
            "BufferValue",
            "LiveRange",
            "MemorySummary",
            "parse_buffer_assignment",
            "load_buffer_assignment",
        ),
        ".memory_report": ("MemoryUsageReport", "parse_memory_report", "load_memory_report"),
    },
)
