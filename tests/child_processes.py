"""What tests of the capture's children ask of /proc: is a process alive, and which prestarted
children (``_runner --orders-fd``, :mod:`hloscope.capture.prestart`) still wait in a folder."""

from __future__ import annotations

import os
from pathlib import Path

from hloscope.capture.prestart import ORDERS_FLAG

__all__ = ["alive", "waiting_children_in"]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[1].startswith("Z"))


def waiting_children_in(folder: Path) -> list[int]:
    """Prestarted children (``_runner --orders-fd``) whose working folder is ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if ORDERS_FLAG.encode() in command and Path(cwd) == folder and alive(int(entry.name)):
            found.append(int(entry.name))
    return found
