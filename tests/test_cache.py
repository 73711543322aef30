"""The script-target cache cannot lie: local modules, the environment and --refresh each give
a fresh capture; an unchanged script is still served from the cache."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.capture.cache import IGNORED_ENV, local_module_files, relevant_environment
from hloscope.capture.target import Target
from hloscope.cli import cli

pytest.importorskip("jax")

MAIN = textwrap.dedent(
    """
    import os

    import jax.numpy as jnp

    import mylayers

    DTYPE = jnp.bfloat16 if os.environ.get("CACHE_TEST_VARIANT") == "bf16" else jnp.float32


    def f(x):
        return mylayers.act(x * 2.0)


    f.example_args = (jnp.ones((8,), DTYPE),)
    """
)
LAYERS = "import jax.numpy as jnp\n\n\ndef act(x):\n    return jnp.{fn}(x)\n"


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CACHE_TEST_VARIANT", raising=False)
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "main.py").write_text(MAIN)
    (folder / "mylayers.py").write_text(LAYERS.format(fn="tanh"))
    return folder


def _opcodes(target: Target) -> set[str]:
    return {i.opcode for i in target.main_module("before").instructions()}


def _dtypes(target: Target) -> set[str]:
    return {p.shape.element_type for p in target.main_module("before").entry.parameters}


def test_unchanged_script_is_served_from_the_cache(project):
    spec = f"{project / 'main.py'}:f"
    first = Target.resolve(spec)
    started = first.manifest["start_time"]
    again = Target.resolve(spec)
    assert not first.from_cache and again.from_cache
    assert again.manifest["start_time"] == started
    recorded = first.manifest["local_modules"]
    assert str((project / "mylayers.py").resolve()) in recorded
    assert not any("site-packages" in path or "/jax/" in path for path in recorded)


def test_editing_an_imported_local_module_gives_a_fresh_capture(project):
    spec = f"{project / 'main.py'}:f"
    assert "tanh" in _opcodes(Target.resolve(spec))
    (project / "mylayers.py").write_text(LAYERS.format(fn="sin"))
    fresh = Target.resolve(spec)
    assert not fresh.from_cache
    opcodes = _opcodes(fresh)
    assert "sine" in opcodes and "tanh" not in opcodes
    assert Target.resolve(spec).from_cache  # and the new capture is reused in turn


def test_an_environment_variable_the_script_reads_gives_a_fresh_capture(project, monkeypatch):
    spec = f"{project / 'main.py'}:f"
    assert _dtypes(Target.resolve(spec)) == {"f32"}
    monkeypatch.setenv("CACHE_TEST_VARIANT", "bf16")
    fresh = Target.resolve(spec)
    assert not fresh.from_cache and _dtypes(fresh) == {"bf16"}
    monkeypatch.setenv("COLUMNS", "123")  # a variable that cannot matter keeps the entry
    assert Target.resolve(spec).from_cache


def test_refresh_forces_a_new_capture_from_the_command_line(project):
    spec = f"{project / 'main.py'}:f"
    started = Target.resolve(spec).manifest["start_time"]  # the manifest is read from disk
    result = CliRunner().invoke(cli, ["fusions", "--json", "--refresh", spec])
    assert result.exit_code == 0, result.output
    again = Target.resolve(spec)
    assert again.from_cache and again.manifest["start_time"] != started


def test_cache_ls_and_clear(project):
    Target.resolve(f"{project / 'main.py'}:f")
    listed = CliRunner().invoke(cli, ["cache", "ls", "--json"])
    assert listed.exit_code == 0, listed.output
    (entry,) = json.loads(listed.stdout)
    assert entry["function"] == "f" and entry["fresh"] and entry["ok"] and entry["size"] > 0
    (project / "mylayers.py").write_text(LAYERS.format(fn="cos"))
    (stale,) = json.loads(CliRunner().invoke(cli, ["cache", "ls", "--json"]).stdout)
    assert not stale["fresh"]
    cleared = CliRunner().invoke(cli, ["cache", "clear"])
    assert cleared.exit_code == 0 and "removed 1 cached capture" in cleared.stdout
    assert json.loads(CliRunner().invoke(cli, ["cache", "ls", "--json"]).stdout) == []


def test_the_environment_rule():
    env = {"COLUMNS": "80", "HLOSCOPE_DEBUG": "1", "PYTEST_CURRENT_TEST": "x", "MY_FLAG": "1"}
    assert relevant_environment(env) == {"MY_FLAG": "1"}
    assert "XLA_FLAGS" not in IGNORED_ENV and "PATH" not in IGNORED_ENV


def test_local_module_files_leave_out_installed_and_standard_library_modules(tmp_path):
    import json as stdlib_module

    import click as installed_module

    mine = tmp_path / "mine.py"
    mine.write_text("")

    class Local:
        __file__ = str(mine)

    found = local_module_files([stdlib_module, installed_module, Local])
    assert found == [str(Path(mine).resolve())]
