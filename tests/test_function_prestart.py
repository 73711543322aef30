"""A function capture's child started early, and let go of early (issue 29, Performance).

``hloscope memory SCRIPT.py:FUNCTION [--device tpu-v5e]`` (and every command that captures a
function) starts its child from the console script's first lines, warmed up with what ``import
jax`` loads that reads no setting (:mod:`hloscope.capture.prestart`); the child ends with
``os._exit`` once its capture is written, and the command does not wait for that end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from child_processes import waiting_children_in
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.capture import prestart
from hloscope.capture.script import capture_script
from hloscope.cli._early import FUNCTION_COMMANDS, names_a_function

ROOT = Path(__file__).resolve().parent.parent

STEP = """
import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return jnp.tanh(x) * 2

def example_args():
    return {"step": (jnp.ones((8, 8)),)}
"""


@pytest.fixture(autouse=True)
def _no_child_left():
    yield
    prestart.discard()


def _script(tmp_path: Path, text: str = STEP, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# ---- which command lines start a function child early ----------------------------------------


def test_a_function_target_of_a_capturing_command_is_named_with_its_device(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _script(tmp_path)
    assert names_a_function(["memory", "prog.py:step"]) == ("prog.py", None)
    assert names_a_function(["memory", "prog.py:step", "--device", "tpu-v5e"]) == (
        "prog.py",
        "tpu-v5e",
    )
    assert names_a_function(["fusions", "--device=tpu-v5e:2x4", "prog.py:step"]) == (
        "prog.py",
        "tpu-v5e:2x4",
    )
    # diff: the first target's device, --device-a before --device.
    assert names_a_function(
        ["diff", "prog.py:step", "prog.py:step", "--device", "a", "--device-a", "b"]
    ) == ("prog.py", "b")
    assert names_a_function(["diff", "prog.py:step", "x.txt", "--device", "a"]) == ("prog.py", "a")
    # capture SCRIPT.py:FUNCTION -o DIR captures a function in a child too.
    assert names_a_function(["capture", "prog.py:step", "-o", "out", "--device", "tpu-v5e"]) == (
        "prog.py",
        "tpu-v5e",
    )


def test_no_function_child_for_other_command_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _script(tmp_path)
    assert names_a_function(["memory", "missing.py:step"]) is None
    assert names_a_function(["memory", "prog.py"]) is None  # a script run, not a function
    assert names_a_function(["memory", "--", "prog.py:step"]) is None
    assert names_a_function(["bench", "prog.py:step", "--device", "tpu"]) is None
    assert names_a_function(["check", "prog.py:step"]) is None
    assert names_a_function(["recompiles", "prog.py:step"]) is None
    assert names_a_function(["capture", "prog.py", "-o", "out"]) is None  # a script's run
    assert names_a_function([]) is None
    assert "bench" not in FUNCTION_COMMANDS and "memory" in FUNCTION_COMMANDS


# ---- adoption ----------------------------------------------------------------------------------


def test_a_function_capture_adopts_the_child_prestarted_for_it(tmp_path):
    needs_framework("jax")
    script = _script(tmp_path)
    prestart.prestart(prestart.Warm.FUNCTION)
    waiting = prestart._waiting
    assert waiting is not None and waiting.process.poll() is None
    run = capture_script(script, (), tmp_path / "out", function="step", cwd=Path.cwd())
    assert run.ok, run.error_line()
    assert run.manifest["prestarted"] is True
    assert run.manifest["exit_status"] == 0
    assert (tmp_path / "out" / "capture").is_dir()
    assert prestart._waiting is None  # adopted once


def test_a_watched_child_is_not_adopted_by_a_function_capture(tmp_path):
    needs_framework("jax")
    script = _script(tmp_path)
    prestart.prestart(prestart.Warm.WATCHED)
    waiting = prestart._waiting
    assert waiting is not None
    run = capture_script(script, (), tmp_path / "out", function="step")
    assert run.ok, run.error_line()
    assert run.manifest["prestarted"] is False  # another environment (no full locations)


def test_a_child_prestarted_for_a_tpu_has_libtpus_environment_and_is_adopted_for_it(tmp_path):
    needs_libtpu()
    prestart.prestart(prestart.Warm.FUNCTION, "tpu-v5e:2x4")
    waiting = prestart._waiting
    assert waiting is not None
    assert waiting.env["JAX_PLATFORMS"] == "cpu"
    assert "--xla_force_host_platform_device_count=8" in waiting.env["XLA_FLAGS"]
    assert waiting.env != prestart.function_child_env(None)
    assert prestart.adopt(prestart.function_child_env(None), os.getcwd()) is None  # not for it
    prestart.prestart(prestart.Warm.FUNCTION, "tpu-v5e:2x4")
    again = prestart._waiting
    try:
        assert prestart.adopt(prestart.function_child_env("tpu-v5e:2x4"), os.getcwd()) is again
    finally:
        assert again is not None
        again.close()  # adopted, then given no orders: it ends
        again.process.wait(timeout=60)


def test_a_function_child_discarded_while_it_warms_up_is_killed_not_waited_for():
    """A cached target needs no child: the command does not wait for numpy to load in it."""
    prestart.prestart(prestart.Warm.FUNCTION)
    waiting = prestart._waiting
    assert waiting is not None
    prestart.discard()
    assert waiting.process.returncode == -signal.SIGKILL


X64_BEFORE_IMPORT = """
import os
os.environ["JAX_ENABLE_X64"] = "1"  # read by `import jax` itself, so before it

