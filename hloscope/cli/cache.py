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
def cache_ls(as_json: bool) -> None:
    """List the cached captures, newest first: script, function, arguments, size, and whether
    the entry is still fresh (its local modules unchanged)."""
    from rich.console import Console
    from rich.table import Table

    from ..capture.cache import cache_root, entries
    from ..render.terminal import printable
    from ..units import format_bytes

    found = entries()
    if as_json:
        click.echo(json.dumps([e.to_dict() for e in found], indent=2))
        return
    console = Console()
    console.print(f"cache {printable(str(cache_root()))}: {len(found)} entries", markup=False)
    if not found:
        return
    table = Table(show_edge=False, pad_edge=False)
    for header in ("target", "args", "captured", "size", "state"):
        table.add_column(header, no_wrap=header != "target", overflow="fold")
    for e in found:
        target = e.script + (f":{e.function}" if e.function else "")
        state = "failed" if not e.ok else ("fresh" if e.fresh else "stale")
        table.add_row(
            printable(target),
            printable(" ".join(e.args)),
            e.start_time[:19].replace("T", " "),
            format_bytes(e.size),
            state,
        )
    console.print(table)


@cache_group.command("clear")
def cache_clear() -> None:
    """Remove every cached capture."""
    from ..capture.cache import clear
    from ..units import format_bytes

    removed, freed = clear()
    click.echo(
        f"removed {removed} cached capture{'s' if removed != 1 else ''} ({format_bytes(freed)})"
    )
