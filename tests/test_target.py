"""TARGET resolution: HLO files, dump folders, SCRIPT.py and SCRIPT.py:FUNCTION (with the cache)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hloscope
from hloscope.backends.record import Capture
from hloscope.capture.errors import CaptureError
from hloscope.capture.target import Target, cache_root, target_cache_key

ROOT = Path(__file__).resolve().parent.parent

FUNCTIONS = """
import jax, jax.numpy as jnp

RAN_MAIN = False

def step(x, w):
    return jnp.tanh(x @ w)

EXAMPLE_ARGS = {"step": lambda: (jnp.ones((4, 8)), jnp.ones((8, 2)))}

def scaled(x, factor=2.0):
    return x * factor

scaled.example_args = {"x": jax.ShapeDtypeStruct((5,), jnp.float32)}

def constant():
    return jnp.arange(6.0).reshape(2, 3).sum(0)

def needs(x):
    return x

if __name__ == "__main__":
    raise SystemExit("the __main__ block must not run for a FUNCTION target")
"""

SCRIPT = """
import jax, jax.numpy as jnp
@jax.jit
def gamma(x):
    return jnp.cos(x) + 1
gamma(jnp.ones(4))
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("hloscope-cache")
    old = os.environ.get("HLOSCOPE_CACHE")
    os.environ["HLOSCOPE_CACHE"] = str(root)
    yield root
    if old is None:
        del os.environ["HLOSCOPE_CACHE"]
    else:
        os.environ["HLOSCOPE_CACHE"] = old


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scripts")
    (folder / "functions.py").write_text(textwrap.dedent(FUNCTIONS))
    (folder / "gamma.py").write_text(textwrap.dedent(SCRIPT))
    (folder / "broken.py").write_text("import sys\nraise RuntimeError('no luck')\n")
    return folder


@pytest.fixture(scope="module")
def first_script_capture(cache, scripts):
    return Target.resolve(str(scripts / "gamma.py"))


# ---- offline targets -----------------------------------------------------------------------------


def test_hlo_text_file(corpus):
    path = next(
        (corpus / "generated" / "jax_recompiles").glob(
            "module_0004.jit_norm.cpu_after_optimizations.txt"
        )
    )
    target = Target.resolve(str(path))
    assert target.kind == "hlo-file" and target.path == path
    (module,) = target.modules()
    assert module.name == "jit_norm"
    assert Target.resolve(path).modules()[0].to_text() == module.to_text()


def test_dump_folder_before_and_after(corpus):
    folder = corpus / "generated" / "jax_recompiles"
    target = Target.resolve(folder)
    assert target.kind == "dump"
    index = hloscope.load_dump(folder)
    before = target.modules("before")
    after = target.modules("after")
    assert [m.name for m in before] == [m.name for m in index.modules if m.before_file]
    assert [m.name for m in before].count("jit_norm") == 4  # one function, four compiles
    assert len(after) == len([m for m in index.modules if m.after_file])
    assert any(i.opcode == "fusion" for m in after for i in m.instructions())
    with pytest.raises(CaptureError, match="unknown stage"):
        target.modules("sideways")


