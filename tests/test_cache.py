"""The script-target cache cannot lie: local modules, the environment and --refresh each give
a fresh capture; an unchanged script is still served from the cache."""

from __future__ import annotations

import json
import os
import sys
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


_KEY_AROUND_IMPORTS = """
import json, os, sys
from hloscope.capture.cache import relevant_environment
before = relevant_environment()
changed_before = dict(os.environ)
for name in sys.argv[1:]:
    __import__(name)
changed = sorted(k for k, v in os.environ.items() if changed_before.get(k) != v)
print(json.dumps({"same": relevant_environment() == before, "changed": changed}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("frameworks", [("jax",), ("tensorflow",), ("jax", "tensorflow")])
def test_importing_a_framework_leaves_the_cache_key_as_it_was(frameworks):
    # A notebook that imported jax (which sets TF_CPP_MIN_LOG_LEVEL and TPU_SKIP_MDS_QUERY)
    # or TensorFlow must share the command line's entries: the frameworks themselves say which
    # variables their import sets, in a fresh process.
    import subprocess
    import sys

    from frameworks_needed import needs_framework

    for name in frameworks:
        needs_framework(name)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TF_", "TPU_", "TF2_", "HDF5_", "ENABLE_RUNTIME"))
    }
    done = subprocess.run(
        [sys.executable, "-c", _KEY_AROUND_IMPORTS, *frameworks],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["changed"], "the import set no variable: the test proves nothing"
    assert report["same"], report["changed"]


def test_variables_that_can_change_the_hlo_stay_in_the_key():
    env = {
        "XLA_FLAGS": "--xla_cpu_enable_fast_math=false",
        "JAX_ENABLE_X64": "1",
        "TF_XLA_FLAGS": "--tf_xla_auto_jit=2",
        "GPT_VARIANT": "bf16",
        # Set by TensorFlow's import to "1"; "0" is the user's choice and changes behaviour.
        "TF2_BEHAVIOR": "0",
    }
    assert relevant_environment(env) == env
    logging_only = {"TF_CPP_MIN_LOG_LEVEL": "3", "TPU_SKIP_MDS_QUERY": "1", "TF2_BEHAVIOR": "1"}
    assert relevant_environment(logging_only) == {}


def test_a_pythonpath_folder_with_installed_distributions_is_not_the_users(tmp_path, monkeypatch):
    """jax installed with ``pip install --target DIR`` and put on PYTHONPATH (an image's own
    jax): its thousands of modules are an installed package's, not the user's to hash."""
    site = tmp_path / "image-site"
    (site / "somepkg").mkdir(parents=True)
    (site / "somepkg-1.0.dist-info").mkdir()
    module_file = site / "somepkg" / "__init__.py"
    module_file.write_text("")
    plain = tmp_path / "project"
    plain.mkdir()
    helper = plain / "helper.py"
    helper.write_text("")

    class Installed:
        __file__ = str(module_file)

    class Helper:
        __file__ = str(helper)

    monkeypatch.setattr(sys, "path", [str(site), str(plain), *sys.path])
    found = local_module_files([Installed, Helper])
    assert found == [str(helper.resolve())]
    # The script's own folder is the user's, whatever metadata it holds.
    assert str(module_file.resolve()) in local_module_files([Installed], user_folders=[str(site)])


def test_cache_clear_also_empties_the_tpu_op_verdicts_and_measured_peaks(tmp_path, monkeypatch):
    """`check --device` keeps XLA:TPU's verdict per op under tpu-ops/, `bench` a CPU's
    measured peaks under peaks/: "empty the cache" means them too, and `ls` names them."""
    from hloscope.bench.peaks import cpu_cache_path  # where bench keeps its measured peaks
    from hloscope.capture.cache import TPU_OPS_FOLDER

    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    verdicts = tmp_path / "cache" / TPU_OPS_FOLDER
    verdicts.mkdir(parents=True)
    for n in range(3):
        (verdicts / f"{n}.json").write_text('{"compiles": true}')
    peaks = cpu_cache_path()
    peaks.parent.mkdir(parents=True, exist_ok=True)
    peaks.write_text("{}")
    listed = CliRunner().invoke(cli, ["cache", "ls"])
    assert listed.exit_code == 0, listed.output
    assert "3 XLA:TPU op verdicts" in listed.stdout and "1 measured CPU peak " in listed.stdout
    cleared = CliRunner().invoke(cli, ["cache", "clear"])
    assert cleared.exit_code == 0, cleared.output
    assert "removed 0 cached captures" in cleared.stdout
    assert "3 XLA:TPU op verdicts" in cleared.stdout and "1 measured CPU peak " in cleared.stdout
    assert not verdicts.exists() and not peaks.exists()
    again = CliRunner().invoke(cli, ["cache", "ls"])
    assert "op verdict" not in again.stdout and "CPU peak" not in again.stdout


@pytest.mark.slow
def test_cache_ls_and_clear_know_the_try_variants(tmp_path, monkeypatch):
    """`try` keeps each compiled variant under try/ (a folder per compile): `cache ls` counts
    them with their size, `clear` removes them, and the next `try` compiles them again."""
    from frameworks_needed import needs_libtpu

    from hloscope.capture.cache import TRY_FOLDER
    from hloscope.units import format_bytes

    needs_libtpu()
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "model.py"
    script.write_text(
        "import jax.numpy as jnp\n\ndef step(w, x):\n    return jnp.tanh(x @ w).sum()\n\n"
        "EXAMPLE_ARGS = {'step': (jnp.ones((64, 32)), jnp.ones((8, 64)))}\n"
    )
    args = ["try", f"{script}:step", "--device", "tpu-v5e:2x2", "--shard", "dp", "--json"]
    ran = CliRunner().invoke(cli, args)
    assert ran.exit_code == 0, ran.output
    payload = json.loads(ran.stdout)
    assert not payload["baseline"]["cached"]
    folder = tmp_path / "cache" / TRY_FOLDER
    kept = [f for f in folder.rglob("*") if f.is_file()]
    assert len({f.parent for f in kept}) == 2  # the baseline and dp, one folder each
    size = format_bytes(sum(f.stat().st_size for f in kept))
    listed = CliRunner().invoke(cli, ["cache", "ls"])
    assert listed.exit_code == 0, listed.output
    assert f"2 compiled try variants ({size})" in " ".join(listed.stdout.split())
    cleared = CliRunner().invoke(cli, ["cache", "clear"])
    assert cleared.exit_code == 0, cleared.output
    assert f"2 compiled try variants ({size})" in " ".join(cleared.stdout.split())
    assert not folder.exists()
    assert "try variant" not in CliRunner().invoke(cli, ["cache", "ls"]).stdout
    again = json.loads(CliRunner().invoke(cli, args).stdout)
    assert not again["baseline"]["cached"] and not again["variants"][0]["cached"]
