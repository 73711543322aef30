"""The ``hloscope`` command line: a thin click layer over the library, one module per command.

Each command resolves its TARGET (:mod:`hloscope.cli._target`), calls one analysis, hands the
result to a renderer and decides the exit status; :mod:`hloscope.cli._app` turns every
:class:`~hloscope.errors.HloscopeError` into one line on stderr and its exit code. Offline
commands never import jax or tensorflow. A command's module loads when the command runs
(:data:`hloscope.cli._app.COMMAND_MODULES`), so each command starts with its own imports only.
"""

from ._app import cli, main

__all__ = ["cli", "main"]
