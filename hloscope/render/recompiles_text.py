"""The ``hloscope recompiles`` text: who compiled how often, why each time, and the fix.

First one line of totals and one row per function (compiles, seconds, causes counted), so the
worst offender is found at a glance; then, for each function that compiled more than once,
the arguments that varied, its compiles (the first few and the last, each with every
difference from the previous one) and the fixes. JAX's own op-by-op compiles outside jit are
summed up in one line. Every string from the watched program goes through
:func:`~hloscope.render.terminal.printable`; long names and paths are shortened in the middle.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .sources import shorten_source
from .terminal import printable

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.recompiles import CompileEvent, FunctionLedger, Ledger

__all__ = ["render_ledger", "rendered_ledger", "ledger_text", "summary_line"]

#: Compiles shown per function unless every one is asked for: the first few and the last.
HEAD_EVENTS = 4
TAIL_EVENTS = 2
_PLAIN_WIDTH = 80  # when the output is not a terminal and COLUMNS does not say


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} s" if value < 10 else f"{value:.1f} s"


def _cap(width: int, wide: bool) -> int | None:
    """A column's widest, or no limit with ``--wide``."""
    return None if wide else width


def _where(text: str | None, width: int | None = 48) -> str:
    """A ``file:line`` shortened for reading: relative to the working folder when inside it,
    and past ``width`` its folders dropped before its file name is cut
    (:func:`~hloscope.render.sources.shorten_source`)."""
    if not text:
        return "-"
    cwd = os.getcwd() + os.sep
    shown = text[len(cwd) :] if text.startswith(cwd) else text
    return printable(shown) if width is None else shorten_source(printable(shown), width)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(ledger: Ledger) -> str:
    """``12 compiles of 3 functions in 1.92 s (tracing 0.05 s, lowering 0.21 s, XLA 1.66 s)``."""
    user = [f for f in ledger.functions if not f.internal]
    compiles = sum(f.compiles for f in user)
    text = f"{_plural(compiles, 'compile')} of {_plural(len(user), 'function')}"
    seconds = [f.compile_seconds for f in user if f.compile_seconds is not None]
    if seconds:
        text += f" in {_seconds(sum(seconds))}"
        phases = _phase_totals(user)
        parts = [f"{label} {_seconds(v)}" for label, v in phases if v is not None]
        if parts:
            text += f" ({', '.join(parts)})"
    recompiled = sum(1 for f in user if f.compiles > 1)
    if recompiled:
        text += f"; {_plural(recompiled, 'function')} compiled more than once"
    return text


_NUMBER_UNIT = re.compile(r"(\d) (s|ms|µs|ns)\b")


def _wrapped(text: str, width: int) -> str:
    """``text`` in lines of ``width`` at most, broken between words but never between a
    number and its unit (``3.418 s``), the lines after the first indented."""
    import textwrap

    kept = _NUMBER_UNIT.sub("\\1\u00a0\\2", text)  # textwrap never breaks a no-break space
    lines = textwrap.wrap(
        kept,
        width=max(20, width),
        subsequent_indent="  ",
        break_on_hyphens=False,
        break_long_words=False,
    ) or [""]
    return "\n".join(lines).replace("\u00a0", " ")


def _phase_totals(functions: list[FunctionLedger]) -> list[tuple[str, float | None]]:
    totals: dict[str, float | None] = {"tracing": None, "lowering": None, "xla": None}
    for f in functions:
        for key, value in f.phase_seconds().items():
            if value is not None:
                totals[key] = (totals[key] or 0.0) + value
    return [
        ("tracing", totals["tracing"]),
        ("lowering", totals["lowering"]),
        ("XLA", totals["xla"]),
    ]


def _causes_text(function: FunctionLedger) -> str:
    parts = []
    for cause, count in function.cause_counts().items():
        parts.append(str(cause) if count == 1 else f"{cause} \u00d7{count}")
    return ", ".join(parts)


def _summary_table(
    functions: list[FunctionLedger], wide: bool = False, width: int | None = None
) -> Table:
    """One row per function. Within ``width`` the numbers are never cut: the compiles and
    seconds columns keep their whole text, the causes fold onto more lines, and the name and
    the place it is defined in give way first (shortened in the middle)."""
    located = any(f.defined_at for f in functions)
    timed = any(f.compile_seconds is not None for f in functions)
    rows = [_summary_cells(f, located, timed, wide) for f in functions]
    headers = ["function"] + (["defined at"] if located else []) + ["compiles"]
    headers += (["seconds"] if timed else []) + ["causes"]
    widths = _column_widths(headers, rows, None if wide else width)
    table = Table(show_edge=False, pad_edge=False, header_style="bold", box=None)
    for header, column_width in zip(headers, widths):
        number = header in ("compiles", "seconds")
        table.add_column(
            header,
            justify="right" if number else "left",
            no_wrap=header != "causes",
            overflow="fold" if header == "causes" else "ellipsis",
            width=column_width,
        )
    for f, cells in zip(functions, rows):
        style = "bold yellow" if f.compiles > 1 else ""
        shown: list[Text | str] = [Text(cells[0], style=style), *cells[1:-1]]
        shown.append(Text(cells[-1]))
        if located:  # shortened to its column, folders first (shorten_source)
            shown[1] = _where(f.defined_at, None if wide else widths[1])
        table.add_row(*shown)
    return table


