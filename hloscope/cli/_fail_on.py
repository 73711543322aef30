"""The CI gate options a command that compares two things shares: ``--fail-on METRICS`` (exit
3 when one of them grew) and ``--threshold`` (how much growth it tolerates, in percent)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

__all__ = ["fail_on_options"]


def fail_on_options(
    metrics_help: str, threshold_help: str, *, threshold_metavar: str = "PCT"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--fail-on`` (into ``fail_on``) and ``--threshold`` (a float >= 0, default 0), each
    with the command's own help."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "--threshold",
            type=click.FloatRange(min=0),
            default=0.0,
            show_default=True,
            metavar=threshold_metavar,
            help=threshold_help,
        )(command)
        return click.option("--fail-on", metavar="METRICS", help=metrics_help)(command)

    return decorate
