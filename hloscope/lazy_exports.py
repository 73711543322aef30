"""Names a package exports but loads on first use (PEP 562 module ``__getattr__``).

``import hloscope`` must stay cheap: every command and a watched script pay for it, and most
use one corner of the library. A package lists what it exports and the module that defines
each name; :func:`lazy_exports` gives it the ``__getattr__`` and ``__dir__`` that import that
module when a name is first read and keep the value, so the next read is a plain lookup.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping

TYPE_CHECKING = False  # typing itself costs every command's start ~5 ms
if TYPE_CHECKING:
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, namespace: MutableMapping[str, Any], table: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose globals are ``namespace``; ``table``
    maps each exported name to the module that defines it, relative to ``package``
    (``".diff"``)."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *table})

    return __getattr__, __dir__
