"""The HLO language alone: data model, shapes, opcodes, parser, printer, graph view.

Nothing here imports jax or tensorflow.
"""

from .errors import HloParseError
from .model import Computation, Instruction, Metadata, Module, StackFrame
from .parser import parse, parse_modules
from .shape import Layout, Shape, parse_shape

__all__ = [
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
]