def _summary_cells(f: FunctionLedger, located: bool, timed: bool, wide: bool) -> list[str]:
    compiles = str(f.compiles)
    if f.traces is not None and f.traces != f.compiles:
        compiles += f" ({_plural(f.traces, 'trace')})"
    cells = [printable(f.name)]
    cells += [_where(f.defined_at, _cap(40, wide))] if located else []
    cells.append(compiles)
    cells += [_seconds(f.compile_seconds)] if timed else []
    cells.append(printable(_causes_text(f)))
    return cells


# The narrowest the name, the place and the causes are squeezed to before the table overflows.
_NARROWEST = {"function": 12, "defined at": 14, "causes": 10}
_WIDEST = {"function": 32, "defined at": 40}


def _column_widths(headers: list[str], rows: list[list[str]], width: int | None) -> list[int]:
    """Each column's width: its widest text (the name and place capped), then, past
    ``width``, the place, the name and the causes narrowed in that order; never the numbers."""
    widths = [
        max([len(header)] + [len(row[i]) for row in rows]) for i, header in enumerate(headers)
    ]
    if width is None:
        return widths
    widths = [min(w, _WIDEST.get(h, w)) for h, w in zip(headers, widths)]
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    for name in ("defined at", "function", "causes"):
        if excess <= 0 or name not in headers:
            continue
        i = headers.index(name)
        give = min(excess, max(0, widths[i] - _NARROWEST[name]))
        widths[i] -= give
        excess -= give
    return widths


def _eager_line(functions: list[FunctionLedger]) -> Text | None:
    internal = [f for f in functions if f.internal]
    if not internal:
        return None
    total = sum(f.compiles for f in internal)
    named = sorted(internal, key=lambda f: -f.compiles)
    names = ", ".join(
        printable(f.name) + (f" \u00d7{f.compiles}" if f.compiles > 1 else "") for f in named[:6]
    )
    more = f", \u2026 ({len(named)} ops)" if len(named) > 6 else ""
    setup = sum(f.setup_compiles for f in internal)
    # Made before the first jitted compile: the program's initialisation, run once.
    if setup == total:
        said = ": all before the first jitted compile, one-time setup (not recompiles)"
    elif setup:
        said = f"; {setup} of them before the first jitted compile, one-time setup"
    else:
        said = ""
    return Text(
        f"+ {_plural(total, 'compile')} of JAX's own ops outside jit ({names}{more}){said}",
        style="dim",
    )


def _arguments_table(function: FunctionLedger, wide: bool = False) -> Table | None:
    rows: list[tuple[str, str, str]] = []
    for history in function.arguments:
        varied = [
            f"dim {dim}: {_sizes(sizes)}" for dim, sizes in sorted(history.varying_dims.items())
        ]
        if len(history.values) > 1:
            varied.append(f"{len(history.values)} values: {', '.join(history.values[:6])}")
        if len(history.weak_types) > 1:
            varied.append("Python scalar / array")
        if len(history.ranks) > 1:
            varied.append(f"rank {'/'.join(map(str, history.ranks))}")
        if varied or len(history.dtypes) > 1:
            rows.append((history.path, "; ".join(varied) or "-", ", ".join(history.dtypes)))
    if not rows:
        return None
    table = Table(show_edge=False, pad_edge=False, header_style="bold", box=None)
    table.add_column("argument", no_wrap=True, overflow="ellipsis", max_width=_cap(30, wide))
    table.add_column("varied", overflow="fold")
    table.add_column("dtypes", overflow="fold", max_width=_cap(30, wide))
    for path, varied_text, dtypes in rows:
        table.add_row(Text(printable(path)), Text(printable(varied_text)), Text(printable(dtypes)))
    return table


def _sizes(sizes: list[int], limit: int = 10) -> str:
    if len(sizes) <= limit:
        return ", ".join(map(str, sizes))
    return f"{', '.join(map(str, sizes[:4]))}, \u2026, {sizes[-1]} ({len(sizes)} sizes)"


