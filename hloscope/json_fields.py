"""A record's fields as JSON takes them: the one body of the ``to_dict`` methods whose keys
are their record's attribute names (or a few renamed) and whose values are those attributes."""

from __future__ import annotations

from enum import Enum
from pathlib import PurePath
from typing import Any

__all__ = ["json_fields"]


def json_fields(record: object, names: str) -> dict[str, Any]:
    """``{key: value}`` of ``record``'s attributes named in ``names``, in order: space-separated
    names, each an attribute (a field or a property) or ``key=attribute`` for a key of another
    name. An enum is given as its value, a path as its text, a tuple or list as a new list, a
    dict as a new dict; anything else as it is."""
    out: dict[str, Any] = {}
    for name in names.split():
        key, _, attribute = name.partition("=")
        out[key] = _json_value(getattr(record, attribute or key))
    return out


def _json_value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, tuple | list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value
