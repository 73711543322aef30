"""Memory of what a TARGET names, or of a function compiled here: the target opened (its dump,
its capture, its HLO file) or the function compiled, and the data handed to
:mod:`hloscope.analysis.memory`, which reads buffer assignments and simulates modules and runs
nothing. ``hloscope.memory`` and ``hloscope memory`` answer through here."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..analysis.memory import (
    MemoryResult,
    memory_of,
    memory_of_capture,
    memory_of_compiled,
    memory_of_dump_module,
    tpu_allocation,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.target import Target
    from ..dump.index import DumpModule
    from ..hlo.model import Module

__all__ = ["memory", "memory_of_function", "memory_of_side", "memory_results"]


def _dump_modules_by_file(target: Target) -> dict[str, DumpModule]:
    """The dump's modules by the location of their optimized file (a URL for a remote dump)."""
    return {m.after_file.location: m for m in target.dump().modules if m.after_file is not None}


def memory_results(
    target: Target, *, module: str | None = None, all_modules: bool = False
) -> list[MemoryResult]:
    """One result per chosen module of ``target``: from the dump's side files when usable."""
    from ..capture.target import TargetKind

    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        return [memory_of_capture(target.capture())]
    if all_modules:
        modules = target.modules("after")
    else:
        modules = [target.choose_module("after", module).module]
    by_path: dict[str, Any] = {}
    if target.kind in (TargetKind.DUMP, TargetKind.SCRIPT):
        by_path = _dump_modules_by_file(target)
    out = []
    for each in modules:
        path = each.source.path if each.source is not None else None
        dump_module = by_path.get(str(path)) if path else None
        result = memory_of_dump_module(each, dump_module)
        if dump_module is not None:
            tpu_allocation(result, each, dump_module)
        out.append(result)
    return out


def memory_of_side(module: Module, target: Target | None = None) -> MemoryResult:
    """The memory result of ``module``, one of ``target``'s modules: XLA's buffer assignment
    and live range from the dump's side files when they are there and agree with the module
    (as ``hloscope memory`` reads them), a function or capture target's own reports, else the
    simulation of the module text. ``diff`` and ``report`` read it so that they do not parse a
    module a second time to learn its memory."""
    from ..capture.target import TargetKind

    if target is None or target.kind is TargetKind.HLO_FILE:
        return memory_of(module)
    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        return memory_of_capture(target.capture())
    path = str(module.source.path) if module.source is not None else None
    dump_module = _dump_modules_by_file(target).get(path) if path is not None else None
    return memory_of_dump_module(module, dump_module)


def memory_of_function(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> MemoryResult:
    """Compile ``fn(*args, **kwargs)`` with jax and return its memory result (exact: XLA's own
    live range of this compile, with ``memory_analysis()``'s breakdown)."""
    from ..backends import compile_with_memory_reports
    from ..hlo.parser import parse

    text, reports, stats = compile_with_memory_reports(fn, *args, **kwargs)
    return memory_of_compiled(parse(text, path="<memory>"), reports, stats)


def memory(value: Any, *args: Any, module: str | None = None, **kwargs: Any) -> MemoryResult:
    """The memory result of what ``value`` names: a TARGET string or path, a
    :class:`~hloscope.capture.target.Target`, a parsed module (simulated), or a jax function
    with its example arguments (``hloscope.memory(fn, x, y)``: compiled, XLA's live range)."""
    from ..capture.target import Target
    from ..hlo.model import Module

    if isinstance(value, Module):
        return memory_of(value)
    if isinstance(value, (str, os.PathLike, Target)):
        return memory_results(Target.resolve(value), module=module)[0]
    if callable(value):
        return memory_of_function(value, *args, **kwargs)
    raise TypeError(f"hloscope.memory: cannot read a {type(value).__name__}")
