"""A Python callback's results, as JAX checks them against what the callback declared.

``jax.pure_callback`` declares the shapes and dtypes its callback returns; ``io_callback``
may declare none. When the callback returns something else, JAX's own check raises inside
the compiled program and XLA passes it on ("CpuCallback error calling callback: ...
RuntimeError: Mismatched number of outputs from callback. Expected: 1, Actual: 2"). The
traceback reaches only the call that ran the program, and the log seldom names the API: the
check's words say which kind of callback it was.
"""

from __future__ import annotations

import re

__all__ = ["checked_callback", "refused_result"]

# JAX's check of a returned value against its declared ShapeDtypeStruct (any release).
_REFUSED = re.compile(r"Incorrect output (?P<what>shape|dtype) for return value")
# JAX's count of the returned values against those declared.
_COUNTED = re.compile(r"Mismatched number of outputs from callback\. Expected: (?P<expected>\d+)")


def refused_result(message: str) -> str | None:
    """What of a returned value JAX's check refused in ``message``: ``shape`` or ``dtype``."""
    found = _REFUSED.search(message)
    return found["what"] if found else None


def checked_callback(message: str) -> str | None:
    """The callback whose results JAX's check refused in ``message`` (the check's words, not
    the callback's own error): one that declared results is a ``pure_callback``; one that
    declared none and returned some, an ``io_callback``."""
    counted = _COUNTED.search(message)
    if counted is not None:
        return "io_callback" if counted["expected"] == "0" else "pure_callback"
    return "pure_callback" if refused_result(message) else None
