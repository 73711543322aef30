"""``hloscope diff A B``: the kernels XLA made of two programs, compared; ``--fail-on`` for CI."""

from __future__ import annotations

import json
import sys
from functools import partial

import click

from ..errors import ExitStatus
from ._app import cli
from ._target import all_modules_option, module_option, open_modules, refresh_option

__all__ = ["diff_command", "parse_metrics"]


def parse_metrics(text: str | None) -> list[str]:
    """``"kernels,bytes"`` -> ``["kernels", "bytes"]``; ``click.BadParameter`` on a bad one."""
    from ..analysis.diff import METRICS

    if not text:
        return []
    names = [part.strip().lower() for part in text.split(",") if part.strip()]
    bad = [n for n in names if n not in METRICS]
    if bad:
        raise click.BadParameter(
            f"unknown metric {bad[0]!r} (choose from {', '.join(METRICS)})", param_hint="--fail-on"
        )
    return list(dict.fromkeys(names))


@cli.command("diff")
@click.argument("a")
@click.argument("b")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON (schema hloscope.diff/1): module, a and b (their totals), delta, "
    "no_change, counts, changes, lines.",
)
@click.option(
    "--fail-on",
    "fail_on",
    metavar="METRICS",
    help="Comma-separated kernels,bytes,flops,transcendentals: exit 3 when B has more than A.",
)
@click.option(
    "--threshold",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    metavar="PCT",
    help="With --fail-on: tolerate growth up to PCT percent.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    metavar="N",
    help="List at most N changes and N source lines (0: all).",
)
@module_option
@all_modules_option
@refresh_option
def diff_command(
    a: str,
    b: str,
    as_json: bool,
    fail_on: str | None,
    threshold: float,
    limit: int,
    module: str | None,
    all_modules: bool,
    refresh: bool,
) -> None:
    """Compare the kernels XLA made of A (before) and B (after): which kernels split, merged,
    changed, appeared or went away, from which source lines, and the change in kernels, bytes
    through memory and FLOPs. A and B are TARGETs; of several modules, each side stands for its
    main module (--module picks the same-named one on both sides; --all-modules compares
    every module of A with the module of the same name in B, in order).

    Exit status: 0 compared (even if different), 1 error, 2 unreadable HLO, 3 B is worse than
    A on a --fail-on metric (beyond --threshold); use it in CI."""
    from ..analysis.diff import diff
    from ..render.diff_text import diff_to_dict, regression_lines
    from ..render.diff_view import render_diff

    metrics = parse_metrics(fail_on)
    open_side = partial(open_modules, module=module, all_modules=all_modules, refresh=refresh)
    pairs, unpaired = _pair(open_side(a), open_side(b), all_modules)
    labels = None if all_modules else (a, b)  # one pair: the sides are the TARGETs given
    results = [(side_a, side_b, diff(side_a, side_b, labels=labels)) for side_a, side_b in pairs]
    regressions = [
        (side_a.name, line)
        for side_a, _, result in results
        for line in (regression_lines(result, metrics, threshold) if metrics else [])
    ]
    if as_json:
        payloads = []
        for side_a, side_b, result in results:
            payload = {"module": {"a": side_a.name, "b": side_b.name}, **diff_to_dict(result)}
            if metrics:
                payload["fail_on"] = {
                    "metrics": metrics,
                    "threshold": threshold,
                    "regressions": [line for name, line in regressions if name == side_a.name],
                }
            payloads.append(payload)
        if all_modules:
            json.dump({"modules": payloads, "unpaired": unpaired}, sys.stdout, indent=2)
        else:
            json.dump(payloads[0], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from rich.console import Console

        console = Console()
        for i, (side_a, _, result) in enumerate(results):
            if all_modules:
                if i:
                    console.print()
                console.print(f"module {side_a.name}", style="bold", markup=False)
            render_diff(result, console, limit=limit)
        for only in unpaired:
            console.print(f"only in {only['side']}: module {only['module']}", markup=False)
    if regressions:
        for name, line in regressions:
            where = f" (module {name})" if all_modules else ""
            click.echo(f"hloscope diff: B is worse than A{where}: {line}", err=True)
        sys.exit(int(ExitStatus.CHECK_FAILED))


def _pair(modules_a: list, modules_b: list, by_name: bool) -> tuple[list, list[dict]]:
    """Pairs of modules to compare, and the modules left without a partner.

    Without ``by_name`` each side is one module. With it, the k-th module called X in A is
    compared with the k-th module called X in B (a function compiled three times in both).
    """
    if not by_name:
        return [(modules_a[0], modules_b[0])], []
    pending: dict[str, list] = {}
    for m in modules_b:
        pending.setdefault(m.name, []).append(m)
    pairs, unpaired = [], []
    for m in modules_a:
        partners = pending.get(m.name)
        if partners:
            pairs.append((m, partners.pop(0)))
        else:
            unpaired.append({"side": "A", "module": m.name})
    unpaired += [{"side": "B", "module": m.name} for ms in pending.values() for m in ms]
    return pairs, unpaired
