"""``hloscope graph TARGET -o FILE``: a picture of the optimized HLO (or Model Explorer JSON)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ._app import cli
from ._count import count_option
from ._device import COMPILE_LEAD, device_option
from ._target import all_modules_option, module_option, open_modules, refresh_option

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.graph_selection import GraphOptions, GraphSelection
    from ..hlo.model import Module

__all__ = ["graph_command", "write_graph"]


@cli.command("graph")
@click.argument("target")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    metavar="FILE",
    help="FILE.svg, .png, .pdf, .dot, or .json (Model Explorer); - writes to stdout (give "
    "--format).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["svg", "png", "pdf", "dot", "json", "model-explorer"]),
    help="Output format (default: from FILE's suffix).",
)
@click.option("--computation", metavar="C", help="Draw computation C (default: the entry).")
@click.option(
    "--fusion", metavar="F", help="Draw fusion F opened up, with its producers and users."
)
@click.option("--around", metavar="INSTR", help="Draw the instructions near INSTR.")
@count_option(
    "--depth",
    "With --around/--fusion: how many hops to draw (default 3 / 1).",
)
@click.option("--expand-fusions", is_flag=True, help="Draw every fusion as a cluster of its ops.")
@count_option(
    "--max-nodes",
    "Cut bigger graphs to the N nodes nearest the focus.",
    least=1,
    default=150,
)
@device_option(COMPILE_LEAD)
@module_option
@all_modules_option
@refresh_option
def graph_command(
    target: str,
    out: str,
    fmt: str | None,
    computation: str | None,
    fusion: str | None,
    around: str | None,
    depth: int | None,
    expand_fusions: bool,
    max_nodes: int,
    module: str | None,
    all_modules: bool,
    refresh: bool,
    device: Any = None,
) -> None:
    """Draw TARGET's optimized HLO as a graph: ops coloured by category, fusions as boxes or
    clusters, shapes on edges, source lines in tooltips. Big graphs are cut to a neighbourhood
    (a note says what is missing), and graphs that would take Graphviz long to lay out are drawn
    more simply (an operand read by many ops drawn once per user, no shapes on edges; the note
    and the report say so); -o FILE.json writes the whole graph for Model Explorer.
    With --all-modules, each module is written to FILE's name with the module's number and
    name inserted (g.svg -> g.0.jit_step.svg)."""
    from ..hlo.graph_selection import GraphOptions
    from ..render.graphviz import format_for

    options = GraphOptions(
        computation=computation,
        fusion=fusion,
        around=around,
        depth=depth,
        expand_fusions=expand_fusions,
        max_nodes=max_nodes,
    )
    if out == STDOUT and (fmt is None or all_modules):
        raise click.UsageError("-o - (stdout) needs --format, and one module (no --all-modules)")
    fmt = format_for(out, fmt)  # a bad suffix fails before any capture runs
    modules = open_modules(
        target, module=module, all_modules=all_modules, refresh=refresh, device=device
    )
    for i, chosen in enumerate(modules):
        if out == STDOUT:
            click.echo(_draw_to_stdout(chosen, options, fmt), err=True)
            continue
        path = _numbered(out, i, chosen.name) if all_modules else out
        click.echo(_draw(chosen, options, path, fmt), err=True)


#: ``-o -``: the picture goes to stdout (for a pipe), the line saying what was drawn to stderr.
STDOUT = "-"


def _draw_to_stdout(chosen, options, fmt: str) -> str:
    """Draw into a scratch file (Graphviz and the JSON writer write files), then copy its bytes
    to stdout."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hloscope-graph-") as scratch:
        path = Path(scratch) / f"graph.{fmt}"
        said = _draw(chosen, options, str(path), fmt)
        with click.open_file(STDOUT, "wb") as stream:
            stream.write(path.read_bytes())
            stream.flush()
        return said.replace(str(path), "stdout")


def _short(name: str, width: int = 80) -> str:
    """A name fit for the one-line report (generated names can run to thousands of characters)."""
    from ..render.terminal import shorten_middle

    return shorten_middle(name, width)


def _numbered(out: str, index: int, name: str) -> str:
    """``g.svg`` -> ``g.3.jit_step.svg``: one file per module, named safely."""
    path = Path(out)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80]
    return str(path.with_name(f"{path.stem}.{index}.{safe}{path.suffix}"))


def write_graph(
    module: Module,
    options: GraphOptions,
    out: str | Path,
    fmt: str | None = None,
    timeout: float | None = None,
) -> GraphSelection | None:
    """Choose what of ``module`` to draw as ``options`` say, then have the renderer draw it to
    ``out``; return what was drawn (``None`` for Model Explorer's JSON, which nothing cuts by
    size).

    The choice is made here, the drawing is :mod:`hloscope.render.graphviz`'s: for a picture
    or DOT, :func:`~hloscope.hlo.graph_selection.select_graph` (the computation, the fusion or
    neighbourhood asked for, cut to ``max_nodes``); for ``json``,
    :func:`~hloscope.hlo.explorer_choice.choose_explorer` (the computation, and ``--around``'s
    neighbourhood in it).
    """
    from ..hlo.explorer_choice import choose_explorer
    from ..hlo.graph_selection import select_graph
    from ..render.graphviz import LAYOUT_TIMEOUT_S, format_for, write_explorer, write_selection

    fmt = format_for(out, fmt)
    if fmt == "json":
        write_explorer(module, choose_explorer(module, options), out)
        return None
    selection = select_graph(module, options)
    return write_selection(selection, out, fmt, LAYOUT_TIMEOUT_S if timeout is None else timeout)


def _draw(chosen, options, out: str, fmt: str) -> str:
    """Write one module's picture; return the line that says what was drawn."""
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        with console.status(f"drawing {chosen.name} with Graphviz dot…"):
            selection = write_graph(chosen, options, out, fmt)
    else:
        selection = write_graph(chosen, options, out, fmt)
    if selection is None:
        return (
            f"wrote {out}: Model Explorer graph JSON of {chosen.name} (open it in Model Explorer)"
        )
    shown, total = len(selection.nodes), len(selection.graph)
    comp_name, module_name = _short(selection.computation.name), _short(chosen.name)
    line = f"wrote {out}: {shown} of {total} nodes of {comp_name} in {module_name}"
    if selection.hidden:
        line += (
            f"; {selection.hidden} not shown (showing {selection.why}; "
            "-o FILE.json shows all in Model Explorer)"
        )
    if selection.simplified:
        # The same phrases as the picture's note: the user should not have to open the picture
        # to learn that its edges lost their shapes.
        line += "; drawn simply so that dot lays it out in seconds: " + ", ".join(
            selection.simplified
        )
    return line
