"""What `hloscope summary FILE` imports before it answers (issue 36): a text file's summary
loads none of the dump folder readers, and `--json` none of rich; `hloscope.dump` still
exports every name it did, each from its own module."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import hloscope.dump

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
DUMP_READERS = ("buffers", "index", "memory_report", "filenames", "passes")


def _summary_modules(*args: str) -> tuple[str, list[str]]:
    """The command's stdout and the modules it had loaded when it exited (a fresh
    interpreter: nothing this test process imported stands in for a load)."""
    probe = (
        "import sys, atexit, json\n"
        "atexit.register(lambda: sys.stderr.write('LOADED ' + json.dumps(sorted(sys.modules))))\n"
        "from hloscope.cli import main\n"
        f"sys.argv = ['hloscope', 'summary', *{list(args)!r}]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    loaded = done.stderr.rsplit("LOADED ", 1)[1]
    return done.stdout, json.loads(loaded)


def _run_probe(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter from the repository's root."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout


def test_a_text_files_summary_loads_no_dump_folder_reader() -> None:
    out, loaded = _summary_modules(str(SAMPLE))
    assert "transformer" in out.lower()
    assert "hloscope.dump.storage" in loaded  # what resolving a TARGET does use
    assert not [m for m in DUMP_READERS if f"hloscope.dump.{m}" in loaded]


def test_summary_json_loads_no_rich() -> None:
    out, loaded = _summary_modules("--json", str(SAMPLE))
    assert json.loads(out)[0]["instructions"] > 0
    assert not [m for m in loaded if m.split(".")[0] == "rich"]
    _, text_loaded = _summary_modules(str(SAMPLE))
    assert "rich.console" in text_loaded  # the panels still print through rich


@pytest.mark.parametrize("name", hloscope.dump.__all__)
def test_dump_exports_each_name_from_its_module(name: str) -> None:
    value = getattr(hloscope.dump, name)
    home = next(
        importlib.import_module(f"hloscope.dump.{m}")
        for m in (*DUMP_READERS, "errors")
        if name in vars(importlib.import_module(f"hloscope.dump.{m}"))
    )
    assert getattr(home, name) is value
    assert name in dir(hloscope.dump)


def test_dump_exports_the_names_it_always_did() -> None:
    assert set(hloscope.dump.__all__) == {
        "DumpFormatError",
        "DumpFileName",
        "parse_dump_filename",
        "function_name",
        "DumpIndex",
        "DumpModule",
        "DumpFunction",
        "DumpStage",
        "DumpFile",
        "PassDump",
        "load_dump",
        "index_entries",
        "BufferAssignment",
        "Allocation",
        "BufferValue",
        "LiveRange",
        "MemoryUsageReport",
        "MemorySummary",
        "parse_buffer_assignment",
        "load_buffer_assignment",
        "parse_memory_report",
        "load_memory_report",
    }


def test_a_printed_modules_parse_loads_no_async_sugar_until_text_has_some() -> None:
    """The async sugar (``add-start``/``add-done``) is hand-written text's: the parser loads
    its reader on first use, and that text is still expanded as XLA's parser does."""
    probe = (
        "import sys, hloscope\n"
        f"hloscope.parse({str(SAMPLE)!r})\n"
        "print('AFTER_PRINTED', 'hloscope.hlo.parser._sugar' in sys.modules)\n"
        "m = hloscope.parse('HloModule m\\nENTRY e {\\n  p = f32[4] parameter(0)\\n'\n"
        "    '  st = ((f32[4]), f32[4], s32[]) negate-start(p)\\n'\n"
        "    '  ROOT d = f32[4] negate-done(st)\\n}\\n')\n"
        "print('AFTER_SUGAR', 'hloscope.hlo.parser._sugar' in sys.modules)\n"
        "print('OPCODES', sorted(i.opcode for i in m.entry.instructions))\n"
    )
    out = _run_probe(probe)
    assert "AFTER_PRINTED False" in out
    assert "AFTER_SUGAR True" in out
    assert "OPCODES ['async-done', 'async-start', 'parameter']" in out


def test_resolving_a_targets_modules_load_no_hash_until_a_script_is_keyed(tmp_path) -> None:
    """hashlib (~3 ms) is for a script target's cache key: a text file's TARGET never hashes."""
    script = tmp_path / "s.py"
    script.write_text("x = 1\n")
    probe = (
        "import sys, pathlib\n"
        "import hloscope.capture.target\n"
        "from hloscope.capture.cache import cache_key\n"
        "print('BEFORE', 'hashlib' in sys.modules)\n"
        f"key = cache_key(pathlib.Path({str(script)!r}), b'x = 1', [], 'f', {{}})\n"
        "print('AFTER', 'hashlib' in sys.modules, len(key))\n"
    )
    out = _run_probe(probe)
    assert "BEFORE False" in out
    assert "AFTER True 64" in out


def test_a_serial_parse_loads_no_structure_digest() -> None:
    """hlo.structure (and hashlib) digests the bodies a forked parse's children read: a
    serial parse, and the summary after it, never load it; a parse that forks loads it once,
    before its children start, and its fusions' digests still come back."""
    probe = (
        "import sys, hloscope\n"
        "from hloscope.analysis.summary import summarize\n"
        f"summarize(hloscope.parse({str(SAMPLE)!r}))\n"
        "print('SERIAL', 'hloscope.hlo.structure' in sys.modules, 'hashlib' in sys.modules)\n"
    )
    out = _run_probe(probe)
    assert "SERIAL False False" in out
    forked = (
        "import os, sys, hloscope\n"
        "from hloscope.hlo.parser import _forked, _whole\n"
        "os.environ[_forked.WORKERS_ENV] = '3'\n"
        "_forked.MIN_ROWS, _forked.ROWS_PER_CHILD, _whole._CHUNK_ROWS = 0, 1, 64\n"
        "_forked._quiet_process = lambda: True\n"
        "forks = []\n"
        "fork = os.fork\n"
        "def counted():\n"
        "    pid = fork()\n"
        "    if pid:\n"
        "        forks.append(pid)\n"
        "    return pid\n"
        "_forked.os.fork = counted\n"
        f"m = hloscope.parse({str(SAMPLE)!r})\n"
        "fused = [c for c in m.computations if c.name.startswith('fused')]\n"
        "print('FORKED', bool(forks), 'hloscope.hlo.structure' in sys.modules, len(fused) > 0)\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", forked],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "FORKED True True True" in out
