"""The top-level convenience functions: an analysis applied to anything that names HLO.

The analyses in :mod:`hloscope.analysis` take :class:`~hloscope.hlo.model.Module` objects and
nothing else. These wrappers also take what a person has at hand, a path, a TARGET string, a
:class:`~hloscope.capture.target.Target` or a :class:`~hloscope.capture.inprocess.Capture`,
turn it into a module through :class:`~hloscope.capture.target.Target` (the one road from a
TARGET to modules) and call the analysis::

    hloscope.fusions("model.after_optimizations.txt")    # a DataFrame, one row per kernel
    hloscope.diff("before.txt", "after.txt", module="jit_step")
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .capture.target import Target
from .hlo.model import Module
from .stages import Stage

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .analysis.diff import KernelDiff
    from .analysis.fusions import FusionReport

__all__ = ["as_module", "fusion_report", "fusions", "diff"]


def as_module(
    value: Any, *, stage: str | Stage = Stage.OPTIMIZED_HLO, module: str | None = None
) -> Module:
    """The one module ``value`` stands for.

    ``value`` is a :class:`Module` (returned as it is), a
    :class:`~hloscope.capture.inprocess.Capture` (its ``stage`` module), a
    :class:`~hloscope.capture.target.Target`, or a TARGET string or path (resolved with
    :meth:`Target.resolve`; of several modules, ``module`` picks one by name or id and
    otherwise :meth:`Target.choose_module`'s rule applies).
    """
    if isinstance(value, Module):
        return value
    from .capture.inprocess import Capture

    if isinstance(value, Capture):
        return value.module(stage)
    if isinstance(value, (str, os.PathLike, Target)):
        return Target.resolve(value).main_module(stage, module)
    raise TypeError(
        f"expected a Module, a Capture, a Target or a TARGET string, not {type(value).__name__}"
    )


def fusion_report(value: Any, *, module: str | None = None) -> FusionReport:
    """:func:`hloscope.analysis.fusions.fusion_report` of what ``value`` names (see
    :func:`as_module`); an iterable of modules is reported together."""
    from .analysis.fusions import fusion_report as report_of

    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, os.PathLike, Module)):
        return report_of([as_module(v) for v in value])
    return report_of(as_module(value, module=module))


def fusions(value: Any, *, module: str | None = None) -> pandas.DataFrame:
    """The kernels of what ``value`` names as a DataFrame, one row per kernel (see
    :func:`hloscope.analysis.fusions.fusions` for the columns)."""
    from .analysis.fusions import fusions as kernel_table

    return kernel_table(as_module(value, module=module))


def diff(a: Any, b: Any, *, module: str | None = None) -> KernelDiff:
    """:func:`hloscope.analysis.diff.diff` of the modules ``a`` and ``b`` name (see
    :func:`as_module`; ``module`` picks the same-named module on both sides)."""
    from .analysis.diff import diff as kernel_diff

    labels = tuple(str(side) if isinstance(side, (str, os.PathLike)) else None for side in (a, b))
    return kernel_diff(
        as_module(a, module=module),
        as_module(b, module=module),
        labels=labels if all(labels) else None,
    )
