"""What ``hloscope recompiles SCRIPT.py`` loads before the script runs (issue 18.12).

The watcher's cost on a short script is mostly start-up: the parent process and the watched
child each used to import the whole library (the package ``__init__`` modules pulled in the
parser and every analysis). Each check runs in a fresh interpreter, the oracle being
``sys.modules`` itself; ``benchmarks/bench_recompiles_script.py`` measures the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

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
        from hloscope.analysis.recompiles import build_ledger
        from hloscope.drivers.script_recompiles import recompiles_of_script
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
        import hloscope.capture.tf_watch, hloscope.backends._jaxlib
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
        ("hloscope.capture.inprocess", "Capture"),  # the old home still gives the view
        ("hloscope.backends.record", "Capture"),
        ("hloscope.analysis.fusions", "FusionReport"),
        ("hloscope.analysis.diff", "KernelDiff"),
    ):
        loaded_after(
            f"""
            from {module} import {name}
            assert callable({name}._repr_html_), "{name}"
            """
        )


# ---- the order: the script first, the ledger's code while it runs ------------------------------

#: A script that ends only once the file named by its first argument exists (or exits 3 after
#: 30 s): the parent creates it while importing the renderer, so a 0 exit shows the renderer
#: was imported while the script ran.
WAITS_FOR_FLAG = """
import os, sys, time

deadline = time.monotonic() + 30
while not os.path.exists(sys.argv[1]):
    if time.monotonic() > deadline:
        sys.exit(3)
    time.sleep(0.01)
print("flag seen")
"""

#: The parent, in a fresh interpreter: notes what is loaded when the child starts, creates
#: the flag when the renderer is imported, and runs the command as the console script does.
PARENT_PROBE = """
import importlib.abc, json, subprocess, sys

script, flag, report = sys.argv[1:]
seen = {}
start = subprocess.Popen.__init__


def popen(self, *args, **kwargs):
    seen.setdefault("at_child_start", sorted(sys.modules))
    start(self, *args, **kwargs)


subprocess.Popen.__init__ = popen


class FlagOnRendererImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "hloscope.render.recompiles_text":
            seen["child_running_at_render_import"] = "at_child_start" in seen
            open(flag, "w").close()
        return None


sys.meta_path.insert(0, FlagOnRendererImport())
from hloscope.cli import cli

try:
    cli(["recompiles", script, flag], standalone_mode=False)
except SystemExit as done:
    seen["exit"] = done.code
with open(report, "w") as out:
    json.dump(seen, out)
