"""What the console script does before it imports click: start a watched script's Python.

``hloscope recompiles SCRIPT.py`` runs the script in a child under the compile watcher. That
child needs ~40 ms to start its interpreter and import the watcher, and the command ~20 ms to
import click and read its options; started here, from the command line as it stands, the child
does its part while the command does its own (:mod:`hloscope.capture.prestart`; with
``HLOSCOPE_PRESTART=fork``, on Linux, a fork of this process, which has imported nothing heavy
yet). The guess is cheap to get wrong: a command that runs no script (a dump folder, a usage
error) ends the waiting child unused.
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


#: ``HLOSCOPE_PRESTART``: ``exec`` (the default: a fresh interpreter), ``fork`` (a fork of
#: this process where that is safe, else a fresh interpreter) or ``off`` (the child starts
#: once the command line is read, as any other capture's). A fork skips the interpreter's
#: start but pays for it in copy-on-write page faults while the script imports its
#: framework: on the 2-core VM of benchmarks/RESULTS.md the two came out even, so the
#: default is the child that is simply a new process.
PRESTART_ENV = "HLOSCOPE_PRESTART"
_PRESTART_MODES = ("exec", "fork", "off")


def start_script_child_early(argv: Sequence[str] | None = None) -> None:
    """Start the watched child now when the command line asks for a script run."""
    mode = os.environ.get(PRESTART_ENV, "exec").strip().lower() or "exec"
    if mode not in _PRESTART_MODES:
        mode = "exec"  # the command itself says nothing: a wrong value only costs the default
    if mode != "off" and names_a_script(sys.argv[1:] if argv is None else argv):
        from ..capture.prestart import prestart

        prestart(fork=mode == "fork")
