"""The ``hloscope`` command line: a thin click layer over the library, one module per command.

Each command resolves its TARGET (:mod:`hloscope.cli._target`), calls one analysis, hands the
result to a renderer and decides the exit status; :mod:`hloscope.cli._app` turns every
:class:`~hloscope.errors.HloscopeError` into one line on stderr and its exit code. Offline
commands never import jax or tensorflow. A command's module loads when the command runs
(:data:`hloscope.cli._app.COMMAND_MODULES`), so each command starts with its own imports only;
``hloscope recompiles SCRIPT.py`` starts the script's Python before click is even imported
(:mod:`hloscope.cli._early`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs the console script's start ~5 ms
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ._app import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point of the ``hloscope`` console script."""
    from ._early import start_script_child_early

    start_script_child_early()
    from ._app import main as run

    run()


def __getattr__(name: str) -> Any:
    # The click group loads on first use: `main` first starts what it can before click.
    if name == "cli":
        from ._app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
