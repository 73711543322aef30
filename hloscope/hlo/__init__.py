"""The HLO language alone: data model, shapes, opcodes, parser, printer, graph view.

Nothing here imports jax or tensorflow.
"""

from ..lazy_exports import lazy_exports

# Loaded on first use (PEP 562), so that importing one submodule does not import them all.
_LAZY = {
    "Attributes": ".attributes",
    "HloParseError": ".errors",
    "Computation": ".model",
    "Instruction": ".model",
    "Metadata": ".model",
    "Module": ".model",
    "StackFrame": ".model",
    "OPCODES": ".opcodes",
    "category_of": ".opcodes",
    "parse": ".parser",
    "parse_modules": ".parser",
    "Layout": ".shape",
    "Shape": ".shape",
    "parse_shape": ".shape",
}


__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)


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
