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
]
