"""What capture says when jax or TensorFlow is missing or too old: one line naming the extra.

A missing framework is simulated in a child process, either with ``sys.modules["jax"] = None``
(what ``import jax`` then raises is exactly "not installed") or, where the child is started by
hloscope itself (a ``SCRIPT.py:FUNCTION`` target), with a ``jax`` package on ``PYTHONPATH`` whose
import fails the way a missing one does. ``tests/test_core_install.py`` checks the same in a real
virtual environment without jax.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.backends import frameworks
from hloscope.capture.errors import CaptureError
from hloscope.errors import HloscopeError

ROOT = Path(__file__).resolve().parent.parent
JAX_LINE = "jax is not installed: pip install 'hloscope[jax]'"
TF_LINE = "TensorFlow is not installed: pip install 'hloscope[tf]'"


def run_python(code: str, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


# ---- in this process: messages and version checks ------------------------------------------------


def test_missing_framework_is_a_one_line_capture_error():
    error = frameworks.MissingFramework("jax", frameworks.JAX_EXTRA)
    assert isinstance(error, CaptureError) and isinstance(error, HloscopeError)
    assert str(error) == error.one_line() == JAX_LINE


@pytest.mark.parametrize(
    "error, line",
    [
        (ModuleNotFoundError("No module named 'jax'", name="jax"), JAX_LINE),
        (ModuleNotFoundError("No module named 'jax.numpy'", name="jax.numpy"), JAX_LINE),
        (ModuleNotFoundError("No module named 'jaxlib'", name="jaxlib"), JAX_LINE),
        (
            ModuleNotFoundError("jax requires jaxlib to be installed. See ..."),
            "jax is installed without jaxlib: pip install 'hloscope[jax]'",
        ),
        (ModuleNotFoundError("No module named 'tensorflow'", name="tensorflow"), TF_LINE),
    ],
)
def test_import_errors_of_frameworks_are_recognised(error, line):
    assert str(frameworks.missing_framework(error)) == line


def test_other_import_errors_are_not_frameworks():
    assert frameworks.missing_framework(ModuleNotFoundError("x", name="flax")) is None
    with pytest.raises(ModuleNotFoundError), frameworks.explain_missing_frameworks():
        raise ModuleNotFoundError("No module named 'flax'", name="flax")


def test_explain_missing_frameworks_converts_the_scripts_import():
    with (
        pytest.raises(frameworks.MissingFramework, match="^TensorFlow is not installed"),
        frameworks.explain_missing_frameworks(),
    ):
        raise ModuleNotFoundError("No module named 'tensorflow'", name="tensorflow")


@pytest.mark.parametrize(
    "version, minimum, ok",
    [
        ("0.5.0", (0, 5, 0), True),
        ("0.10.2", (0, 5, 0), True),
        ("0.4.38", (0, 5, 0), False),
        ("0.5.0rc1", (0, 5, 0), True),
        ("2.16.1", (2, 16), True),
        ("2.15.1", (2, 16), False),
        ("", (0, 5, 0), True),
        ("dev", (2, 16), True),
    ],
)
def test_version_lower_bound(version, minimum, ok):
    if ok:
        frameworks.check_version("jax", version, minimum, frameworks.JAX_EXTRA)
    else:
        with pytest.raises(frameworks.UnsupportedFramework) as caught:
            frameworks.check_version("jax", version, minimum, frameworks.JAX_EXTRA)
        assert str(caught.value).startswith(f"jax {version} is older than hloscope supports (>= ")
        assert "pip install 'hloscope[jax]'" in str(caught.value)


def test_version_tuple():
    assert frameworks.version_tuple("0.4.30.dev20240601+cuda") == (0, 4, 30)
    assert frameworks.version_tuple("2.21.0rc0") == (2, 21, 0)
    assert frameworks.version_tuple("unknown") == ()


def test_installed_version_reads_metadata_only():
    assert frameworks.installed_version("no-such-distribution", "pytest") == pytest.__version__
    assert frameworks.installed_version("no-such-distribution") is None


def test_ranges_are_what_pyproject_promises():
    # The extras' lower bounds in pyproject.toml are the ones capture checks at run time.
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    dotted = ".".join(map(str, frameworks.JAX_MINIMUM))
    assert f"jax>={dotted}" in extras["jax"] and f"jaxlib>={dotted}" in extras["jax"]
    tf_min = ".".join(map(str, frameworks.TENSORFLOW_MINIMUM))
    assert any(r.startswith(f"tensorflow-cpu>={tf_min}") for r in extras["tf"]), extras["tf"]
    core = " ".join(project["dependencies"])
    assert "jax" not in core and "tensorflow" not in core


# ---- in a child: the real import machinery -------------------------------------------------------


def test_capture_without_jax_is_one_line():
    run = run_python(
        """
        import sys
        sys.modules["jax"] = None          # `import jax` now fails as if jax were absent
        import hloscope
        from hloscope.errors import HloscopeError
        try:
            hloscope.capture(lambda x: x, 1.0)
        except HloscopeError as error:
            print("ERROR", type(error).__name__, error.one_line())
        """
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"ERROR MissingFramework {JAX_LINE}"


def test_tf_function_without_tensorflow_is_one_line():
    run = run_python(
        """
        import sys
        sys.modules["tensorflow"] = None
        from hloscope.backends import frameworks
        try:
            frameworks.require_tensorflow()
        except frameworks.MissingFramework as error:
            print("ERROR", error)
        """
    )
    assert run.stdout.strip() == f"ERROR {TF_LINE}", run.stderr


def test_too_old_jax_is_one_line():
    run = run_python(
        """
        import sys, types
        sys.modules["jax"] = types.SimpleNamespace(__version__="0.4.26")   # an old jax
        from hloscope.backends import frameworks
        try:
            frameworks.require_jax()
        except frameworks.UnsupportedFramework as error:
            print("ERROR", error)
        """
    )
    assert run.stdout.strip() == (
        "ERROR jax 0.4.26 is older than hloscope supports (>= 0.5.0): "
        "pip install 'hloscope[jax]' upgrades it"
    ), run.stderr


@pytest.fixture()
def no_jax_path(tmp_path: Path) -> Path:
    """A folder that, first on ``PYTHONPATH``, makes ``import jax`` fail as a missing jax does."""
    package = tmp_path / "no-jax" / "jax"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'jax'\", name='jax')\n"
    )
    return package.parent


@pytest.mark.slow
def test_function_target_without_jax_is_one_line(no_jax_path, tmp_path):
    # The runner child imports the script (whose first line is `import jax`): its failure must
    # come back through the manifest as the one line, not as a ModuleNotFoundError location.
    env_code = f"""
        import os, sys, json
        os.environ["PYTHONPATH"] = {str(no_jax_path)!r} + os.pathsep + \
