"""Names a package exports but loads on first use (PEP 562 module ``__getattr__``).

``import hloscope`` must stay cheap: every command and a watched script pay for it, and most
use one corner of the library. A package lists, once, each module it exports names from and
those names; :func:`lazy_exports` gives it the ``__getattr__`` and ``__dir__`` that import that
module when a name is first read and keep the value, so the next read is a plain lookup, and
the names themselves for its ``__all__`` (so that no second list can drift from the first).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping

TYPE_CHECKING = False  # typing itself costs every command's start ~5 ms
if TYPE_CHECKING:
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, namespace: MutableMapping[str, Any], table: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, names)`` for ``package``, whose globals are ``namespace``;
    ``table`` maps each module, relative to ``package`` (``".diff"``), to the names of it the
    package exports, and ``names`` lists them all in the table's order (the package's
    ``__all__``, less the names it imports at once)."""
    home = {name: module for module, names in table.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *home})

    return __getattr__, __dir__, list(home)
