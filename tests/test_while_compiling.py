"""A function capture's child does its after-the-compile work while the compile runs (issue 37,
Performance): the jaxpr's sources and the local modules' hashes, once the compile's private dump
folder appears in the runner's ``--scratch`` folder. What it writes is what it wrote after the
compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.capture.prestart import function_child_env
from hloscope.capture.while_compiling import WhileCompiling, local_modules

ROOT = Path(__file__).resolve().parent.parent


def test_the_work_starts_when_the_compile_dump_appears_and_in_a_thread(tmp_path):
    ran_in: list[str] = []

    def sources() -> str:
        ran_in.append(threading.current_thread().name)
        return "sources"

    meanwhile = WhileCompiling(str(tmp_path), sources, [str(tmp_path)])
    assert not meanwhile._stop.wait(0.1) and ran_in == []  # no compile yet: nothing done
    (tmp_path / "hloscope-capture-x").mkdir()  # the compile began
    deadline = time.monotonic() + 10
    while not ran_in and time.monotonic() < deadline:  # the compile runs on meanwhile
        time.sleep(0.01)
    meanwhile.stop()
    assert ran_in == ["hloscope-while-compiling"]
    assert meanwhile.sources_done and meanwhile.jaxpr_sources == "sources"


def test_a_compile_that_never_began_leaves_the_work_for_after(tmp_path):
    meanwhile = WhileCompiling(str(tmp_path), lambda: "never", [str(tmp_path)])
    meanwhile.stop()
    assert not meanwhile.sources_done
    # The modules are then hashed as they were before: all of them, now.
    assert meanwhile.local_modules() == local_modules([str(tmp_path)])


def test_modules_imported_after_the_compile_began_are_hashed_too(tmp_path, monkeypatch):
    user = tmp_path / "user"
    user.mkdir()
    (user / "early_mod.py").write_text("A = 1\n")
    (user / "late_mod.py").write_text("B = 2\n")
    monkeypatch.syspath_prepend(str(user))
    import early_mod  # noqa: F401

    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "hloscope-capture-x").mkdir()
    meanwhile = WhileCompiling(str(tmp_path / "scratch"), lambda: None, [str(user)])
    meanwhile.stop()
    import late_mod  # noqa: F401

    found = meanwhile.local_modules()
    names = [Path(p).name for p in found]
    assert "early_mod.py" in names and "late_mod.py" in names
    assert found == local_modules([str(user)])  # what hashing them all at the end gives
    assert list(found) == sorted(found)


PROGRAMS = {
    "mlp": """
        import jax, jax.numpy as jnp

        def helper(h, w):
            return jax.nn.gelu(h @ w)

        @jax.jit
        def step(w1, w2, x):
            h = helper(x, w1)
            return jnp.tanh(h @ w2).sum(axis=0)

        def example_args():
            f = jnp.bfloat16
            return {"step": (jnp.ones((128, 512), f), jnp.ones((512, 128), f),
                             jnp.ones((64, 128), f))}
        """,
    "scan": """
        import jax, jax.numpy as jnp

        def step(ws, x):
            def layer(h, w):
                return jnp.maximum(h @ w, 0.0), h.sum()
            return jax.lax.scan(layer, x, ws)

        def example_args():
            return {"step": (jnp.ones((3, 64, 64)), jnp.ones((32, 64)))}
        """,
}


def _run_runner(tmp_path: Path, script: Path, out: str, scratch: Path | None) -> dict:
    info = tmp_path / f"{out}.info.json"
    mode = ["--function", "step", "--save", str(tmp_path / out), "--device", "tpu-v5e"]
    if scratch is not None:
        scratch.mkdir()
        mode += ["--scratch", str(scratch)]
    command = [sys.executable, "-m", "hloscope.capture._runner", "--info", str(info), *mode]
    env = function_child_env("tpu-v5e", base={**os.environ, "PYTHONPATH": str(ROOT)})
    run = subprocess.run(
        [*command, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    return json.loads(info.read_text())


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_an_xla_tpu_capture_done_meanwhile_writes_what_it_wrote_after(tmp_path, program):
    needs_framework("jax")
    needs_libtpu()
    script = tmp_path / f"{program}.py"
    script.write_text(textwrap.dedent(PROGRAMS[program]))
    after = _run_runner(tmp_path, script, "after", None)
    meanwhile = _run_runner(tmp_path, script, "meanwhile", tmp_path / "scratch")
    assert meanwhile["local_modules"] == after["local_modules"]
    assert str(script) in meanwhile["local_modules"]
    sources = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*/jaxpr_sources.json"))]
    assert len(sources) == 2 and sources[0] == sources[1] and sources[0]
    optimized = [(tmp_path / d / "optimized_hlo.txt").read_text() for d in ("after", "meanwhile")]
    assert optimized[0] == optimized[1]
    assert list((tmp_path / "scratch").iterdir()) == []  # the compile's dump folder, removed
