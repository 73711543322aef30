"""hloscope: see what XLA does to your code.

The offline API (parsing, dump folders, analyses) never imports jax or tensorflow; capture
functions import them only when called.
"""

from .hlo import (
    Computation,
    HloParseError,
    Instruction,
    Layout,
    Metadata,
    Module,
    Shape,
    StackFrame,
    parse,
    parse_modules,
    parse_shape,
)
from .dump import DumpFormatError, DumpIndex, load_dump
from .capture.errors import CaptureError
from .capture.inprocess import Capture, capture
from .capture.target import ResolvedTarget, load_modules, resolve_target
from .analysis.cost import module_cost
from .analysis.fusions import fusion_report, fusions
from .analysis.diff import KernelDiff, diff

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "HloParseError",
    "Module",
    "Computation",
    "Instruction",
    "Metadata",
    "StackFrame",
    "Shape",
    "Layout",
    "parse",
    "parse_modules",
    "parse_shape",
    "load_dump",
    "DumpIndex",
    "DumpFormatError",
    "capture",
    "Capture",
    "CaptureError",
    "resolve_target",
    "ResolvedTarget",
    "load_modules",
    "module_cost",
    "fusion_report",
    "fusions",
    "diff",
    "KernelDiff",
]
