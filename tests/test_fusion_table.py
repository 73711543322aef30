"""`hloscope fusions` as a person reads it: fits the terminal, never wraps, escapes control
characters, summary first; the full values stay in JSON."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

import hloscope
from hloscope.analysis.fusion_notes import summary_to_dict
from hloscope.render.fusion_table import render_by_source, render_fusions
from hloscope.render.terminal import printable, shorten_middle

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"


def _cli(*args: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("columns", [80, 100, 132])
def test_readme_command_fits_the_terminal_piped(columns):
    out = _cli("fusions", str(SAMPLE), columns=columns)
    lines = out.splitlines()
    assert max(map(len, lines)) <= columns
    report = hloscope.fusion_report(hloscope.parse(SAMPLE))
    # Summary before rows, and one line per kernel: nothing wraps.
    assert lines[0].startswith(f"kernels {report.summary.kernel_count}")
    header = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    body = [line for line in lines[header + 2 :] if line.strip()]
    assert len(body) == len(report.kernels)
    assert all(
        line.split()[0] in {k.name for k in report.kernels} or "\u2026" in line.split()[0]
        for line in body
    )


def test_wide_shows_every_column_and_full_names():
    out = _cli("fusions", "--wide", str(SAMPLE), columns=80)
    header = next(line for line in out.splitlines() if line.startswith("kernel "))
    for name in ("signature", "in", "out", "flops", "transc", "flop/B", "root", "source"):
        assert name in header
    body = out.split(header, 1)[1].splitlines()[2:]
    shown = [line.split()[0] for line in body if line.strip()]
    assert shown == [k.name for k in hloscope.fusion_report(hloscope.parse(SAMPLE)).kernels]


def test_json_keeps_full_values():
    payload = json.loads(_cli("fusions", "--json", str(SAMPLE), columns=80))
    names = [row["name"] for row in payload["rows"]]
    report = hloscope.fusion_report(hloscope.parse(SAMPLE))
    assert names == [k.name for k in report.kernels]
    assert not any("\u2026" in row["signature"] for row in payload["rows"])


def test_shorten_middle_keeps_both_ends():
    assert shorten_middle("wrapped_reduce-window.1", 12) == "wrappe\u2026dow.1"
    assert len(shorten_middle("x" * 100, 17)) == 17
    assert shorten_middle("short", 10) == "short"


def test_control_characters_reach_the_terminal_escaped():
    hostile = "evil\x1b]8;;http://x\x07link\x1b[2J\nline\u202e"
    assert printable(hostile) == "evil\\e]8;;http://x\\x07link\\e[2J\\nline\\u202e"
    module = hloscope.parse(SAMPLE)
    report = hloscope.fusion_report(module)
    rows = report.rows()[:3]
    for row in rows:
        row["op_name"] = hostile
        row["source"] = ""
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=False, color_system=None)
    render_fusions(rows, summary_to_dict(report.summary), console, wide=True)
    render_by_source(
        [{"source": hostile, "ops": 1, "n_kernels": 1, "flops": 0, "kernels": [hostile]}], console
    )
    text = buffer.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "evil\\e]8;;http://x\\x07link" in text


def _hostile(path: Path) -> str:
    """The sample's text with terminal escapes in every op_name and source file (HLO escapes)."""
    text = path.read_text()
    assert 'op_name="' in text and '1 "samples/fusion_refactor.py"' in text
    text = text.replace('op_name="', 'op_name="\\033]0;pwned\\007')
    return text.replace('"samples/fusion_refactor.py"', '"samples/fusion\\033[2J_refactor.py"')


@pytest.mark.parametrize("command", ["summary", "fusions", "fusions --by-source", "diff"])
def test_no_command_prints_raw_control_characters(tmp_path, command):
    samples = ROOT / "samples" / "hlo"
    a = tmp_path / "a.txt"
    a.write_text(_hostile(samples / "fusion_refactor_fused.after_optimizations.txt"))
    b = tmp_path / "b.txt"
    b.write_text(_hostile(samples / "fusion_refactor_split.after_optimizations.txt"))
    args = command.split() + [str(a)] + ([str(b)] if command == "diff" else [])
    extra = {"summary": [], "diff": ["--limit=0"]}.get(command, ["--wide"])
    out = _cli(*args, *extra, columns=200)
    assert "\x1b" not in out and "\x07" not in out
    assert "\\e" in out  # the escape is shown, not lost
