"""Every whole-number option (``--top N``, ``--limit N``...) is one ``count_option``: ``N`` in
the help, its default shown where it has one, and a value under its least refused as a usage
error (exit 2) in one line, before any work starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli
from hloscope.errors import ExitStatus

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "samples" / "hlo" / "fusion_refactor_fused.after_optimizations.txt")

#: (command, option, least, default), as the commands declare them.
COUNTS = [
    ("bench", "--top", 1, None),
    ("compile-time", "--top", 1, 10),
    ("compile-time", "--repeat", 1, 1),
    ("diff", "--limit", 0, 30),
    ("graph", "--depth", 0, None),
    ("graph", "--max-nodes", 1, 150),
    ("profile", "--top", 1, None),
    ("profile", "--trace-device", 0, None),
    ("recompiles", "--fail-over", 0, None),
    ("report", "--graphs", 0, 4),
    ("try", "--jobs", 1, None),
]


def _help_of(command: str, option: str) -> str:
    """The help entry of ``option``, its wrapped lines joined."""
    text = CliRunner().invoke(cli, [command, "--help"], terminal_width=200).output
    start = text.index(f"  {option} ")
    end = text.find("\n  -", start + 1)
    return " ".join(text[start:end].split())


@pytest.mark.parametrize(("command", "option", "least", "default"), COUNTS)
def test_a_count_option_says_N_and_its_default(command, option, least, default):
    entry = _help_of(command, option)
    assert entry.startswith(f"{option} N ")
    assert ("[default: " in entry) == (default is not None)
    if default is not None:
        assert f"[default: {default}" in entry
    if least:
        assert f"x>={least}" in entry


@pytest.mark.parametrize(("command", "option", "least", "default"), COUNTS)
def test_a_count_under_its_least_is_a_usage_error(command, option, least, default):
    result = CliRunner().invoke(cli, [command, SAMPLE, option, str(least - 1)])
    assert result.exit_code == ExitStatus.USAGE
    assert f"Invalid value for '{option}'" in result.output
    assert f"{least - 1} is not in the range x>={least}" in result.output
    assert "Traceback" not in result.output
