"""The HLO language alone: data model, shapes, opcodes, parser, printer, graph view.

Nothing here imports jax or tensorflow.
"""

from typing import Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