os.environ.get("PYTHONPATH", "")
        from hloscope.capture.script import capture_script
        run = capture_script({str(ROOT / "samples" / "fusion_refactor.py")!r}, [],
                             {str(tmp_path / "out")!r}, function="fused", force=True)
        print("OK", run.ok)
        print("LINE", run.error_line())
        print("USAGE", run.manifest.get("usage_error"))
        """
    run = run_python(env_code)
    assert run.returncode == 0, run.stderr
    lines = dict(line.split(" ", 1) for line in run.stdout.strip().splitlines())
    assert lines == {"OK": "False", "LINE": JAX_LINE, "USAGE": "True"}, run.stdout


def test_the_test_extra_spells_out_the_cloud_and_dask_extras():
    # The test extra lists the cloud and dask requirements itself (pip backtracks for many
    # minutes when they come through a second self-reference): they must stay the extras'
    # own, range for range, or the tests would run against versions users cannot install.
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    own = set(extras["test"])
    for requirement in extras["test"]:  # hloscope[jax,tf,dataframe]: those extras' too
        if requirement.startswith("hloscope["):
            for name in requirement.removeprefix("hloscope[").rstrip("]").split(","):
                own |= set(extras[name])
    for extra in ("cloud", "dask"):
        missing = set(extras[extra]) - own
        assert not missing, f"the test extra lacks {extra}'s {sorted(missing)}"
