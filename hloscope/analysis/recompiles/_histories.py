"""Each argument of a function over all its compiles (:class:`~._ledger.ArgumentHistory`):
the dimensions that varied and their sizes, the dtypes, weak types and values seen."""

from __future__ import annotations

from typing import Any

from ._ledger import ArgumentHistory, CompileEvent


def histories_of(events: list[CompileEvent]) -> list[ArgumentHistory]:
    histories: dict[str, ArgumentHistory] = {}
    shapes: dict[str, list[tuple[int | None, ...]]] = {}
    for event in events:
        for arg in event.arguments:
            path = arg.path or f"arg{arg.index}"
            history = histories.get(path)
            if history is None:
                history = histories[path] = ArgumentHistory(path, role=arg.role)
            if arg.role == "static":
                _add_once(history.values, arg.value or "?")
                continue
            if arg.dtype is not None:
                _add_once(history.dtypes, arg.dtype)
            if arg.shape is not None:
                shapes.setdefault(path, []).append(arg.shape)
                if len(arg.shape) not in history.ranks:
                    history.ranks.append(len(arg.shape))
            if arg.role == "constant" and arg.value is not None:
                _add_once(history.values, arg.value)
            if arg.weak_type not in history.weak_types:
                history.weak_types.append(arg.weak_type)
        for path, value in event.statics.items():
            history = histories.get(path)
            if history is None:
                history = histories[path] = ArgumentHistory(path, role="static")
            _add_once(history.values, value)
    for path, seen in shapes.items():
        histories[path].varying_dims = _varying_dims(seen)
    return list(histories.values())


def _add_once(values: list[Any], value: Any) -> None:
    if value not in values:
        values.append(value)


def _varying_dims(shapes: list[tuple[int | None, ...]]) -> dict[int, list[int]]:
    """Dimension -> sorted sizes, for each dimension that took more than one size (shapes of
    one rank compared; of several ranks, the most common)."""
    by_rank: dict[int, list[tuple[int | None, ...]]] = {}
    for shape in shapes:
        by_rank.setdefault(len(shape), []).append(shape)
    if not by_rank:
        return {}
    rank = max(by_rank, key=lambda r: len(by_rank[r]))
    varying = {}
    for dim in range(rank):
        sizes = sorted({size for s in by_rank[rank] if (size := s[dim]) is not None})
        if len(sizes) > 1:
            varying[dim] = sizes
    return varying
