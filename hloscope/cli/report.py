"""``hloscope report TARGET -o report.html``: everything about one module, in one HTML page.

:func:`hloscope.reporting.build_report` gathers it and :mod:`hloscope.render.html` writes the
page, which holds the summary, a sortable and filterable kernel table, graphs of the heaviest
kernels, the source view (lines -> kernels) and, when they apply, the pass timeline,
recompiles and unsupported ops; ``--bench`` adds measured times. It is one
self-contained file: every style and script is inline and it loads nothing, so it can be
mailed, attached to a bug report or opened offline. The command prints the file's path and a
short summary; notes on what was left out go to stderr.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from ..errors import ExitStatus
from ._app import cli
from ._count import count_option
from ._device import device_option
from ._target import module_option, open_target, refresh_option, say_note

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.errors import CaptureError
    from ..devices import DeviceSpec
    from ..render.html.failed_report import FailedReport
    from ..render.html.try_section import TrySection

__all__ = ["report_command"]

# Characters of a compile error's first line the command prints (the page has all of it).
_ERROR_SHOWN = 160


@cli.command("report")
@click.argument("target")
@click.option(
    "-o",
    "--output",
    "out",
    default="report.html",
    show_default=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, writable=True),
    help="Where to write the page.",
)
@click.option(
    "--bench",
    is_flag=True,
    help="Also time the program and each of its kernels alone on this machine "
    "(hloscope.bench: needs jax, and takes a while).",
)
@count_option(
    "--graphs",
    "Draw the neighbourhoods of the N kernels moving the most bytes (0: none).",
    default=4,
)
@device_option(
    "Price the collectives section's rows on this device's interconnect (as `hloscope "
    "collectives --device`). The step on every device with interconnect figures is shown "
    "either way.",
    needs="interconnect",
)
@click.option(
    "--profile",
    metavar="TRACE",
    help="Add the op profile of a jax.profiler.trace of this module (a folder, a "
    "*.trace.json.gz or a *.xplane.pb), as `hloscope profile TRACE TARGET` shows it.",
)
@click.option(
    "--try",
    "what_if",
    metavar="'TRY OPTIONS'",
    help='Add a "what if" section: the variants `hloscope try` compiles, written as its '
    "options ('--shard dp --shard fsdp --remat nothing_saveable@block --goal memory'), or "
    "its flag audit ('--audit-flags FILE'), for a SCRIPT.py:FUNCTION and --device a TPU chip "
    "or slice. A function that does not compile gets it too: which variants do.",
)
@module_option
@refresh_option
def report_command(
    target: str,
    out: str,
    bench: bool,
    graphs: int,
    device: DeviceSpec | None,
    profile: str | None,
    what_if: str | None,
    module: str | None,
    refresh: bool,
) -> None:
    """Write one self-contained HTML report of TARGET's optimized module: summary, kernel
    table (click a header to sort, type to filter), graphs of the heaviest kernels, which
    source line became which kernels, and the pass timeline, recompiles and unsupported ops
    when they apply. Graphs need Graphviz's `dot` (without it the page says so).

    A SCRIPT.py:FUNCTION that XLA cannot compile still gets its page, the bug report to
    attach: the unsupported ops `hloscope check` finds first, then the compile error whole
    and the function's source, and with --try the variants that compile; the command then
    exits 3 when the check found problems (1 when it found none)."""
    from ..capture.errors import CaptureError
    from ..capture.target import is_function_spec
    from ..reporting import build_failed_report, build_report, failed_compile
    from ..units import format_bytes
    from .try_ import checked_variants

    asked = None if what_if is None else checked_variants(what_if, target, device)
    variants, goal, audit = asked or (None, "fit", None)
    try:
        resolved = open_target(target, refresh=refresh, device=device)
    except CaptureError as error:
        if not is_function_spec(target) or not failed_compile(error):
            raise  # not a function that ran and failed: a usage error, or a script
        page = build_failed_report(
            target, error, device=device, what_if=variants, goal=goal, audit=audit
        )
        _failed_page(page, error, out)
    report = build_report(
        resolved,
        module=module,
        bench=bench,
        graphs=graphs,
        device=device,
        profile=profile,
        what_if=variants,
        goal=goal,
        audit=audit,
    )
    path = report.write(out)
    for note in report.notes:
        say_note(note)
    click.echo(f"wrote {path} ({format_bytes(path.stat().st_size)})")
    for line in report.summary_lines():
        click.echo(_fitted(line))
    click.echo(f"open it: file://{Path(path).resolve()}")


# A figure and its unit (6.0 MiB, 20.9M FLOPs, 3.1 ms) stay on one line when a line wraps.
_FIGURE_UNIT = re.compile(r"(\d[kKMGTPE]?) (?=[A-Za-zµ%])")


def _fitted(line: str) -> str:
    """A summary line within the terminal's width (``COLUMNS``, 80 in a pipe): broken between
    its words, never inside a figure, the lines after the first indented."""
    import shutil
    import textwrap

    width = max(40, shutil.get_terminal_size((80, 24)).columns)
    kept = _FIGURE_UNIT.sub("\\1\u00a0", line)  # textwrap never breaks a no-break space
    wrapped = textwrap.wrap(
        kept, width=width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )
    return "\n".join(wrapped).replace("\u00a0", " ") if wrapped else line


def _failed_page(page: FailedReport, error: CaptureError, out: str) -> NoReturn:
    """Write the page of a function that did not compile and end the command: 3 when the
    check found what XLA cannot compile, else the capture's own error (status 1)."""
    from ..units import format_bytes

    path = page.write(out)
    click.echo(f"wrote {path} ({format_bytes(path.stat().st_size)})")
    first = page.error.splitlines()[0] if page.error else error.one_line()
    if len(first) > _ERROR_SHOWN:
        first = first[: _ERROR_SHOWN - 1] + "…"
    click.echo(f"{page.target} did not compile: {first} (the page has the whole message)")
    for check in page.checks:
        click.echo(check.verdict)
    if page.what_if is not None:
        click.echo(_fitted(_what_if_line(page.what_if)))
    click.echo(f"open it: file://{Path(path).resolve()}")
    if page.problems:
        sys.exit(int(ExitStatus.CHECK_FAILED))
    raise error


def _what_if_line(section: TrySection) -> str:
    """The failed page's what-if in one line: how many variants compiled and the best."""
    from ..drivers.variants.plan import BASELINE

    variants = [r for r in section.rows if r.name != BASELINE]
    compiled = [r.name for r in variants if r.state == "compiled"]
    line = f"what if: {len(compiled)} of {len(variants)} variants compile"
    if section.winner is not None:
        line += f"; the best: {section.winner}"
    return line
