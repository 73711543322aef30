"""What the console script does before it imports click: start the capture's Python.

A command that runs a script or captures a function spends its first moments importing click,
reading its options, checking the cache and hashing the script, and only then starts its
child, which starts an interpreter and imports (for a function) most of what ``import jax``
loads. Started here, from the command line as it stands, the child does its part while the
command does its own (:mod:`hloscope.capture.prestart`):

* ``recompiles SCRIPT.py`` or ``recompiles SCRIPT.py:FUNCTION``: a child that runs it under the
  compile watcher;
* a command that reads a ``SCRIPT.py:FUNCTION`` target (``memory``, ``fusions``, ``report``...,
  see :data:`FUNCTION_COMMANDS`) or captures one (``capture SCRIPT.py:FUNCTION -o DIR``), with
  its ``--device`` if it has one: a child that captures a function, with the device's
  backend's environment (libtpu's for a TPU), which the child takes itself.

The guess is cheap to get wrong: a command that runs no script (a cached target, a dump folder,
a usage error, ``--help``) ends the waiting child before it runs anything of the user's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = [
    "start_script_child_early",
    "names_a_script",
    "names_a_function",
    "FUNCTION_COMMANDS",
    "PRESTART_ENV",
]

_COMMAND = "recompiles"

#: Commands whose ``SCRIPT.py:FUNCTION`` target is captured in a child, with the device of
#: ``--device`` (``diff``: of ``--device-a``, else ``--device``, for its first target):
#: through ``Target``, or, for ``capture SCRIPT.py:FUNCTION -o DIR``, straight into DIR.
#: ``bench`` (its ``--device`` is a local device), ``check`` and ``passes`` capture otherwise.
FUNCTION_COMMANDS = frozenset(
    {
        "capture",
        "summary",
        "fusions",
        "graph",
        "memory",
        "collectives",
        "explain",
        "extract",
        "report",
        "diff",
    }
)


def _script_of(arg: str) -> str:
    return arg.rpartition(":")[0] if ".py:" in arg else arg


def names_a_script(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (without the program name) looks like ``recompiles SCRIPT.py ...`` or
    ``recompiles SCRIPT.py:FUNCTION``: the command first, then an existing ``.py`` file among
    the arguments before any ``--``."""
    if not argv or argv[0] != _COMMAND:
        return False
    for arg in argv[1:]:
        if arg == "--":
            return False
        script = _script_of(arg)
        if script.endswith(".py") and os.path.isfile(script):
            return True
    return False


def names_a_function(argv: Sequence[str]) -> tuple[str, str | None] | None:
    """``(SCRIPT.py, device)`` when ``argv`` looks like a command of :data:`FUNCTION_COMMANDS`
    with an existing ``SCRIPT.py:FUNCTION`` among its arguments (the first one), the device its
    ``--device`` names (``None`` without one); else ``None``."""
    if not argv or argv[0] not in FUNCTION_COMMANDS:
        return None
    flags = ("--device-a", "--device") if argv[0] == "diff" else ("--device",)
    found: dict[str, str] = {}
    script: str | None = None
    args = list(argv[1:])
    for index, arg in enumerate(args):
        if arg == "--":
            break
        name, equals, value = arg.partition("=")
        if name in flags:
            given = value if equals else (args[index + 1] if index + 1 < len(args) else "")
            found.setdefault(name, given)
        elif script is None and ".py:" in arg and not arg.startswith("-"):
            candidate = _script_of(arg)
            if candidate.endswith(".py") and os.path.isfile(candidate):
                script = candidate
    if script is None:
        return None
    device = next((found[flag] for flag in flags if found.get(flag)), None)
    return script, device


#: ``HLOSCOPE_PRESTART=off`` starts the child only once the command line is read, as any
#: other capture does (a way out for a tool that minds a second process started this early).
PRESTART_ENV = "HLOSCOPE_PRESTART"


def start_script_child_early(argv: Sequence[str] | None = None) -> None:
    """Start the capture's child now when the command line asks for a script or a function."""
    if os.environ.get(PRESTART_ENV, "").strip().lower() in ("off", "0", "no"):
        return
    argv = sys.argv[1:] if argv is None else argv
    if names_a_script(argv):
        from ..capture.prestart import prestart

        prestart()
        return
    function = names_a_function(argv)
    if function is not None:
        _prestart_function(*function)


def _prestart_function(script: str, device: str | None) -> None:
    from ..capture.prestart import Warm, prestart

    warm = Warm.FUNCTION if device is not None or _mentions_jax(script) else Warm.FUNCTION_NO_JAX
    try:
        prestart(warm, device)
    except Exception:  # a device the registry does not know: the command itself says so
        return


def _mentions_jax(script: str) -> bool:
    """Whether the script's text names jax (a TensorFlow script's child need not load it)."""
    try:
        with open(script, "rb") as source:
            return b"jax" in source.read(1 << 20)
    except OSError:
        return False