"""

#: What the parent needs only once the script has ended: loaded while it runs, not before.
AFTER_THE_SCRIPT = (
    "hloscope.render.recompiles_text",
    "hloscope.analysis.recompiles._grouping",
    "hloscope.analysis.recompiles._advice",
    "hloscope.capture.compile_watch",
    "hloscope.capture.tf_watch",
    "rich",
    "rich.console",
    "importlib.metadata",
    "hloscope.backends._jaxlib",  # needed only for a capture's locations, never here
)


def test_the_script_starts_first_and_the_ledger_code_loads_while_it_runs(tmp_path):
    script = tmp_path / "waits.py"
    script.write_text(textwrap.dedent(WAITS_FOR_FLAG))
    flag, report = tmp_path / "flag", tmp_path / "report.json"
    subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PARENT_PROBE), str(script), str(flag), str(report)],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seen = json.loads(report.read_text())
    assert seen["exit"] == 0  # the script saw the flag: the renderer loaded while it ran
    assert seen["child_running_at_render_import"] is True
    early = sorted(set(AFTER_THE_SCRIPT) & set(seen["at_child_start"]))
    assert not early, early


def test_json_output_never_loads_the_renderer(tmp_path):
    script = tmp_path / "quick.py"
    script.write_text("print('hi')\n")
    loaded = loaded_after(
        f"""
        import json, sys
        from hloscope.cli import cli
        try:
            cli(["recompiles", {str(script)!r}, "--json"], standalone_mode=False)
        except SystemExit as done:
            assert done.code == 0, done.code
        """
    )
    assert "hloscope.render.recompiles_text" not in loaded
    assert "rich.console" not in loaded
    # The run's manifest is thrown away: the installed versions are never read for it.
    assert "importlib.metadata" not in loaded


def test_a_kept_run_records_the_installed_versions(tmp_path):
    from importlib import metadata

    from hloscope.drivers.script_recompiles import recompiles_of_script

    script = tmp_path / "quick.py"
    script.write_text("print('hi')\n")
    recompiles_of_script(script, out_dir=tmp_path / "kept")
    manifest = json.loads((tmp_path / "kept" / "manifest.json").read_text())
    assert manifest["versions"]["jax"] == metadata.version("jax")
    assert manifest["hloscope"] == metadata.version("hloscope")


def test_the_watched_child_never_hashes_its_modules():
    """The capture cache's fingerprints (hashing every local module) are for captures only:
    a watched run is never cached, so its runner does not even import the cache."""
    loaded = loaded_after("import hloscope.capture._runner")
    assert "hloscope.capture.cache" not in loaded


# ---- capture_script's while_running ---------------------------------------------------------


def test_while_running_is_called_once_while_the_child_runs(tmp_path):
    from hloscope.capture.script import capture_script

    script = tmp_path / "waits.py"
    script.write_text(textwrap.dedent(WAITS_FOR_FLAG))
    flag = tmp_path / "flag"
    calls = []

    def create_flag() -> None:
        calls.append(flag.exists())
        flag.touch()

    run = capture_script(
        script, [str(flag)], tmp_path / "out", watch_compiles=True, while_running=create_flag
    )
    assert calls == [False]
    assert run.ok, run.error_line()
    assert (tmp_path / "out" / "stdout.txt").read_text() == "flag seen\n"


def test_a_failing_while_running_stops_the_child(tmp_path):
    from hloscope.capture.script import capture_script

    script = tmp_path / "sleeps.py"
    pid_file = tmp_path / "pid"
    script.write_text(
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(60)\n"
    )

    def fail_once_started() -> None:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the script never started"
            time.sleep(0.01)
        raise RuntimeError("the caller's preparation failed")

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="preparation failed"):
        capture_script(
            script, (), tmp_path / "out", watch_compiles=True, while_running=fail_once_started
        )
    assert time.monotonic() - started < 30  # not the script's 60 s
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_a_watched_run_keeps_the_users_traceback_limit(tmp_path, monkeypatch):
    """Captures ask JAX for every frame in each op's location (they are dumped); a watched
    run dumps nothing, so JAX keeps the user's own setting (or its default)."""
    from hloscope.backends._jaxlib import TRACEBACK_LIMIT_ENV
    from hloscope.capture.script import capture_script

    script = tmp_path / "env.py"
    script.write_text(f"import os\nprint(os.environ.get({TRACEBACK_LIMIT_ENV!r}))\n")
    monkeypatch.delenv(TRACEBACK_LIMIT_ENV, raising=False)
    capture_script(script, (), tmp_path / "a", watch_compiles=True)
    assert (tmp_path / "a" / "stdout.txt").read_text() == "None\n"
    monkeypatch.setenv(TRACEBACK_LIMIT_ENV, "7")
    capture_script(script, (), tmp_path / "b", watch_compiles=True)
    assert (tmp_path / "b" / "stdout.txt").read_text() == "7\n"
    capture_script(script, (), tmp_path / "c")  # a capture: every frame
    assert (tmp_path / "c" / "stdout.txt").read_text() == "-1\n"


# ---- the command line loads one command's module ------------------------------------------------


def test_running_a_command_loads_only_its_own_module():
    loaded = loaded_after(
        """
        from hloscope.cli import cli
        assert cli.get_command(None, "recompiles").name == "recompiles"
        """
    )
    from hloscope.cli import _app

    # Shared helpers of the CLI (``_app``, ``_output``...) may load; of the commands' modules,
    # only the one asked for.
    commands = {f"hloscope.cli.{module}" for module in _app.COMMAND_MODULES.values()}
    assert commands & {m for m in loaded if m.startswith("hloscope.cli.")} == {
        "hloscope.cli.recompiles"
    }


def test_every_command_module_is_in_the_table():
    """A module of hloscope/cli/ that defines a command must be listed, or its command would
    never load; each listed module defines the command it is listed for."""
    from hloscope.cli import _app, cli

    folder = ROOT / "hloscope" / "cli"
    modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")} - {"errors"}
    assert set(_app.COMMAND_MODULES.values()) == modules
    for name, module in _app.COMMAND_MODULES.items():
        command = cli.commands[name]
        assert command.callback is not None and command.callback.__module__ == (
            f"hloscope.cli.{module}"
        ), name
    assert sorted(cli.commands) == sorted(_app.COMMAND_MODULES)


def test_the_console_scripts_first_imports_are_light():
    """What `hloscope` imports before it can start a watched script's child: the package's
    `__init__`s and the prestart, nothing of typing, importlib.abc (importlib.resources,
    pathlib, tempfile, zipfile) or click. Run without `site` (`-S`),
    whose .pth files may have imported some of them already (an editable install does)."""
    probe = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        "import hloscope.cli._early, hloscope.capture.prestart\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    loaded = set(json.loads(result.stdout))
    heavy = {
        "typing",
        "importlib.abc",
        "importlib.resources",
        "pathlib",
        "tempfile",
        "zipfile",
        "click",
        "dataclasses",
        "inspect",
    }
    assert not loaded & heavy, sorted(loaded & heavy)
    assert "hloscope.capture.prestart" in loaded
