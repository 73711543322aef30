"""The HLO language alone: data model, shapes, opcodes, parser, printer, graph view.

Nothing here imports jax or tensorflow.
"""

from .attributes import Attributes
from .errors import HloParseError
from .model import Computation, Instruction, Metadata, Module, StackFrame
from .opcodes import OPCODES, category_of
from .parser import parse, parse_modules
from .shape import Layout, Shape, parse_shape

__all__ = [
    "Attributes",
    "OPCODES",
    "category_of",
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
