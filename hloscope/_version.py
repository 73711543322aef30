"""hloscope's version, read from the installed package's metadata (pyproject.toml is the one
place it is written).

A source tree that was never installed (``pip install -e .`` or otherwise) has no metadata, and
gets ``"0+unknown"``: a valid PEP 440 version that sorts below every release.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["__version__"]

try:
    __version__: str = metadata.version("hloscope")
except metadata.PackageNotFoundError:  # pragma: no cover - a checkout that is not installed
    __version__ = "0+unknown"
