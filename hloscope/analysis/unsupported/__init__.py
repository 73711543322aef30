"""Unsupported operations: find every op a platform cannot compile before compiling, and explain
the errors after.

* :mod:`.findings` -- the records every check returns (:class:`Finding`, :class:`CheckReport`);
* :mod:`.fixes` -- the table of common offenders and the API that replaces each.
"""

from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason

__all__ = ["TOP_LEVEL", "CheckReport", "Finding", "Platform", "Reason"]