def _changes_text(event: CompileEvent) -> str:
    """Every difference from the compile before, once: a dtype change of an argument whose
    shape text changed too is already in that text (``f32[21,32] -> bf16[8,32]``)."""
    if not event.differences:
        return event.signature
    shaped = {d.path for d in event.differences if str(d.cause) == "shape"}
    shown = [
        d.text() for d in event.differences if not (str(d.cause) == "dtype" and d.path in shaped)
    ]
    return "; ".join(shown)


def _events_table(function: FunctionLedger, show_all: bool, wide: bool = False) -> Table:
    timed = any(e.seconds is not None for e in function.events)
    table = Table(show_edge=False, pad_edge=False, header_style="bold", box=None)
    table.add_column("#", justify="right", no_wrap=True)
    # Several causes fold at their commas: the seconds keep their column.
    table.add_column("cause", overflow="fold")
    table.add_column("what changed", overflow="fold", ratio=3, min_width=20)
    sited = any(e.call_site for e in function.events)  # a dump knows modules, not call sites
    table.add_column(
        "call site" if sited else "module",
        no_wrap=True,
        overflow="ellipsis",
        max_width=_cap(32, wide),
    )
    if timed:
        table.add_column("seconds", justify="right", no_wrap=True, min_width=len("seconds"))
    events = function.events
    shown: list[CompileEvent | None] = list(events)
    if not show_all and len(events) > HEAD_EVENTS + TAIL_EVENTS + 1:
        shown = [*events[:HEAD_EVENTS], None, *events[-TAIL_EVENTS:]]
    for event in shown:
        if event is None:
            hidden = len(events) - HEAD_EVENTS - TAIL_EVENTS
            table.add_row("", "", Text(f"\u2026 {hidden} more (--all shows them)", style="dim"))
            continue
        site = event.call_site or event.module
        cells: list[Text | str] = [
            str(event.number),
            Text(", ".join(str(c) for c in event.causes), style="cyan"),
            Text(printable(_changes_text(event))),
            _where(site, _cap(32, wide)),
        ]
        table.add_row(*cells, *([_seconds(event.seconds)] if timed else []))
    return table


_FIX = "  fix "
# The console's width with --wide: lines as long as their text.
_WIDE = 10_000


def _fix(text: str, width: int) -> Text:
    """``  fix TEXT``, wrapped at ``width`` under its own first column (no trailing blanks)."""
    import textwrap

    lines = textwrap.wrap(
        printable(text),
        width=max(20, width - len(_FIX)),
        break_on_hyphens=False,
        break_long_words=False,
    ) or [""]
    shown = Text(_FIX, style="green bold")
    shown.append(lines[0])
    for line in lines[1:]:
        shown.append("\n" + " " * len(_FIX) + line)
    return shown


def ledger_text(ledger: Ledger, *, width: int = _PLAIN_WIDTH, show_all: bool = False) -> str:
    """The report as plain text of ``width`` columns (what assertion messages carry)."""
    import io

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False)
    render_ledger(ledger, console=console, show_all=show_all)
    return buffer.getvalue()


def rendered_ledger(
    ledger: Ledger, out: TextIO | None = None, *, show_all: bool = False, wide: bool = False
) -> str:
    """What :func:`render_ledger` would print to ``out``, as a string: the same width, colours
    and terminal codes. ``hloscope recompiles`` renders while the watched script's interpreter
    shuts down, and prints once it has ended."""
    console = _console_for(out, wide)
    with console.capture() as captured:
        render_ledger(ledger, console=console, show_all=show_all, wide=wide)
    return captured.get()


def _console_for(out: TextIO | None, wide: bool) -> Console:
    # A terminal's own width; piped, COLUMNS when set (rich reads it), else 80 columns.
    return Console(file=out, highlight=False, width=_WIDE if wide else None)


