"""What ``hloscope recompiles SCRIPT.py`` loads before the script runs (issue 18.12).

The watcher's cost on a short script is mostly start-up: the parent process and the watched
child each used to import the whole library (the package ``__init__`` modules pulled in the
parser and every analysis). Each check runs in a fresh interpreter, the oracle being
``sys.modules`` itself; ``benchmarks/bench_recompiles_script.py`` measures the time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Modules only other commands need: the HLO parser, the analyses of modules, pandas.
HEAVY = (
    "hloscope.hlo.parser",
    "hloscope.analysis.fusions",
    "hloscope.analysis.diff",
    "hloscope.analysis.cost",
    "hloscope.dump.index",
    "pandas",
    "networkx",
    "jinja2",
    "jax",
    "tensorflow",
)


def loaded_after(code: str) -> set[str]:
    probe = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_command_side_loads_only_what_a_script_run_needs():
    loaded = loaded_after(
        """
        from hloscope.cli import cli
        from hloscope.analysis.recompiles import recompiles_of_script, build_ledger
        from hloscope.capture.script import capture_script
        from hloscope.render.recompiles_text import render_ledger
        """
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_watched_child_loads_only_the_watcher():
    loaded = loaded_after(
        """
        import hloscope.capture._runner
        from hloscope.capture.compile_watch import CompileWatcher
        import hloscope.capture.tf_watch, hloscope.capture.jaxlib_adapter
        """
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_every_public_name_still_loads_on_first_use():
    loaded = loaded_after(
        """
        import hloscope
        import hloscope.capture.script  # the subpackage must not hide the function
        assert callable(hloscope.capture) and callable(hloscope.benchmark)
        import types
        assert isinstance(hloscope.bench, types.ModuleType)  # the package, not a function
        from hloscope import *
        import hloscope.hlo, hloscope.analysis
        for package in (hloscope, hloscope.hlo, hloscope.analysis):
            missing = [n for n in package.__all__ if not hasattr(package, n)]
            assert not missing, (package.__name__, missing)
            assert set(package.__all__) <= set(dir(package))
        assert hloscope.parse("HloModule m\\nENTRY e { ROOT p = f32[2] parameter(0) }").name == "m"
        """
    )
    assert "hloscope.hlo.parser" in loaded  # loaded when asked for


def test_notebook_views_are_there_however_the_class_is_imported():
    for module, name in (
        ("hloscope.capture.inprocess", "Capture"),
        ("hloscope.analysis.fusions", "FusionReport"),
        ("hloscope.analysis.diff", "KernelDiff"),
    ):
        loaded_after(
            f"""
            from {module} import {name}
            assert callable({name}._repr_html_), "{name}"
            """
        )
