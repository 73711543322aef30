"""``pip install hloscope`` (no extras) gives working offline commands and never pulls jax.

Builds one virtual environment for the module with a plain ``pip install <project>``, so the
dependencies are exactly ``[project].dependencies`` of pyproject.toml: if jax or TensorFlow ever
sneaks into the core, ``import jax`` succeeds there and the first test fails. Then runs the
offline commands on the committed samples and a dump folder of the corpus, and checks that
capturing says, in one line, which extra to install.

Slow (a venv and a pip install, about half a minute from pip's cache), so it is marked ``slow``
and skipped unless ``CI=true`` or ``HLOSCOPE_TEST_CORE_INSTALL=1``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import corpus_path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
HLO = SAMPLES / "hlo"
JAX_LINE = "jax is not installed: pip install 'hloscope[jax]'"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("CI") != "true" and os.environ.get("HLOSCOPE_TEST_CORE_INSTALL") != "1",
        reason="builds a virtual environment (set HLOSCOPE_TEST_CORE_INSTALL=1 or CI=true)",
    ),
]


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with ``pip install <project>`` and nothing else; returns its ``bin`` folder.

    Under pytest-xdist every worker would build its own; the venv lives in the folder the
    workers share (the parent of each worker's base temp) behind a file lock, so it is built
    once per run and the others wait for it.
    """
    import fcntl

    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")  # the same in every worker of one run
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if run_id else base
    venv = shared / f"hloscope-core-venv-{run_id or 'single'}"
    with open(f"{venv}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / "ok").is_file():
            _build_core_venv(venv)
            (venv / "ok").write_text("")
    return venv / "bin"


def _build_core_venv(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stdout + install.stderr


def run(bin_dir: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra_env)
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_core_install_has_no_framework(core_venv):
    code = (
        "import importlib.util as u\n"
        "for name in ('jax', 'jaxlib', 'tensorflow', 'keras', 'pandas'):\n"
        "    print(name, u.find_spec(name) is not None)\n"
    )
    result = run(core_venv, "python", "-I", "-c", code)
    assert result.stdout.split() == [
        "jax",
        "False",
        "jaxlib",
        "False",
        "tensorflow",
        "False",
        "keras",
        "False",
        "pandas",
        "False",
    ], result.stderr
    where = run(core_venv, "python", "-I", "-c", "import hloscope; print(hloscope.__file__)")
    assert str(core_venv.parent) in where.stdout, "hloscope must come from the venv"


@pytest.mark.parametrize(
    "args",
    [
        ("summary", str(HLO / "transformer_train.after_optimizations.txt")),
        ("summary", *map(str, sorted(HLO.glob("*.txt")))),
        ("fusions", str(HLO / "fusion_refactor_split.after_optimizations.txt")),
        (
            "diff",
            str(HLO / "fusion_refactor_fused.after_optimizations.txt"),
            str(HLO / "fusion_refactor_split.after_optimizations.txt"),
        ),
    ],
    ids=["summary", "summary-all", "fusions", "diff"],
)
def test_offline_commands_work_without_frameworks(core_venv, args):
    result = run(core_venv, "hloscope", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_graph_writes_dot_without_frameworks(core_venv, tmp_path):
    out = tmp_path / "x.dot"
    text = str(HLO / "fusion_refactor_fused.after_optimizations.txt")
    result = run(core_venv, "hloscope", "graph", text, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "digraph" in out.read_text()


def test_ls_of_a_dump_folder_without_frameworks(core_venv):
    dump = corpus_path() / "generated" / "jax_mlp_train"
    result = run(core_venv, "hloscope", "ls", "--wide", str(dump))
    assert result.returncode == 0, result.stderr
    assert "jit_" in result.stdout


def test_capture_names_the_extra(core_venv):
    code = (
        "import hloscope\n"
        "from hloscope.errors import HloscopeError\n"
        "try:\n"
        "    hloscope.capture(lambda x: x, 1.0)\n"
        "except HloscopeError as error:\n"
        "    print(error.one_line())\n"
    )
    result = run(core_venv, "python", "-I", "-c", code)
    assert result.stdout.strip() == JAX_LINE, result.stderr


def test_function_target_names_the_extra(core_venv, tmp_path):
    target = "samples/fusion_refactor.py:fused"
    result = run(core_venv, "hloscope", "fusions", target, HLOSCOPE_CACHE=str(tmp_path / "cache"))
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(JAX_LINE), result.stderr


def test_a_dataframe_without_pandas_names_the_extra(core_venv):
    sample = HLO / "fusion_refactor_split.after_optimizations.txt"
    code = (
        "import sys, hloscope\n"
        "from hloscope.errors import HloscopeError\n"
        "report = hloscope.fusion_report(sys.argv[1])\n"
        "print(len(report.rows()))\n"
        "try:\n"
        "    hloscope.fusions(sys.argv[1])\n"
        "except HloscopeError as error:\n"
        "    print(error.one_line())\n"
    )
    result = run(core_venv, "python", "-I", "-c", code, str(sample))
    rows, line = result.stdout.strip().splitlines()
    assert int(rows) > 0, result.stderr  # the report itself needs no pandas
    assert line == "pandas is not installed: pip install 'hloscope[dataframe]' for DataFrames"
