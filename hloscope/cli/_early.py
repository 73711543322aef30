"""What the console script does before it imports click: start a watched script's Python.

``hloscope recompiles SCRIPT.py`` runs the script in a child under the compile watcher. That
child needs ~40 ms to start its interpreter and import the watcher, and the command ~20 ms to
import click and read its options; started here, from the command line as it stands, the child
does its part while the command does its own (:mod:`hloscope.capture.prestart`). The guess is
cheap to get wrong: a command that runs no script (a dump folder, a usage error) ends the
waiting child unused.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["start_script_child_early", "names_a_script", "PRESTART_ENV"]

_COMMAND = "recompiles"


def names_a_script(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (without the program name) looks like ``recompiles SCRIPT.py ...`` or
    ``recompiles SCRIPT.py:FUNCTION``: the command first, then an existing ``.py`` file among
    the arguments before any ``--``."""
    if not argv or argv[0] != _COMMAND:
        return False
    for arg in argv[1:]:
        if arg == "--":
            return False
        script = arg.rpartition(":")[0] if ".py:" in arg else arg
        if script.endswith(".py") and os.path.isfile(script):
            return True
    return False


#: ``HLOSCOPE_PRESTART=off`` starts the child only once the command line is read, as any
#: other capture does (a way out for a tool that minds a second process started this early).
PRESTART_ENV = "HLOSCOPE_PRESTART"


def start_script_child_early(argv: Sequence[str] | None = None) -> None:
    """Start the watched child now when the command line asks for a script run."""
    if os.environ.get(PRESTART_ENV, "").strip().lower() in ("off", "0", "no"):
        return
    if names_a_script(sys.argv[1:] if argv is None else argv):
        from ..capture.prestart import prestart

        prestart()
