"""What there is to explain: the stages one program has (jaxpr, StableHLO, HLO before and after
optimization), found in a capture, a target, a dump or bare modules, and why each absent
stage is absent (:attr:`~hloscope.analysis.explain.Explanation.missing`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...hlo.model import Module
from ...stages import Stage
from ..provenance import tf_function_name

if TYPE_CHECKING:  # pragma: no cover
    from ...backends.record import Capture
    from ...capture.jaxpr_lines import JaxprSources
    from ...capture.target import Target


@dataclass(slots=True)
class _Inputs:
    """The stages found for one program (``None``: absent) and why each absent one is."""

    name: str
    frontend: str
    jaxpr: JaxprSources | None = None
    stablehlo: str | None = None
    before: Module | None = None
    after: Module | None = None
    missing: dict[str, str] = field(default_factory=dict)


_NEEDS_FUNCTION = "explain SCRIPT.py:FUNCTION, or a capture_with_sources() capture, for it"


def _is_optimized(module: Module) -> bool:
    """An optimized module: scheduled (XLA's header says so) or holding fusions."""
    header = module.header_attrs
    if "is_scheduled" in header and str(header.raw("is_scheduled")).strip().lower() == "true":
        return True
    return any(inst.opcode == "fusion" for inst in module.instructions())


def _frontend_of(module: Module) -> str:
    """``tensorflow`` (TF names its modules), ``jax`` (op names open with ``jit(``), or
    ``xla`` for a module that says neither."""
    if tf_function_name(module.name):
        return "tensorflow"
    for inst in module.instructions():
        if inst.metadata.op_name.startswith(("jit(", "pmap(")):
            return "jax"
    return "xla"


def _from_modules(before: Module | None, after: Module | None, where: str) -> _Inputs:
    some = after if after is not None else before
    assert some is not None
    inputs = _Inputs(some.name, _frontend_of(some), before=before, after=after)
    if inputs.frontend == "tensorflow":
        inputs.missing[str(Stage.JAXPR)] = "TensorFlow has no jaxpr"
        inputs.missing[str(Stage.STABLEHLO)] = "TensorFlow hands XLA HLO, not StableHLO"
    else:
        inputs.missing[str(Stage.JAXPR)] = f"not in {where}; {_NEEDS_FUNCTION}"
        inputs.missing[str(Stage.STABLEHLO)] = f"not in {where}; {_NEEDS_FUNCTION}"
    if before is None:
        inputs.missing[str(Stage.HLO)] = (
            f"{where} holds only the optimized module (a dump folder has both)"
        )
    if after is None:
        inputs.missing[str(Stage.OPTIMIZED_HLO)] = (
            f"{where} holds only HLO before optimization: no kernels (a dump folder has both)"
        )
    return inputs


def _from_capture(capture: Capture, jaxpr: JaxprSources | None) -> _Inputs:
    stages = capture.stages
    before = capture.module(Stage.HLO) if Stage.HLO in stages else None
    after = capture.module(Stage.OPTIMIZED_HLO) if Stage.OPTIMIZED_HLO in stages else None
    inputs = _from_modules(before, after, f"this {capture.frontend} capture")
    inputs.name = capture.name
    if capture.frontend == "tensorflow":
        return inputs
    inputs.frontend = "jax"
    inputs.missing.pop(str(Stage.JAXPR), None)
    inputs.missing.pop(str(Stage.STABLEHLO), None)
    inputs.stablehlo = stages.get(Stage.STABLEHLO)
    if inputs.stablehlo is None:
        inputs.missing[str(Stage.STABLEHLO)] = "this capture has no StableHLO stage"
    inputs.jaxpr = jaxpr if jaxpr is not None else getattr(capture, "jaxpr_sources", None)
    if inputs.jaxpr is None:
        inputs.missing[str(Stage.JAXPR)] = (
            f"this capture has the jaxpr's text but not each equation's line; {_NEEDS_FUNCTION}"
        )
    return inputs


def before_beside(path: str | os.PathLike[str], name: str) -> Module | None:
    """The module ``name`` before optimization, from the ``X.before_optimizations.txt`` beside
    an ``X.after_optimizations.txt`` file (as XLA dumps and ``samples/hlo`` have them);
    ``None`` when there is no such file or it holds no module of that name."""
    from ...hlo.parser import parse_modules

    after = Path(path)
    if "after_optimizations" not in after.name:
        return None
    sibling = after.with_name(after.name.replace("after_optimizations", "before_optimizations"))
    if not sibling.is_file():
        return None
    return next((m for m in parse_modules(sibling) if m.name == name), None)


def _dump_before(target: Target, after: Module) -> Module | None:
    """The module before optimization of the same compilation as ``after`` (the same dump
    module id, found by the file ``after`` was read from; else the main module of its name)."""
    from ...capture.target import TargetError

    path = after.source.path if after.source is not None else None
    for each in target.dump().modules:
        if each.after_file is not None and each.after_file.location == path:
            return each.before()
    try:
        return target.main_module(Stage.HLO, after.name)
    except TargetError:
        return None


def _from_target(
    target: Target, module: str | Module | None, jaxpr: JaxprSources | None
) -> _Inputs:
    from ...capture.target import TargetKind

    if target.kind in (TargetKind.FUNCTION, TargetKind.CAPTURE):
        from ...capture.jaxpr_lines import saved_capture_for_target

        return _from_capture(saved_capture_for_target(target), jaxpr)
    chosen = module if isinstance(module, Module) else None
    name = module if isinstance(module, str) else None
    if target.kind is TargetKind.HLO_FILE:
        chosen = chosen or target.main_module(Stage.OPTIMIZED_HLO, name)
        where = f"the file {target.path.name}"
        if not _is_optimized(chosen):
            return _from_modules(chosen, None, where)
        before = before_beside(target.path, chosen.name)
        if before is not None:
            beside = target.path.name.replace("after_optimizations", "before_optimizations")
            return _from_modules(before, chosen, f"the files {target.path.name} and {beside}")
        return _from_modules(None, chosen, where)
    after = chosen or target.main_module(Stage.OPTIMIZED_HLO, name)
    return _from_modules(_dump_before(target, after), after, "a dump folder")


def _inputs(value: Any, module: str | Module | None, before: Module | None, jaxpr: Any) -> _Inputs:
    from ...backends.record import Capture
    from ...capture.target import Target

    if isinstance(value, Module):
        if before is not None:
            return _from_modules(before, value, "a pair of modules")
        if _is_optimized(value):
            return _from_modules(None, value, "one module")
        return _from_modules(value, None, "one module")
    if isinstance(value, Capture):
        return _from_capture(value, jaxpr)
    if isinstance(value, (str, os.PathLike)):
        value = Target.resolve(value)
    if isinstance(value, Target):
        return _from_target(value, module, jaxpr)
    raise TypeError(
        "explain() takes a Capture, a Target, a TARGET string or a Module, "
        f"not a {type(value).__name__}"
    )
