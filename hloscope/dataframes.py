"""pandas, for the methods that hand results over as DataFrames, and only for them.

The command line and every report need no pandas, so the core install leaves it out; the
``to_frame`` / ``to_dataframe`` methods and :func:`hloscope.fusions` import it through
:func:`require_pandas`, which names the extra that brings it when it is missing, the way
capture names ``hloscope[jax]``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingPandas

__all__ = ["require_pandas", "MissingPandas", "EXTRA"]

#: The extra that installs pandas: ``pip install 'hloscope[dataframe]'``.
EXTRA = "dataframe"


def require_pandas() -> ModuleType:
    """The ``pandas`` module, or :class:`MissingPandas` saying how to install it."""
    try:
        return importlib.import_module("pandas")
    except ImportError:
        raise MissingPandas(
            f"pandas is not installed: pip install 'hloscope[{EXTRA}]' for DataFrames"
        ) from None
