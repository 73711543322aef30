"""The HLO language alone: data model, shapes, opcodes, parser, printer, graph view.

Nothing here imports jax or tensorflow.
"""

from ..lazy_exports import lazy_exports

# Loaded on first use (PEP 562), so that importing one submodule does not import them all.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    globals(),
    {
        ".attributes": ("Attributes",),
        ".opcodes": ("OPCODES", "category_of"),
        ".errors": ("HloParseError",),
        ".model": ("Module", "Computation", "Instruction", "Metadata", "StackFrame"),
        ".shape": ("Shape", "Layout", "parse_shape"),
        ".parser": ("parse", "parse_modules"),
    },
)
