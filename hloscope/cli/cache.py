"""``hloscope cache ls|clear``: the captures of script targets kept for reuse."""

from __future__ import annotations

import json

import click

from ._app import cli

__all__ = ["cache_group"]


@cli.group("cache")
def cache_group() -> None:
    """Show or empty the cache of script captures ($HLOSCOPE_CACHE, else ~/.cache/hloscope).

    A SCRIPT.py[:FUNCTION] target is captured once and reused while the script, its
    arguments, the environment, XLA_FLAGS, the versions and every local module it imported
    are unchanged; --refresh on any command captures it again."""


@cache_group.command("ls")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: a list of entries.")
@click.option(
    "--wide", is_flag=True, help="One line per entry, however long (by default paths wrap)."
)
def cache_ls(as_json: bool, wide: bool) -> None:
    """List the cached captures, newest first: script, function, arguments, size, and whether
    the entry is still fresh (its local modules unchanged)."""
    from rich.console import Console

    from ..capture.cache import cache_root, entries
    from ..render.cache_listing import render_cache_listing

    found = entries()
    if as_json:
        click.echo(json.dumps([e.to_dict() for e in found], indent=2))
        return
    render_cache_listing(str(cache_root()), found, Console(), wide=wide)


@cache_group.command("clear")
def cache_clear() -> None:
    """Remove every cached capture."""
    from ..capture.cache import clear
    from ..units import format_bytes

    removed, freed = clear()
    click.echo(
        f"removed {removed} cached capture{'s' if removed != 1 else ''} ({format_bytes(freed)})"
    )
