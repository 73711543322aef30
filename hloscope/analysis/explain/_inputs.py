"""What there is to explain: the stages one program has (jaxpr, StableHLO, HLO before and after
optimization), found in a capture, an HLO file or bare modules, and why each absent stage is
absent (:attr:`~hloscope.analysis.explain.Explanation.missing`). A TARGET's stages (its dump,
its capture) are found by :mod:`hloscope.drivers.explain`, which opens it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...hlo.model import Module
from ...stages import Stage
from ..provenance import tf_function_name

if TYPE_CHECKING:  # pragma: no cover
    from ...backends.jaxpr_records import JaxprSources
    from ...backends.record import Capture


@dataclass(slots=True)
class ProgramStages:
    """The stages found for one program (``None``: absent) and why each absent one is: what
    :func:`~hloscope.analysis.explain.explain` links."""

    name: str
    frontend: str
    jaxpr: JaxprSources | None = None
    stablehlo: str | None = None
    before: Module | None = None
    after: Module | None = None
    missing: dict[str, str] = field(default_factory=dict)


_NEEDS_FUNCTION = "explain SCRIPT.py:FUNCTION, or a capture_with_sources() capture, for it"


def is_optimized(module: Module) -> bool:
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


def stages_of_modules(before: Module | None, after: Module | None, where: str) -> ProgramStages:
    """The stages of a module before optimization and/or after it, read from ``where`` (named
    in what the absent stages say)."""
    some = after if after is not None else before
    assert some is not None
    inputs = ProgramStages(some.name, _frontend_of(some), before=before, after=after)
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


def stages_of_capture(capture: Capture, jaxpr: JaxprSources | None = None) -> ProgramStages:
    """The stages of a capture; ``jaxpr`` gives the jaxpr's sources when the capture lacks
    them (a :class:`~hloscope.capture.jaxpr_lines.SourcedCapture` has its own)."""
    stages = capture.stages
    before = capture.module(Stage.HLO) if Stage.HLO in stages else None
    after = capture.module(Stage.OPTIMIZED_HLO) if Stage.OPTIMIZED_HLO in stages else None
    inputs = stages_of_modules(before, after, f"this {capture.frontend} capture")
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


def stages_of_file(module: Module, path: Path) -> ProgramStages:
    """The stages of ``module``, read from the HLO file ``path``: an optimized module with the
    module before optimization from the ``X.before_optimizations.txt`` beside it when there is
    one (:func:`before_beside`)."""
    where = f"the file {path.name}"
    if not is_optimized(module):
        return stages_of_modules(module, None, where)
    before = before_beside(path, module.name)
    if before is not None:
        beside = path.name.replace("after_optimizations", "before_optimizations")
        return stages_of_modules(before, module, f"the files {path.name} and {beside}")
    return stages_of_modules(None, module, where)


def _inputs(value: Any, before: Module | None, jaxpr: Any) -> ProgramStages:
    from ...backends.record import Capture

    if isinstance(value, ProgramStages):
        return value
    if isinstance(value, Module):
        if before is not None:
            return stages_of_modules(before, value, "a pair of modules")
        if is_optimized(value):
            return stages_of_modules(None, value, "one module")
        return stages_of_modules(value, None, "one module")
    if isinstance(value, Capture):
        return stages_of_capture(value, jaxpr)
    raise TypeError(
        "explain() takes a Capture, a Module or the stages found of a program (a Target or "
        f"TARGET string: hloscope.explain), not a {type(value).__name__}"
    )
