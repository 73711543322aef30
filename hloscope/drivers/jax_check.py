"""The JAX pre-flight check of a function: lowered here for the platform without its device
(:func:`hloscope.backends.jax_lowering.lower_for`), its facts read into findings by
:func:`hloscope.analysis.unsupported.jax_check.report_of` (see that module for what is
found)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..analysis.mxu import DEFAULT_MXU
from ..analysis.unsupported.findings import CheckReport, Platform
from ..analysis.unsupported.jax_check import report_of

__all__ = ["check_jax"]


def check_jax(
    fn: Callable[..., Any],
    *args: Any,
    platform: str = "cpu",
    mxu: int = DEFAULT_MXU,
    **kwargs: Any,
) -> CheckReport:
    """Check that ``fn(*args, **kwargs)`` compiles for ``platform`` (``cpu``, ``gpu``,
    ``tpu``), without running it and without that platform's device.

    ``fn`` is a JAX function, plain or jitted (a jitted one keeps its static arguments);
    ``args`` are example inputs (arrays or ``jax.ShapeDtypeStruct``: only shapes and dtypes
    matter). Turn on ``jax_enable_x64`` before making 64-bit inputs to check them. Returns a
    :class:`~hloscope.analysis.unsupported.findings.CheckReport`; raises only when jax itself
    is missing. ``mxu`` is the TPU's matrix unit size the alignment warnings measure against
    (256 on v6e); like ``platform``, it is hloscope's keyword, not passed on to ``fn``.
    """
    from ..backends.jax_lowering import lower_for

    target = Platform.parse(platform)
    return report_of(lower_for(fn, args, kwargs, platform=target.value), target, mxu=mxu)
