"""Run code right after a module is executed, without importing it first.

Three places need a hook on someone else's import: the package gives result classes their
notebook view as their (lower-layer) modules load; a compile-time watch registers its
``jax.monitoring`` listener when the script first imports jax; the capture runner tells JAX
its frames are not user code when the script imports jax. None may import the module itself
(the layers forbid it, or the script must configure jax before it loads). :func:`after_import`
is the one meta path finder they share: it wraps the module's loader so that the call comes
right after the module's code ran, before its importer sees it.

A meta path finder needs only ``find_spec``: ``importlib.abc`` would cost every command ~15 ms
of imports, and this module is imported by ``import hloscope``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys

TYPE_CHECKING = False  # typing itself costs every command's start ~5 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

__all__ = ["after_import"]

#: The calls waiting for each module to be executed, in the order they were asked for.
_WAITING: dict[str, list[Callable[[ModuleType], object]]] = {}


def after_import(name: str, then: Callable[[ModuleType], object]) -> None:
    """Call ``then(module)`` once module ``name`` has been executed: at once when it is already
    imported, else right after its first import runs it (an exception of ``then`` is dropped
    there: a hook must never break its importer's import)."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
        return
    _WAITING.setdefault(name, []).append(then)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


class _AfterImport:
    """The meta path finder: for a module with calls waiting, the spec the other finders
    give, its loader's ``exec_module`` wrapped to make the calls."""

    def __init__(self) -> None:
        self._finding: set[str] = set()

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _WAITING or name in self._finding:
            return None
        self._finding.add(name)  # the search below asks this finder again: it says None
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self._finding.discard(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def exec_then_call(module: ModuleType) -> None:
            execute(module)
            for then in _WAITING.pop(name, ()):
                with contextlib.suppress(Exception):  # never break the importer's import
                    then(module)
            if not _WAITING and self in sys.meta_path:
                sys.meta_path.remove(self)

        loader.exec_module = exec_then_call
        return spec


_FINDER = _AfterImport()
