"""What the commands that run a user's script (``capture``, ``recompiles``) share: the
``--timeout`` option and the exit status of a script that ran past it."""

from __future__ import annotations

import click

__all__ = ["TIMED_OUT", "timeout_option"]

#: Exit status when the script ran past ``--timeout`` (the status GNU timeout uses).
TIMED_OUT = 124

timeout_option = click.option(
    "--timeout", type=float, metavar="S", help="Stop the script (and its children) after S seconds."
)
