"""``hloscope memory``'s text fits the terminal: prose wraps, rows shorten their names and
source lines (the function first, the line number kept), and names are escaped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hloscope.analysis.memory import LiveBuffer, MemoryResult
from hloscope.render.memory_text import render_memory

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"


def _result(live: list[LiveBuffer]) -> MemoryResult:
    return MemoryResult(
        module="m",
        source="simulated",
        peak_bytes=sum(b.bytes for b in live),
        breakdown={"parameters": 0, "outputs": 0, "temporaries": sum(b.bytes for b in live)},
        peak_at={"index": 0, "instruction": live[0].name, "kernel": None},
        live_at_peak=live,
        timeline=[(0, 0), (1, 5)],
    )


def _memory_text(columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "memory", str(SAMPLE)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def test_the_command_fits_80_columns_when_piped_and_keeps_line_numbers():
    narrow = _memory_text(80)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    wide = _memory_text(250)
    # The sample's buffers come from source lines with long function names: at 250 columns
    # they are whole, at 80 the file:line survives the cut.
    assert "samples/transformer_train.py:101 (make.<locals>.train_step.<locals>.<lambda>)" in wide
    assert max(len(line) for line in wide.splitlines()) > 80
    live = narrow.split("live at the peak:")[1].split("by source line:")[0]
    assert "py:101" in live and "<lambda>" not in live


def test_a_long_source_loses_its_function_before_its_line_number():
    source = "a/very/deep/package/path/to/the/model/definitions.py:1234 (Model.__call__.<locals>.f)"
    buffer = LiveBuffer(
        "fusion.7", "f32[1024,1024]{1,0}", 4 << 20, "temporary", "fusion.7", source, ""
    )
    row = [line for line in render_memory(_result([buffer])).splitlines() if "fusion.7 " in line]
    assert len(row) == 1 and len(row[0]) <= 80
    # The shared rule (render/sources.py): the function goes first, the line number stays.
    assert row[0].rstrip().endswith(".py:1234") and "__call__" not in row[0]
    assert "f32[1024,1024]{1,0}" in row[0]  # the shape is never cut


def test_control_characters_in_names_are_escaped():
    buffer = LiveBuffer("evil\x1b[2Jname", "f32[2]{0}", 8, "temporary", "x", "", "")
    text = render_memory(_result([buffer]), width=200)
    assert "\x1b" not in text and "evil\\e[2Jname" in text


def test_lines_by_source_name_files_as_the_rest_of_the_output_does():
    # Metadata gives some paths whole (/work/.../model.py) and some relative: the section
    # printed both forms side by side; every row names the file alone (--json keeps the path).
    wide = _memory_text(250)
    section = wide.split("by source line:")[1].split("by scope:")[0]
    rows = [line for line in section.splitlines() if ".py:" in line]
    assert rows and all("/" not in line.split(".py:")[0] for line in rows), rows
    assert any("transformer_train.py:" in line for line in rows)
    buffer = LiveBuffer(
        "fusion.7", "f32[8]{0}", 32, "temporary", "fusion.7", "/abs/path/to/model.py:12 (f)", ""
    )
    text = render_memory(_result([buffer]))
    by_source = text.split("by source line:")[1].split("by scope:")[0]
    assert "model.py:12 (f)" in by_source and "/abs/path" not in by_source