def render_ledger(
    ledger: Ledger,
    out: TextIO | None = None,
    *,
    console: Console | None = None,
    show_all: bool = False,
    wide: bool = False,
) -> None:
    """Print the ledger: totals, one row per function, then the details of each function that
    compiled more than once. ``wide``: no cell cut and no fix wrapped, however long."""
    if console is None:
        console = _console_for(out, wide)
    user = [f for f in ledger.functions if not f.internal]
    summary = summary_line(ledger)
    console.print(Text(summary if wide else _wrapped(summary, console.width), style="bold"))
    if user:
        console.print(_summary_table(user, wide, console.width))
    eager = _eager_line(ledger.functions)
    if eager is not None:
        console.print(eager)
        advised = [f for f in ledger.functions if f.internal and f.advice]
        if advised:
            busiest = max(advised, key=lambda f: f.compiles - f.setup_compiles)
            console.print(_fix(busiest.advice[0].text, console.width))
    for function in [f for f in ledger.functions if f.compiles > 1 and not f.internal]:
        console.print()
        head = Text.assemble((printable(function.name), "bold yellow"))
        if function.defined_at:
            head.append(f"  {_where(function.defined_at, _cap(60, wide))}", style="dim")
        head.append(f"  {_plural(function.compiles, 'compile')}")
        if function.compile_seconds is not None:
            head.append(f", {_seconds(function.compile_seconds)}")
        if function.traces is not None:
            head.append(f", {_plural(function.traces, 'trace')}")
        console.print(head)
        arguments = _arguments_table(function, wide)
        if arguments is not None:
            console.print(arguments)
        console.print(_events_table(function, show_all, wide))
        for advice in function.advice:
            console.print(_fix(advice.text, console.width))
    _render_cache(ledger, console, show_all, wide)
    for note in ledger.notes:
        console.print(Text(f"note: {printable(note)}", style="dim"))


#: Misses and unwritten entries listed one by one unless every one is asked for.
CACHE_ROWS = 8


def _render_cache(ledger: Ledger, console: Console, show_all: bool, wide: bool) -> None:
    """What JAX's persistent compilation cache did: the results counted, then each miss and
    unwritten entry of the user's functions with the parts of the key that changed and the
    fix. Nothing when the cache was off and no earlier run was named."""
    events = [(f, e) for f in ledger.functions for e in f.events if e.persistent_cache is not None]
    if not events:
        return
    counts: dict[str, int] = {}
    for _, event in events:
        assert event.persistent_cache is not None
        counts[event.persistent_cache.result] = counts.get(event.persistent_cache.result, 0) + 1
    if set(counts) == {"off"} and ledger.cache_compared_with is None:
        return
    width = _WIDE if wide else console.width
    console.print()
    console.print(Text(_cache_head(counts, ledger.cache_compared_with, events), style="bold"))
    shown = [
        (f, e)
        for f, e in events
        if not f.internal
        and e.persistent_cache is not None
        and e.persistent_cache.result in _LISTED[ledger.cache_compared_with is not None]
    ]
    hidden = 0 if show_all else max(0, len(shown) - CACHE_ROWS)
    for function, event in shown[: len(shown) - hidden]:
        for line in _cache_lines(function, event, width):
            console.print(line)
    if hidden:
        console.print(Text(f"  … {hidden} more (--all shows them)", style="dim"))


#: The results listed one by one: a miss only when there is an earlier run to explain it by.
_LISTED = {False: ("not_written", "unknown"), True: ("miss", "not_written", "unknown")}

_RESULT_WORDS = {
    "hit": ("hit", "hits"),
    "miss": ("miss", "misses"),
    "not_written": ("not written", "not written"),
    "off": ("off", "off"),
    "unknown": ("unknown", "unknown"),
}


def _cache_head(counts: dict[str, int], against: str | None, events: list) -> str:
    parts = []
    for result in ("hit", "miss", "not_written", "off", "unknown"):
        if counts.get(result):
            one, many = _RESULT_WORDS[result]
            parts.append(f"{counts[result]} {one if counts[result] == 1 else many}")
    text = "persistent cache: " + ", ".join(parts)
    if set(counts) == {"off"}:
        first = events[0][1].persistent_cache
        text += f" ({first.reason})" if first is not None and first.reason else ""
    if against is not None:
        text += f"; misses compared with {_where(against, None)}"
    elif counts.get("miss"):
        text += " (--vs DIR, a run kept with -o DIR, names what changed)"
    return text


def _indented(text: str, width: int) -> str:
    """``text`` indented four columns, wrapped at ``width`` (six for the lines after)."""
    import textwrap

    kept = _NUMBER_UNIT.sub("\\1\u00a0\\2", text)
    lines = textwrap.wrap(
        kept,
        width=max(24, width),
        initial_indent="    ",
        subsequent_indent="      ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return "\n".join(lines or [""]).replace("\u00a0", " ")


def _cache_lines(function: FunctionLedger, event: CompileEvent, width: int) -> list[Text]:
    verdict = event.persistent_cache
    assert verdict is not None
    head = Text("  ")
    head.append(f"{printable(function.name)} #{event.number}", style="bold yellow")
    head.append(f"  {verdict.result.replace('_', ' ')}", style="cyan")
    lines = [head]
    if verdict.reason:
        lines.append(Text(_indented(printable(verdict.reason), width)))
    for change in verdict.changed:
        lines.append(Text(_indented(f"{change.part}: {printable(change.detail)}", width)))
    if verdict.fix:
        lines.append(_fix(verdict.fix, width))
    return lines
