"""Unsupported operations: find every op a platform cannot compile before compiling, and explain
the errors after.

* :mod:`.findings` -- the records every check returns (:class:`Finding`, :class:`CheckReport`);
* :mod:`.fixes` -- the table of common offenders and the API that replaces each;
* :mod:`.hlo_check` -- what HLO text alone shows (``hloscope check FILE --platform tpu``);
* :mod:`.jax_check` / :mod:`.tf_check` -- pre-flight checks of a JAX or TensorFlow function;
* :mod:`.error_text` -- reading TF, JAX and XLA error text (``hloscope explain-error``).
"""

from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason

__all__ = ["TOP_LEVEL", "CheckReport", "Finding", "Platform", "Reason"]
