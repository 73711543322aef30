"""Unsupported operations: find every op a platform cannot compile, before compiling.

* :mod:`.findings` -- the records every check returns (:class:`Finding`, :class:`CheckReport`);
* :mod:`.fixes` -- the table of common offenders and the API that replaces each;
* :mod:`.hlo_check` -- what HLO text alone shows (``hloscope check FILE --device tpu``);
* :mod:`.jax_check` / :mod:`.tf_check` -- pre-flight checks of a JAX or TensorFlow function.

Reading the errors' text (``hloscope explain-error``) is :mod:`hloscope.analysis.explain_error`.
"""

from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason

__all__ = ["TOP_LEVEL", "CheckReport", "Finding", "Platform", "Reason"]
