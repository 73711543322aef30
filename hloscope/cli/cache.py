"""``hloscope cache ls|clear``: the captures of script targets kept for reuse."""

from __future__ import annotations

import click

from ._app import cli
from ._output import json_option, output_format, show

__all__ = ["cache_group"]


@cli.group("cache")
def cache_group() -> None:
    """Show or empty hloscope's cache ($HLOSCOPE_CACHE, else ~/.cache/hloscope).

    A SCRIPT.py[:FUNCTION] target is captured once and reused while the script, its
    arguments, the environment, XLA_FLAGS, the versions and every local module it imported
    are unchanged; --refresh on any command captures it again. Beside the captures the cache
    keeps XLA:TPU's verdicts on single ops (check --device), a CPU's measured peaks (bench)
    and the compiled variants of try."""


@cache_group.command("ls")
@json_option("Print JSON: a list of entries.")
@click.option(
    "--wide", is_flag=True, help="One line per entry, however long (by default paths wrap)."
)
def cache_ls(as_json: bool, wide: bool) -> None:
    """List the cached captures, newest first: script, function, arguments, size, and whether
    the entry is still fresh (its local modules unchanged)."""
    from rich.console import Console

    from ..capture.cache import cache_root, entries, other_caches
    from ..render.cache_listing import render_cache_listing

    found = entries()
    show(
        output_format(as_json),
        json=lambda: [e.to_dict() for e in found],
        text=lambda: render_cache_listing(
            str(cache_root()), found, Console(), wide=wide, others=other_caches()
        ),
    )


@cache_group.command("clear")
def cache_clear() -> None:
    """Remove everything cached: the captures, XLA:TPU's op verdicts, the measured CPU
    peaks (measured again by the next bench on the CPU) and try's compiled variants."""
    from ..capture.cache import clear, clear_others
    from ..units import format_bytes

    removed, freed = clear()
    parts = [f"{removed} cached capture{'s' if removed != 1 else ''} ({format_bytes(freed)})"]
    parts += [f"{c.phrase()} ({format_bytes(c.size)})" for c in clear_others()]
    click.echo("removed " + ", ".join(parts))
