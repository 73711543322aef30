"""``hloscope compile-time --scale/--slices`` for a person: the compiles, the fit of the total
and of each stage, the check, and the prediction with the error it carries."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from ..analysis.compile_time import CompileStage

__all__ = ["render_compile_growth", "seconds"]

_STAGE_NAMES = {
    CompileStage.TRACE: "trace",
    CompileStage.LOWER: "lower",
    CompileStage.HLO_PASSES: "HLO passes",
    CompileStage.BACKEND: "backend",
}


def seconds(value: float | None) -> str:
    """``12.3 s``, ``0.041 s``, ``1.2 h``: a duration at a glance."""
    if value is None:
        return "-"
    if value >= 7200:
        return f"{value / 3600:.1f} h"
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.3g} s"


#: Each fit's kind (:class:`~hloscope.analysis.compile_growth_fit.FitKind`) in words.
_FIT_NAMES = {"constant": "constant", "linear": "line", "power": "power law"}


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _fit_line(fit: dict[str, Any]) -> str:
    chosen = fit["fit"]
    return f"{fit['growth']} ({_FIT_NAMES[chosen['kind']]} {chosen['formula']})"


def render_compile_growth(
    growth: dict[str, Any], echo: Callable[[str], object], width: int = 80
) -> None:
    """Write ``growth`` (:meth:`~hloscope.drivers.compile_growth.CompileGrowth.to_dict`)."""
    width = max(width, 60)
    _render_points(growth, echo, width)
    _render_fit(growth, echo, width)
    at = growth.get("at")
    if growth["stages"]:
        echo("per stage:")
        for name, fit in growth["stages"].items():
            line = (
                f"  {_STAGE_NAMES.get(name, name):<11}{_fit_line(fit)}, check "
                f"{fit['check']['error']:+.0%}"
            )
            if at is not None:
                line += f", at {at['label']}: {seconds(fit['predicted_at_s'])}"
            echo(
                textwrap.fill(
                    line,
                    width,
                    subsequent_indent=" " * 13,
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
    for note in growth.get("notes", []):
        echo(
            textwrap.fill(
                f"note: {note}",
                width,
                subsequent_indent="  ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        )


def _render_points(growth: dict[str, Any], echo: Callable[[str], object], width: int) -> None:
    """What grew and what compiled it, then a row per size compiled: its total and stages."""
    points = growth["points"]
    what = "chips" if growth["scale"] == "chips" else growth["scale"]
    compiled = next((p["compiled_for"] for p in points if p["compiled_for"]), None)
    where = f", compiled for {compiled}" if compiled else ", this machine's compile"
    echo(
        textwrap.fill(
            f"compile time of {growth['target']} as {what} grows{where}",
            width,
            break_on_hyphens=False,
            break_long_words=False,
        )
    )
    header = f"  {'size':<16}{'total':>10}" + "".join(
        f"{name:>12}" for name in _STAGE_NAMES.values()
    )
    echo(_cut(header, width))
    roles = ("fit", "fit", "check")
    for point, role in zip(points, roles, strict=False):
        label = point["label"] if growth["scale"] == "chips" else str(point["size"])
        if growth["scale"] == "chips":
            label = f"{point['size']} ({label.split(':')[-1]})"
        row = f"  {label + ' ' + role:<16}{seconds(point['total_s']):>10}" + "".join(
            f"{seconds(point['stages'].get(name)):>12}" for name in _STAGE_NAMES
        )
        echo(_cut(row, width))


def _render_fit(growth: dict[str, Any], echo: Callable[[str], object], width: int) -> None:
    """The total's fit, its check at the third size, the other fit's error, the estimate."""
    total = growth["total"]
    check = total["check"]
    echo(_cut(f"total: {_fit_line(total)}", width))
    echo(
        _cut(
            f"  check at {_size(check['size'])}: predicted {seconds(check['predicted_s'])}, "
            f"compiled in {seconds(check['measured_s'])} ({check['error']:+.0%})",
            width,
        )
    )
    other = [f for f in total["fits"] if f["kind"] != total["fit"]["kind"]]
    for fit in other:
        kind = _FIT_NAMES[fit["kind"]]
        echo(_cut(f"  (a {kind} would have been off by {fit['check_error']:+.0%} there)", width))
    at = growth.get("at")
    if at is not None:
        echo(
            textwrap.fill(
                f"at {at['label']}: about {seconds(growth['predicted_at_s'])} (an estimate: the "
                f"fit was off by {check['error']:+.0%} on its check)",
                width,
                break_on_hyphens=False,
                break_long_words=False,
            )
        )


def _size(value: float) -> str:
    return f"{value:g}"