def test_offline_targets_do_not_import_jax_or_tensorflow(corpus):
    folder = corpus / "generated" / "jax_recompiles"
    text = next(folder.glob("*.before_optimizations.txt"))
    code = (
        "import sys, hloscope\n"
        f"hloscope.Target.resolve({str(folder)!r}).modules(); "
        f"hloscope.Target.resolve({str(text)!r}).modules('before')\n"
        "print(sorted(m for m in ('jax', 'jaxlib', 'tensorflow') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_saved_capture_folder(tmp_path):
    jnp = pytest.importorskip("jax.numpy")
    hloscope.capture(jnp.sin, jnp.ones(3)).save(tmp_path / "cap")
    target = Target.resolve(tmp_path / "cap")
    assert target.kind == "capture"
    assert target.modules("before")[0].name == "jit_sin"


def test_missing_targets_are_one_line_errors(tmp_path):
    with pytest.raises(CaptureError, match=r"nope\.hlo: no such file or folder"):
        Target.resolve(tmp_path / "nope.hlo")
    with pytest.raises(CaptureError, match=r"nope\.py: no such file$"):
        Target.resolve(f"{tmp_path / 'nope.py'}:step")


# ---- script targets and the cache ----------------------------------------------------------------


def test_script_target_is_captured_into_the_cache(first_script_capture, cache):
    target = first_script_capture
    assert target.kind == "script" and not target.from_cache
    assert target.output_dir.parent == cache / "targets"
    assert target.path == target.output_dir / "dump"
    assert "jit_gamma" in [m.name for m in target.modules()]
    assert target.manifest["exit_status"] == 0


def test_second_resolution_is_a_cache_hit(first_script_capture, scripts):
    # How much faster the hit is than the first capture is measured in
    # benchmarks/bench_small_speeds.py.
    first = first_script_capture
    again = Target.resolve(str(scripts / "gamma.py"))
    assert again.from_cache and again.output_dir == first.output_dir
    assert again.manifest["start_time"] == first.manifest["start_time"]  # nothing reran


def test_cache_key_follows_content_arguments_and_flags(scripts, tmp_path, monkeypatch):
    script = tmp_path / "s.py"
    script.write_text("print(1)\n")
    base = target_cache_key(script, (), None)
    assert target_cache_key(script, (), None) == base
    assert target_cache_key(script, ("--big",), None) != base
    assert target_cache_key(script, (), "f") != base
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=true")
    assert target_cache_key(script, (), None) != base
    monkeypatch.delenv("XLA_FLAGS")
    script.write_text("print(2)\n")
    assert target_cache_key(script, (), None) != base


def test_cache_root_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("HLOSCOPE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "hloscope"


def test_failing_script_target_is_not_cached(cache, scripts):
    for _ in range(2):  # the second call runs again (and fails again) rather than reusing
        with pytest.raises(CaptureError) as info:
            Target.resolve(str(scripts / "broken.py"))
        assert f"{scripts / 'broken.py'}:2: RuntimeError: no luck" in str(info.value)
        assert "\n" not in str(info.value)
    failed = Path(info.value.output_dir)
    assert failed.name.endswith(".failed") and (failed / "stderr.txt").is_file()
    assert not failed.with_name(failed.name[: -len(".failed")]).exists()


# ---- SCRIPT.py:FUNCTION --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "root_shape"),
    [("step", "f32[4,2]"), ("scaled", "f32[5]"), ("constant", "f32[3]")],
    ids=["EXAMPLE_ARGS", "function.example_args", "no-arguments"],
)
def test_function_target_conventions(cache, scripts, function, root_shape):
    target = Target.resolve(f"{scripts / 'functions.py'}:{function}")
    assert target.kind == "function" and target.function == function
    capture = target.capture()
    assert capture.name == f"jit_{function}"
    assert list(capture.stages) == ["jaxpr", "stablehlo", "hlo", "optimized_hlo"]
    (module,) = Target.resolve(f"{scripts / 'functions.py'}:{function}").modules("before")
    assert module.entry.root.shape_text.startswith(root_shape)
    assert Capture.is_saved(target.path)


def test_function_target_second_call_is_cached(cache, scripts):
    spec = f"{scripts / 'functions.py'}:step"
    first = Target.resolve(spec)
    again = Target.resolve(spec)
    assert again.from_cache and again.path == first.path


def test_function_without_example_arguments_explains_the_convention(cache, scripts):
    with pytest.raises(CaptureError) as info:
        Target.resolve(f"{scripts / 'functions.py'}:needs")
    message = str(info.value)
    assert message.startswith(f"{scripts / 'functions.py'}:needs needs example arguments")
    assert "needs.example_args" in message and "EXAMPLE_ARGS" in message
    assert "EXAMPLE_ARGS" in info.value.detail and "example_args()" in info.value.detail


def test_unknown_function_lists_the_scripts_functions(cache, scripts):
    with pytest.raises(
        CaptureError,
        match=r"has no function 'nothere' \(functions: constant, needs, scaled, step\)",
    ):
        Target.resolve(f"{scripts / 'functions.py'}:nothere")


def test_function_target_manifest(cache, scripts):
    target = Target.resolve(f"{scripts / 'functions.py'}:step")
    manifest = json.loads((target.output_dir / "manifest.json").read_text())
    assert manifest["function"] == "step" and manifest["exit_status"] == 0
    assert manifest["dump_dir"] is None  # a function capture keeps its own stages, not a dump
