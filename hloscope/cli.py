"""The ``hloscope`` command line: a thin click layer over the library.

Each command parses its arguments, calls one library function and hands the result to a
renderer. Errors the user can fix are printed as one line (``file:line:col: error: ...``) and exit
non-zero; tracebacks are never shown. Offline commands must not import jax or tensorflow.
"""

from __future__ import annotations

import sys

import click

from . import __version__


# Exceptions hloscope raises for bad input; their message says all a user needs to know.
_USER_ERRORS = frozenset({"CaptureError", "DumpFormatError", "ReportOptionError", "XlaParseFailed", "XlaApiUnavailable", "GraphRenderError"})


class _Cli(click.Group):
    """A click group that turns every error into one line on stderr and a non-zero exit.

    Set HLOSCOPE_DEBUG=1 to see the full traceback of an unexpected error.
    """

    def invoke(self, ctx: click.Context):
        import os

        from .hlo.errors import HloParseError

        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except HloParseError as e:
            click.echo(e.one_line(), err=True)
            sys.exit(2)
        except OSError as e:  # a missing or unreadable file named on the command line
            where = f"{e.filename}: " if getattr(e, "filename", None) else ""
            click.echo(f"hloscope: error: {where}{e.strerror or e}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            raise
        except Exception as e:  # noqa: BLE001 - the CLI must never show a raw traceback
            if os.environ.get("HLOSCOPE_DEBUG"):
                raise
            if type(e).__name__ in _USER_ERRORS:  # errors whose message is the whole story
                click.echo(f"hloscope: error: {e}", err=True)
                sys.exit(1)
            message = str(e).splitlines()[0] if str(e) else type(e).__name__
            click.echo(f"hloscope: error: {message} ({type(e).__name__}; HLOSCOPE_DEBUG=1 shows details)", err=True)
            sys.exit(1)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hloscope")
def cli() -> None:
    """See what XLA does to your code.

    TARGET arguments take an HLO text file, an XLA dump folder (--xla_dump_to) or a Python
    script (SCRIPT.py or SCRIPT.py:FUNCTION), which is captured first.
    """


# ---- commands are added below; each stays a few lines that call into the library ----------


@cli.command()
@click.argument("targets", nargs=-1, required=True, metavar="TARGET...")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (a list, one object per module) instead of tables.")
@click.option("--stage", type=click.Choice(["after", "before"]), default="after", show_default=True,
              help="For dump folders and scripts: the optimized modules or what XLA was given.")
def summary(targets: tuple[str, ...], as_json: bool, stage: str) -> None:
    """Summarize HLO modules: computations, instructions by category, fusions by kind, entry
    parameters with shapes and bytes, custom-call targets and source files referenced.

    Each TARGET is an HLO text file (several modules per file are fine), a dump folder, or
    SCRIPT.py[:FUNCTION] (captured first). A target that cannot be read is reported on one line
    (file:line:column) and the others are still summarized; the exit status is then 1. Reading
    text files never imports jax or tensorflow.
    """
    import json as json_lib
    import os

    from rich.console import Console

    from .analysis.summary import summarize
    from .hlo.errors import HloParseError
    from .hlo.parser import parse_modules
    from .render.summary import render_summary

    console = Console()
    results, failed = [], False
    for path in targets:
        try:
            if os.path.isfile(path) and not path.endswith(".py"):
                modules = parse_modules(path)
            else:
                from .capture.target import load_modules

                modules = load_modules(path, stage=stage)
        except HloParseError as e:
            click.echo(e.one_line(), err=True)
            failed = True
            continue
        except Exception as e:  # noqa: BLE001 - one bad target must not stop the others
            if type(e).__name__ not in _USER_ERRORS and not isinstance(e, OSError):
                raise
            click.echo(f"hloscope: error: {e}" if str(path) in str(e) else f"hloscope: error: {path}: {e}", err=True)
            failed = True
            continue
        for module in modules:
            info = summarize(module)
            if as_json:
                results.append({"file": path, **info.to_dict()})
            else:
                render_summary(info, console, source=path)
    if as_json:
        click.echo(json_lib.dumps(results, indent=2))
    if failed:
        sys.exit(1)


@cli.command("capture", context_settings={"ignore_unknown_options": True})
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder (must be empty).")
@click.option("--passes", metavar="REGEX", help="Also dump the module after every XLA pass matching REGEX ('.*': all).")
@click.option("--timeout", type=float, metavar="S", help="Stop the script (and its children) after S seconds.")
@click.option("--force", is_flag=True, help="Replace a previous capture in the output folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
def capture_command(script: str, args: tuple[str, ...], out_dir: str, passes: str | None, timeout: float | None, force: bool, as_json: bool) -> None:
    """Run SCRIPT.py [ARGS...] and keep everything XLA compiles: DIR/dump (XLA's dump),
    DIR/stdout.txt, DIR/stderr.txt and DIR/manifest.json. Put script options that clash with
    these after `--`."""
    from .capture.script import run_capture_command

    sys.exit(run_capture_command(script, args, out_dir, passes=passes, timeout=timeout, force=force, as_json=as_json))


@cli.command("ls")
@click.argument("dump", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--no-parse", is_flag=True, help="Only list files; read no module (fast, no counts or memory).")
def ls_command(dump: str, as_json: bool, no_parse: bool) -> None:
    """List the modules of an XLA dump folder (--xla_dump_to): id, function, stages,
    instruction and fusion counts, size on disk, peak memory. Compilations of one function are
    grouped, so recompiles show ("compiled 4x"). Unreadable files are reported one per line and
    make the exit status 1."""
    from .dump.listing import run_ls

    sys.exit(run_ls(dump, as_json=as_json, parse=not no_parse))


@cli.command("fusions")
@click.argument("target")
@click.option("--by-source", is_flag=True, help="One row per source line: the kernels its ops ended in.")
@click.option("--sort", "sort", metavar="COL", help="Sort by a column (bytes, flops, intensity, name...; numbers largest first, '-COL' flips).")
@click.option("--filter", "filters", metavar="EXPR", multiple=True, help="Keep rows where EXPR holds: kind=kLoop, opcode=dot (a dot fused or not), flops>1e6, source~model.py. Repeat to AND.")
@click.option("--top", type=int, metavar="N", help="Show the first N rows (after sorting).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {rows, summary}.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
def fusions_command(target: str, by_source: bool, sort: str | None, filters: tuple[str, ...], top: int | None, as_json: bool, as_csv: bool) -> None:
    """Show the kernels XLA made of TARGET's optimized module(s): each fusion and each op left
    unfused, with its kind, fused ops, bytes in and out, FLOPs and the source lines it came from."""
    from .analysis.fusions import ReportOptionError
    from .render.fusion_table import run_fusions

    if as_json and as_csv:
        raise click.ClickException("--json and --csv exclude each other")
    try:
        status = run_fusions(target, by_source=by_source, sort=sort, filters=filters, top=top, as_json=as_json, as_csv=as_csv)
    except ReportOptionError as e:
        raise click.ClickException(str(e)) from None
    sys.exit(status)


@cli.command("graph")
@click.argument("target")
@click.option("-o", "--output", "out", required=True, metavar="FILE", help="FILE.svg, .png, .pdf, .dot, or .json (Model Explorer).")
@click.option("--format", "fmt", type=click.Choice(["svg", "png", "pdf", "dot", "json", "model-explorer"]), help="Output format (default: from FILE's suffix).")
@click.option("--computation", metavar="C", help="Draw computation C (default: the entry).")
@click.option("--fusion", metavar="F", help="Draw fusion F opened up, with its producers and users.")
@click.option("--around", metavar="INSTR", help="Draw the instructions near INSTR.")
@click.option("--depth", type=click.IntRange(0), metavar="N", help="With --around/--fusion: how many hops to draw (default 3 / 1).")
@click.option("--expand-fusions", is_flag=True, help="Draw every fusion as a cluster of its ops.")
@click.option("--max-nodes", type=click.IntRange(1), default=150, show_default=True, metavar="N", help="Cut bigger graphs to the N nodes nearest the focus.")
@click.option("--module", metavar="NAME", help="Which module of a multi-module TARGET (default: the largest).")
def graph_command(target: str, out: str, fmt: str | None, computation: str | None, fusion: str | None, around: str | None, depth: int | None, expand_fusions: bool, max_nodes: int, module: str | None) -> None:
    """Draw TARGET's optimized HLO as a graph: ops coloured by category, fusions as boxes or
    clusters, shapes on edges, source lines in tooltips. Big graphs are cut to a neighbourhood
    (a note says what is missing); -o FILE.json writes the whole graph for Model Explorer."""
    from .capture.errors import CaptureError
    from .render.graphviz import GraphOptions, GraphRenderError, run_graph

    options = GraphOptions(computation=computation, fusion=fusion, around=around, depth=depth, expand_fusions=expand_fusions, max_nodes=max_nodes)
    try:
        click.echo(run_graph(target, out, options, fmt=fmt, module=module), err=True)
    except (GraphRenderError, CaptureError, OSError) as e:
        raise click.ClickException(str(e)) from None


@cli.command("diff")
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema hloscope.diff/1): totals, counts, changes, lines.")
@click.option("--fail-on", "fail_on", metavar="METRICS", help="Comma-separated kernels,bytes,flops,transcendentals: exit 3 when B has more than A.")
@click.option("--threshold", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="PCT", help="With --fail-on: tolerate growth up to PCT percent.")
@click.option("--limit", type=click.IntRange(min=0), default=30, show_default=True, metavar="N", help="List at most N changes and N source lines (0: all).")
def diff_command(a: str, b: str, as_json: bool, fail_on: str | None, threshold: float, limit: int) -> None:
    """Compare the kernels XLA made of A (before) and B (after): which kernels split, merged,
    changed, appeared or went away, from which source lines, and the change in kernels, bytes
    through memory and FLOPs. A and B are TARGETs; a TARGET with several modules stands for
    its largest one.

    Exit status: 0 compared (even if different), 1 error, 2 unreadable HLO, 3 B is worse than
    A on a --fail-on metric (beyond --threshold); use it in CI."""
    from .capture.errors import CaptureError
    from .hlo.errors import HloParseError
    from .render.diff_view import parse_metrics, run_diff

    try:
        metrics = parse_metrics(fail_on)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--fail-on") from None
    try:
        status = run_diff(a, b, as_json=as_json, fail_on=metrics, threshold=threshold, limit=limit)
    except HloParseError:
        raise  # the group prints it as file:line:column and exits 2
    except (CaptureError, OSError, ValueError) as e:
        raise click.ClickException(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    sys.exit(status)


def main() -> None:
    """Entry point of the ``hloscope`` console script."""
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
