"""What a function capture's child does while its compile runs, instead of after it.

Once the compile is done the child used to walk the function's jaxpr for its lines (what
``explain`` and ``report`` put beside each line: :func:`~.jaxpr_lines.jaxpr_sources`) and hash
the user's local modules (what the cache checks before it reuses a capture): tenths of a second
for a large program, every one of them after the compile. Both are ready before it ends: the
jaxpr is JAX's trace, made before the lowering, and the modules are imported.
:class:`WhileCompiling` does them in a thread of the child once the compile has begun, which
its private dump folder says: the compile makes it in the ``--scratch`` folder right after the
lowering (the runner sends the process's temporary folders there while it compiles). The
thread's trace is then the one a trace after the compile gets: the lowering is over, and
jax's config contexts (the lowering's full locations) are per thread.

What the thread could not finish (the compile failed first, a TensorFlow function) is done
after the compile, as before.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["WhileCompiling", "local_modules"]

_LOOK_S = 0.01  # how often the scratch folder is looked at until the compile's dump is there


def local_modules(user_folders: Sequence[str], modules: Any = None) -> dict[str, str | None]:
    """``{real path: sha256}`` of the user's local module files among ``modules`` (default
    every imported one), sorted by path: what the runner reports for the cache."""
    from .cache import hash_files, local_module_files

    return hash_files(local_module_files(modules, user_folders=tuple(user_folders)))


class WhileCompiling:
    """Starts a thread that waits for the compile's dump folder in ``scratch``, then computes
    ``sources()`` (the jaxpr's sources, ``None`` when they cannot be had) and the local modules
    imported by then. :meth:`stop` once the compile has returned."""

    def __init__(
        self,
        scratch: str,
        sources: Callable[[], Any],
        user_folders: Sequence[str],
    ) -> None:
        self.scratch = scratch
        self._sources = sources
        self.user_folders = tuple(user_folders)
        self.jaxpr_sources: Any = None
        self.sources_done = False
        self._modules: dict[str, Any] | None = None  # the ones hashed, by name
        self._hashes: dict[str, str | None] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="hloscope-while-compiling", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """The compile returned: wait for what the thread began, start nothing more."""
        self._stop.set()
        self._thread.join()

    def _compiling(self) -> bool:
        try:
            with os.scandir(self.scratch) as entries:
                return any(entry.is_dir() for entry in entries)
        except OSError:
            return False

    def _run(self) -> None:
        while not self._compiling():
            if self._stop.wait(_LOOK_S):
                return
        modules = dict(sys.modules)
        self._hashes = local_modules(self.user_folders, list(modules.values()))
        self._modules = modules
        try:
            self.jaxpr_sources = self._sources()
        except Exception:  # noqa: BLE001 - traced again after the compile, as before
            return
        self.sources_done = True

    def local_modules(self) -> dict[str, str | None]:
        """The local modules' hashes now: those the thread hashed, and the files of the modules
        imported since (a module imported and then dropped from ``sys.modules`` meanwhile stays:
        the cache is only the more careful)."""
        if self._modules is None:
            return local_modules(self.user_folders)
        hashed = self._modules
        new = [m for name, m in list(sys.modules.items()) if hashed.get(name) is not m]
        found = {**self._hashes, **local_modules(self.user_folders, new)}
        return dict(sorted(found.items()))
