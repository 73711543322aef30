"""An option that takes a whole number N (``--top N``, ``--limit N``, ``--depth N``...), written
one way in every command: its least value, its default shown in ``--help`` where it has one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

__all__ = ["count_option"]


def count_option(
    name: str, help: str, *, least: int = 0, default: int | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``name N``, a whole number of at least ``least`` (``None`` when not given and there is
    no ``default``)."""
    return click.option(
        name,
        type=click.IntRange(min=least),
        default=default,
        show_default=default is not None,
        metavar="N",
        help=help,
    )
