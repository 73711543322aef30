"""The errors of fleets of dumps.

- :class:`FleetError`: a fleet that cannot be read as asked (no dump under a folder, a
  baseline file that is not a fleet's parquet), exit status 1.
- :class:`FleetUsageError`: options that cannot be used (a ``--label`` regex that does not
  compile or matches no dump path, an unknown ``--fail-on`` metric), exit status 2.

A module that fails to read or parse is not an error here: it becomes a row with its
``error`` text, so one bad file never loses a run of hundreds.
"""

from __future__ import annotations

__all__ = ["FleetError", "FleetUsageError"]

from ..errors import HloscopeError, UsageProblem


class FleetError(HloscopeError):
    """A fleet that cannot be read as asked."""


class FleetUsageError(FleetError, UsageProblem):
    """Fleet options that cannot be used as given."""
