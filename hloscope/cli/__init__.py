"""The ``hloscope`` command line: a thin click layer over the library, one module per command.

Each command resolves its TARGET (:mod:`hloscope.cli._target`), calls one analysis, hands the
result to a renderer and decides the exit status; :mod:`hloscope.cli._app` turns every
:class:`~hloscope.errors.HloscopeError` into one line on stderr and its exit code. Offline
commands never import jax or tensorflow.
"""

from . import (  # noqa: F401 - registers commands
    bench,
    cache,
    capture,
    check,
    collectives,
    diff,
    explain,
    explain_error,
    extract,
    fleet,
    fusions,
    graph,
    ls,
    memory,
    passes,
    recompiles,
    report,
    summary,
)
from ._app import cli, main

__all__ = ["cli", "main"]