import jax, jax.numpy as jnp

@jax.jit
def step(x):
    return x * 2

def example_args():
    return {"step": (jnp.ones(4, dtype=jnp.float64),)}
"""


def test_a_setting_the_script_makes_before_importing_jax_still_holds_in_an_early_child(tmp_path):
    """The early child loads numpy and jaxlib, never jax: JAX reads its JAX_* variables when
    it is imported, and a script that sets one first must get what it asked for."""
    needs_framework("jax")
    script = _script(tmp_path, X64_BEFORE_IMPORT)
    prestart.prestart(prestart.Warm.FUNCTION)
    run = capture_script(script, (), tmp_path / "out", function="step", cwd=Path.cwd())
    assert run.ok, run.error_line()
    assert run.manifest["prestarted"] is True
    hlo = (tmp_path / "out" / "capture" / "hlo.txt").read_text()
    assert "f64[4]" in hlo and "f32[4]" not in hlo


# ---- the end of a function's child -------------------------------------------------------------

SLOW_CLEAN_UP = """
import atexit, time
import jax, jax.numpy as jnp

def _clean_up():  # what a framework's clean-up at exit stands for here
    open({marker!r}, "w").write("ran")
    time.sleep(30)

atexit.register(_clean_up)

@jax.jit
def step(x):
    return x + 1

def example_args():
    return {{"step": (jnp.ones(4),)}}
"""


def test_a_function_capture_does_not_wait_for_the_childs_clean_up_at_exit(tmp_path):
    """The capture is written, then the child ends with os._exit: clean-up at exit (JAX's,
    libtpu's: a second on a TPU host) is skipped, and its exit status comes from its report."""
    needs_framework("jax")
    marker = tmp_path / "clean-up-ran"
    script = _script(tmp_path, SLOW_CLEAN_UP.format(marker=str(marker)))
    run = capture_script(script, (), tmp_path / "out", function="step", timeout=25)
    assert run.ok, run.error_line()
    assert not run.manifest["timed_out"]
    assert run.manifest["exit_status"] == 0
    assert not marker.exists()


def test_a_failing_function_still_reports_its_error_and_status(tmp_path):
    needs_framework("jax")
    script = _script(
        tmp_path,
        """
        import jax
        def step(x):
            raise ValueError("no such shape")
        def example_args():
            return {"step": (jax.numpy.ones(2),)}
        """,
    )
    prestart.prestart(prestart.Warm.FUNCTION)
    run = capture_script(script, (), tmp_path / "out", function="step", cwd=Path.cwd())
    assert not run.ok
    assert run.manifest["exit_status"] == 1
    assert "no such shape" in (run.error_line() or "")
    assert "ValueError" in (tmp_path / "out" / "stderr.txt").read_text()


# ---- through the console script ----------------------------------------------------------------


def _hloscope(args: list[str], cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HLOSCOPE_CACHE": str(cache)}
    env.pop("HLOSCOPE_PRESTART", None)  # the default
    return subprocess.run(
        [sys.executable, "-m", "hloscope", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_the_console_script_adopts_its_early_function_child_then_reads_the_cache(tmp_path):
    needs_framework("jax")
    _script(tmp_path)
    cache = tmp_path / "cache"
    first = _hloscope(["summary", "prog.py:step", "--json"], tmp_path, cache)
    assert first.returncode == 0, first.stderr
    (manifest_path,) = cache.glob("targets/prog.step-*/manifest.json")
    manifest = json.loads(manifest_path.read_text())
    assert manifest["prestarted"] is True
    assert manifest["exit_status"] == 0
    second = _hloscope(["summary", "prog.py:step", "--json"], tmp_path, cache)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert waiting_children_in(tmp_path) == []  # the cached command's early child is gone


def test_capture_of_a_function_adopts_its_early_child(tmp_path):
    """``capture SCRIPT.py:FUNCTION -o DIR`` writes DIR itself (no cache): its child is started
    from the console script's first lines too, and adopted."""
    needs_framework("jax")
    _script(tmp_path)
    run = _hloscope(["capture", "prog.py:step", "-o", "out"], tmp_path, tmp_path / "cache")
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["prestarted"] is True and manifest["exit_status"] == 0
    assert (tmp_path / "out" / "capture" / "optimized_hlo.txt").is_file()
    assert not (tmp_path / "cache").exists()  # straight into DIR
    assert waiting_children_in(tmp_path) == []


# ---- the device's environment, taken by the early child itself -------------------------------

#: A backend a package declares (as test_backend_registry's), whose children need variables of
#: its own: one read by the framework, and one read only as the interpreter starts.
ENV_BACKEND = """
import os
from hloscope.backends import BackendRow, LocalJax
from hloscope.devices import Platform


class EnvXla(LocalJax):
    name = "env-xla-gpu"
    words = "Env XLA"

    def child_environment(self, environment):
        env = dict(environment)
        env["HLOSCOPE_TEST_BACKEND_VAR"] = "the backend's"
        extra = env.get("HLOSCOPE_TEST_EXTRA_PATH")
        if extra:
            env["PYTHONPATH"] = os.pathsep.join([extra, env.get("PYTHONPATH", "")])
        return env


ROW = BackendRow(
    "env-xla-gpu",
    claims=lambda spec, fn: spec is not None and spec.device.platform is Platform.GPU,
    make=lambda spec, mesh: EnvXla(),
    words=EnvXla.words,
)
"""

SEES_ITS_ENVIRONMENT = """
import json, os
import jax, jax.numpy as jnp

try:
    import only_on_the_backends_path
    extra = True
except ImportError:
    extra = False
with open(os.environ["HLOSCOPE_TEST_SEEN"], "w") as seen:
    json.dump({"var": os.environ.get("HLOSCOPE_TEST_BACKEND_VAR"), "extra": extra,
               "platforms": os.environ.get("JAX_PLATFORMS")}, seen)

@jax.jit
def step(x):
    return jnp.tanh(x) * 2

def example_args():
    return {"step": (jnp.ones((8, 8)),)}
"""


def _plugin_site(root: Path) -> Path:
    site = root / "site"
    info = site / "hloscope_env_backend-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hloscope-env-backend\n")
    (info / "entry_points.txt").write_text("[hloscope.backends]\nenv = env_xla_backend:ROW\n")
    (site / "env_xla_backend.py").write_text(ENV_BACKEND)
    return site


@pytest.mark.parametrize("restart", [False, True], ids=["in-place", "read-at-start"])
def test_the_early_child_takes_the_devices_backend_environment_itself(tmp_path, restart):
    """The command starts its child before it loads the backend registry; the child takes the
    device's backend's environment first thing, and the script sees what a child started with
    it sees: a variable in place, and a PYTHONPATH the backend adds (read only as an interpreter
    starts: the child executes itself anew with it)."""
    needs_framework("jax")
    site = _plugin_site(tmp_path)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "only_on_the_backends_path.py").write_text("")
    _script(tmp_path, SEES_ITS_ENVIRONMENT)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "HLOSCOPE_CACHE": str(tmp_path / "cache"),
        "HLOSCOPE_TEST_SEEN": str(tmp_path / "seen.json"),
    }
    env.pop("HLOSCOPE_PRESTART", None)
    if restart:
        env["HLOSCOPE_TEST_EXTRA_PATH"] = str(extra)
    run = subprocess.run(
        [sys.executable, "-m", "hloscope", "summary", "prog.py:step", "--device", "h100"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "Env XLA" in " ".join(run.stderr.split())
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen == {
        "var": "the backend's",
        "extra": restart,
        "platforms": os.environ.get("JAX_PLATFORMS"),
    }
    (manifest_path,) = (tmp_path / "cache").glob("targets/prog.step*/manifest.json")
    assert json.loads(manifest_path.read_text())["prestarted"] is True


def test_the_early_child_is_started_before_the_backend_registry_loads(tmp_path):
    """What the command does before its child starts imports no backend (their registry and
    its plug-ins' entry points are the child's to load)."""
    code = (
        "import sys; from hloscope.capture import prestart; "
        "prestart.prestart(prestart.Warm.FUNCTION, 'tpu-v5e'); "
        "print(prestart._waiting is not None, "
        "sorted(m for m in sys.modules "
        "if m.startswith(('hloscope.backends', 'importlib.metadata'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split(None, 1) == ["True", "[]\n"]


# ---- the command's own end ---------------------------------------------------------------------

EXIT_WITH_A_THREAD = """
import sys, threading, time
from hloscope.cli._app import _exit_now

class Finalized:
    def __del__(self):
        print("finalized", flush=True)

kept = Finalized()
threading.Thread(target=time.sleep, args=(30,), daemon={daemon}).start()
print("done", flush=True)
_exit_now(SystemExit(0))
"""


@pytest.mark.parametrize("daemon", [True, False])
def test_the_command_ends_at_once_past_a_daemon_thread_not_past_another(daemon):
    """A daemon thread (the reaper of a capture's child that is still exiting) is not waited
    for either way out, so the command skips the interpreter's clean-up; another thread is
    waited for as a normal exit does."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = EXIT_WITH_A_THREAD.format(daemon=daemon)
    if not daemon:
        code = code.replace("args=(30,)", "args=(0.5,)")
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == (["done"] if daemon else ["done", "finalized"])
